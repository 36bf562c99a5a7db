package main

// Rendering a Request in a provider's wire format. Bodies are built the way Go code
// usually builds JSON: map[string]any (encoding/json writes its keys sorted), structs
// with omitempty where a field is optional, json.Marshal with its default HTML escaping.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

var dialects = map[string]func(*Request) map[string]any{
	"anthropic":        renderAnthropic,
	"gemini":           renderGemini,
	"openai":           renderOpenAI,
	"openai-responses": renderResponses,
}

func dialectNames() []string {
	var names []string
	for name := range dialects {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func render(dialect string, r *Request) (string, error) {
	if r == nil {
		return "", nil
	}
	body, err := json.Marshal(dialects[dialect](r))
	if err != nil {
		return "", err
	}
	return string(body), nil
}

// reversedObject writes its keys in reverse order (the planted bug args-order).
type reversedObject map[string]any

func (o reversedObject) MarshalJSON() ([]byte, error) {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(keys)))
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(o[k])
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func (r *Request) args(c *Call) any {
	if c.Args == nil {
		return map[string]any{}
	}
	if r.ReversedArgs {
		return reversedObject(c.Args)
	}
	return c.Args
}

// compact is json.Marshal's text of a value: sorted keys, HTML-escaped.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// opaqueText is an opaque block's value as compact JSON text, its key order kept.
func opaqueText(o *Opaque) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, o.Value); err != nil {
		return string(o.Value)
	}
	return buf.String()
}

func opaqueType(o *Opaque) string {
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(o.Value, &head)
	return head.Type
}

// isBlockList: a tool result that is a list of typed blocks is sent as it is.
func isBlockList(v any) bool {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return false
	}
	for _, item := range list {
		obj, ok := item.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := obj["type"].(string); !ok {
			return false
		}
	}
	return true
}

func putExtra(body map[string]any, s Settings, dialect string) {
	for k, v := range s.Extra[dialect] {
		body[k] = v
	}
}
