// Package mcptest has in-memory MCP servers, written with the Go SDK, for tests of the MCP
// client and of the chat that uses it.
package mcptest

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is an in-memory server with tools of the given names; each answers its own name. It
// is closed when the test ends.
func Server(t testing.TB, names ...string) sdk.Transport {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "named", Version: "1"}, nil)
	for _, n := range names {
		s.AddTool(&sdk.Tool{Name: n, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: n}}}, nil
			})
	}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return ct
}

// Gated connects only once Gate is closed: a server slow to start, ready when the test says so.
type Gated struct {
	sdk.Transport
	Gate <-chan struct{}
}

// Connect implements sdk.Transport.
func (g Gated) Connect(ctx context.Context) (sdk.Connection, error) {
	select {
	case <-g.Gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Transport.Connect(ctx)
}
