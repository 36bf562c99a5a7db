package main

// The runtime: which requests an agent sends for each lifecycle, from its own state.
// Rendering a request in a provider's wire format is dialects' job (render.go).

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"
)

// Request is everything one model call sends, before it is put on the wire.
type Request struct {
	System   []string
	Tools    []Tool
	Settings Settings
	Messages []Message
	// MarkAt is the index of a message whose last block the runtime marks for the
	// provider's cache (Anthropic) besides the last message: the end of what a fork
	// child inherited, so its follow-ups and siblings read that entry. -1: none.
	MarkAt int
	// ReversedArgs renders call arguments with keys in reverse order (a planted bug).
	ReversedArgs bool
}

const (
	placeholderResult = "Forked: a worker continues this call on its own & reports back separately."
	workerPreamble    = "<go-fork-worker> You are a worker forked from the agent whose conversation is above. " +
		"Work only on the directive below, start no forks of your own, and finish with a short report."
	workerAck        = "Understood. I will work on the directive alone and report back."
	workerStart      = "Start now."
	fallbackSystem   = "You are a forked worker of a Go agent runtime. Carry out the directive in the last message and report."
	spawnSystem      = "You are a sub-agent. Answer the request in the only message you receive; your final answer goes back to the agent that delegated it."
	forkRefusal      = "Fork refused: a forked worker cannot start forks of its own."
	continuableLabel = "Task:"
)

// the planted bug selected by GO_SUBJECT_BUG ("" for the correct runtime)
var bug = os.Getenv("GO_SUBJECT_BUG")

type Outcome struct {
	Status    string
	Message   string
	Parent    *Request
	Children  []*Request
	FollowUps []*Request
	Next      *Request
	HasNext   bool
}

func run(s *Scenario) (*Outcome, error) {
	assignCallIDs(s.History, "")
	if s.Continuation != nil {
		for k := range s.Continuation.FollowUps {
			f := &s.Continuation.FollowUps[k]
			pair := []Message{f.Reply, f.Message}
			assignCallIDs(pair, fmt.Sprintf("fu%d_", k))
			f.Reply, f.Message = pair[0], pair[1]
		}
	}
	switch s.Action {
	case "fork", "siblings":
		return oneShot(s), nil
	case "continuable":
		return continuable(s), nil
	case "spawn":
		return spawn(s), nil
	}
	return nil, fmt.Errorf("unknown action %q", s.Action)
}

func (s *Scenario) head() Request {
	return Request{System: s.System, Tools: s.Tools, Settings: s.Settings, MarkAt: -1}
}

// lastModel is the index of the last model message of msgs (optionally one without
// calls), -1 when there is none.
func lastModel(msgs []Message, withoutCalls bool) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "model" && (!withoutCalls || len(msgs[i].Calls()) == 0) {
			return i
		}
	}
	return -1
}

// parentRequest is the request that produced the last model message of inherited.
func parentRequest(s *Scenario, inherited []Message) *Request {
	last := lastModel(inherited, false)
	if last < 0 {
		return nil
	}
	r := s.head()
	r.Messages = inherited[:last]
	return &r
}

func text(t string) Part { return Part{Text: &t} }

// openCalls are the calls of the last message of msgs when it is a model message.
func openCalls(msgs []Message) []*Call {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != "model" {
		return nil
	}
	return msgs[len(msgs)-1].Calls()
}

func placeholders(calls []*Call, sibling int) []Part {
	var parts []Part
	for _, c := range calls {
		result := placeholderResult
		if bug == "sibling-placeholder" {
			result = fmt.Sprintf("%s (worker %d)", placeholderResult, sibling+1)
		}
		parts = append(parts, Part{Response: &Response{
			ID: c.ID, WireID: c.WireID, Name: c.Name, Response: result,
		}})
	}
	return parts
}

func copyMessages(msgs []Message) []Message {
	return append([]Message(nil), msgs...)
}

// forkChild is a one-shot child's request: the inherited history, the open calls
// closed with the placeholder result, the worker message with the directive.
func forkChild(s *Scenario, head Request, inherited []Message, directive string, sibling int) *Request {
	child := head
	childMessage := workerPreamble + "\n\nDirective:\n" + directive
	msgs := copyMessages(inherited)
	if bug == "open-calls" {
		msgs = append(msgs, Message{Role: "user", Parts: []Part{text(childMessage)}})
	} else if calls := openCalls(inherited); len(calls) > 0 {
		closing := append(placeholders(calls, sibling), text(childMessage))
		msgs = append(msgs,
			Message{Role: "user", Parts: closing},
			Message{Role: "model", Parts: []Part{text(workerAck)}},
			Message{Role: "user", Parts: []Part{text(workerStart)}})
	} else {
		msgs = append(msgs, Message{Role: "user", Parts: []Part{text(childMessage)}})
	}
	if bug == "task-first" && len(msgs) > 0 {
		first := msgs[0]
		first.Parts = append([]Part{text("Directive for this worker: " + directive)}, first.Parts...)
		msgs[0] = first
	}
	child.Messages = msgs
	if len(inherited) > 0 {
		child.MarkAt = len(inherited) - 1
	}
	applyChildBugs(&child)
	return &child
}

