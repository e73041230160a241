// Package alert is "alertchat alert": add, list and show the alerts conversations are about.
package alert

import (
	"context"
	"encoding/json"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/pkg/record"
)

// NewCmdAlert is "alertchat alert".
func NewCmdAlert(f *factory.Factory) *cli.Command {
	return &cli.Command{
		Name:  "alert",
		Usage: "add, list and show alerts",
		Commands: []*cli.Command{
			NewCmdAdd(f, nil),
			NewCmdList(f, nil),
			NewCmdShow(f, nil),
			NewCmdSearch(f, nil),
		},
	}
}

// openStore is what every alert verb needs from the factory.
type openStore func(ctx context.Context, o factory.StoreOptions) (*factory.Store, error)

type alertJSON struct {
	ID        record.AlertID  `json:"id"`
	Title     string          `json:"title"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data,omitempty"`
	investigationsJSON
}
