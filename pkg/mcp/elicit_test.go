package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/pkg/mcp"
	"github.com/alertchat/alertchat/pkg/tool"
)

// elicitingServer has tools that ask the user for input during the call and answer with what
// they got: "flat" a form of every primitive kind with defaults, "nested" a schema that is not
// a flat form, "link" a request to open a URL.
func elicitingServer(t *testing.T) sdk.Transport {
	t.Helper()
	ct, _ := elicitingServerSession(t)
	return ct
}

// elicitingServerSession is elicitingServer and the server's side of its session.
func elicitingServerSession(t *testing.T) (sdk.Transport, *sdk.ServerSession) {
	t.Helper()
	// A server of the 2025-11-25 revision, which sends elicitation/create during a call (later
	// revisions embed the request in the call's result instead).
	s := sdk.NewServer(&sdk.Implementation{Name: "asks", Version: "1"}, &sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	ask := func(params *sdk.ElicitParams) sdk.ToolHandler {
		return func(ctx context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := r.Session.Elicit(ctx, params)
			text := ""
			if err != nil {
				text = "error: " + err.Error()
			} else {
				b, _ := json.Marshal(res)
				text = string(b)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
		}
	}
	obj := map[string]any{"type": "object"}
	s.AddTool(&sdk.Tool{Name: "flat", InputSchema: obj}, ask(&sdk.ElicitParams{Message: "Which case?", RequestedSchema: map[string]any{
		"type": "object", "required": []string{"ticket"},
		"properties": map[string]any{
			"ticket":   map[string]any{"type": "string", "default": "INC-1"},
			"priority": map[string]any{"type": "integer", "default": 3},
			"score":    map[string]any{"type": "number"},
			"notify":   map[string]any{"type": "boolean", "default": true},
			"queue":    map[string]any{"type": "string", "enum": []string{"soc", "ir"}, "default": "ir"},
		}}}))
	// Its fields in an order of the server's own, neither by name nor required first.
	s.AddTool(&sdk.Tool{Name: "ordered", InputSchema: obj}, ask(&sdk.ElicitParams{Message: "Which case?", RequestedSchema: json.RawMessage(
		`{"type":"object","required":["name"],"properties":{"ticket":{"type":"string","default":"INC-1"},"name":{"type":"string"},"agree":{"type":"boolean"},"born":{"type":"string","format":"date"}}}`)}))
	s.AddTool(&sdk.Tool{Name: "every", InputSchema: obj}, ask(&sdk.ElicitParams{Message: "Which case?", RequestedSchema: everyKind}))
	s.AddTool(&sdk.Tool{Name: "nested", InputSchema: obj}, ask(&sdk.ElicitParams{Message: "Your credentials", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"login": map[string]any{"type": "object", "properties": map[string]any{"password": map[string]any{"type": "string"}}}}}}))
	s.AddTool(&sdk.Tool{Name: "link", InputSchema: obj}, ask(&sdk.ElicitParams{Mode: "url", Message: "Open this", URL: "https://evil.example/login", ElicitationID: "e1"}))
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return ct, ss
}

// everyKind is a form of every field type MCP 2025-11-25 allows (SEP-1330), with defaults.
var everyKind = map[string]any{
	"type": "object", "required": []string{"name"},
	"properties": map[string]any{
		"name":     map[string]any{"type": "string", "title": "Name", "minLength": 2, "maxLength": 20},
		"email":    map[string]any{"type": "string", "format": "email"},
		"homepage": map[string]any{"type": "string", "format": "uri", "default": "https://example.com/"},
		"born":     map[string]any{"type": "string", "format": "date", "default": "2001-02-03"},
		"seen":     map[string]any{"type": "string", "format": "date-time"},
		"count":    map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
		"ratio":    map[string]any{"type": "number", "minimum": 0, "maximum": 1, "default": 0.5},
		"agree":    map[string]any{"type": "boolean", "default": false},
		"plain":    map[string]any{"type": "string", "enum": []string{"a", "b"}, "default": "b"},
		"hero": map[string]any{"type": "string", "oneOf": []any{
			map[string]any{"const": "hero-1", "title": "Superman"}, map[string]any{"const": "hero-2", "title": "Wonder Woman"}}, "default": "hero-1"},
		"legacy": map[string]any{"type": "string", "enum": []string{"pet-1", "pet-2"}, "enumNames": []string{"Cats", "Dogs"}, "default": "pet-2"},
		"tools": map[string]any{"type": "array", "minItems": 1, "maxItems": 2,
			"items": map[string]any{"type": "string", "enum": []string{"Guitar", "Piano", "Drums"}}, "default": []string{"Guitar"}},
		"fish": map[string]any{"type": "array", "maxItems": 3, "items": map[string]any{"anyOf": []any{
			map[string]any{"const": "fish-1", "title": "Tuna"}, map[string]any{"const": "fish-2", "title": "Salmon"}}}, "default": []string{"fish-1"}},
	}}