// applyChildBugs plants the bugs that change a child's head or its inherited bytes.
func applyChildBugs(child *Request) {
	switch bug {
	case "timestamp":
		child.System = append(copyStrings(child.System), "Current time: "+time.Now().UTC().Format(time.RFC3339Nano))
	case "tools-reordered":
		tools := append([]Tool(nil), child.Tools...)
		sort.SliceStable(tools, func(i, j int) bool { return tools[i].Name > tools[j].Name })
		child.Tools = tools
	case "model-switch":
		child.Settings.Model = child.Settings.Model + "-mini"
	case "args-order":
		child.ReversedArgs = true
	}
}

func copyStrings(in []string) []string { return append([]string(nil), in...) }

func oneShot(s *Scenario) *Outcome {
	inherited := s.History
	if n := len(inherited); n > 0 && inherited[n-1].Role == "user" {
		inherited = inherited[:n-1] // a turn in progress
	}
	parent := parentRequest(s, inherited)
	if !s.Snapshot {
		parent = nil // nothing cache-safe was sent yet
	}
	if s.KnownForkChild && bug != "recursion-allowed" {
		return &Outcome{Status: "rejected", Message: forkRefusal, Parent: parent}
	}
	out := &Outcome{Status: "assembled", Parent: parent}
	head := s.head()
	if !s.Snapshot {
		// the runtime's own fallback head
		head = Request{System: []string{fallbackSystem}, Tools: s.DefaultTools, Settings: s.Settings, MarkAt: -1}
	}
	for i, d := range s.Directives {
		out.Children = append(out.Children, forkChild(s, head, inherited, d, i))
	}
	return out
}

// guidance tells a continuable child how to report back, when it can.
func guidance(tools []Tool, parentID string) string {
	visible := false
	for _, t := range tools {
		if t.Name == "send_message" {
			visible = true
		}
	}
	if !visible {
		return ""
	}
	id, _ := json.Marshal(parentID) // quoted and escaped, the Go way
	if bug == "parent-id-missing" {
		return "When you are done, send your result to your parent agent with send_message."
	}
	return fmt.Sprintf("When you are done, send your result with send_message to agent_id %s (your parent agent).", id)
}

func continuable(s *Scenario) *Outcome {
	c := s.Continuation
	end := lastModel(s.History, true)
	inherited := s.History[:end+1] // the completed turns
	out := &Outcome{Status: "assembled", Parent: parentRequest(s, inherited)}
	child := s.head()
	if c.HasPersona {
		child.System = copyStrings(c.Persona)
	}
	if c.HasToolFilter {
		allowed := map[string]bool{}
		for _, n := range c.ToolFilter {
			allowed[n] = true
		}
		var tools []Tool
		for _, t := range s.Tools {
			if allowed[t.Name] {
				tools = append(tools, t)
			}
		}
		child.Tools = tools
	}
	if c.OutputTool != nil {
		child.Tools = append(append([]Tool(nil), child.Tools...), *c.OutputTool)
		child.System = append(copyStrings(child.System), c.OutputSection)
	}
	task := continuableLabel + "\n" + c.Task
	if g := guidance(child.Tools, c.ParentID); g != "" {
		task += "\n\n" + g
	}
	msgs := copyMessages(inherited)
	if bug == "task-first" && len(msgs) > 0 {
		first := msgs[0]
		first.Parts = append([]Part{text(task)}, first.Parts...)
		msgs[0] = first
		msgs = append(msgs, Message{Role: "user", Parts: []Part{text("Go on.")}})
	} else {
		msgs = append(msgs, Message{Role: "user", Parts: []Part{text(task)}})
	}
	child.Messages = msgs
	if len(inherited) > 0 {
		child.MarkAt = len(inherited) - 1
	}
	applyChildBugs(&child)
	out.Children = []*Request{&child}
	previous := &child
	for k, f := range c.FollowUps {
		next := *previous
		next.Messages = append(copyMessages(previous.Messages), f.Reply, f.Message)
		if bug == "follow-up-drift" && k == 0 {
			// the session is rebuilt for the next turn with the task reworded
			rebuilt := copyMessages(next.Messages)
			last := len(msgs) - 1
			rebuilt[last] = Message{Role: "user", Parts: []Part{text(task + "\n(continued)")}}
			next.Messages = rebuilt
		}
		out.FollowUps = append(out.FollowUps, &next)
		previous = &next
	}
	return out
}

func spawn(s *Scenario) *Outcome {
	last := lastModel(s.History, false)
	out := &Outcome{Status: "assembled", Parent: parentRequest(s, s.History)}
	var tools []Tool
	for _, t := range s.Tools {
		if t.Name != s.ForkTool {
			tools = append(tools, t)
		}
	}
	child := Request{System: []string{spawnSystem}, Tools: tools, Settings: s.Settings, MarkAt: -1}
	prompt := []Part{text(s.Prompt)}
	if bug == "spawn-leak" && len(s.History) > 0 {
		// the parent's first message handed over "for context"
		prompt = append(copyParts(s.History[0].Parts), prompt...)
	}
	child.Messages = []Message{{Role: "user", Parts: prompt}}
	out.Children = []*Request{&child}
	if last >= 0 {
		model := s.History[last]
		var results []Part
		for _, c := range model.Calls() {
			var answer any = "Not run: only the delegation was carried out."
			if c.Name == s.ForkTool {
				answer = s.Answer
			}
			results = append(results, Part{Response: &Response{ID: c.ID, WireID: c.WireID, Name: c.Name, Response: answer}})
		}
		next := s.head()
		next.Messages = append(copyMessages(s.History[:last+1]), Message{Role: "user", Parts: results})
		out.Next, out.HasNext = &next, true
	}
	return out
}

func copyParts(in []Part) []Part { return append([]Part(nil), in...) }
