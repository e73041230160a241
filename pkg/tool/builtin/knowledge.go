package builtin

import (
	"context"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/knowledge"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/tool"
)

// KnowledgeSearcher finds the workspace's active team knowledge entries for a query
// (knowledge.Retriever). It reads: nothing a tool call says ever becomes an entry.
type KnowledgeSearcher interface {
	Search(ctx context.Context, query string, limit int) ([]*record.Knowledge, error)
}

type searchKnowledge struct{ s KnowledgeSearcher }

func (searchKnowledge) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name: "search_knowledge",
		Description: "Search the team's notes (what analysts of this workspace recorded about scanners, jobs, accounts, rules...) " +
			"by words or raw indicators. Notes may be outdated: cite the ID of any note an answer relies on.",
		Parameters: obj(map[string]*genai.Schema{
			"query": str("words or indicators"),
			"limit": integer("most results (default 10)"),
		}, "query"),
	}
}

func (t searchKnowledge) Call(ctx context.Context, args map[string]any) map[string]any {
	q, err := tool.String(args, "query", true)
	if err != nil {
		return failure(err, "knowledge")
	}
	limit, err := tool.Int(args, "limit", DefaultLimit, 1, MaxLimit)
	if err != nil {
		return failure(err, "knowledge")
	}
	es, err := t.s.Search(ctx, q, limit)
	if err != nil {
		return failure(err, "knowledge")
	}
	out := make([]any, 0, len(es))
	for _, e := range es {
		r := map[string]any{
			"id": e.Ref(), "text": e.Text, "indicators": e.Indicators, "alert_types": e.AlertTypes,
			"author": e.Author, "created_at": e.CreatedAt.UTC().Format(time.RFC3339), "source": nil,
			"note": knowledge.Describe(e),
		}
		if e.Source != nil {
			r["source"] = map[string]any{"history_id": string(e.Source.HistoryID), "verdict": string(e.Source.Verdict)}
		}
		out = append(out, r)
	}
	return map[string]any{"results": out}
}
