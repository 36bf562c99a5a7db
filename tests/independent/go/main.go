// Command gosubject is a fork-capable agent runtime's request assembly, written in Go
// with its standard library alone, from prefix-harness's documentation: it speaks the
// JSON-lines subject protocol (version 1) on stdin and stdout.
//
//	prefix-harness check --subject "cmd:/path/to/gosubject"
//
// GO_SUBJECT_BUG=<name> plants one bug (see README.md beside this directory).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

const protocolVersion = 1

type request struct {
	Cmd          string          `json:"cmd"`
	Version      int             `json:"version"`
	Seq          int64           `json:"seq"`
	Dialect      string          `json:"dialect"`
	Scenario     json.RawMessage `json:"scenario"`
	SameScenario bool            `json:"same_scenario"`
}

type server struct {
	out      *bufio.Writer
	last     *Scenario
	lastErr  error
	haveLast bool
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	s := &server{out: bufio.NewWriter(os.Stdout)}
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if stop := s.handle(line); stop {
				return
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gosubject: reading stdin:", err)
			return
		}
	}
}

func (s *server) reply(v any) {
	enc := json.NewEncoder(s.out) // one line; HTML characters escaped, as Go does
	if err := enc.Encode(v); err != nil {
		fmt.Fprintln(os.Stderr, "gosubject: writing a reply:", err)
	}
	s.out.Flush()
}

func (s *server) handle(line []byte) (stop bool) {
	if len(trimSpace(line)) == 0 {
		return false
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		fmt.Fprintln(os.Stderr, "gosubject: unreadable line:", err)
		return false
	}
	switch req.Cmd {
	case "start":
		if req.Version != protocolVersion {
			s.reply(map[string]any{"ok": false, "version": protocolVersion,
				"error": fmt.Sprintf("this runtime speaks protocol version %d", protocolVersion)})
			return false
		}
		s.reply(map[string]any{
			"ok": true, "version": protocolVersion,
			"implementation": map[string]any{
				"name": "go-stdlib-runtime", "language": "go", "version": "0.1.0",
				"dialects":   dialectNames(),
				"lifecycles": []string{"one-shot", "continuable", "spawn"},
			},
			"features": []string{"same-scenario"},
		})
	case "assemble":
		s.reply(s.assemble(req))
	case "stop":
		return true
	default:
		fmt.Fprintf(os.Stderr, "gosubject: unknown command %q\n", req.Cmd)
	}
	return false
}

func (s *server) assemble(req request) map[string]any {
	errored := func(format string, args ...any) map[string]any {
		return map[string]any{"seq": req.Seq, "status": "errored", "message": fmt.Sprintf(format, args...)}
	}
	var scenario *Scenario
	if req.SameScenario {
		if !s.haveLast {
			return errored("a short assemble with no scenario before it")
		}
		if s.lastErr != nil {
			return errored("%v", s.lastErr)
		}
		scenario = s.last
	} else {
		s.last, s.lastErr = readScenario(req.Scenario)
		s.haveLast = true
		if s.lastErr != nil {
			return errored("%v", s.lastErr)
		}
		scenario = s.last
	}
	if _, ok := dialects[req.Dialect]; !ok {
		return map[string]any{"seq": req.Seq, "status": "skipped", "reason": "dialect " + req.Dialect + " is not implemented"}
	}
	// run may be given the same scenario again (same-scenario): the ids it assigns
	// are the same every time, and nothing else of the scenario is changed
	out, err := run(scenario)
	if err != nil {
		return errored("%v", err)
	}
	return s.encode(req, out)
}

func (s *server) encode(req request, out *Outcome) map[string]any {
	body := func(r *Request) (any, error) {
		if r == nil {
			return nil, nil
		}
		return render(req.Dialect, r)
	}
	reply := map[string]any{"seq": req.Seq, "status": out.Status}
	parent, err := body(out.Parent)
	if err != nil {
		return map[string]any{"seq": req.Seq, "status": "errored", "message": err.Error()}
	}
	if out.Status == "rejected" {
		reply["message"] = out.Message
		reply["parent"] = parent
		return reply
	}
	reply["parent"] = parent
	children := []any{}
	for _, c := range out.Children {
		b, err := body(c)
		if err != nil {
			return map[string]any{"seq": req.Seq, "status": "errored", "message": err.Error()}
		}
		children = append(children, b)
	}
	reply["children"] = children
	if len(out.FollowUps) > 0 {
		var follow []any
		for _, f := range out.FollowUps {
			b, err := body(f)
			if err != nil {
				return map[string]any{"seq": req.Seq, "status": "errored", "message": err.Error()}
			}
			follow = append(follow, b)
		}
		reply["follow_ups"] = follow
	}
	if out.HasNext {
		next, err := body(out.Next)
		if err != nil {
			return map[string]any{"seq": req.Seq, "status": "errored", "message": err.Error()}
		}
		reply["parent_next"] = next
	}
	return reply
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}
