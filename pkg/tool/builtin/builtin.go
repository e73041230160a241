// Package builtin holds the tools the chat declares over the workspace's own store: get_alert,
// search_alerts, search_histories, get_history and search_knowledge. They read the store they are given, which is
// the current workspace's (a store is opened for one workspace and answers "not found" for any
// other), and never write: Reader has no write method. Arguments come from the model and are
// checked; every failure is a result the model can read ({"error": ...}).
package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/tool"
	"github.com/alertchat/alertchat/pkg/transcript"
)

// Reader is what the tools read: the workspace's alerts and histories, nothing that writes.
type Reader interface {
	GetAlert(ctx context.Context, id record.AlertID) (*record.Alert, error)
	FindAlerts(ctx context.Context, prefix string, limit int) ([]record.AlertID, error)
	GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error)
	FindHistories(ctx context.Context, prefix string, limit int) ([]record.HistoryID, error)
}

// AlertSearcher ranks the workspace's alerts for a query (a store with an alert index).
type AlertSearcher interface {
	SearchAlerts(ctx context.Context, q store.AlertSearchQuery) ([]store.AlertHit, error)
}

// HistorySearcher is history search as `history search` runs it (pkg/search).
type HistorySearcher interface {
	Search(ctx context.Context, st search.Backend, q search.Query) ([]search.Result, error)
}

// Deps are the tools' dependencies.
type Deps struct {
	Store Reader
	// Searcher runs search_histories; nil leaves the tool out.
	Searcher HistorySearcher
	// SearchStore is what Searcher searches (the store, or a layer of it).
	SearchStore search.Backend
	// Alerts runs search_alerts; nil leaves the tool out.
	Alerts AlertSearcher
	// Knowledge runs search_knowledge; nil leaves the tool out (--no-knowledge).
	Knowledge KnowledgeSearcher
}

// Tools returns the built-in tools Deps allow.
func Tools(d Deps) []tool.Tool {
	out := []tool.Tool{getAlert{d.Store}, getHistory{d.Store}}
	if d.Searcher != nil {
		out = append(out, searchHistories{d.Searcher, d.SearchStore})
	}
	if d.Alerts != nil {
		out = append(out, searchAlerts{d.Alerts})
	}
	if d.Knowledge != nil {
		out = append(out, searchKnowledge{d.Knowledge})
	}
	return out
}

// MinPrefix is the shortest ID prefix accepted, as on the command line.
const MinPrefix = 8

// DefaultLimit and MaxLimit bound the searches' results.
const (
	DefaultLimit = 10
	MaxLimit     = 50
)

func obj(props map[string]*genai.Schema, required ...string) *genai.Schema {
	return &genai.Schema{Type: genai.TypeObject, Properties: props, Required: required}
}

func str(desc string) *genai.Schema { return &genai.Schema{Type: genai.TypeString, Description: desc} }

func integer(desc string) *genai.Schema {
	return &genai.Schema{Type: genai.TypeInteger, Description: desc}
}

// failure turns an error into a result the model can read; store errors say only what the
// model needs (not found), never the store's internals.
func failure(err error, what string) map[string]any {
	var ae tool.ArgError
	switch {
	case errors.As(err, &ae):
		return tool.Error(ae.Error())
	case errors.Is(err, store.ErrNotFound):
		return tool.Error(what + " not found")
	case errors.Is(err, context.Canceled):
		return tool.Error("cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return tool.Error("timed out")
	}
	return tool.Error("failed to read " + what)
}

// lookupID finds the one ID starting with arg (a full ID or a unique prefix).
func lookupID[ID ~string](ctx context.Context, arg, noun string, find func(context.Context, string, int) ([]ID, error)) (ID, error) {
	if len(arg) < MinPrefix {
		return "", tool.ArgError(fmt.Sprintf("%s ID %q is too short: give the full ID or at least %d characters", noun, arg, MinPrefix))
	}
	ids, err := find(ctx, arg, 3)
	if err != nil {
		return "", err
	}
	switch len(ids) {
	case 0:
		return "", store.ErrNotFound
	case 1:
		return ids[0], nil
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return "", tool.ArgError(fmt.Sprintf("%s ID prefix %q matches several: %s", noun, arg, strings.Join(s, ", ")))
}

type getAlert struct{ st Reader }

func (getAlert) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name:        "get_alert",
		Description: "Read a stored alert of this workspace as JSON.",
		Parameters:  obj(map[string]*genai.Schema{"alert_id": str("alert ID, or a unique prefix of 8+ characters")}, "alert_id"),
	}
}

func (g getAlert) Call(ctx context.Context, args map[string]any) map[string]any {
	arg, err := tool.String(args, "alert_id", true)
	if err != nil {
		return failure(err, "alert")
	}
	id, err := lookupID(ctx, arg, "alert", g.st.FindAlerts)
	if err != nil {
		return failure(err, "alert")
	}
	a, err := g.st.GetAlert(ctx, id)
	if err != nil {
		return failure(err, "alert")
	}
	var data any
	if err := json.Unmarshal(a.Data, &data); err != nil {
		data = string(a.Data)
	}
	return map[string]any{"alert": data, "id": string(a.ID), "title": a.Title}
}

type getHistory struct{ st Reader }

func (getHistory) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name:        "get_history",
		Description: "Read the last turns of a past conversation of this workspace (as stored, redacted) and its verdict.",
		Parameters: obj(map[string]*genai.Schema{
			"history_id": str("history ID, or a unique prefix of 8+ characters"),
			"turns":      integer("how many of the last contents (default 10)"),
		}, "history_id"),
	}
}

