package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/pkg/procgroup"
)

// groupTransport runs a stdio server as the SDK does (stdin closed, then SIGTERM, then
// SIGKILL to the server) and then ends the server's whole group, so that a process the server
// started (npx's node, a wrapper script's child) does not outlive the session.
type groupTransport struct {
	sdk.CommandTransport
}

func (t *groupTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.CommandTransport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	g, err := procgroup.Join(t.Command)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return &groupConn{Connection: conn, group: g}, nil
}

type groupConn struct {
	sdk.Connection
	group *procgroup.Group
}

func (c *groupConn) Close() error {
	err := c.Connection.Close()
	_ = c.group.Kill()
	return err
}
