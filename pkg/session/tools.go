package session

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sync"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/tool"
)

// The call loop. A question's exchange is the question, then for each round of calls the
// model's content exactly as received (function-call parts with their id, args and thought
// signature) and one user content holding a response per call, in call order, until the model
// answers in text. Every call is answered, so calls and responses always pair: a failure, a
// denial, a cancellation or the limit is a response too ({"error": ...}).

// Defaults of the limits.
const (
	DefaultMaxToolCalls  = 12
	DefaultMaxToolResult = 32 << 10
	// sameCallLimit is how often the same call (name and arguments) may run in one question.
	sameCallLimit = 3
)

// toolMode is how a request declares the tools.
type toolMode int

const (
	toolsOff   toolMode = iota // none declared
	toolsAuto                  // declared; the model may call them
	toolsFinal                 // declared, but calling is off: the model must answer in text
)

// ToolCall is one call of a question's exchange, as chat -o json reports it.
type ToolCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
	// Error is the result's error, "" when the call succeeded.
	Error string `json:"error"`
}

func (s *Session) toolsConfig(mode toolMode) ([]*genai.Tool, *genai.ToolConfig) {
	if mode == toolsOff || s.opts.Tools == nil {
		return nil, nil
	}
	decls := s.opts.Tools.Declarations()
	if decls == nil {
		return nil, nil
	}
	if mode == toolsFinal {
		return decls, &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}}
	}
	return decls, nil
}

// functionCalls are the calls of a model content, in order.
func functionCalls(c *genai.Content) []*genai.FunctionCall {
	if c == nil {
		return nil
	}
	var out []*genai.FunctionCall
	for _, p := range c.Parts {
		if p != nil && p.FunctionCall != nil {
			out = append(out, p.FunctionCall)
		}
	}
	return out
}

// callKey identifies a call by name and arguments (encoding/json sorts map keys).
func callKey(fc *genai.FunctionCall) string {
	b, _ := json.Marshal(fc.Args)
	return fc.Name + "\x00" + string(b)
}

// maxParallelCalls bounds how many calls of one model content run at once.
const maxParallelCalls = 8

// runCalls answers the calls of one model content: the first run of them are run,
// concurrently (at most maxParallelCalls at once), the others answered with the error refuse
// without running (the limit was reached, calling is off, or the stream broke). It returns
// the user content answering them in call order, and what each call reported.
//
// contentIndex is the index the model content holding the calls will have in the transcript:
// the approvals of MCP calls (who allowed each, or that it was denied) point at it.
func (s *Session) runCalls(ctx context.Context, calls []*genai.FunctionCall, contentIndex, run int, refuse string, hooks TurnHooks) (*genai.Content, []ToolCall, []record.ToolApproval) {
	results := make([]map[string]any, len(calls))
	approvals := make([]*record.ToolApproval, len(calls))
	var wg sync.WaitGroup
	slots := make(chan struct{}, maxParallelCalls)
	for i, fc := range calls {
		if i >= run {
			results[i] = tool.Error(refuse)
			continue
		}
		if hooks.OnToolCall != nil {
			hooks.OnToolCall(fc.Name, fc.Args)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			results[i], approvals[i] = s.runCall(ctx, fc)
		}()
	}
	wg.Wait()
	if hooks.OnToolsDone != nil && run > 0 {
		hooks.OnToolsDone()
	}
	content := &genai.Content{Role: genai.RoleUser}
	reports := make([]ToolCall, len(calls))
	var decided []record.ToolApproval
	for i, fc := range calls {
		if a := approvals[i]; a != nil {
			a.Content, a.Call, a.CallID = contentIndex, i, fc.ID
			decided = append(decided, *a)
		}
		res := s.capResult(results[i])
		content.Parts = append(content.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: fc.ID, Name: fc.Name, Response: res}})
		msg, _ := res["error"].(string)
		reports[i] = ToolCall{Name: fc.Name, Args: fc.Args, Error: msg}
	}
	return content, reports, decided
}

