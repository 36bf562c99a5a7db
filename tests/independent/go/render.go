package main

// Rendering a Request in a provider's wire format. Bodies are built the way Go code
// usually builds JSON: map[string]any (encoding/json writes its keys sorted), structs
// with omitempty where a field is optional, json.Marshal with its default HTML escaping.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
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

// ---------------------------------------------------------------- anthropic

type anthropicTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"input_schema"`
}

var ephemeral = map[string]any{"type": "ephemeral"}

func markLast(blocks []any) {
	for i := len(blocks) - 1; i >= 0; i-- {
		block, ok := blocks[i].(map[string]any)
		if !ok {
			continue // a verbatim block is sent as it is
		}
		switch block["type"] {
		case "thinking", "redacted_thinking":
			continue
		}
		block["cache_control"] = ephemeral
		return
	}
}

func renderAnthropic(r *Request) map[string]any {
	body := map[string]any{"max_tokens": 4096}
	s := r.Settings
	if s.Model != "" {
		body["model"] = s.Model
	}
	if s.MaxOutputTokens != nil {
		body["max_tokens"] = *s.MaxOutputTokens
	}
	if s.Temperature != nil {
		body["temperature"] = *s.Temperature
	}
	if s.TopP != nil {
		body["top_p"] = *s.TopP
	}
	if s.TopK != nil {
		body["top_k"] = *s.TopK
	}
	if len(s.Stop) > 0 {
		body["stop_sequences"] = s.Stop
	}
	if t := s.Thinking; t != nil && (t.Mode != "" || t.BudgetTokens != nil) {
		thinking := map[string]any{"type": "enabled"}
		if t.Mode != "" {
			thinking["type"] = t.Mode
		}
		if t.BudgetTokens != nil {
			thinking["budget_tokens"] = *t.BudgetTokens
		}
		body["thinking"] = thinking
	}
	if c := s.ToolChoice; c != nil {
		switch c.Mode {
		case "auto", "none":
			body["tool_choice"] = map[string]any{"type": c.Mode}
		case "required":
			body["tool_choice"] = map[string]any{"type": "any"}
		case "tool":
			if len(c.Names) > 0 {
				body["tool_choice"] = map[string]any{"type": "tool", "name": c.Names[0]}
			}
		}
	}
	if o := s.OutputSchema; o != nil {
		body["output_format"] = map[string]any{"type": "json_schema", "schema": o.Schema}
	}
	putExtra(body, s, "anthropic")
	if len(r.System) > 0 {
		var system []any
		for _, t := range r.System {
			system = append(system, map[string]any{"type": "text", "text": t})
		}
		markLast(system)
		body["system"] = system
	}
	if len(r.Tools) > 0 {
		var tools []anthropicTool
		for _, t := range r.Tools {
			schema := t.Parameters
			if schema == nil {
				schema = map[string]any{"type": "object", "properties": map[string]any{}}
			}
			tools = append(tools, anthropicTool{t.Name, t.Description, schema})
		}
		body["tools"] = tools
	}
	messages := []any{}
	for i, m := range r.Messages {
		blocks := anthropicBlocks(r, m)
		if i == r.MarkAt || i == len(r.Messages)-1 {
			markLast(blocks)
		}
		role := map[string]string{"user": "user", "model": "assistant", "system": "system"}[m.Role]
		messages = append(messages, map[string]any{"role": role, "content": blocks})
	}
	body["messages"] = messages
	return body
}

func anthropicBlocks(r *Request, m Message) []any {
	var results, others []any
	for _, p := range m.Parts {
		switch {
		case p.Text != nil:
			others = append(others, map[string]any{"type": "text", "text": *p.Text})
		case p.Thinking != nil:
			if p.Thinking.Redacted {
				others = append(others, map[string]any{"type": "redacted_thinking", "data": p.Thinking.Text})
			} else {
				block := map[string]any{"type": "thinking", "thinking": p.Thinking.Text}
				if p.Thinking.Signature != "" {
					block["signature"] = p.Thinking.Signature
				}
				others = append(others, block)
			}
		case p.Call != nil:
			others = append(others, map[string]any{
				"type": "tool_use", "id": p.Call.WireID, "name": p.Call.Name, "input": r.args(p.Call),
			})
		case p.Response != nil:
			block := map[string]any{"type": "tool_result", "tool_use_id": p.Response.WireID}
			if v, ok := p.Response.Response.(string); ok || isBlockList(p.Response.Response) {
				_ = v
				block["content"] = p.Response.Response
			} else {
				block["content"] = compact(p.Response.Response)
			}
			if p.Response.IsError {
				block["is_error"] = true
			}
			results = append(results, block)
		case p.Image != nil:
			source := map[string]any{"type": "url", "url": p.Image.URL}
			if p.Image.URL == "" {
				source = map[string]any{"type": "base64", "media_type": p.Image.MimeType, "data": p.Image.Data}
			}
			others = append(others, map[string]any{"type": "image", "source": source})
		case p.Opaque != nil:
			if p.Opaque.Dialect == "anthropic" {
				others = append(others, p.Opaque.Value) // verbatim, its key order kept
			} else {
				others = append(others, map[string]any{"type": "text", "text": opaqueText(p.Opaque)})
			}
		}
	}
	return append(results, others...)
}

// ---------------------------------------------------------------- openai (chat completions)

type openAIFunction struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

type openAITool struct {
	Type     string         `json:"type"`
	Function openAIFunction `json:"function"`
}

func renderOpenAI(r *Request) map[string]any {
	body := map[string]any{}
	s := r.Settings
	if s.Model != "" {
		body["model"] = s.Model
	}
	if s.Temperature != nil {
		body["temperature"] = *s.Temperature
	}
	if s.TopP != nil {
		body["top_p"] = *s.TopP
	}
	if s.MaxOutputTokens != nil {
		body["max_completion_tokens"] = *s.MaxOutputTokens
	}
	if len(s.Stop) > 0 {
		body["stop"] = s.Stop
	}
	if s.Thinking != nil && s.Thinking.Effort != "" {
		body["reasoning_effort"] = s.Thinking.Effort
	}
	if c := s.ToolChoice; c != nil {
		switch {
		case c.Mode == "tool" && len(c.Names) > 0:
			body["tool_choice"] = map[string]any{"type": "function", "function": map[string]any{"name": c.Names[0]}}
		case (c.Mode == "auto" || c.Mode == "required") && len(c.Names) > 0:
			var tools []any
			for _, n := range c.Names {
				tools = append(tools, map[string]any{"type": "function", "function": map[string]any{"name": n}})
			}
			body["tool_choice"] = map[string]any{"type": "allowed_tools",
				"allowed_tools": map[string]any{"mode": c.Mode, "tools": tools}}
		case c.Mode != "tool":
			body["tool_choice"] = c.Mode
		}
	}
	if o := s.OutputSchema; o != nil {
		schema := map[string]any{"name": "output", "schema": o.Schema}
		if o.Name != "" {
			schema["name"] = o.Name
		}
		if o.Strict != nil {
			schema["strict"] = *o.Strict
		}
		body["response_format"] = map[string]any{"type": "json_schema", "json_schema": schema}
	}
	putExtra(body, s, "openai")
	if len(r.Tools) > 0 {
		var tools []openAITool
		for _, t := range r.Tools {
			tools = append(tools, openAITool{"function", openAIFunction{t.Name, t.Description, t.Parameters}})
		}
		body["tools"] = tools
	}
	messages := []any{}
	for _, t := range r.System {
		messages = append(messages, map[string]any{"role": "system", "content": t})
	}
	for _, m := range r.Messages {
		messages = append(messages, openAIMessages(r, m)...)
	}
	body["messages"] = messages
	return body
}

func openAIPart(p Part) any {
	switch {
	case p.Text != nil:
		return map[string]any{"type": "text", "text": *p.Text}
	case p.Thinking != nil && !p.Thinking.Redacted:
		return map[string]any{"type": "text", "text": p.Thinking.Text}
	case p.Image != nil:
		url := p.Image.URL
		if url == "" {
			url = "data:" + p.Image.MimeType + ";base64," + p.Image.Data
		}
		image := map[string]any{"url": url}
		if p.Image.Detail != "" {
			image["detail"] = p.Image.Detail
		}
		return map[string]any{"type": "image_url", "image_url": image}
	case p.Opaque != nil:
		if p.Opaque.Dialect == "openai" {
			return p.Opaque.Value
		}
		return map[string]any{"type": "text", "text": opaqueText(p.Opaque)}
	}
	return nil
}

// content: one text part as a string, several parts as a list, none: nil.
func openAIContent(parts []Part) any {
	if len(parts) == 1 && parts[0].Text != nil {
		return *parts[0].Text
	}
	var out []any
	for _, p := range parts {
		if v := openAIPart(p); v != nil {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func openAIMessages(r *Request, m Message) []any {
	var out []any
	switch m.Role {
	case "model":
		msg := map[string]any{"role": "assistant"}
		var content []Part
		var reasoning []string
		var calls []any
		for _, p := range m.Parts {
			switch {
			case p.Call != nil:
				calls = append(calls, map[string]any{"id": p.Call.WireID, "type": "function",
					"function": map[string]any{"name": p.Call.Name, "arguments": compact(r.args(p.Call))}})
			case p.Thinking != nil:
				if !p.Thinking.Redacted {
					reasoning = append(reasoning, p.Thinking.Text)
				}
			default:
				content = append(content, p)
			}
		}
		if c := openAIContent(content); c != nil {
			msg["content"] = c
		}
		if len(reasoning) > 0 {
			msg["reasoning_content"] = strings.Join(reasoning, "\n")
		}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		return append(out, msg)
	case "user":
		var rest []Part
		for _, p := range m.Parts {
			if p.Response == nil {
				rest = append(rest, p)
				continue
			}
			content, ok := p.Response.Response.(string)
			if !ok {
				content = compact(p.Response.Response)
			}
			out = append(out, map[string]any{"role": "tool", "tool_call_id": p.Response.WireID, "content": content})
		}
		if c := openAIContent(rest); c != nil {
			out = append(out, map[string]any{"role": "user", "content": c})
		}
		return out
	default:
		return append(out, map[string]any{"role": "system", "content": openAIContent(m.Parts)})
	}
}

// ---------------------------------------------------------------- gemini

type geminiDeclaration struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

type geminiCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args,omitempty"`
}