// everyKindDefaults are everyKind's defaults, as JSON.
const everyKindDefaults = `"agree":false,"born":"2001-02-03","count":42,"fish":["fish-1"],"hero":"hero-1","homepage":"https://example.com/","legacy":"pet-2","plain":"b","ratio":0.5,"tools":["Guitar"]`

type scriptedElicitor struct {
	mu   sync.Mutex
	seen []mcp.ElicitRequest
	ans  mcp.ElicitAnswer
}

func (e *scriptedElicitor) Elicit(_ context.Context, r mcp.ElicitRequest) (mcp.ElicitAnswer, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, r)
	return e.ans, nil
}

// A server's request for input during a call: a flat form goes to the elicitor (defaults
// applied to what it leaves out, the call named), the decision is logged with the call; where
// nobody can be asked it is declined; a schema that is not flat, or a URL to open, is declined
// with one line and never reaches the user.
func TestElicitation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		elicitor mcp.Elicitor
		tool     string
		want     string // in the tool's answer
		logged   tool.Elicitation
		warn     string
	}{
		{"answered", &scriptedElicitor{ans: mcp.ElicitAnswer{Action: "accept", Asked: true, Content: map[string]any{"ticket": "INC-9", "score": 0.5}}}, "flat",
			`"content":{"notify":true,"priority":3,"queue":"ir","score":0.5,"ticket":"INC-9"}`, tool.Elicitation{Server: "asks", Action: "accept", Asked: true, Fields: []string{"notify", "priority", "queue", "score", "ticket"}}, ""},
		{"defaults", mcp.AcceptDefaults{}, "flat",
			`"content":{"notify":true,"priority":3,"queue":"ir","ticket":"INC-1"}`, tool.Elicitation{Server: "asks", Action: "accept", Fields: []string{"notify", "priority", "queue", "score", "ticket"}}, ""},
		// Every field type of the 2025-11-25 revision: the name typed, the rest the defaults.
		{"every kind", &scriptedElicitor{ans: mcp.ElicitAnswer{Action: "accept", Asked: true, Content: map[string]any{"name": "Ada", "fish": []any{"fish-2", "fish-1"}}}}, "every",
			`"content":{` + strings.NewReplacer(`"fish":["fish-1"]`, `"fish":["fish-2","fish-1"]`, `"legacy":"pet-2",`, `"legacy":"pet-2","name":"Ada",`).Replace(everyKindDefaults) + `}`,
			tool.Elicitation{Server: "asks", Action: "accept", Asked: true, Fields: []string{"agree", "born", "count", "email", "fish", "hero", "homepage", "legacy", "name", "plain", "ratio", "seen", "tools"}}, ""},
		// A required field without a default: accept-defaults cannot answer it.
		{"every kind, defaults", mcp.AcceptDefaults{}, "every", `"action":"decline"`,
			tool.Elicitation{Server: "asks", Action: "decline", Fields: []string{"agree", "born", "count", "email", "fish", "hero", "homepage", "legacy", "name", "plain", "ratio", "seen", "tools"}}, ""},
		// The fields come in the order the server wrote them.
		{"server's order", &scriptedElicitor{ans: mcp.ElicitAnswer{Action: "accept", Asked: true, Content: map[string]any{"name": "Ada"}}}, "ordered",
			`"content":{"name":"Ada","ticket":"INC-1"}`, tool.Elicitation{Server: "asks", Action: "accept", Asked: true, Fields: []string{"ticket", "name", "agree", "born"}}, ""},
		{"nobody", nil, "flat", `"action":"decline"`, tool.Elicitation{Server: "asks", Action: "decline", Fields: []string{"notify", "priority", "queue", "score", "ticket"}}, ""},
		{"nested", &scriptedElicitor{ans: mcp.ElicitAnswer{Action: "accept"}}, "nested", `"action":"decline"`, tool.Elicitation{Server: "asks", Action: "decline"},
			`MCP server asks asked for input and was declined: its form is not a flat list of fields (field "login" is an object, not a string, number, integer, boolean or list of choices)`},
		// alertchat does not take URL requests: the server cannot even send one.
		{"url", &scriptedElicitor{ans: mcp.ElicitAnswer{Action: "accept"}}, "link", `client does not support "url" elicitation`, tool.Elicitation{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var warnings []string
			m := mcp.Start(context.Background(), &mcp.Config{Servers: map[string]mcp.ServerConfig{"asks": {Command: "unused", Trust: true}}}, mcp.Options{
				Transports: map[string]sdk.Transport{"asks": elicitingServer(t)}, Elicitor: tc.elicitor,
				Warn: func(l string) { mu.Lock(); warnings = append(warnings, l); mu.Unlock() },
			})
			defer m.Close()
			reg := registry(t, m.Tools(context.Background(), 10*time.Second))
			ctx, reported := tool.WithCallLog(context.Background())
			res := reg.Call(ctx, "mcp_asks_"+tc.tool, nil)
			if got, _ := res["content"].(string); !strings.Contains(got, tc.want) {
				t.Fatalf("result %v, want it to hold %s", res, tc.want)
			}
			got := reported().Elicitations
			if tc.logged.Action == "" && len(got) == 0 {
				return
			}
			if len(got) != 1 || got[0].Action != tc.logged.Action || got[0].Asked != tc.logged.Asked || strings.Join(got[0].Fields, ",") != strings.Join(tc.logged.Fields, ",") {
				t.Fatalf("logged %+v, want %+v", got, tc.logged)
			}
			if s, ok := tc.elicitor.(*scriptedElicitor); ok && tc.warn == "" && (len(s.seen) != 1 || s.seen[0].Tool != tc.tool || s.seen[0].Message != "Which case?") {
				t.Fatalf("the elicitor saw %+v", s.seen)
			}
			if s, ok := tc.elicitor.(*scriptedElicitor); ok && tc.warn != "" && len(s.seen) != 0 {
				t.Fatalf("the user was asked %+v", s.seen)
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.warn == "" && len(warnings) != 0 || tc.warn != "" && (len(warnings) != 1 || warnings[0] != tc.warn) {
				t.Fatalf("warnings %q, want %q", warnings, tc.warn)
			}
		})
	}
}