// runCall runs one call: approval first for a tool that asks, then the tool. Whatever the
// tool does, a cancelled turn answers "cancelled", and a panic is an error result. For an MCP
// tool it also returns the decision that let it run or not (nil for a built-in tool).
func (s *Session) runCall(ctx context.Context, fc *genai.FunctionCall) (res map[string]any, approval *record.ToolApproval) {
	defer func() {
		if r := recover(); r != nil {
			res = tool.Error("the tool failed")
			s.logger().Error("a tool panicked", "tool", fc.Name, "panic", fmt.Sprint(r))
		}
		if ctx.Err() != nil {
			res = tool.Error("cancelled")
		}
	}()
	if ctx.Err() != nil {
		return tool.Error("cancelled"), nil
	}
	t, ok := s.opts.Tools.Lookup(fc.Name)
	if !ok {
		return tool.Error(fmt.Sprintf("unknown tool %q", fc.Name)), nil
	}
	// The decision comes from the configuration (Origin) and the terminal (Approver) only:
	// nothing in the call, the conversation or a result takes part.
	o := tool.OriginOf(t)
	if o.Server != "" {
		approval = &record.ToolApproval{Tool: fc.Name, Server: o.Server, Decision: record.ApprovalTrusted, At: s.opts.Now().UTC()}
	}
	if o.Asks() {
		if s.opts.Approver == nil {
			approval.Decision = record.ApprovalDenied
			return tool.Error("denied: no one can approve it here"), approval
		}
		d, asked := s.opts.Approver.Approve(ctx, tool.Call{Name: fc.Name, Origin: o, Args: fc.Args, Definition: tool.Fingerprint(t)})
		approval.Asked, approval.At = asked, s.opts.Now().UTC()
		switch d {
		case tool.ApprovedOnce:
			approval.Decision = record.ApprovalApproved
		case tool.ApprovedAlways:
			approval.Decision = record.ApprovalApprovedAlways
		case tool.DeniedUnshown:
			approval.Decision = record.ApprovalDenied
			return tool.Error("denied: the call is too long to show the user for approval; nobody was asked"), approval
		default:
			approval.Decision = record.ApprovalDenied
			return tool.Error("denied: the user did not allow this call"), approval
		}
	}
	args := fc.Args
	if args == nil {
		args = map[string]any{}
	}
	if approval == nil {
		return s.opts.Tools.Call(ctx, fc.Name, args), nil
	}
	// What the server asked the user during the call is recorded with the call's approval, and
	// so is a hold of the egress guard: a held call ran only if the user let it go at that
	// question, so that decision replaces the one that let the tool run (read even when the
	// tool panics). The guard reports it from the configuration and the terminal; nothing in
	// the arguments or the result takes part.
	ctx, reported := tool.WithCallLog(ctx)
	defer func() {
		r := reported()
		for _, e := range r.Elicitations {
			approval.Elicitations = append(approval.Elicitations, record.Elicitation{Action: e.Action, Fields: e.Fields, Asked: e.Asked})
		}
		if e := r.Egress; e != nil {
			approval.Egress = &record.EgressHold{Kinds: e.Kinds, Sent: e.Sent}
			approval.Asked = e.Asked
			approval.Decision = record.ApprovalDenied
			if e.Sent && e.Asked {
				approval.Decision = record.ApprovalApproved
			}
		}
	}()
	return s.opts.Tools.Call(ctx, fc.Name, args), approval
}

// capResult cuts a result larger than MaxToolResult (as JSON) and says so.
func (s *Session) capResult(res map[string]any) map[string]any {
	if res == nil {
		return map[string]any{}
	}
	limit := s.opts.MaxToolResult
	if limit <= 0 {
		limit = DefaultMaxToolResult
	}
	b, err := json.Marshal(res)
	if err != nil {
		return tool.Error("the result could not be encoded")
	}
	if len(b) <= limit {
		return res
	}
	if t, ok := cutTable(res, limit); ok {
		return t
	}
	// Cut at a character boundary outside a token: the text's labels are still beside their
	// values, and no first part of a secret is kept that redaction could not recognise.
	cut := len(tool.CutText(string(b[:limit+1]), limit))
	return map[string]any{
		"truncated": string(b[:cut]),
		"note":      fmt.Sprintf("result cut at %d of %d bytes (--max-tool-result)", cut, len(b)),
	}
}