// maxTurns bounds get_history's turns; maxResultText how much of a tool result in them is
// shown.
const (
	maxTurns      = 100
	maxResultText = 2000
)

func (g getHistory) Call(ctx context.Context, args map[string]any) map[string]any {
	arg, err := tool.String(args, "history_id", true)
	if err != nil {
		return failure(err, "history")
	}
	n, err := tool.Int(args, "turns", 10, 1, maxTurns)
	if err != nil {
		return failure(err, "history")
	}
	id, err := lookupID(ctx, arg, "history", g.st.FindHistories)
	if err != nil {
		return failure(err, "history")
	}
	h, err := g.st.GetHistory(ctx, id)
	if err != nil {
		return failure(err, "history")
	}
	contents := h.Contents[max(0, len(h.Contents)-n):]
	turns := make([]any, 0, len(contents))
	for _, c := range contents {
		turns = append(turns, map[string]any{"role": c.Role, "text": transcript.ContentText(c, maxResultText)})
	}
	summary := ""
	if h.Summary != nil {
		summary = h.Summary.Text
	}
	out := map[string]any{"id": string(h.ID), "alert_id": string(h.AlertID), "title": h.Title, "summary": summary, "turns": turns}
	conclusion(out, h)
	if r := h.Resolution; r != nil {
		out["resolved_at"] = r.ResolvedAt.UTC().Format(time.RFC3339)
		out["conclusion"] = r.Note
	}
	return out
}

// conclusion adds to a result how the history ended: "verdict" and "resolved_by", null while
// it is open.
func conclusion(out map[string]any, h *record.History) {
	out["verdict"], out["resolved_by"] = nil, nil
	if r := h.Resolution; r != nil {
		out["verdict"], out["resolved_by"] = string(r.Verdict), r.ResolvedBy
	}
}

type searchHistories struct {
	s  HistorySearcher
	st search.Backend
}

func (searchHistories) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name:        "search_histories",
		Description: "Search past conversations of this workspace by words or raw indicators (IP, domain, hash, e-mail), with verdicts.",
		Parameters: obj(map[string]*genai.Schema{
			"query":    str("words or indicators"),
			"alert_id": str("only conversations about this alert (optional)"),
			"limit":    integer("most results (default 10)"),
		}, "query"),
	}
}

func (t searchHistories) Call(ctx context.Context, args map[string]any) map[string]any {
	q, err := tool.String(args, "query", true)
	if err != nil {
		return failure(err, "histories")
	}
	alertID, err := tool.String(args, "alert_id", false)
	if err != nil {
		return failure(err, "histories")
	}
	limit, err := tool.Int(args, "limit", DefaultLimit, 1, MaxLimit)
	if err != nil {
		return failure(err, "histories")
	}
	rs, err := t.s.Search(ctx, t.st, search.Query{Text: q, AlertID: record.AlertID(alertID), Limit: limit})
	if err != nil {
		return failure(err, "histories")
	}
	out := make([]any, 0, len(rs))
	for _, r := range rs {
		res := map[string]any{
			"id": string(r.History.ID), "alert_id": string(r.History.AlertID), "title": r.History.Title,
			"updated_at": r.History.UpdatedAt.UTC().Format(time.RFC3339), "snippet": store.PlainSnippet(r.Snippet),
		}
		conclusion(res, r.History)
		out = append(out, res)
	}
	return map[string]any{"results": out}
}

type searchAlerts struct{ s AlertSearcher }

func (searchAlerts) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name:        "search_alerts",
		Description: "Search stored alerts of this workspace by words or raw indicators (IP, domain, hash, ARN).",
		Parameters: obj(map[string]*genai.Schema{
			"query":    str("words or indicators"),
			"limit":    integer("most results (default 10)"),
			"severity": {Type: genai.TypeString, Enum: alert.Severities},
			"source":   str("only this source (scc, falco...)"),
		}, "query"),
	}
}

func (t searchAlerts) Call(ctx context.Context, args map[string]any) map[string]any {
	q, err := tool.String(args, "query", true)
	if err != nil {
		return failure(err, "alerts")
	}
	limit, err := tool.Int(args, "limit", DefaultLimit, 1, MaxLimit)
	if err != nil {
		return failure(err, "alerts")
	}
	severity, err := tool.String(args, "severity", false)
	if err != nil {
		return failure(err, "alerts")
	}
	if severity = strings.ToLower(severity); severity != "" && !slices.Contains(alert.Severities, severity) {
		return failure(tool.ArgError("severity must be one of "+strings.Join(alert.Severities, ", ")), "alerts")
	}
	source, err := tool.String(args, "source", false)
	if err != nil {
		return failure(err, "alerts")
	}
	hits, err := t.s.SearchAlerts(ctx, store.AlertSearchQuery{Text: q, Limit: limit, Severity: severity, Source: strings.ToLower(source)})
	if err != nil {
		return failure(err, "alerts")
	}
	out := make([]any, 0, len(hits))
	for _, h := range hits {
		out = append(out, map[string]any{
			"id": string(h.Alert.ID), "title": h.Alert.Title,
			"created_at": h.Alert.CreatedAt.UTC().Format(time.RFC3339), "snippet": store.PlainSnippet(h.Snippet),
			"severity": h.Alert.Severity, "source": h.Alert.Source,
		})
	}
	return map[string]any{"results": out}
}
