package history

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/handoff"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// ReportOptions are "history report"'s.
type ReportOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	// Workspace names the identity of a STIX bundle.
	Workspace string
	// ID is a full history ID or a unique prefix of 8 or more characters.
	ID     string
	Output string
	// IOCs, when set, writes the indicators in this format instead of the report.
	IOCs string
}

// NewCmdReport is "alertchat history report ID".
func NewCmdReport(f *factory.Factory, runF func(context.Context, *ReportOptions) error) *cli.Command {
	opts := &ReportOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "report",
		Usage: "an investigation as a case report, or its indicators as CSV, JSON or STIX 2.1",
		Description: `Prints an investigation as a case report to hand over: the alert, the verdict and the note, who
asked what, a timeline (the alert, each question, each tool call, the verdict), the indicators
(type, value, where seen), the evidence tools read, the knowledge given and the next steps (from
the note and the last answer). -o md (the default) reads as it is in a ticket; -o json has the
same content.

Values are as stored: the alert's own values raw (alerts are stored as given), the rest as
storage wrote it, redacted values as their keyed tokens. --iocs writes, instead of the report,
the raw indicators of the alert, the note and lessons: csv (type,value,source), json, or stix (a
STIX 2.1 bundle: the workspace's identity, one indicator per value with its pattern, and a report
referring to them; the same history exports the same bundle). A value storage holds only as a
token is counted on stderr, never exported; cloud resource IDs, which STIX has no pattern for, are
left out of the bundle (csv and json carry them).

Examples:
  alertchat history report 6e6f461a > case.md
  alertchat history report 6e6f461a --iocs stix > iocs.json

Exit status: 2 for an unknown format, 3 when the workspace has no such history.`,
		UsageText: "alertchat history report ID [-o md|json] [--iocs csv|json|stix]   (ID: full, or a unique prefix of 8+ characters)",
		Flags: []cli.Flag{
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "md", Usage: "report format (md: Markdown)", Destination: &opts.Output}, "md", "json"),
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "iocs", Usage: "write the raw indicators instead of the report", Destination: &opts.IOCs}, "csv", "json", "stix"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.CheckFormat(opts.Output, "md", "json"); err != nil {
				return err
			}
			if c.IsSet("iocs") {
				if err := checkIOCFormat(opts.IOCs); err != nil {
					return err
				}
				if c.IsSet("output") {
					return cmdutil.UsageErrorf("--iocs writes the indicators instead of the report: give -o or --iocs, not both")
				}
			}
			if c.Args().Len() != 1 {
				return cmdutil.UsageErrorf("history report takes exactly one history ID")
			}
			opts.ID = c.Args().First()
			opts.Workspace = f.Config().Workspace
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return reportRun(ctx, opts, s)
			})
		},
	}
}

func checkIOCFormat(f string) error {
	switch f {
	case "csv", "json", "stix":
		return nil
	}
	return cmdutil.UsageErrorf("invalid --iocs format %q: use csv, json, stix", f)
}

// reportStore is what a report reads: the history and its alert.
type reportStore interface {
	store.Histories
	store.KnowledgeBase
	GetAlert(ctx context.Context, id record.AlertID) (*record.Alert, error)
}

// knowledgeOf is the team knowledge of h as its report shows it: the entries it was given
// (record.History.KnowledgeIDs; one since deleted from the store is named by its ID) and the
// lessons learned from it (entries whose source is h, among the newest store.MaxLimit).
func knowledgeOf(ctx context.Context, s store.KnowledgeBase, h *record.History) ([]handoff.Knowledge, []string, error) {
	var given []handoff.Knowledge
	for _, id := range h.KnowledgeIDs {
		e, err := s.GetKnowledge(ctx, string(id))
		switch {
		case errors.Is(err, store.ErrNotFound):
			given = append(given, handoff.Knowledge{ID: record.KnowledgeRef(id), Text: "(no longer in the store)"})
			continue
		case err != nil:
			return nil, nil, err
		}
		given = append(given, handoff.Knowledge{ID: e.Ref(), Text: e.Text, Author: e.Author})
	}
	all, err := s.ListKnowledge(ctx, store.KnowledgeQuery{All: true, Limit: store.MaxLimit})
	if err != nil {
		return nil, nil, err
	}
	var lessons []string
	for i := len(all) - 1; i >= 0; i-- { // oldest first, as they were learned
		if e := all[i]; e.Source != nil && e.Source.HistoryID == h.ID {
			lessons = append(lessons, e.Ref()+": "+e.Text)
		}
	}
	return given, lessons, nil
}

// reportRun prints the report, or its indicators.
func reportRun(ctx context.Context, opts *ReportOptions, s reportStore) error {
	id, err := lookup.HistoryID(ctx, s, opts.ID)
	if err != nil {
		return err
	}
	h, err := lookup.LoadHistory(ctx, s, id, true)
	if err != nil {
		return err
	}
	a, err := s.GetAlert(ctx, h.AlertID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		a = nil // the report says the alert is missing
	case err != nil:
		return goerr.Wrap(err, "failed to load alert", goerr.V("alert_id", h.AlertID))
	}
	given, lessons, err := knowledgeOf(ctx, s, h)
	if err != nil {
		return err
	}
	r := handoff.Build(handoff.Input{History: h, Alert: a, Workspace: opts.Workspace, Knowledge: given, Lessons: lessons})
	if opts.IOCs == "" {
		if opts.Output == "json" {
			return cmdutil.PrintJSON(opts.IO.Out, r)
		}
		return r.Markdown(opts.IO.Out)
	}
	return writeIOCs(opts.IO.Out, opts.IO.ErrOut, r, opts.IOCs)
}

// writeIOCs writes the report's raw indicators in format to w, and says on errOut what was
// left out.
func writeIOCs(w, errOut io.Writer, r *handoff.Report, format string) error {
	e := r.IOCs()
	var err error
	skipped := 0
	switch format {
	case "csv":
		err = e.WriteCSV(w)
	case "json":
		err = cmdutil.PrintJSON(w, e.IOCs)
	case "stix":
		var bundle map[string]any
		bundle, skipped = r.STIX(e)
		err = cmdutil.PrintJSON(w, bundle)
	}
	if err != nil {
		return err
	}
	if e.Redacted > 0 {
		fmt.Fprintf(errOut, "%d more indicator%s redacted in storage: a keyed token is not a value, so %s not exported.\n",
			e.Redacted, pluralVerb(e.Redacted, " is", "s are"), pluralVerb(e.Redacted, "it is", "they are"))
	}
	if e.ConversationOnly > 0 {
		fmt.Fprintf(errOut, "%d value%s only the conversation names %s not exported (only the alert's, the note's and lessons' are).\n",
			e.ConversationOnly, pluralVerb(e.ConversationOnly, "", "s"), pluralVerb(e.ConversationOnly, "is", "are"))
	}
	if skipped > 0 {
		fmt.Fprintf(errOut, "%d cloud resource ID%s left out of the STIX bundle: STIX has no pattern for them (csv and json carry them).\n",
			skipped, pluralVerb(skipped, " is", "s are"))
	}
	return nil
}

func pluralVerb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
