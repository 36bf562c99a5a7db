package main

// The scenario of an assemble, read into the runtime's own conversation model.
//
// A Go runtime holds free-form JSON (tool schemas, call arguments, tool results) as
// map[string]any, the way encoding/json hands it over: numbers keep their text
// (UseNumber), object keys come back sorted when the value is written again. Opaque
// provider blocks must be sent verbatim, so they stay json.RawMessage.

import (
	"bytes"
	"encoding/json"
	"fmt"
)

type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any // nil: none given
}

type ToolChoice struct {
	Mode  string
	Names []string
}

type Thinking struct {
	Mode            string
	BudgetTokens    *int64
	Effort          string
	IncludeThoughts bool
}

type OutputSchema struct {
	Schema map[string]any
	Name   string
	Strict *bool
}

type Settings struct {
	Model           string
	Temperature     *float64
	TopP            *float64
	TopK            *int64
	MaxOutputTokens *int64
	Stop            []string
	Thinking        *Thinking
	ToolChoice      *ToolChoice
	OutputSchema    *OutputSchema
	Extra           map[string]map[string]any
}

type Call struct {
	ID        string // as the model sent it ("" when it sent none)
	WireID    string // ID, or one the runtime made up for dialects that need one
	Name      string
	Args      map[string]any
	Signature string
}

type Response struct {
	ID       string
	WireID   string
	Name     string
	Response any
	IsError  bool
}

type ThinkingPart struct {
	Text      string
	Signature string
	Redacted  bool
}

type Image struct {
	MimeType string
	Data     string
	URL      string
	Detail   string
}

type Opaque struct {
	Kind    string
	Dialect string
	Value   json.RawMessage
}

// Part is one piece of a message; exactly one field is set.
type Part struct {
	Text     *string
	Call     *Call
	Response *Response
	Thinking *ThinkingPart
	Image    *Image
	Opaque   *Opaque
}

type Message struct {
	Role  string // user, model, system
	Parts []Part
}

func (m Message) Calls() []*Call {
	var calls []*Call
	for _, p := range m.Parts {
		if p.Call != nil {
			calls = append(calls, p.Call)
		}
	}
	return calls
}

type FollowUp struct {
	Reply   Message
	Message Message
}

type Continuation struct {
	Task          string
	ParentID      string
	ToolFilter    []string
	HasToolFilter bool
	Persona       []string
	HasPersona    bool
	OutputTool    *Tool
	OutputSection string
	FollowUps     []FollowUp
}

type Scenario struct {
	ID             string
	Action         string
	ForkTool       string
	Snapshot       bool
	KnownForkChild bool
	Directives     []string
	Prompt         string
	Answer         string
	Continuation   *Continuation
	System         []string
	Tools          []Tool
	Settings       Settings
	DefaultTools   []Tool
	History        []Message
}

// ---- the wire form of a scenario (docs/protocol.md, scenario.schema.json) ----

type wireTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

type wireSettings struct {
	Model           string   `json:"model"`
	Temperature     *float64 `json:"temperature"`
	TopP            *float64 `json:"top_p"`
	TopK            *int64   `json:"top_k"`
	MaxOutputTokens *int64   `json:"max_output_tokens"`
	Stop            []string `json:"stop"`
	Thinking        *struct {
		Mode            string `json:"mode"`
		BudgetTokens    *int64 `json:"budget_tokens"`
		Effort          string `json:"effort"`
		IncludeThoughts bool   `json:"include_thoughts"`
	} `json:"thinking"`
	ToolChoice *struct {
		Mode  string   `json:"mode"`
		Names []string `json:"names"`
	} `json:"tool_choice"`
	OutputSchema *struct {
		Schema map[string]any `json:"schema"`
		Name   string         `json:"name"`
		Strict *bool          `json:"strict"`
	} `json:"output_schema"`
	Extra map[string]map[string]any `json:"extra"`
}

type wirePart struct {
	Text         *string `json:"text"`
	FunctionCall *struct {
		ID        string         `json:"id"`
		Name      string         `json:"name"`
		Args      map[string]any `json:"args"`
		Signature string         `json:"signature"`
	} `json:"function_call"`
	FunctionResponse *struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Response any    `json:"response"`
		IsError  bool   `json:"is_error"`
	} `json:"function_response"`
	Thinking *struct {
		Text      string `json:"text"`
		Signature string `json:"signature"`
		Redacted  bool   `json:"redacted"`
	} `json:"thinking"`
	Image *struct {
		MimeType string `json:"mime_type"`
		Data     string `json:"data"`
		URL      string `json:"url"`
		Detail   string `json:"detail"`
	} `json:"image"`
	Opaque *struct {
		Kind    string          `json:"kind"`
		Dialect string          `json:"dialect"`
		Value   json.RawMessage `json:"value"`
	} `json:"opaque"`
}

type wireMessage struct {
	Role  string     `json:"role"`
	Parts []wirePart `json:"parts"`
}

type wireScenario struct {
	ID             string     `json:"id"`
	Action         string     `json:"action"`
	ForkTool       string     `json:"fork_tool"`
	Snapshot       *bool      `json:"snapshot"`
	KnownForkChild bool       `json:"known_fork_child"`
	Directives     []string   `json:"directives"`
	Prompt         string     `json:"prompt"`
	Answer         string     `json:"answer"`
	DefaultTools   []wireTool `json:"default_tools"`
	Preset         struct {
		System   []string     `json:"system"`
		Tools    []wireTool   `json:"tools"`
		Settings wireSettings `json:"settings"`
	} `json:"preset"`
	Continuation *struct {
		Task          string    `json:"task"`
		ParentID      string    `json:"parent_id"`
		ToolFilter    *[]string `json:"tool_filter"`
		Persona       *[]string `json:"persona"`
		OutputTool    *wireTool `json:"output_tool"`
		OutputSection string    `json:"output_section"`
		FollowUps     []struct {
			Reply   wireMessage `json:"reply"`
			Message wireMessage `json:"message"`
		} `json:"follow_ups"`
	} `json:"continuation"`
	History []wireMessage `json:"history"`
}