type geminiCallReversed struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args reversedObject `json:"args,omitempty"`
}

type geminiResponse struct {
	ID       string `json:"id,omitempty"`
	Name     string `json:"name"`
	Response any    `json:"response"`
}

type geminiThinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int64 `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

type geminiGenerationConfig struct {
	Temperature      *float64              `json:"temperature,omitempty"`
	TopP             *float64              `json:"topP,omitempty"`
	TopK             *int64                `json:"topK,omitempty"`
	MaxOutputTokens  *int64                `json:"maxOutputTokens,omitempty"`
	StopSequences    []string              `json:"stopSequences,omitempty"`
	ResponseMimeType string                `json:"responseMimeType,omitempty"`
	ResponseSchema   map[string]any        `json:"responseSchema,omitempty"`
	ThinkingConfig   *geminiThinkingConfig `json:"thinkingConfig,omitempty"`
}

func renderGemini(r *Request) map[string]any {
	body := map[string]any{}
	s := r.Settings
	config := geminiGenerationConfig{Temperature: s.Temperature, TopP: s.TopP, TopK: s.TopK,
		MaxOutputTokens: s.MaxOutputTokens, StopSequences: s.Stop}
	if o := s.OutputSchema; o != nil {
		config.ResponseMimeType, config.ResponseSchema = "application/json", o.Schema
	}
	if t := s.Thinking; t != nil {
		tc := &geminiThinkingConfig{IncludeThoughts: t.IncludeThoughts, ThinkingBudget: t.BudgetTokens, ThinkingLevel: t.Effort}
		if tc.ThinkingBudget == nil {
			var budget int64 = -2
			switch t.Mode {
			case "disabled":
				budget = 0
			case "adaptive":
				budget = -1
			}
			if budget > -2 {
				tc.ThinkingBudget = &budget
			}
		}
		if *tc != (geminiThinkingConfig{}) {
			config.ThinkingConfig = tc
		}
	}
	if b, _ := json.Marshal(config); string(b) != "{}" {
		body["generationConfig"] = config
	}
	if c := s.ToolChoice; c != nil {
		mode := map[string]string{"auto": "AUTO", "none": "NONE", "required": "ANY", "tool": "ANY"}[c.Mode]
		fc := map[string]any{"mode": mode}
		if c.Mode == "tool" && len(c.Names) > 0 {
			fc["allowedFunctionNames"] = c.Names[:1]
		} else if c.Mode != "none" && len(c.Names) > 0 {
			fc["allowedFunctionNames"] = c.Names
		}
		body["toolConfig"] = map[string]any{"functionCallingConfig": fc}
	}
	putExtra(body, s, "gemini")
	if len(r.System) > 0 {
		var parts []any
		for _, t := range r.System {
			parts = append(parts, map[string]any{"text": t})
		}
		body["systemInstruction"] = map[string]any{"parts": parts}
	}
	if len(r.Tools) > 0 {
		var decls []geminiDeclaration
		for _, t := range r.Tools {
			decls = append(decls, geminiDeclaration{t.Name, t.Description, t.Parameters})
		}
		body["tools"] = []any{map[string]any{"functionDeclarations": decls}}
	}
	contents := []any{}
	for _, m := range r.Messages {
		role := "user"
		if m.Role == "model" {
			role = "model"
		}
		var parts []any
		for _, p := range m.Parts {
			parts = append(parts, geminiPart(r, p))
		}
		contents = append(contents, map[string]any{"role": role, "parts": parts})
	}
	body["contents"] = contents
	return body
}

func geminiPart(r *Request, p Part) any {
	switch {
	case p.Text != nil:
		return map[string]any{"text": *p.Text}
	case p.Thinking != nil:
		part := map[string]any{"text": p.Thinking.Text, "thought": true}
		if p.Thinking.Signature != "" && !p.Thinking.Redacted {
			part["thoughtSignature"] = p.Thinking.Signature
		}
		return part
	case p.Call != nil:
		var call any = geminiCall{p.Call.ID, p.Call.Name, p.Call.Args}
		if r.ReversedArgs {
			call = geminiCallReversed{p.Call.ID, p.Call.Name, reversedObject(p.Call.Args)}
		}
		part := map[string]any{"functionCall": call}
		if p.Call.Signature != "" {
			part["thoughtSignature"] = p.Call.Signature
		}
		return part
	case p.Response != nil:
		response := p.Response.Response
		if _, isObject := response.(map[string]any); !isObject {
			response = map[string]any{"output": response}
		}
		if p.Response.IsError {
			response = map[string]any{"error": p.Response.Response}
		}
		return map[string]any{"functionResponse": geminiResponse{p.Response.ID, p.Response.Name, response}}
	case p.Image != nil:
		var part map[string]any
		if p.Image.URL != "" {
			file := map[string]any{"fileUri": p.Image.URL}
			if p.Image.MimeType != "" {
				file["mimeType"] = p.Image.MimeType
			}
			part = map[string]any{"fileData": file}
		} else {
			part = map[string]any{"inlineData": map[string]any{"mimeType": p.Image.MimeType, "data": p.Image.Data}}
		}
		if d := p.Image.Detail; d != "" && d != "auto" {
			part["mediaResolution"] = map[string]any{"level": "MEDIA_RESOLUTION_" + strings.ToUpper(d)}
		}
		return part
	case p.Opaque != nil:
		if p.Opaque.Dialect == "gemini" {
			return p.Opaque.Value
		}
		return map[string]any{"text": opaqueText(p.Opaque)}
	}
	return map[string]any{}
}

// ---------------------------------------------------------------- openai-responses

type responsesTool struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

var responsesPartTypes = map[string]bool{
	"input_text": true, "input_image": true, "input_file": true, "input_audio": true,
	"output_text": true, "refusal": true,
}

func renderResponses(r *Request) map[string]any {
	body := map[string]any{}
	s := r.Settings
	if s.Model != "" {
		body["model"] = s.Model
	}
	if s.Temperature != nil {
		body["temperature"] = *s.Temperature
	}
	if s.TopP != nil {
		body["top_p"] = *s.TopP
	}
	if s.MaxOutputTokens != nil {
		body["max_output_tokens"] = *s.MaxOutputTokens
	}
	if s.Thinking != nil && s.Thinking.Effort != "" {
		body["reasoning"] = map[string]any{"effort": s.Thinking.Effort}
	}
	if c := s.ToolChoice; c != nil {
		switch {
		case c.Mode == "tool" && len(c.Names) > 0:
			body["tool_choice"] = map[string]any{"type": "function", "name": c.Names[0]}
		case (c.Mode == "auto" || c.Mode == "required") && len(c.Names) > 0:
			var tools []any
			for _, n := range c.Names {
				tools = append(tools, map[string]any{"type": "function", "name": n})
			}
			body["tool_choice"] = map[string]any{"type": "allowed_tools", "mode": c.Mode, "tools": tools}
		case c.Mode != "tool":
			body["tool_choice"] = c.Mode
		}
	}
	if o := s.OutputSchema; o != nil {
		format := map[string]any{"type": "json_schema", "name": "output", "schema": o.Schema}
		if o.Name != "" {
			format["name"] = o.Name
		}
		if o.Strict != nil {
			format["strict"] = *o.Strict
		}
		body["text"] = map[string]any{"format": format}
	}
	putExtra(body, s, "openai-responses")
	input := []any{}
	if len(r.System) > 0 {
		body["instructions"] = r.System[0]
		if len(r.System) > 1 {
			var content []any
			for _, t := range r.System[1:] {
				content = append(content, map[string]any{"type": "input_text", "text": t})
			}
			input = append(input, map[string]any{"type": "message", "role": "developer", "content": content})
		}
	}
	if len(r.Tools) > 0 {
		var tools []responsesTool
		for _, t := range r.Tools {
			tools = append(tools, responsesTool{"function", t.Name, t.Description, t.Parameters})
		}
		body["tools"] = tools
	}
	for _, m := range r.Messages {
		input = append(input, responsesItems(r, m)...)
	}
	body["input"] = input
	return body
}

func responsesPart(p Part, textType string) any {
	switch {
	case p.Text != nil:
		return map[string]any{"type": textType, "text": *p.Text}
	case p.Thinking != nil:
		return map[string]any{"type": textType, "text": p.Thinking.Text}
	case p.Image != nil:
		url := p.Image.URL
		if url == "" {
			url = "data:" + p.Image.MimeType + ";base64," + p.Image.Data
		}
		image := map[string]any{"type": "input_image", "image_url": url}
		if p.Image.Detail != "" {
			image["detail"] = p.Image.Detail
		}
		return image
	case p.Opaque != nil:
		return map[string]any{"type": textType, "text": opaqueText(p.Opaque)}
	}
	return nil
}

func responsesItems(r *Request, m Message) []any {
	var items []any
	role, textType := "user", "input_text"
	switch m.Role {
	case "model":
		role, textType = "assistant", "output_text"
	case "system":
		role = "developer"
	}
	var content []any
	flush := func() {
		if len(content) > 0 {
			items = append(items, map[string]any{"type": "message", "role": role, "content": content})
			content = nil
		}
	}
	var outputs []any
	for _, p := range m.Parts {
		switch {
		case p.Response != nil:
			output := p.Response.Response
			if _, ok := output.(string); !ok && !isBlockList(output) {
				output = compact(output)
			}
			outputs = append(outputs, map[string]any{"type": "function_call_output", "call_id": p.Response.WireID, "output": output})
		case p.Call != nil:
			flush()
			items = append(items, map[string]any{"type": "function_call", "call_id": p.Call.WireID,
				"name": p.Call.Name, "arguments": compact(r.args(p.Call))})
		case p.Thinking != nil && m.Role == "model":
			flush()
			reasoning := map[string]any{"type": "reasoning", "summary": []any{}}
			if p.Thinking.Redacted {
				reasoning["encrypted_content"] = p.Thinking.Text
			} else {
				reasoning["summary"] = []any{map[string]any{"type": "summary_text", "text": p.Thinking.Text}}
				if p.Thinking.Signature != "" {
					reasoning["encrypted_content"] = p.Thinking.Signature
				}
			}
			items = append(items, reasoning)
		case p.Opaque != nil && p.Opaque.Dialect == "openai-responses":
			if responsesPartTypes[opaqueType(p.Opaque)] {
				content = append(content, p.Opaque.Value)
			} else {
				flush()
				items = append(items, p.Opaque.Value)
			}
		default:
			if v := responsesPart(p, textType); v != nil {
				content = append(content, v)
			}
		}
	}
	flush()
	return append(outputs, items...)
}
