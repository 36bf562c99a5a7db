package main

// The wire rendering of a Request in Anthropic Messages (POST /v1/messages).

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
