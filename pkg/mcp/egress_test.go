package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/pkg/mcp"
	"github.com/alertchat/alertchat/pkg/tool"
)

// "egress" and "internalDomains" in the config: a value other than public-only, or
// internalDomains that is not a list of domain names, is a config error naming it.
func TestParseEgress(t *testing.T) {
	t.Parallel()
	c, err := mcp.Parse([]byte(`{"internalDomains": ["corp.example", "*.ad.example", "lab.example."],
		"mcpServers": {"intel": {"command": "x", "egress": "public-only"}, "siem": {"command": "y"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Servers["intel"].Egress != mcp.EgressPublicOnly || c.Servers["siem"].Egress != "" || len(c.InternalDomains) != 3 {
		t.Fatalf("parsed %+v", c)
	}
	for _, bad := range []struct{ name, json, says string }{
		{"another egress", `{"mcpServers": {"a": {"command": "x", "egress": "public"}}}`, `server "a": unknown egress "public": use "public-only"`},
		{"egress not a string", `{"mcpServers": {"a": {"command": "x", "egress": true}}}`, "egress"},
		{"domains not a list", `{"internalDomains": "corp.example", "mcpServers": {}}`, "internalDomains must be a list of domain names"},
		{"domains of numbers", `{"internalDomains": [1], "mcpServers": {}}`, "internalDomains must be a list of domain names"},
		{"not a domain", `{"internalDomains": ["corp example"], "mcpServers": {}}`, `internalDomains: "corp example" is not a domain name`},
		{"a URL", `{"internalDomains": ["https://corp.example"], "mcpServers": {}}`, `internalDomains: "https://corp.example" is not a domain name`},
		{"empty", `{"internalDomains": [""], "mcpServers": {}}`, `internalDomains: "" is not a domain name`},
	} {
		if _, err := mcp.Parse([]byte(bad.json), nil); err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("%s: %v, want it to say %q", bad.name, err, bad.says)
		}
	}
}

// recordingServer is an in-memory server whose tool lookup records the arguments it receives.
func recordingServer(t *testing.T) (sdk.Transport, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	s := sdk.NewServer(&sdk.Implementation{Name: "intel", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "lookup", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			mu.Lock()
			got = append(got, string(r.Params.Arguments))
			mu.Unlock()
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "known scanner"}}}, nil
		})
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return ct, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string{}, got...) }
}

// A public-only server's call that carries internal data is held back, even for a trusted
// server: denied with the design's answer where nobody can be asked, asked (naming what would
// leave) where someone can, and sent only on a yes a person gave. A public indicator goes
// through; a server without egress gets everything. What became of a held call is reported to
// the call's log (tool.WithCallLog), kinds only, never the values; a call not held reports
// nothing.
func TestEgressHeldBack(t *testing.T) {
	t.Parallel()
	type answer struct{ send, asked bool }
	denial := func(what string) string {
		return `{"error":"denied: would send internal data (` + what + `) to intel, a public-only server"}`
	}
	for _, tc := range []struct {
		name     string
		egress   string
		confirm  *answer // nil: nobody can be asked
		args     map[string]any
		result   string
		sent     bool
		reported *tool.Egress // nil: the call was not held
	}{
		{"public indicator", "public-only", nil, map[string]any{"ip": "203.0.113.7"}, `{"content":"known scanner"}`, true, nil},
		{"denied", "public-only", nil, map[string]any{"ip": "10.0.3.7"}, denial("10.0.3.7"), false,
			&tool.Egress{Kinds: []string{"internal address"}}},
		{"nested key", "public-only", nil, map[string]any{"q": map[string]any{"dc01.corp.example": []any{"x"}}}, denial("dc01.corp.example"), false,
			&tool.Egress{Kinds: []string{"internal host"}}},
		{"asked, no", "public-only", &answer{false, true}, map[string]any{"who": "alice@corp.example"}, denial("alice@corp.example"), false,
			&tool.Egress{Kinds: []string{"e-mail address"}, Asked: true}},
		{"asked, yes", "public-only", &answer{true, true}, map[string]any{"ip": "10.0.3.7", "host": "10.0.3.8", "who": "bob@corp.example"}, `{"content":"known scanner"}`, true,
			&tool.Egress{Kinds: []string{"internal address", "e-mail address"}, Sent: true, Asked: true}},
		{"a yes nobody gave", "public-only", &answer{true, false}, map[string]any{"ip": "10.0.3.7"}, denial("10.0.3.7"), false,
			&tool.Egress{Kinds: []string{"internal address"}}},
		{"asked about a public indicator: never", "public-only", &answer{false, true}, map[string]any{"ip": "203.0.113.7"}, `{"content":"known scanner"}`, true, nil},
		{"no egress setting", "", nil, map[string]any{"ip": "10.0.3.7"}, `{"content":"known scanner"}`, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ct, received := recordingServer(t)
			c, err := mcp.Parse([]byte(`{"internalDomains": ["corp.example"], "mcpServers": {"intel": {"command": "unused", "trust": true, "egress": "`+tc.egress+`"}}}`), nil)
			if err != nil {
				t.Fatal(err)
			}
			var asked []mcp.EgressHold
			o := mcp.Options{Transports: map[string]sdk.Transport{"intel": ct}}
			if tc.confirm != nil {
				o.ConfirmEgress = func(_ context.Context, h mcp.EgressHold) (bool, bool) {
					asked = append(asked, h)
					return tc.confirm.send, tc.confirm.asked
				}
			}
			m := mcp.Start(context.Background(), c, o)
			defer m.Close()
			reg := registry(t, m.Tools(context.Background(), 10*time.Second))
			ctx, reported := tool.WithCallLog(context.Background())
			res := reg.Call(ctx, "mcp_intel_lookup", tc.args)
			b, _ := json.Marshal(res)
			if string(b) != tc.result {
				t.Fatalf("result %s, want %s", b, tc.result)
			}
			got := received()
			if tc.sent != (len(got) == 1) {
				t.Fatalf("the server received %q", got)
			}
			if tc.reported != nil && tc.confirm != nil && (len(asked) != 1 || asked[0].Server != "intel" || asked[0].Tool != "lookup" || len(asked[0].Leaks) == 0) {
				t.Fatalf("asked %+v", asked)
			}
			if tc.reported == nil && len(asked) != 0 {
				t.Fatalf("asked about a call that was not held: %+v", asked)
			}
			e := reported().Egress
			if (e != nil) != (tc.reported != nil) || e != nil && !reflect.DeepEqual(*e, *tc.reported) {
				t.Fatalf("reported %+v, want %+v", e, tc.reported)
			}
		})
	}
}

// 'mcp call' (a Client) is held back the same way: the call is not sent, and the error says why.
func TestEgressClientCall(t *testing.T) {
	t.Parallel()
	ct, received := recordingServer(t)
	c, err := mcp.Parse([]byte(`{"mcpServers": {"intel": {"command": "unused", "egress": "public-only"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := mcp.Dial(context.Background(), "intel", c.Servers["intel"], mcp.Options{Transports: map[string]sdk.Transport{"intel": ct}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	_, err = cl.Call(context.Background(), "lookup", map[string]any{"host": "fileserver.lan"})
	var held *mcp.EgressDeniedError
	if !errors.As(err, &held) || err.Error() != "denied: would send internal data (fileserver.lan) to intel, a public-only server" {
		t.Fatalf("err %v", err)
	}
	if got := received(); len(got) != 0 {
		t.Fatalf("the server received %q", got)
	}
	if _, err := cl.Call(context.Background(), "lookup", map[string]any{"host": "evil.example"}); err != nil {
		t.Fatal(err)
	}
}
