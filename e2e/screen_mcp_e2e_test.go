package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// formServer is a streamable-HTTP MCP server whose tool open_ticket asks the user for a form of
// every kind of field during the call (elicitation/create), answers "ticket opened", and sends
// what it received on got.
func formServer(t *testing.T) (url string, got <-chan string) {
	t.Helper()
	received := make(chan string, 1)
	// A server of the 2025-11-25 revision, which sends elicitation/create during a call.
	s := sdk.NewServer(&sdk.Implementation{Name: "tickets", Version: "1"}, &sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	s.AddTool(&sdk.Tool{Name: "open_ticket", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := r.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Open a ticket for 203.0.113.7?", RequestedSchema: map[string]any{
				"type": "object", "required": []string{"summary"},
				"properties": map[string]any{
					"summary":  map[string]any{"type": "string", "title": "Summary", "description": "one line"},
					"priority": map[string]any{"type": "integer", "default": 3},
					"queue":    map[string]any{"type": "string", "enum": []string{"soc", "ir"}, "default": "ir"},
					"notify":   map[string]any{"type": "boolean", "default": true},
				}}})
			if err != nil {
				received <- "error: " + err.Error()
			} else {
				b, _ := json.Marshal(res)
				received <- string(b)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ticket opened"}}}, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", received
}

// 'alertchat mcp call' on a terminal against a server that asks for input during the call: the
// form is on the screen as a person sees it (the server's message, each field with its type and
// default), Enter takes a default, and the server receives exactly what was typed and chosen.
func TestScreenMCPCallForm(t *testing.T) {
	t.Parallel()
	url, got := formServer(t)
	c := newCLI(t)
	c.env = append(c.env, "ALERTCHAT_MCP_TOKEN_STORE=file")
	p := c.startScreen(t, 120, "mcp", "call", url, "open_ticket", "{}")

	p.WaitText(t, "Answer? [y] fill in, [N] decline, [c] cancel the call")
	for _, want := range []string{
		"MCP server " + url + " (during open_ticket) asks for input:",
		"  Open a ticket for 203.0.113.7?",
		"It receives what you type here. Never type a password or a key a server did not need to ask for.",
	} {
		if p.Count(want) != 1 {
			t.Fatalf("%q is not on the screen once:\n%s", want, p.Dump())
		}
	}
	p.Type(t, "y\r")
	// One field at a time, in the order of the server's JSON (a Go map's: by name), each with
	// its type and the server's default.
	for _, step := range []struct{ prompt, typed string }{
		{"notify [y/n] (default true):", "\r"},
		{"priority [integer] (default 3):", "5\r"},
		{"queue [1) soc, 2) ir] (default ir):", "1\r"},
		{"Summary (summary): one line [string, required]:", "scanner seen at the edge\r"},
	} {
		p.WaitText(t, step.prompt)
		if _, y := p.Cursor(); !strings.HasPrefix(p.Rows()[y], step.prompt) {
			t.Fatalf("the cursor is not after %q:\n%s", step.prompt, p.Dump())
		}
		p.Type(t, step.typed)
	}
	if code := p.Wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.Dump())
	}
	select {
	case r := <-got:
		if want := `{"action":"accept","content":{"notify":true,"priority":5,"queue":"soc","summary":"scanner seen at the edge"}}`; r != want {
			t.Fatalf("the server received %s, want %s", r, want)
		}
	default:
		t.Fatalf("the server received no answer:\n%s", p.Dump())
	}
	if p.Count("ticket opened") != 1 {
		t.Fatalf("the result is not on the screen once:\n%s", p.Dump())
	}
}
