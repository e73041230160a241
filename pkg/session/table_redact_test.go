package session_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/tool"
)

// rowsTool answers like query_evidence: {"columns", "rows"}, or the same records as objects.
type rowsTool struct {
	name    string
	objects bool
	rows    int
}

func (r rowsTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: r.name, Description: "rows", Parameters: &genai.Schema{Type: genai.TypeObject}}
}

func (r rowsTool) Call(context.Context, map[string]any) map[string]any {
	cols := []string{"user", "password", "phone", "ssn"}
	var rows, objs []any
	for i := range r.rows {
		row := []any{fmt.Sprintf("user%02d", i), fmt.Sprintf("hunter2-Zq9x%02d", i), int64(5551234500 + i), int64(123456700 + i)}
		rows = append(rows, row)
		o := map[string]any{}
		for j, c := range cols {
			o[c] = row[j]
		}
		objs = append(objs, o)
	}
	if r.objects {
		return map[string]any{"records": objs}
	}
	return map[string]any{"columns": []any{"user", "password", "phone", "ssn"}, "rows": rows, "truncated": false}
}

// TestTableResultRedactedByColumn: a tool result of columns and rows (query_evidence's) is
// stored with each cell redacted by its column's label, as the same records written as
// objects are; a result cut by --max-tool-result too. Both stores.
func TestTableResultRedactedByColumn(t *testing.T) {
	t.Parallel()
	for _, b := range keyedBackends {
		for _, c := range []struct {
			name string
			tool rowsTool
			max  int
		}{
			{"objects", rowsTool{name: "rows", objects: true, rows: 3}, 0},
			{"table", rowsTool{name: "rows", rows: 3}, 0},
			{"table cut", rowsTool{name: "rows", rows: 40}, 600},
		} {
			t.Run(b.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				place := b.place(t)
				st := b.open(t, place, "team")
				e := newKeyedEnv(t, `{"Title":"Leak"}`, func(r *geminitest.Request) geminitest.Reply {
					if r.Kind == geminitest.KindGenerateContent {
						return geminitest.Reply{Text: "title"}
					}
					if answered(r) {
						return geminitest.Reply{Text: "done"}
					}
					return geminitest.Reply{Parts: []*genai.Part{call("rows", "c1", nil)}}
				})
				reg, err := tool.NewRegistry(c.tool)
				if err != nil {
					t.Fatal(err)
				}
				s := e.session(t, st, nil, func(o *session.Options) { o.Tools, o.MaxToolResult = reg, c.max })
				turn, err := s.Send(context.Background(), "list the accounts", nil)
				if err != nil || turn.SaveErr != nil {
					t.Fatal(err, turn.SaveErr)
				}
				if len(turn.ToolCalls) != 1 {
					t.Fatalf("turn %+v", turn)
				}
				all := b.scan(t, place)
				for _, raw := range []string{"hunter2-Zq9x", "55512345", "1234567"} {
					if i := bytes.Index(all, []byte(raw)); i >= 0 {
						t.Errorf("%q is stored raw: ...%s...", raw, all[max(0, i-80):min(len(all), i+40)])
					}
				}
			})
		}
	}
}