// A server that asks for input when no call of its is in flight (the user may be typing the
// next question) is declined with one line, and the user is never asked.
func TestElicitationOutsideACall(t *testing.T) {
	t.Parallel()
	ct, ss := elicitingServerSession(t)
	var mu sync.Mutex
	var warnings []string
	el := &scriptedElicitor{ans: mcp.ElicitAnswer{Action: "accept", Asked: true, Content: map[string]any{"ticket": "typed for something else"}}}
	m := mcp.Start(context.Background(), &mcp.Config{Servers: map[string]mcp.ServerConfig{"asks": {Command: "unused"}}}, mcp.Options{
		Transports: map[string]sdk.Transport{"asks": ct}, Elicitor: el,
		Warn: func(l string) { mu.Lock(); warnings = append(warnings, l); mu.Unlock() },
	})
	defer m.Close()
	if len(m.Tools(context.Background(), 10*time.Second)) == 0 {
		t.Fatal("the server did not start")
	}
	res, err := ss.Elicit(context.Background(), &sdk.ElicitParams{Message: "Which case?", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"ticket": map[string]any{"type": "string"}}}})
	if err != nil || res.Action != "decline" || res.Content != nil {
		t.Fatalf("result %+v, %v; want declined", res, err)
	}
	el.mu.Lock()
	defer el.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if len(el.seen) != 0 || len(warnings) != 1 || warnings[0] != "MCP server asks asked for input outside a call and was declined" {
		t.Fatalf("asked %+v, warnings %q", el.seen, warnings)
	}
}