// cutTable cuts a result of columns and rows (query_evidence's) by whole rows, so that it
// stays a table: cut as text, a cell would lose the column beside it that labels it for
// redaction. A first row larger than limit by itself has its long strings cut to a share
// each. ok is false for any other result.
func cutTable(res map[string]any, limit int) (map[string]any, bool) {
	rows, ok := res["rows"].([]any)
	if !ok || len(rows) == 0 {
		return nil, false
	}
	switch res["columns"].(type) {
	case []any, []string:
	default:
		return nil, false
	}
	out := maps.Clone(res)
	out["rows"] = []any{}
	out["truncated"] = true
	out["note"] = fmt.Sprintf("result cut at %d of %d rows (--max-tool-result)", len(rows), len(rows))
	shell, err := json.Marshal(out)
	if err != nil {
		return nil, false
	}
	size, n := len(shell), 0
	for _, r := range rows {
		rb, err := json.Marshal(r)
		if err != nil {
			return nil, false
		}
		if size+len(rb)+1 > limit {
			break
		}
		size += len(rb) + 1
		n++
	}
	kept := rows[:n]
	if n == 0 {
		row, ok := rows[0].([]any)
		if !ok {
			return nil, false
		}
		share := max((limit-size)/max(len(row), 1)-8, 0)
		cutRow := make([]any, len(row))
		for i, v := range row {
			cutRow[i] = v
			if s, ok := v.(string); ok && len(s) > share/6 {
				// a share that holds the string even if every byte is escaped in JSON
				cutRow[i] = tool.CutText(s, share/6) + "…"
			}
		}
		kept, n = []any{cutRow}, 1
	}
	out["rows"] = kept
	out["note"] = fmt.Sprintf("result cut at %d of %d rows (--max-tool-result)", n, len(rows))
	return out, true
}

// Answers to calls that are not run.
const (
	refuseInterrupted = "interrupted: the answer broke off before the call could run"
	refuseNoTools     = "no tools are available in this conversation"
	refuseFinal       = "no more tool calls for this question"
)

// exchange asks the question and runs the model's calls until it answers in text. It returns
// the exchange up to the final reply (the question, then calls and responses), the reply, the
// usage of every request, the calls, and the error that ended it early. A cancellation during
// calls answers every pending call "cancelled" and ends at that content boundary: the reply is
// then nil and the error the context's. So does a stream that breaks (or is cancelled) right
// after calls arrived: each of them is answered "interrupted", never left without a response
// (the API refuses every later request of a transcript with an unanswered call).
func (s *Session) exchange(ctx context.Context, user *genai.Content, onText func(string), hooks TurnHooks) ([]*genai.Content, *genai.Content, record.Usage, []ToolCall, error) {
	exchange := []*genai.Content{user}
	var usage record.Usage
	var calls []ToolCall
	mode := toolsOff
	if len(s.opts.Tools.Names()) > 0 {
		mode = toolsAuto
	}
	maxCalls := s.opts.MaxToolCalls
	if maxCalls <= 0 {
		maxCalls = DefaultMaxToolCalls
	}
	seen := map[string]int{}
	refused := 0 // rounds of calls that could not run because calling was off
	for {
		reply, u, err := s.streamShaped(ctx, exchange, onText, mode)
		usage = usage.Add(u)
		fcs := functionCalls(reply)
		if len(fcs) == 0 {
			return exchange, reply, usage, calls, err
		}
		// Every call is answered. Calls that cannot run end the question at this content
		// boundary: the stream broke, no tools are declared, or calling was turned off and
		// the model called anyway.
		refuse := ""
		switch {
		case err != nil:
			refuse = refuseInterrupted
		case mode == toolsOff:
			refuse = refuseNoTools
		case mode == toolsFinal:
			refuse = refuseFinal
		}
		run := 0
		if refuse == "" {
			// At most what is left of the limit runs; the rest is answered with the limit.
			run = min(len(fcs), maxCalls-len(calls))
			refuse = fmt.Sprintf("not run: the limit of %d tool calls for this question was reached", maxCalls)
		}
		exchange = append(exchange, reply)
		responses, reports, decided := s.runCalls(ctx, fcs, len(s.live)+len(exchange)-1, run, refuse, hooks)
		exchange = append(exchange, responses)
		calls = append(calls, reports...)
		s.approvals = append(s.approvals, decided...)
		if err != nil {
			return exchange, nil, usage, calls, err
		}
		if ctx.Err() != nil {
			return exchange, nil, usage, calls, ctx.Err()
		}
		if run == 0 {
			// The model called although it could not. What it wrote beside the calls is the
			// answer; with nothing written, it reads the refusals and is asked once more for
			// text, and a second such round ends the question without an answer.
			if answerText(reply) != "" {
				return exchange, nil, usage, calls, nil
			}
			if refused++; refused > 1 {
				return exchange, nil, usage, calls, ErrCallsNotText
			}
			continue
		}
		for _, fc := range fcs[:run] {
			k := callKey(fc)
			if seen[k]++; seen[k] >= sameCallLimit {
				mode = toolsFinal
			}
		}
		if len(calls) >= maxCalls {
			mode = toolsFinal
		}
	}
}
