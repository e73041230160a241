package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/tool"
)

// A server may ask the user for input during a call (elicitation/create). alertchat shows it
// as a small form of the fields the server asks for (a flat object of strings, numbers,
// integers, booleans and enums), with the server's defaults shown and applied; it fills in
// nothing of its own (no credential, no environment, no stored value), so a server gets only
// what the user typed or the defaults it sent itself. Where nobody can be asked the request is
// declined. A schema of another shape, or a request to open a URL, is declined with one line.

// Field is one field of an elicitation form.
type Field struct {
	Name, Title, Description string
	// Type is string, number, integer or boolean.
	Type string
	// Enum are a string field's allowed values, EnumNames their labels when the server gave any.
	Enum      []string
	EnumNames []string
	// Default is the server's default, nil when none.
	Default  any
	Required bool
}

// ElicitRequest is what a server asks the user.
type ElicitRequest struct {
	// Server is the server's name; Tool the call it asks during, "" when none is in flight.
	Server, Tool string
	Message      string
	Fields       []Field
}

// ElicitAnswer is the user's answer: Action accept (with Content), decline or cancel.
type ElicitAnswer struct {
	Action  string
	Content map[string]any
	// Asked is set when a person answered.
	Asked bool
}

// Elicitor asks the user.
type Elicitor interface {
	Elicit(ctx context.Context, r ElicitRequest) (ElicitAnswer, error)
}

// AcceptDefaults answers every request with the server's defaults, without asking: the user's
// standing order (mcp call --elicit accept-defaults). A required field without a default cannot
// be answered so, and the request is declined.
type AcceptDefaults struct{}

// Elicit implements Elicitor.
func (AcceptDefaults) Elicit(_ context.Context, r ElicitRequest) (ElicitAnswer, error) {
	content := map[string]any{}
	for _, f := range r.Fields {
		if f.Default == nil {
			if f.Required {
				return ElicitAnswer{Action: "decline"}, nil
			}
			continue
		}
		content[f.Name] = f.Default
	}
	return ElicitAnswer{Action: "accept", Content: content}, nil
}

// elicitationFields reads a requested schema as a flat form; why is set when it is not one.
func elicitationFields(schema any) (fields []Field, why string) {
	if schema == nil {
		return nil, ""
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, "the schema is not JSON"
	}
	var s struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(b, &s) != nil {
		return nil, "the schema is not an object"
	}
	if s.Type != nil && s.Type != "object" {
		return nil, "the schema is not an object"
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var p struct {
			Type        any      `json:"type"`
			Title       string   `json:"title"`
			Description string   `json:"description"`
			Enum        []any    `json:"enum"`
			EnumNames   []string `json:"enumNames"`
			OneOf       []struct {
				Const any    `json:"const"`
				Title string `json:"title"`
			} `json:"oneOf"`
			Default    any             `json:"default"`
			Properties json.RawMessage `json:"properties"`
			Items      json.RawMessage `json:"items"`
		}
		if json.Unmarshal(s.Properties[n], &p) != nil {
			return nil, fmt.Sprintf("field %q is not an object", n)
		}
		t, _ := p.Type.(string)
		switch {
		case len(p.Properties) > 0 || len(p.Items) > 0 || t == "object" || t == "array":
			return nil, fmt.Sprintf("field %q is not a string, number, integer or boolean", n)
		case t != "string" && t != "number" && t != "integer" && t != "boolean":
			return nil, fmt.Sprintf("field %q has no primitive type", n)
		}
		f := Field{Name: n, Title: p.Title, Description: p.Description, Type: t, Default: p.Default, EnumNames: p.EnumNames}
		for _, e := range p.Enum {
			v, ok := e.(string)
			if !ok || t != "string" {
				return nil, fmt.Sprintf("field %q has an enum that is not of strings", n)
			}
			f.Enum = append(f.Enum, v)
		}
		if len(f.Enum) == 0 && len(p.OneOf) > 0 {
			f.EnumNames = nil
			for _, o := range p.OneOf {
				v, ok := o.Const.(string)
				if !ok || t != "string" {
					return nil, fmt.Sprintf("field %q has choices that are not strings", n)
				}
				f.Enum = append(f.Enum, v)
				f.EnumNames = append(f.EnumNames, o.Title)
			}
		}
		if len(f.EnumNames) != len(f.Enum) {
			f.EnumNames = nil
		}
		if f.Default != nil && !fitsType(f, f.Default) {
			f.Default = nil
		}
		for _, r := range s.Required {
			if r == n {
				f.Required = true
			}
		}
		fields = append(fields, f)
	}
	return fields, ""
}

// fitsType reports whether v is a value of f's type (and one of its choices).
func fitsType(f Field, v any) bool {
	switch f.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return false
		}
		if len(f.Enum) == 0 {
			return true
		}
		for _, e := range f.Enum {
			if e == s {
				return true
			}
		}
		return false
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		x, ok := v.(float64)
		return ok && x == float64(int64(x))
	case "boolean":
		_, ok := v.(bool)
		return ok
	}
	return false
}

