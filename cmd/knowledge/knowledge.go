// Package knowledge is "alertchat knowledge": what the team learned, written only by people,
// given to every investigation of a matching alert (pkg/knowledge). Entries are added, listed,
// shown, searched, edited and retired here; history resolve --lesson adds them from a verdict.
package knowledge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/pkg/format"
	kn "github.com/alertchat/alertchat/pkg/knowledge"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// NewCmdKnowledge is "alertchat knowledge".
func NewCmdKnowledge(f *factory.Factory) *cli.Command {
	return &cli.Command{
		Name:  "knowledge",
		Usage: "what the team learned: notes every investigation of a matching alert starts from",
		Description: `Team knowledge is what analysts settled ("198.51.100.23 is our Qualys scanner, Sundays"): entries
written only by people, with knowledge add or history resolve --lesson. At the start of every
investigation (chat, batch, eval) the active entries whose indicators occur in the alert, or whose
alert type is the alert's, and with --embeddings those nearest in meaning, are given to Gemini with
their IDs (at most 8), and the history records which (knowledge_ids). Entries expire after 180 days unless --expires says otherwise; knowledge rm
retires one, kept for audit (knowledge list --all). Text and indicators are redacted like every
write, with keyed tokens, so a raw value in an alert still finds its entry.

Examples:
  alertchat knowledge add '198.51.100.23 is our external scanner (Qualys), Sundays' --expires 365d
  alertchat knowledge add 'Fires on the nightly backup job' --alert-type 'Write below etc'
  alertchat knowledge list
  alertchat knowledge search 198.51.100.23
  alertchat knowledge rm 1a2b3c4d`,
		Commands: []*cli.Command{
			NewCmdAdd(f, nil),
			NewCmdList(f, nil),
			NewCmdShow(f, nil),
			NewCmdSearch(f, nil),
			NewCmdEdit(f, nil),
			NewCmdRm(f, nil),
		},
	}
}

// openStore is what every knowledge verb needs from the factory.
type openStore func(ctx context.Context, o factory.StoreOptions) (*factory.Store, error)

// entryJSON is an entry's -o json form, the design's shape.
type entryJSON struct {
	ID         string                  `json:"id"`
	Text       string                  `json:"text"`
	Indicators []string                `json:"indicators"`
	AlertTypes []string                `json:"alert_types"`
	Source     *record.KnowledgeSource `json:"source"`
	Author     string                  `json:"author"`
	CreatedAt  string                  `json:"created_at"`
	ExpiresAt  *string                 `json:"expires_at"`
	RetiredAt  *string                 `json:"retired_at"`
}

func newEntryJSON(e *record.Knowledge) entryJSON {
	j := entryJSON{ID: string(e.ID), Text: e.Text, Indicators: e.Indicators, AlertTypes: e.AlertTypes, Source: e.Source,
		Author: e.Author, CreatedAt: format.RFC3339(e.CreatedAt)}
	if j.Indicators == nil {
		j.Indicators = []string{}
	}
	if j.AlertTypes == nil {
		j.AlertTypes = []string{}
	}
	if e.ExpiresAt != nil {
		t := format.RFC3339(*e.ExpiresAt)
		j.ExpiresAt = &t
	}
	if e.RetiredAt != nil {
		t := format.RFC3339(*e.RetiredAt)
		j.RetiredAt = &t
	}
	return j
}

func entriesJSON(es []*record.Knowledge) []entryJSON {
	out := make([]entryJSON, len(es))
	for i, e := range es {
		out[i] = newEntryJSON(e)
	}
	return out
}

// state is an entry's state at now, as listings show it.
func state(e *record.Knowledge, now time.Time) string {
	switch {
	case e.RetiredAt != nil:
		return "retired"
	case !e.Active(now):
		return "expired"
	}
	return "active"
}

// getEntry finds the entry a person named: its ID or a unique prefix of 8+ characters, with or
// without the K- of its short form. A prefix too short is a usage error; none is exit 3,
// several exit 2.
func getEntry(ctx context.Context, s store.KnowledgeBase, arg string) (*record.Knowledge, error) {
	id := record.TrimKnowledgeRef(arg)
	if id == "" {
		return nil, cmdutil.UsageErrorf("empty knowledge ID")
	}
	if utf8.RuneCountInString(id) < store.MinKnowledgePrefix {
		return nil, cmdutil.UsageErrorf("knowledge ID %q is too short: give the full ID or at least %d characters of it", cmdutil.OneLine(arg), store.MinKnowledgePrefix)
	}
	e, err := s.GetKnowledge(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, cmdutil.NotFoundf("no knowledge entry %s in this workspace", cmdutil.OneLine(arg))
	}
	return e, err
}

// oneLineText is an entry's text on one line, for a table.
func oneLineText(e *record.Knowledge) string {
	return cmdutil.OneLine(strings.Join(strings.Fields(e.Text), " "))
}

// retriever is the search of the workspace's active entries, by meaning too when s embeds
// (--embeddings); a failure to search by meaning is said once on errOut, and the search goes on
// by words and indicators.
func retriever(s *factory.Store, errOut io.Writer) *kn.Retriever {
	r := &kn.Retriever{Store: s, Engine: s.Redactor.Engine, Now: time.Now}
	if s.Embedder != nil {
		r.Meaning = &kn.Meaning{Store: s, Embedder: s.Embedder, Warn: func(err error) {
			fmt.Fprintf(errOut, "Warning: searching by meaning failed (%s): the results are found by words and indicators only.\n", cmdutil.OneLine(cmdutil.Message(err)))
		}}
	}
	return r
}
