package history

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/analyst"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/transcript"
)

// ListOptions are "history list"'s.
type ListOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	// AlertID filters by alert: a full ID or a unique prefix.
	AlertID string
	Limit   int
	Output  string
	// Cursor continues a listing where an earlier one stopped.
	Cursor string
	// Header prints the column names in a pipe too (a terminal always gets them).
	Header bool
	// Verdict (--verdict), Open (--open) and Analyst (--analyst) filter; Verdict is checked
	// and Analyst cleaned as stored.
	Verdict record.Verdict
	Open    bool
	Analyst string
	// verdictArg is --verdict as typed; verdictSet and analystSet say the flags were given
	// (given empty, they are bad input, not "no filter").
	verdictArg             string
	verdictSet, analystSet bool
}

func newListOptions(f *factory.Factory) *ListOptions {
	return &ListOptions{IO: f.IO, OpenStore: f.OpenStore}
}

func listFlags(opts *ListOptions, local bool) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "alert", Aliases: []string{"a"}, Usage: "only histories of this alert (full ID or a unique prefix)", Destination: &opts.AlertID, Local: local},
		&cli.IntFlag{Name: "limit", Value: 50, Usage: "how many histories", Destination: &opts.Limit, Local: local},
		cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format", Destination: &opts.Output, Local: local}, "text", "json"),
		&cli.StringFlag{Name: "cursor", Usage: "continue a listing where the last one stopped (stderr names the cursor when there are more)", Destination: &opts.Cursor, Local: local},
		&cli.BoolFlag{Name: "header", Usage: "print the column names when piped too (TSV); a terminal always shows them", Destination: &opts.Header, Local: local},
		cmdutil.StringEnumFlag(&cli.StringFlag{Name: "verdict", Usage: "only histories resolved with this verdict", Destination: &opts.verdictArg, Local: local,
			Action: func(context.Context, *cli.Command, string) error { opts.verdictSet = true; return nil }}, verdictValues()...),
		&cli.BoolFlag{Name: "open", Usage: "only histories without a verdict", Destination: &opts.Open, Local: local},
		&cli.StringFlag{Name: "analyst", Usage: "only histories in which this analyst asked a question", Destination: &opts.Analyst, Local: local,
			Action: func(context.Context, *cli.Command, string) error { opts.analystSet = true; return nil }},
	}
}

// NewCmdList is "alertchat history list".
func NewCmdList(f *factory.Factory, runF func(context.Context, *ListOptions) error) *cli.Command {
	opts := newListOptions(f)
	return &cli.Command{
		Name:  "list",
		Usage: "list histories, most recently updated first",
		Description: `Lists histories, most recently updated first: a table on a terminal, tab-separated rows when
piped (--header adds the column names), an array of objects with -o json. A listing cut by --limit
says so on stderr, with the --cursor that continues it.

Examples:
  alertchat history list -a 514c60ac --limit 20 -o json
  alertchat history list --open
  alertchat history list --verdict true_positive --analyst alice@example.com`,
		UsageText: "alertchat history list [-a ALERT_ID] [--verdict V | --open] [--analyst A] [--limit N] [-o text|json]",
		Flags:     listFlags(opts, false),
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), ""); err != nil {
				return err
			}
			return listAction(ctx, opts, runF)
		},
	}
}

func listAction(ctx context.Context, opts *ListOptions, runF func(context.Context, *ListOptions) error) error {
	if err := cmdutil.CheckFormat(opts.Output, "text", "json"); err != nil {
		return err
	}
	if opts.Limit <= 0 {
		return cmdutil.UsageErrorf("--limit must be positive")
	}
	if opts.verdictSet || opts.verdictArg != "" {
		v, ok := record.ParseVerdict(opts.verdictArg)
		if !ok {
			return cmdutil.UsageErrorf("unknown verdict %q: use one of %s", cmdutil.OneLine(opts.verdictArg), record.VerdictNames())
		}
		if opts.Open {
			return cmdutil.UsageErrorf("use --verdict or --open, not both")
		}
		opts.Verdict = v
	}
	if given := opts.Analyst; opts.analystSet || given != "" {
		if opts.Analyst = analyst.Clean(given); opts.Analyst == "" {
			return cmdutil.UsageErrorf("invalid --analyst: nothing is left of it once control characters are removed")
		}
	}
	if runF != nil {
		return runF(ctx, opts)
	}
	return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
		return listRun(ctx, opts, s)
	})
}

