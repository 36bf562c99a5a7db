package main

// The wire rendering of a Request in OpenAI chat completions (POST /v1/chat/completions).

import (
	"strings"
)

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
