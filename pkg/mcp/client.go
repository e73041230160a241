package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/pkg/termsafe"
)

// Client is one server reached outside a chat ('alertchat mcp tools', 'call', 'login'): the
// same connection, credentials and sign-in as a chat's, its tools and results as the server
// sent them.
type Client struct {
	s *server
}

// Dial connects to the server of cfg; label names it in messages (its configured name, or its
// URL when it was given as one).
func Dial(ctx context.Context, label string, cfg ServerConfig, o Options) (*Client, error) {
	s, err := connect(ctx, label, cfg, o, o.Transports[label])
	if err != nil {
		if e, ok := authError(err); ok {
			return nil, e
		}
		return nil, fmt.Errorf("MCP server %s: %s", label, termsafe.Line(err.Error()))
	}
	return &Client{s: s}, nil
}

// Tools lists the server's tools as it published them (includeTools and excludeTools
// applied).
func (c *Client) Tools(ctx context.Context) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range c.s.session.Tools(ctx, nil) {
		if err != nil {
			if e, ok := authError(err); ok {
				return nil, e
			}
			return nil, fmt.Errorf("MCP server %s did not list its tools: %s", c.s.name, termsafe.Line(err.Error()))
		}
		if c.s.cfg.Wants(t.Name) {
			out = append(out, t)
		}
	}
	return out, nil
}

// Call calls a tool and returns its result as the server sent it; ctx may carry a log of the
// server's requests for input (tool.WithCallLog).
func (c *Client) Call(ctx context.Context, name string, args map[string]any) (*sdk.CallToolResult, error) {
	res, err := c.s.callTool(ctx, name, args)
	if err != nil {
		var held *EgressDeniedError
		if errors.As(err, &held) {
			return nil, held
		}
		if e, ok := authError(err); ok {
			return nil, e
		}
		return nil, fmt.Errorf("MCP server %s: calling %s: %s", c.s.name, name, termsafe.Line(err.Error()))
	}
	return res, nil
}

// SignedIn reports whether a sign-in completed in this connection.
func (c *Client) SignedIn() bool { return c.s.oauth != nil && c.s.oauth.signedInNow() }

// Close ends the connection (a stdio server's process with it).
func (c *Client) Close() error { return c.s.close() }

// ResultText is a result's text content, joined (other content as JSON).
func ResultText(res *sdk.CallToolResult) string { return resultText(res) }

// HasGrant reports whether a sign-in is stored for the server at url.
func HasGrant(store TokenStore, url string) (bool, error) {
	if store == nil {
		return false, nil
	}
	g, err := store.Load(url)
	return g != nil, err
}