// historyJSON is a history in listings (-o json): the contract's fields first.
type historyJSON struct {
	ID           record.HistoryID `json:"id"`
	AlertID      record.AlertID   `json:"alert_id"`
	Title        string           `json:"title"`
	CreatedAt    string           `json:"created_at"`
	UpdatedAt    string           `json:"updated_at"`
	MessageCount int              `json:"message_count"`
	// ToolCalls counts the model's tool calls in the history.
	ToolCalls int              `json:"tool_calls"`
	Usage     record.Usage     `json:"usage"`
	ParentID  record.HistoryID `json:"parent_id,omitempty"`
	ForkPoint int              `json:"fork_point,omitempty"`
	// Pending is set when turns of the history are kept locally, not yet uploaded.
	Pending bool `json:"pending,omitempty"`
	// KnowledgeIDs are the team knowledge entries the investigation was given.
	KnowledgeIDs []record.KnowledgeID `json:"knowledge_ids,omitempty"`
	transcript.Conclusion
}

func newHistoryJSON(h *record.History) historyJSON {
	return historyJSON{
		ID: h.ID, AlertID: h.AlertID, Title: h.Title,
		CreatedAt: format.RFC3339(h.CreatedAt), UpdatedAt: format.RFC3339(h.UpdatedAt),
		MessageCount: h.MessageCount, ToolCalls: h.ToolCalls, Usage: h.Usage, ParentID: h.ParentID, ForkPoint: h.ForkPoint,
		KnowledgeIDs: h.KnowledgeIDs, Conclusion: transcript.NewConclusion(h),
	}
}

// lister is what listing needs: histories, their count and the ones kept locally, and alerts
// to resolve an alert ID prefix.
type lister interface {
	store.Histories
	store.Counter
	pendingReporter
	lookup.AlertFinder
}

// pendingReporter tells which histories have turns kept locally, not yet uploaded: the
// workspace's store answers from its spool, beside the store stack.
type pendingReporter interface {
	// PendingHistories returns the newest locally kept state of each history with turns not
	// yet uploaded.
	PendingHistories(ctx context.Context) map[record.HistoryID]*record.History
}

// listRun prints the newest histories, with the turns kept locally marked as pending.
func listRun(ctx context.Context, opts *ListOptions, s lister) error {
	ios := opts.IO
	alertID, err := alertFilter(ctx, s, opts.AlertID)
	if err != nil {
		return err
	}
	q := store.HistoryQuery{AlertID: alertID, Cursor: opts.Cursor, Verdict: opts.Verdict, Open: opts.Open, Analyst: opts.Analyst}
	hs, next, err := collectPage(ctx, s, q, opts.Limit)
	if err != nil {
		return err
	}
	// Histories that exist only locally are listed on the first page.
	hs, pending := withPending(ctx, s, hs, q, opts.Limit, opts.Cursor == "")
	if opts.Output == "json" {
		out := make([]historyJSON, 0, len(hs))
		for _, h := range hs {
			j := newHistoryJSON(h)
			j.Pending = pending[h.ID]
			out = append(out, j)
		}
		return cmdutil.PrintJSON(ios.Out, out)
	}
	if len(hs) == 0 {
		if ios.StdoutTTY {
			if filtered(q) {
				fmt.Fprintln(ios.ErrOut, "No histories match.")
			} else if alertID != "" {
				fmt.Fprintf(ios.ErrOut, "No histories for alert %s. Start one with: alertchat chat -a %s\n", alertID, alertID)
			} else {
				fmt.Fprintln(ios.ErrOut, "No histories yet. Start one with: alertchat chat -a ALERT_ID")
			}
		}
		return nil
	}
	header := []string{"ID", "TITLE", "ALERT", "UPDATED", "MSGS", "TOKENS"}
	if ios.StdoutTTY {
		header = append(header, "VERDICT")
	}
	t := cmdutil.NewTable(ios.Out, ios.StdoutTTY, header...).PipeHeader(opts.Header).Fit(ios.TermWidth)
	now := time.Now()
	for _, h := range hs {
		tokens := h.Usage.Total()
		if ios.StdoutTTY {
			t.Row(format.ShortID(string(h.ID))+pendingMark(pending[h.ID]), h.Title, format.ShortID(string(h.AlertID)), format.RelativeTime(now, h.UpdatedAt),
				strconv.Itoa(h.MessageCount), format.CompactCount(tokens), verdictCell(h))
			continue
		}
		t.Row(string(h.ID), h.Title, string(h.AlertID), format.RFC3339(h.UpdatedAt),
			strconv.Itoa(h.MessageCount), strconv.FormatInt(tokens, 10))
	}
	t.Flush()
	if len(pending) > 0 && ios.StdoutTTY {
		fmt.Fprintln(ios.ErrOut, "* has turns kept locally, not uploaded yet (alertchat history sync uploads them)")
	}
	if next != "" {
		fmt.Fprintln(ios.ErrOut, moreNote(ctx, s, q, len(hs), next))
	}
	return nil
}