// The terminal form: defaults shown and taken on Enter, answers checked against the field's
// type, an enum chosen by number; "n" declines.
func TestForm(t *testing.T) {
	t.Parallel()
	fields := []mcp.Field{
		{Name: "ticket", Type: "string", Default: "INC-1"},
		{Name: "priority", Type: "integer", Required: true},
		{Name: "queue", Type: "string", Enum: []string{"soc", "ir"}},
		{Name: "notify", Type: "boolean"},
	}
	for _, tc := range []struct {
		name, input, action, content string
	}{
		{"filled", "y\n\nx\n2\n2\nyes\n", "accept", `{"notify":true,"priority":2,"queue":"ir","ticket":"INC-1"}`},
		{"declined", "\n", "decline", `null`},
		{"cancelled", "c\n", "cancel", `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lines := strings.SplitAfter(tc.input, "\n")
			var out strings.Builder
			f := &mcp.Form{Out: &out, ReadLine: func(p string) (string, error) {
				out.WriteString(p)
				if len(lines) == 0 {
					return "", context.Canceled
				}
				l := lines[0]
				lines = lines[1:]
				return l, nil
			}}
			a, err := f.Elicit(context.Background(), mcp.ElicitRequest{Server: "intel", Tool: "lookup", Message: "Which ticket?\x1b[2J", Fields: fields})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(a.Content)
			if a.Action != tc.action || string(b) != tc.content || !a.Asked {
				t.Fatalf("answer %+v %s, want %s %s", a, b, tc.action, tc.content)
			}
			if strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), "MCP server intel (during lookup) asks for input") {
				t.Fatalf("form %q", out.String())
			}
		})
	}
}

// The terminal form of every field type: each field's prompt says what it takes, answers that
// do not fit (a bad e-mail address, a date, a number out of range, too many choices) are asked
// again, enums are chosen by number or value, a multi-select by several separated by commas.
func TestFormEveryKind(t *testing.T) {
	t.Parallel()
	ct, _ := elicitingServerSession(t)
	m := mcp.Start(context.Background(), &mcp.Config{Servers: map[string]mcp.ServerConfig{"asks": {Command: "unused", Trust: true}}}, mcp.Options{
		Transports: map[string]sdk.Transport{"asks": ct}, Elicitor: &everyKindForm{t: t},
	})
	defer m.Close()
	reg := registry(t, m.Tools(context.Background(), 10*time.Second))
	res := reg.Call(context.Background(), "mcp_asks_every", nil)
	want := `{"action":"accept","content":{"agree":true,"born":"2001-02-03","count":7,"email":"ada@example.com","fish":["fish-2"],"hero":"hero-2","homepage":"https://example.com/","legacy":"pet-1","name":"Ada","plain":"b","ratio":0.25,"seen":"2026-11-27T21:00:00Z","tools":["Piano","Drums"]}}`
	if got, _ := res["content"].(string); got != want {
		t.Fatalf("the server received %v\nwant %s", res, want)
	}
}

// everyKindForm answers everyKind on a scripted terminal: each prompt, what is typed, and what
// the form says back.
type everyKindForm struct{ t *testing.T }

func (e *everyKindForm) Elicit(ctx context.Context, r mcp.ElicitRequest) (mcp.ElicitAnswer, error) {
	steps := []struct{ prompt, typed, says string }{
		{"Answer? [y] fill in, [N] decline, [c] cancel the call ", "y", ""},
		{"agree [y/n] (default false): ", "YES", ""},
		{"born [date] (default 2001-02-03): ", "", ""},
		{"count [integer 1..100] (default 42): ", "500", ""},
		{"count [integer 1..100] (default 42): ", "7", "  at most 100\n"},
		{"email [email]: ", "ada at example", ""},
		{"email [email]: ", "ada@example.com", "  \"ada at example\" is not an e-mail address (name@example.com)\n"},
		{"fish [any of 1) Tuna = fish-1, 2) Salmon = fish-2; numbers or values separated by commas, at most 3 choices] (default fish-1): ", "2", ""},
		{"hero [1) Superman = hero-1, 2) Wonder Woman = hero-2] (default hero-1): ", "hero-2", ""},
		{"homepage [uri] (default https://example.com/): ", "", ""},
		{"legacy [1) Cats = pet-1, 2) Dogs = pet-2] (default pet-2): ", "1", ""},
		{"Name (name) [string, 2 to 20 characters, required]: ", "", ""},
		{"Name (name) [string, 2 to 20 characters, required]: ", "Ada", "  This field is required.\n"},
		{"plain [1) a, 2) b] (default b): ", "", ""},
		{"ratio [number 0..1] (default 0.5): ", "0.25", ""},
		{"seen [date-time]: ", "2026-11-27T21:00:00Z", ""},
		{"tools [any of 1) Guitar, 2) Piano, 3) Drums; numbers or values separated by commas, 1 to 2 choices] (default Guitar): ", "1,2,3", ""},
		{"tools [any of 1) Guitar, 2) Piano, 3) Drums; numbers or values separated by commas, 1 to 2 choices] (default Guitar): ", "Piano, 3", "  choose at most 2\n"},
	}
	var out strings.Builder
	i := 0
	f := &mcp.Form{Out: &out, ReadLine: func(prompt string) (string, error) {
		if i >= len(steps) {
			e.t.Errorf("asked %q past the script", prompt)
			return "", context.Canceled
		}
		st := steps[i]
		i++
		if prompt != st.prompt {
			e.t.Errorf("step %d: prompt %q, want %q", i, prompt, st.prompt)
		}
		if !strings.HasSuffix(out.String(), st.says) {
			e.t.Errorf("step %d: the form said %q, want it to end with %q", i, out.String(), st.says)
		}
		return st.typed + "\n", nil
	}}
	a, err := f.Elicit(ctx, r)
	if i != len(steps) {
		e.t.Errorf("the form asked %d of %d steps:\n%s", i, len(steps), out.String())
	}
	return a, err
}

// What is typed for each field type, parsed: good values and the ones refused.
func TestParseFieldValue(t *testing.T) {
	t.Parallel()
	one, three := 1, 3
	lo, hi := -1.5, 10.0
	multi := mcp.Field{Type: "array", Enum: []string{"a", "b", "c"}, MinItems: &one, MaxItems: &three}
	for _, tc := range []struct {
		f       mcp.Field
		in      string
		want    string // the value as JSON, "" when refused
		refusal string
	}{
		{mcp.Field{Type: "string"}, "x", `"x"`, ""},
		{mcp.Field{Type: "string", MinLength: &three}, "ab", "", "at least 3 characters"},
		{mcp.Field{Type: "string", MaxLength: &three}, "日本語", `"日本語"`, ""},
		{mcp.Field{Type: "string", Format: "email"}, "a@b.example", `"a@b.example"`, ""},
		{mcp.Field{Type: "string", Format: "email"}, "Ada <a@b.example>", "", "not an e-mail address"},
		{mcp.Field{Type: "string", Format: "uri"}, "https://x.example/p", `"https://x.example/p"`, ""},
		{mcp.Field{Type: "string", Format: "uri"}, "x.example", "", "not a URI"},
		{mcp.Field{Type: "string", Format: "date"}, "2026-02-30", "", "not a date"},
		{mcp.Field{Type: "string", Format: "date-time"}, "2026-02-03T04:05:06+09:00", `"2026-02-03T04:05:06+09:00"`, ""},
		{mcp.Field{Type: "number", Minimum: &lo, Maximum: &hi}, "-1.5", `-1.5`, ""},
		{mcp.Field{Type: "number", Minimum: &lo, Maximum: &hi}, "10.5", "", "at most 10"},
		{mcp.Field{Type: "number"}, "NaN", "", "not a number"},
		{mcp.Field{Type: "integer"}, "2.5", "", "not a whole number"},
		{mcp.Field{Type: "integer"}, "12", `12`, ""},
		{mcp.Field{Type: "boolean"}, "No", `false`, ""},
		{mcp.Field{Type: "boolean"}, "maybe", "", "answer y or n"},
		{mcp.Field{Type: "string", Enum: []string{"x", "y"}}, "2", `"y"`, ""},
		{mcp.Field{Type: "string", Enum: []string{"x", "y"}}, "z", "", "choose one of the 2 choices"},
		// A choice that is itself a number is taken as the value, not as a position.
		{mcp.Field{Type: "string", Enum: []string{"2", "1"}}, "1", `"1"`, ""},
		{multi, "1, c", `["a","c"]`, ""},
		{multi, "a,a", "", `"a" is chosen twice`},
		{multi, "a,b,c,1", "", `"a" is chosen twice`},
		{multi, "d", "", `"d" is not one of the 3 choices`},
		{multi, ",", "", "choose at least 1"},
	} {
		got, err := mcp.ParseFieldValue(tc.f, tc.in)
		if tc.want == "" {
			if err == nil || !strings.Contains(err.Error(), tc.refusal) {
				t.Errorf("%+v %q: %v, %v; want refused with %q", tc.f, tc.in, got, err, tc.refusal)
			}
			continue
		}
		b, _ := json.Marshal(got)
		if err != nil || string(b) != tc.want {
			t.Errorf("%+v %q: %s, %v; want %s", tc.f, tc.in, b, err, tc.want)
		}
	}
}

// accept-defaults declines a form with a required field that has no default, and says which.
func TestAcceptDefaultsNamesTheMissingField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		fields []mcp.Field
		action string
		warn   string
	}{
		{"all defaults", []mcp.Field{{Name: "ticket", Type: "string", Default: "INC-1", Required: true}, {Name: "note", Type: "string"}}, "accept", ""},
		{"one missing", []mcp.Field{{Name: "born", Type: "string", Default: "2001-02-03"}, {Name: "name", Type: "string", Required: true}}, "decline",
			"MCP server asks asked for input and was declined: --elicit accept-defaults has no default for its required field name"},
		{"two missing", []mcp.Field{{Name: "name", Type: "string", Required: true}, {Name: "email", Type: "string", Required: true}}, "decline",
			"MCP server asks asked for input and was declined: --elicit accept-defaults has no default for its required fields name, email"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var warnings []string
			a, err := mcp.AcceptDefaults{Warn: func(l string) { warnings = append(warnings, l) }}.Elicit(context.Background(), mcp.ElicitRequest{Server: "asks", Fields: tc.fields})
			if err != nil || a.Action != tc.action {
				t.Fatalf("answer %+v, %v; want %s", a, err, tc.action)
			}
			if tc.warn == "" && len(warnings) != 0 || tc.warn != "" && (len(warnings) != 1 || warnings[0] != tc.warn) {
				t.Fatalf("warnings %q, want %q", warnings, tc.warn)
			}
		})
	}
}

// Over Streamable HTTP the fields keep the server's order too: it is read from the event stream
// the request comes in.
func TestElicitationOrderOverHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  func(url string) mcp.ServerConfig
		h    func(*sdk.Server) http.Handler
	}{
		{"streamable HTTP", func(url string) mcp.ServerConfig { return mcp.ServerConfig{HTTPURL: url, Trust: true} },
			func(s *sdk.Server) http.Handler {
				return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := sdk.NewServer(&sdk.Implementation{Name: "asks", Version: "1"}, &sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
			s.AddTool(&sdk.Tool{Name: "ordered", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				res, err := r.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Which case?", RequestedSchema: json.RawMessage(
					`{"type":"object","required":["name"],"properties":{"ticket":{"type":"string"},"name":{"type":"string"},"agree":{"type":"boolean"}}}`)})
				text := "error"
				if err == nil {
					text = res.Action
				}
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
			})
			srv := httptest.NewServer(tc.h(s))
			t.Cleanup(srv.Close)
			el := &scriptedElicitor{ans: mcp.ElicitAnswer{Action: "accept", Asked: true, Content: map[string]any{"name": "Ada"}}}
			m := mcp.Start(context.Background(), &mcp.Config{Servers: map[string]mcp.ServerConfig{"asks": tc.cfg(srv.URL)}}, mcp.Options{Elicitor: el, Warn: func(string) {}})
			defer m.Close()
			reg := registry(t, m.Tools(context.Background(), 10*time.Second))
			res := reg.Call(context.Background(), "mcp_asks_ordered", nil)
			el.mu.Lock()
			defer el.mu.Unlock()
			if len(el.seen) != 1 {
				t.Fatalf("asked %d times; result %v", len(el.seen), res)
			}
			var names []string
			for _, f := range el.seen[0].Fields {
				names = append(names, f.Name)
			}
			if got := strings.Join(names, ","); got != "ticket,name,agree" {
				t.Fatalf("fields %s, want the server's order ticket,name,agree", got)
			}
		})
	}
}