func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

func readScenario(data []byte) (*Scenario, error) {
	var w wireScenario
	if err := decodeJSON(data, &w); err != nil {
		return nil, fmt.Errorf("cannot read the scenario: %v", err)
	}
	s := &Scenario{
		ID:             w.ID,
		Action:         w.Action,
		ForkTool:       w.ForkTool,
		Snapshot:       w.Snapshot == nil || *w.Snapshot,
		KnownForkChild: w.KnownForkChild,
		Directives:     w.Directives,
		Prompt:         w.Prompt,
		Answer:         w.Answer,
		System:         w.Preset.System,
		Tools:          readTools(w.Preset.Tools),
		Settings:       readSettings(w.Preset.Settings),
		DefaultTools:   readTools(w.DefaultTools),
	}
	if s.ForkTool == "" {
		s.ForkTool = "agent"
	}
	for _, m := range w.History {
		s.History = append(s.History, readMessage(m))
	}
	if c := w.Continuation; c != nil {
		cont := &Continuation{Task: c.Task, ParentID: c.ParentID, OutputSection: c.OutputSection}
		if c.ToolFilter != nil {
			cont.ToolFilter, cont.HasToolFilter = *c.ToolFilter, true
		}
		if c.Persona != nil {
			cont.Persona, cont.HasPersona = *c.Persona, true
		}
		if c.OutputTool != nil {
			t := readTools([]wireTool{*c.OutputTool})[0]
			cont.OutputTool = &t
		}
		for _, f := range c.FollowUps {
			cont.FollowUps = append(cont.FollowUps, FollowUp{readMessage(f.Reply), readMessage(f.Message)})
		}
		s.Continuation = cont
	}
	return s, nil
}

func readTools(in []wireTool) []Tool {
	var out []Tool
	for _, t := range in {
		out = append(out, Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return out
}

func readSettings(w wireSettings) Settings {
	s := Settings{
		Model: w.Model, Temperature: w.Temperature, TopP: w.TopP, TopK: w.TopK,
		MaxOutputTokens: w.MaxOutputTokens, Stop: w.Stop, Extra: w.Extra,
	}
	if t := w.Thinking; t != nil {
		s.Thinking = &Thinking{t.Mode, t.BudgetTokens, t.Effort, t.IncludeThoughts}
	}
	if c := w.ToolChoice; c != nil {
		s.ToolChoice = &ToolChoice{c.Mode, c.Names}
	}
	if o := w.OutputSchema; o != nil {
		s.OutputSchema = &OutputSchema{o.Schema, o.Name, o.Strict}
	}
	return s
}

func readMessage(w wireMessage) Message {
	m := Message{Role: w.Role}
	for _, p := range w.Parts {
		var part Part
		switch {
		case p.Text != nil:
			part.Text = p.Text
		case p.FunctionCall != nil:
			c := p.FunctionCall
			part.Call = &Call{ID: c.ID, WireID: c.ID, Name: c.Name, Args: c.Args, Signature: c.Signature}
		case p.FunctionResponse != nil:
			r := p.FunctionResponse
			part.Response = &Response{ID: r.ID, WireID: r.ID, Name: r.Name, Response: r.Response, IsError: r.IsError}
		case p.Thinking != nil:
			part.Thinking = &ThinkingPart{p.Thinking.Text, p.Thinking.Signature, p.Thinking.Redacted}
		case p.Image != nil:
			i := p.Image
			part.Image = &Image{i.MimeType, i.Data, i.URL, i.Detail}
		case p.Opaque != nil:
			part.Opaque = &Opaque{p.Opaque.Kind, p.Opaque.Dialect, p.Opaque.Value}
		default:
			continue
		}
		m.Parts = append(m.Parts, part)
	}
	return m
}

// assignCallIDs gives every call without an id one of the runtime's own (Anthropic and
// the OpenAI APIs need one), and every response without an id the id of the call it
// answers: the k-th response named N answers the k-th call named N of the model message
// before it. prefix keeps the ids of follow-ups apart from the history's.
func assignCallIDs(messages []Message, prefix string) {
	var open []*Call
	for i := range messages {
		m := &messages[i]
		if m.Role == "model" {
			open = nil
			for j := range m.Parts {
				if c := m.Parts[j].Call; c != nil {
					if c.WireID == "" {
						c.WireID = fmt.Sprintf("%scall_%d_%d", prefix, i, j)
					}
					open = append(open, c)
				}
			}
			continue
		}
		if m.Role != "user" {
			continue
		}
		used := map[*Call]bool{}
		for j := range m.Parts {
			r := m.Parts[j].Response
			if r == nil || r.WireID != "" {
				if r != nil {
					for _, c := range open {
						if c.WireID == r.WireID {
							used[c] = true
						}
					}
				}
				continue
			}
			for _, c := range open {
				if !used[c] && c.Name == r.Name {
					used[c] = true
					r.WireID = c.WireID
					break
				}
			}
		}
		open = nil
	}
}