// moreNote tells, on stderr, that a listing stopped before the end: how many of how many it
// showed (when the store counts cheaply), and how to see more.
func moreNote(ctx context.Context, s store.Counter, q store.HistoryQuery, shown int, next string) string {
	how := "--limit N or --cursor " + next + " for more"
	if q.Cursor != "" {
		return fmt.Sprintf("%d shown; %s", shown, how)
	}
	// A store that fails to count gets the note without the count.
	total, err := s.CountHistories(ctx, q)
	if err != nil || total < shown {
		return fmt.Sprintf("%d shown; %s", shown, how)
	}
	return fmt.Sprintf("%d of %d; %s", shown, total, how)
}

// alertFilter resolves -a: a unique prefix of a stored alert's ID stands for that ID; a value
// that matches no stored alert filters as it is (histories may outlive or predate their
// alert's record).
func alertFilter(ctx context.Context, s lookup.AlertFinder, arg string) (record.AlertID, error) {
	if arg == "" {
		return "", nil
	}
	id, err := lookup.AlertID(ctx, s, arg)
	if errors.Is(err, store.ErrNotFound) {
		return record.AlertID(arg), nil
	}
	return id, err
}

// collect pages through the store until limit histories (limit <= 0: all of them).
func collect(ctx context.Context, s store.Histories, q store.HistoryQuery, limit int) ([]*record.History, error) {
	out, _, err := collectPage(ctx, s, q, limit)
	return out, err
}

// collectPage is collect that also returns the cursor after the last history returned, empty
// when there are no more.
func collectPage(ctx context.Context, s store.Histories, q store.HistoryQuery, limit int) ([]*record.History, string, error) {
	var out []*record.History
	for limit <= 0 || len(out) < limit {
		q.Limit = store.MaxLimit
		if limit > 0 {
			q.Limit = min(limit-len(out), store.MaxLimit)
		}
		page, err := s.ListHistories(ctx, q)
		if err != nil {
			if errors.Is(err, store.ErrInvalid) && q.Cursor != "" {
				return nil, "", cmdutil.UsageErrorf("invalid --cursor %q", q.Cursor)
			}
			return nil, "", goerr.Wrap(err, "failed to list histories")
		}
		out = append(out, page.Histories...)
		if q.Cursor = page.NextCursor; q.Cursor == "" {
			break
		}
	}
	return out, q.Cursor, nil
}

// verdictCell is a history's verdict in a terminal table: "open" while it has none.
func verdictCell(h *record.History) string {
	if v := h.Verdict(); v != "" {
		return v.Label()
	}
	return "open"
}

// filtered reports whether q asks for histories by their conclusion or analyst.
func filtered(q store.HistoryQuery) bool { return q.Verdict != "" || q.Open || q.Analyst != "" }

// matches reports whether h (kept locally, not listed by the store) is one q asks for.
func matches(q store.HistoryQuery, h *record.History) bool {
	switch {
	case q.AlertID != "" && h.AlertID != q.AlertID,
		q.Verdict != "" && h.Verdict() != q.Verdict,
		q.Open && h.Verdict() != "",
		q.Analyst != "" && !slices.Contains(h.Analysts(), q.Analyst):
		return false
	}
	return true
}

// withPending marks the listed histories that have turns kept locally and, with addLocal, adds
// the histories that exist only locally (created during an outage) that q asks for, newest
// first.
func withPending(ctx context.Context, s pendingReporter, hs []*record.History, q store.HistoryQuery, limit int, addLocal bool) ([]*record.History, map[record.HistoryID]bool) {
	pend := s.PendingHistories(ctx)
	if len(pend) == 0 {
		return hs, nil
	}
	marked := map[record.HistoryID]bool{}
	for _, h := range hs {
		if pend[h.ID] != nil {
			marked[h.ID] = true
		}
	}
	for id, h := range pend {
		if !addLocal || marked[id] || h.Revision != 0 || !matches(q, h) {
			continue
		}
		marked[id] = true
		hs = append(hs, h)
	}
	slices.SortStableFunc(hs, func(a, b *record.History) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(string(b.ID), string(a.ID))
	})
	if limit > 0 && len(hs) > limit {
		hs = hs[:limit]
	}
	return hs, marked
}

// pendingMark flags a history with turns not yet uploaded in a terminal listing.
func pendingMark(pending bool) string {
	if pending {
		return "*"
	}
	return ""
}
