package main

// The wire rendering of a Request in OpenAI Responses (POST /v1/responses).

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
