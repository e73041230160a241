package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/store"
)

func alertCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "alert",
		Usage: "add, list and show alerts",
		Commands: []*cli.Command{
			alertAddCommand(g),
			alertListCommand(g),
			alertShowCommand(g),
		},
	}
}

type alertAddOptions struct {
	File string
}

func alertAddCommand(g *globalOptions) *cli.Command {
	opts := &alertAddOptions{}
	return &cli.Command{
		Name:      "add",
		Usage:     "store an alert (a JSON object or array) and print its ID",
		UsageText: "alertchat alert add -f FILE   (-f - reads stdin)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "alert JSON file, - for stdin", Required: true, Destination: &opts.File},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return usageErrorf("unexpected arguments: %v", c.Args().Slice())
			}
			return g.withStore(ctx, func(s store.Store) error {
				id, err := addAlert(ctx, g.io, s, opts.File)
				if err != nil {
					return err
				}
				fmt.Fprintln(g.io.Out, id)
				return nil
			})
		},
	}
}

// alertStore is what adding an alert needs.
type alertStore interface {
	PutAlert(ctx context.Context, a *model.Alert) (bool, error)
}

// addAlert reads, validates and stores the alert in path; re-adding the same JSON is a no-op
// returning the same ID.
func addAlert(ctx context.Context, ios *IOStreams, s alertStore, path string) (model.AlertID, error) {
	data, err := readInput(ios, path, alert.MaxSize)
	if err != nil {
		return "", err
	}
	a, err := alert.Parse(data)
	if err != nil {
		return "", goerr.Wrap(err, "cannot add "+displayPath(path))
	}
	a.CreatedAt = store.Now()
	if _, err := s.PutAlert(ctx, a); err != nil {
		return "", goerr.Wrap(err, "failed to store alert", goerr.V("alert_id", a.ID))
	}
	return a.ID, nil
}

func displayPath(p string) string {
	if p == "-" {
		return "stdin"
	}
	return p
}

type alertListOptions struct {
	Output string
	Limit  int
}

type alertJSON struct {
	ID        model.AlertID   `json:"id"`
	Title     string          `json:"title"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data,omitempty"`
}

func alertListCommand(g *globalOptions) *cli.Command {
	opts := &alertListOptions{}
	return &cli.Command{
		Name:  "list",
		Usage: "list alerts, newest first",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "text or json", Destination: &opts.Output},
			&cli.IntFlag{Name: "limit", Value: 50, Usage: "how many alerts", Destination: &opts.Limit},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := outputFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			if opts.Limit <= 0 {
				return usageErrorf("--limit must be positive")
			}
			return g.withStore(ctx, func(s store.Store) error { return listAlerts(ctx, g.io, s, opts) })
		},
	}
}

func listAlerts(ctx context.Context, ios *IOStreams, s store.Alerts, opts *alertListOptions) error {
	var alerts []*model.Alert
	cursor := ""
	for len(alerts) < opts.Limit {
		page, err := s.ListAlerts(ctx, store.AlertQuery{Limit: opts.Limit - len(alerts), Cursor: cursor})
		if err != nil {
			return goerr.Wrap(err, "failed to list alerts")
		}
		alerts = append(alerts, page.Alerts...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if opts.Output == "json" {
		out := make([]alertJSON, 0, len(alerts))
		for _, a := range alerts {
			out = append(out, alertJSON{ID: a.ID, Title: a.Title, CreatedAt: rfc3339(a.CreatedAt)})
		}
		return printJSON(ios.Out, out)
	}
	if len(alerts) == 0 && ios.StdoutTTY {
		fmt.Fprintln(ios.ErrOut, "No alerts yet. Add one with: alertchat alert add -f alert.json")
		return nil
	}
	t := newTable(ios.Out, ios.StdoutTTY, "ID", "CREATED", "TITLE")
	now := time.Now()
	for _, a := range alerts {
		created := rfc3339(a.CreatedAt)
		if ios.StdoutTTY {
			created = relativeTime(now, a.CreatedAt)
		}
		t.row(string(a.ID), created, a.Title)
	}
	t.flush()
	return nil
}

type alertShowOptions struct {
	Output string
}

func alertShowCommand(g *globalOptions) *cli.Command {
	opts := &alertShowOptions{}
	return &cli.Command{
		Name:      "show",
		Usage:     "show an alert as stored",
		UsageText: "alertchat alert show ID [-o json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "text (the alert as stored) or json (with its metadata)", Destination: &opts.Output},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := outputFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			if c.Args().Len() != 1 {
				return usageErrorf("alert show takes exactly one alert ID")
			}
			return g.withStore(ctx, func(s store.Store) error {
				return showAlert(ctx, g.io, s, model.AlertID(c.Args().First()), opts)
			})
		},
	}
}

func showAlert(ctx context.Context, ios *IOStreams, s store.Alerts, id model.AlertID, opts *alertShowOptions) error {
	a, err := s.GetAlert(ctx, id)
	if err != nil {
		return goerr.Wrap(err, "no alert "+string(id), goerr.V("alert_id", id))
	}
	if opts.Output == "json" {
		return printJSON(ios.Out, alertJSON{ID: a.ID, Title: a.Title, CreatedAt: rfc3339(a.CreatedAt), Data: a.Data})
	}
	if _, err := ios.Out.Write(a.Data); err != nil {
		return goerr.Wrap(err, "failed to write alert")
	}
	fmt.Fprintln(ios.Out)
	return nil
}
