package main

// The wire rendering of a Request in Gemini generateContent (POST /v1beta/models/{model}:generateContent); the model is in the URL.

import (
	"encoding/json"
	"strings"
)

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
