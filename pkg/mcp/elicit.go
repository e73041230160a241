package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/termsafe"
	"github.com/alertchat/alertchat/pkg/tool"
)

// A server may ask the user for input during a call (elicitation/create). alertchat shows it
// as a small form of the fields the server asks for: every field type MCP 2025-11-25 allows
// (strings, with a format or lengths; numbers and integers, with bounds; booleans; single-select
// enums, untitled, titled with oneOf of const/title, or with the legacy enumNames; multi-select
// enums, arrays whose items are an enum or an anyOf of const/title), with the server's defaults
// shown and applied. It fills in nothing of its own (no credential, no environment, no stored
// value), so a server gets only what the user typed or the defaults it sent itself. Where
// nobody can be asked the request is declined. A schema of another shape, or a request to open
// a URL, is declined with one line.

// Field is one field of an elicitation form.
type Field struct {
	Name, Title, Description string
	// Type is string, number, integer, boolean, or array (a multi-select enum).
	Type string
	// Enum are the allowed values of a string field or of an array's items, EnumNames their
	// labels when the server gave any.
	Enum      []string
	EnumNames []string
	// Format is a string's format: email, uri, date or date-time ("" for any text).
	Format string
	// MinLength and MaxLength bound a string's length in characters, MinItems and MaxItems an
	// array's number of choices, Minimum and Maximum a number; nil when unbounded.
	MinLength, MaxLength *int
	MinItems, MaxItems   *int
	Minimum, Maximum     *float64
	// Default is the server's default, nil when none (an array's is a []any of strings).
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
// be answered so, and the request is declined, with a line to Warn naming the fields.
type AcceptDefaults struct {
	// Warn is told why a request was declined (nil: nobody).
	Warn func(line string)
}

// Elicit implements Elicitor.
func (a AcceptDefaults) Elicit(_ context.Context, r ElicitRequest) (ElicitAnswer, error) {
	content := map[string]any{}
	var missing []string
	for _, f := range r.Fields {
		if f.Default == nil {
			if f.Required {
				missing = append(missing, termsafe.Line(f.Name))
			}
			continue
		}
		content[f.Name] = f.Default
	}
	if len(missing) > 0 {
		if a.Warn != nil {
			field := "field"
			if len(missing) > 1 {
				field = "fields"
			}
			a.Warn(fmt.Sprintf("MCP server %s asked for input and was declined: --elicit accept-defaults has no default for its required %s %s",
				termsafe.Line(r.Server), field, strings.Join(missing, ", ")))
		}
		return ElicitAnswer{Action: "decline"}, nil
	}
	return ElicitAnswer{Action: "accept", Content: content}, nil
}

// choice is a titled enum value: {"const": ..., "title": ...}.
type choice struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// property is a form field's schema as a server sends it.
type property struct {
	Type        any             `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Enum        []any           `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []choice        `json:"oneOf"`
	AnyOf       []choice        `json:"anyOf"`
	Format      string          `json:"format"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
	Default     any             `json:"default"`
	Properties  json.RawMessage `json:"properties"`
	Items       json.RawMessage `json:"items"`
}

// formats are the string formats a form may ask for.
var formats = map[string]bool{"": true, "email": true, "uri": true, "date": true, "date-time": true}

// elicitationFields reads a requested schema as a flat form; why is set when it is not one.
// The fields come in order, the names the server wrote them in (order, from its JSON) first;
// without an order, the required fields first, then the rest, each by name.
func elicitationFields(schema any, order []string) (fields []Field, why string) {
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
	for _, n := range order {
		if _, ok := s.Properties[n]; ok && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var rest []string
	for n := range s.Properties {
		if !slices.Contains(names, n) {
			rest = append(rest, n)
		}
	}
	sort.Slice(rest, func(i, j int) bool {
		ri, rj := slices.Contains(s.Required, rest[i]), slices.Contains(s.Required, rest[j])
		if ri != rj {
			return ri
		}
		return rest[i] < rest[j]
	})
	names = append(names, rest...)
	for _, n := range names {
		var p property
		if json.Unmarshal(s.Properties[n], &p) != nil {
			return nil, fmt.Sprintf("field %q is not an object", n)
		}
		f, why := formField(n, p)
		if why != "" {
			return nil, why
		}
		f.Required = slices.Contains(s.Required, n)
		fields = append(fields, f)
	}
	return fields, ""
}

// formField reads one field's schema; why is set when it is not a field a form may hold.
func formField(n string, p property) (Field, string) {
	t, _ := p.Type.(string)
	f := Field{Name: n, Title: p.Title, Description: p.Description, Type: t, Default: p.Default,
		MinLength: p.MinLength, MaxLength: p.MaxLength, Minimum: p.Minimum, Maximum: p.Maximum}
	switch {
	case len(p.Properties) > 0 || t == "object":
		return f, fmt.Sprintf("field %q is an object, not a string, number, integer, boolean or list of choices", n)
	case t == "array":
		return multiSelect(f, p)
	case len(p.Items) > 0:
		return f, fmt.Sprintf("field %q has items but is not an array", n)
	case t == "" && (len(p.Enum) > 0 || len(p.OneOf) > 0):
		f.Type = "string" // an enum without a type is one of strings
	case t != "string" && t != "number" && t != "integer" && t != "boolean":
		return f, fmt.Sprintf("field %q has no primitive type", n)
	}
	if f.Type == "string" {
		if !formats[p.Format] {
			return f, fmt.Sprintf("field %q has the format %q, not email, uri, date or date-time", n, p.Format)
		}
		f.Format = p.Format
	}
	var why string
	if f.Enum, f.EnumNames, why = choices(n, f.Type == "string", p.Enum, p.EnumNames, p.OneOf); why != "" {
		return f, why
	}
	if f.Default != nil && !fitsType(f, f.Default) {
		f.Default = nil
	}
	return f, ""
}

// multiSelect reads an array field: its items an enum of strings (untitled) or an anyOf (or
// oneOf) of const/title (titled).
func multiSelect(f Field, p property) (Field, string) {
	var items struct {
		Type      any      `json:"type"`
		Enum      []any    `json:"enum"`
		EnumNames []string `json:"enumNames"`
		AnyOf     []choice `json:"anyOf"`
		OneOf     []choice `json:"oneOf"`
	}
	if len(p.Items) == 0 || json.Unmarshal(p.Items, &items) != nil {
		return f, fmt.Sprintf("field %q is a list without items", f.Name)
	}
	if t, _ := items.Type.(string); items.Type != nil && t != "string" {
		return f, fmt.Sprintf("field %q is a list of something else than choices", f.Name)
	}
	titled := items.AnyOf
	if len(titled) == 0 {
		titled = items.OneOf
	}
	var why string
	if f.Enum, f.EnumNames, why = choices(f.Name, true, items.Enum, items.EnumNames, titled); why != "" {
		return f, why
	}
	if len(f.Enum) == 0 {
		return f, fmt.Sprintf("field %q is a list without choices", f.Name)
	}
	f.MinItems, f.MaxItems = p.MinItems, p.MaxItems
	if f.Default != nil {
		if d, ok := stringList(f.Default); ok && fitsType(f, d) {
			f.Default = d
		} else {
			f.Default = nil
		}
	}
	return f, ""
}

// choices are an enum's values and labels, from enum (with enumNames) or from titled
// const/title pairs; ofStrings is whether the field holds strings (an enum of anything else is
// refused).
func choices(field string, ofStrings bool, enum []any, enumNames []string, titled []choice) (values, labels []string, why string) {
	for _, e := range enum {
		v, ok := e.(string)
		if !ok || !ofStrings {
			return nil, nil, fmt.Sprintf("field %q has an enum that is not of strings", field)
		}
		values = append(values, v)
	}
	labels = enumNames
	if len(values) == 0 && len(titled) > 0 {
		labels = nil
		for _, o := range titled {
			v, ok := o.Const.(string)
			if !ok || !ofStrings {
				return nil, nil, fmt.Sprintf("field %q has choices that are not strings", field)
			}
			values = append(values, v)
			labels = append(labels, o.Title)
		}
	}
	if len(labels) != len(values) {
		labels = nil
	}
	return values, labels, ""
}

// stringList is v as a []any of strings (what a multi-select's value is in JSON).
func stringList(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if _, ok := e.(string); !ok {
				return nil, false
			}
		}
		return x, true
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, true
	}
	return nil, false
}

// fitsType reports whether v is a value of f's type (one of its choices, within its bounds).
func fitsType(f Field, v any) bool {
	switch f.Type {
	case "string":
		s, ok := v.(string)
		return ok && checkString(f, s) == nil
	case "number", "integer":
		x, ok := v.(float64)
		if !ok {
			return false
		}
		if f.Type == "integer" && x != float64(int64(x)) {
			return false
		}
		return checkNumber(f, x) == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		list, ok := stringList(v)
		return ok && checkList(f, list) == nil
	}
	return false
}

// checkString checks a string against f's choices, format and lengths.
func checkString(f Field, s string) error {
	if len(f.Enum) > 0 {
		if !slices.Contains(f.Enum, s) {
			return fmt.Errorf("choose one of the %d choices", len(f.Enum))
		}
		return nil
	}
	n := utf8.RuneCountInString(s)
	if f.MinLength != nil && n < *f.MinLength {
		return fmt.Errorf("at least %d characters", *f.MinLength)
	}
	if f.MaxLength != nil && n > *f.MaxLength {
		return fmt.Errorf("at most %d characters", *f.MaxLength)
	}
	switch f.Format {
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s || a.Name != "" {
			return fmt.Errorf("%q is not an e-mail address (name@example.com)", s)
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" || strings.ContainsAny(s, " \t") {
			return fmt.Errorf("%q is not a URI with a scheme (https://...)", s)
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return fmt.Errorf("%q is not a date and time (YYYY-MM-DDThh:mm:ssZ)", s)
		}
	}
	return nil
}

// checkNumber checks a number against f's bounds.
func checkNumber(f Field, x float64) error {
	if f.Minimum != nil && x < *f.Minimum {
		return fmt.Errorf("at least %g", *f.Minimum)
	}
	if f.Maximum != nil && x > *f.Maximum {
		return fmt.Errorf("at most %g", *f.Maximum)
	}
	return nil
}

// checkList checks a multi-select's values: each one of f's choices, once, as many as it allows.
func checkList(f Field, list []any) error {
	seen := map[string]bool{}
	for _, e := range list {
		s, _ := e.(string)
		if !slices.Contains(f.Enum, s) {
			return fmt.Errorf("%q is not one of the %d choices", s, len(f.Enum))
		}
		if seen[s] {
			return fmt.Errorf("%q is chosen twice", s)
		}
		seen[s] = true
	}
	if f.MinItems != nil && len(list) < *f.MinItems {
		return fmt.Errorf("choose at least %d", *f.MinItems)
	}
	if f.MaxItems != nil && len(list) > *f.MaxItems {
		return fmt.Errorf("choose at most %d", *f.MaxItems)
	}
	return nil
}

// ParseFieldValue reads what the user typed for f: a number, an integer, a boolean (y/n,
// yes/no, true/false), an enum value or its number in the list, for a multi-select several of
// them separated by commas, or text; each checked against the field's format and bounds.
func ParseFieldValue(f Field, in string) (any, error) {
	switch f.Type {
	case "number", "integer":
		x, err := strconv.ParseFloat(in, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("%q is not a number", in)
		}
		if f.Type == "integer" && x != math.Trunc(x) {
			return nil, fmt.Errorf("%q is not a whole number", in)
		}
		if err := checkNumber(f, x); err != nil {
			return nil, err
		}
		return x, nil
	case "boolean":
		switch strings.ToLower(in) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, fmt.Errorf("answer y or n")
	case "array":
		var list []any
		for _, part := range strings.Split(in, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			list = append(list, choose(f, part))
		}
		if err := checkList(f, list); err != nil {
			return nil, err
		}
		if list == nil {
			list = []any{}
		}
		return list, nil
	}
	s := in
	if len(f.Enum) > 0 {
		s = choose(f, in)
	}
	if err := checkString(f, s); err != nil {
		return nil, err
	}
	return s, nil
}

// choose is the choice in names: its number in the list (from 1), or itself.
func choose(f Field, in string) string {
	if i, err := strconv.Atoi(in); err == nil && i >= 1 && i <= len(f.Enum) && !slices.Contains(f.Enum, in) {
		return f.Enum[i-1]
	}
	return in
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
		} else if _, w := elicitationFields(r.Params.RequestedSchema, nil); w != "" {
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
	fields, _ := elicitationFields(r.Params.RequestedSchema, s.orders.take(r.Params.RequestedSchema))
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