// ParseFieldValue reads what the user typed for f: a number, an integer, a boolean (y/n,
// yes/no, true/false), an enum value or its number in the list, or text.
func ParseFieldValue(f Field, in string) (any, error) {
	switch f.Type {
	case "number":
		x, err := strconv.ParseFloat(in, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", in)
		}
		return x, nil
	case "integer":
		x, err := strconv.ParseInt(in, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", in)
		}
		return float64(x), nil
	case "boolean":
		switch in {
		case "y", "yes", "true", "Y", "Yes", "YES", "True":
			return true, nil
		case "n", "no", "false", "N", "No", "NO", "False":
			return false, nil
		}
		return nil, fmt.Errorf("answer y or n")
	}
	if len(f.Enum) > 0 {
		if i, err := strconv.Atoi(in); err == nil && i >= 1 && i <= len(f.Enum) {
			return f.Enum[i-1], nil
		}
		for _, e := range f.Enum {
			if e == in {
				return e, nil
			}
		}
		return nil, fmt.Errorf("choose one of the %d choices", len(f.Enum))
	}
	return in, nil
}

// calls are a server's calls in flight: a progress notification names its call by its token,
// an elicitation goes to the latest call (the protocol does not say which call asks).
type calls struct {
	mu     sync.Mutex
	next   int64
	active []*inflight
}

type inflight struct {
	tool  string
	token string
	ctx   context.Context
}

func (c *calls) start(ctx context.Context, t string) (*inflight, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	f := &inflight{tool: t, token: "alertchat-" + strconv.FormatInt(c.next, 10), ctx: ctx}
	c.active = append(c.active, f)
	return f, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.active {
			if x == f {
				c.active = append(c.active[:i], c.active[i+1:]...)
				break
			}
		}
	}
}

func (c *calls) latest() *inflight {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.active) == 0 {
		return nil
	}
	return c.active[len(c.active)-1]
}

func (c *calls) byToken(token any) *inflight {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.active {
		if fmt.Sprint(token) == f.token {
			return f
		}
	}
	return nil
}

// Progress is a call's progress notification.
type Progress struct {
	Server, Tool    string
	Progress, Total float64
	Message         string
}

func (s *server) progress(p *sdk.ProgressNotificationParams) {
	if s.o.OnProgress == nil || p == nil {
		return
	}
	f := s.calls.byToken(p.ProgressToken)
	if f == nil {
		return
	}
	s.o.OnProgress(Progress{Server: s.name, Tool: f.tool, Progress: p.Progress, Total: p.Total, Message: p.Message})
}

// screenElicitation declines, with one warning line, what alertchat does not show: a request
// to open a URL, a schema that is not a flat form. The SDK's own checks come after it.
func (s *server) screenElicitation(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		r, ok := req.(*sdk.ElicitRequest)
		if method != "elicitation/create" || !ok || r.Params == nil {
			return next(ctx, method, req)
		}
		why := ""
		if r.Params.Mode == "url" || r.Params.URL != "" {
			why = "it asks to open a URL"
		} else if _, w := elicitationFields(r.Params.RequestedSchema); w != "" {
			why = "its form is not a flat list of fields (" + w + ")"
		}
		if why == "" {
			return next(ctx, method, req)
		}
		s.warn(fmt.Sprintf("MCP server %s asked for input and was declined: %s", s.name, why))
		s.record(tool.Elicitation{Server: s.name, Action: "decline"})
		return &sdk.ElicitResult{Action: "decline"}, nil
	}
}

// elicit asks the user what the server asks, or declines where nobody can be asked. Only a call
// in flight may ask: a request at any other time (the user typing the next question, say) is
// declined with one line, never shown, so nothing typed for something else can answer it.
func (s *server) elicit(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	call := s.calls.latest()
	if call == nil {
		s.warn(fmt.Sprintf("MCP server %s asked for input outside a call and was declined", s.name))
		return &sdk.ElicitResult{Action: "decline"}, nil
	}
	fields, _ := elicitationFields(r.Params.RequestedSchema)
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = format.Truncate(f.Name, 64, "...")
	}
	e := tool.Elicitation{Server: s.name, Action: "decline", Fields: names}
	if s.o.Elicitor == nil {
		s.record(e)
		return &sdk.ElicitResult{Action: "decline"}, nil
	}
	req := ElicitRequest{Server: s.name, Tool: call.tool, Message: r.Params.Message, Fields: fields}
	a, err := s.o.Elicitor.Elicit(call.ctx, req)
	if err != nil || (a.Action != "accept" && a.Action != "decline" && a.Action != "cancel") {
		a = ElicitAnswer{Action: "cancel", Asked: a.Asked}
	}
	e.Action, e.Asked = a.Action, a.Asked
	s.record(e)
	res := &sdk.ElicitResult{Action: a.Action}
	if a.Action == "accept" {
		res.Content = map[string]any{}
		for _, f := range fields {
			if v, ok := a.Content[f.Name]; ok && fitsType(f, v) {
				res.Content[f.Name] = v
			} else if f.Default != nil {
				res.Content[f.Name] = f.Default
			}
		}
	}
	return res, nil
}

// record adds e to the log of the call in flight.
func (s *server) record(e tool.Elicitation) {
	if f := s.calls.latest(); f != nil {
		tool.RecordElicitation(f.ctx, e)
	}
}

func (s *server) warn(line string) {
	if s.o.Warn != nil {
		s.o.Warn(line)
	}
}
