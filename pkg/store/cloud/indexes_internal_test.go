package cloud

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/firestore"
	firestorepb "cloud.google.com/go/firestore/apiv1/firestorepb"
	"google.golang.org/protobuf/proto"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// The emulator runs any query without an index; real Firestore refuses one whose composite
// index is missing. These tests hold the queries of listings and of an alert's latest verdict to
// firestore.indexes.json, and the gcloud commands of docs/storage-and-operations.md to the same file.

type indexField struct {
	FieldPath   string `json:"fieldPath"`
	Order       string `json:"order,omitempty"`
	ArrayConfig string `json:"arrayConfig,omitempty"`
}

type compositeIndex struct {
	CollectionGroup string       `json:"collectionGroup"`
	Fields          []indexField `json:"fields"`
}

func shippedIndexes(t *testing.T) []compositeIndex {
	t.Helper()
	data, err := os.ReadFile("../../../firestore.indexes.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Indexes []compositeIndex `json:"indexes"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f.Indexes
}

// needs is the composite index a query needs: its equality and array-contains fields, in any
// order, then its orderings in order (a trailing __name__ may be left implicit).
func needs(t *testing.T, q firestore.Query) (set []indexField, order []indexField) {
	t.Helper()
	b, err := q.Serialize()
	if err != nil {
		t.Fatal(err)
	}
	var req firestorepb.RunQueryRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		t.Fatal(err)
	}
	sq := req.GetStructuredQuery()
	var ranges []string
	var walk func(f *firestorepb.StructuredQuery_Filter)
	walk = func(f *firestorepb.StructuredQuery_Filter) {
		if f == nil {
			return
		}
		if c := f.GetCompositeFilter(); c != nil {
			for _, sub := range c.Filters {
				walk(sub)
			}
			return
		}
		ff := f.GetFieldFilter()
		switch ff.GetOp() {
		case firestorepb.StructuredQuery_FieldFilter_EQUAL, firestorepb.StructuredQuery_FieldFilter_IN:
			set = append(set, indexField{FieldPath: ff.Field.FieldPath, Order: "ASCENDING"})
		case firestorepb.StructuredQuery_FieldFilter_ARRAY_CONTAINS, firestorepb.StructuredQuery_FieldFilter_ARRAY_CONTAINS_ANY:
			set = append(set, indexField{FieldPath: ff.Field.FieldPath, ArrayConfig: "CONTAINS"})
		case firestorepb.StructuredQuery_FieldFilter_LESS_THAN:
			ranges = append(ranges, ff.Field.FieldPath) // served by the ordering on that field
		default:
			t.Fatalf("a filter this test does not know: %v", ff)
		}
	}
	walk(sq.GetWhere())
	for _, o := range sq.GetOrderBy() {
		dir := "ASCENDING"
		if o.Direction == firestorepb.StructuredQuery_DESCENDING {
			dir = "DESCENDING"
		}
		order = append(order, indexField{FieldPath: o.Field.FieldPath, Order: dir})
	}
	for _, r := range ranges {
		if len(order) == 0 || order[0].FieldPath != r {
			t.Fatalf("a range on %s that the first ordering is not on", r)
		}
	}
	return set, order
}

func covered(idx compositeIndex, set, order []indexField) bool {
	fields := idx.Fields
	if n := len(fields); n > 0 && fields[n-1].FieldPath == "__name__" && (len(order) == 0 || order[len(order)-1].FieldPath != "__name__") {
		fields = fields[:n-1] // an implicit __name__ ordering
	}
	if len(fields) != len(set)+len(order) || !slices.Equal(fields[len(set):], order) {
		return false
	}
	for _, f := range set {
		if !slices.Contains(fields[:len(set)], f) {
			return false
		}
	}
	return true
}

func TestQueriesHaveIndexes(t *testing.T) {
	t.Parallel()
	s := &Store{fs: &firestore.Client{}, workspace: "ws"}
	indexes := shippedIndexes(t)
	var queries []firestore.Query
	var names []string
	for _, alert := range []record.AlertID{"", "a"} {
		for _, v := range []struct {
			verdict record.Verdict
			open    bool
		}{{"", false}, {record.VerdictBenign, false}, {"", true}} {
			for _, analyst := range []string{"", "alice"} {
				q := store.HistoryQuery{AlertID: alert, Verdict: v.verdict, Open: v.open, Analyst: analyst}
				queries = append(queries, s.listQuery(q))
				names = append(names, fmt.Sprintf("list %+v", q))
			}
		}
	}
	for _, alert := range []record.AlertID{"", "a"} { // prune
		queries = append(queries, s.listQuery(store.HistoryQuery{AlertID: alert, UpdatedBefore: store.Now()}))
		names = append(names, "prune")
	}
	queries = append(queries, s.latestResolved("a"))
	names = append(names, "latest verdict of an alert")
	groups := make([]string, len(queries))
	for i := range groups {
		groups[i] = historiesCollection
	}
	for _, sev := range [][]string{nil, {"high"}, {"critical", "high"}} {
		for _, src := range []string{"", "guardduty"} {
			for _, open := range []bool{false, true} {
				for _, tr := range []store.AlertQuery{{}, {Untriaged: true}, {Triage: record.VerdictFalsePositive}} {
					q := store.AlertQuery{Severities: sev, Source: src, Open: open, Untriaged: tr.Untriaged, Triage: tr.Triage}
					queries = append(queries, s.listAlertsQuery(q))
					names = append(names, fmt.Sprintf("alert list %+v", q))
					groups = append(groups, alertsCollection)
				}
			}
		}
	}
	for _, all := range []bool{false, true} {
		queries = append(queries, s.listKnowledgeQuery(all))
		names = append(names, fmt.Sprintf("knowledge list all=%v", all))
		groups = append(groups, knowledgeCollection)
	}
	queries = append(queries, s.matchKnowledgeQuery([]any{"i:x", "t:y"}))
	names = append(names, "knowledge match")
	groups = append(groups, knowledgeCollection)
	for i, q := range queries {
		set, order := needs(t, q)
		found := slices.ContainsFunc(indexes, func(idx compositeIndex) bool {
			return idx.CollectionGroup == groups[i] && covered(idx, set, order)
		})
		if !found {
			t.Errorf("%s needs an index on %v then %v: none in firestore.indexes.json", names[i], set, order)
		}
	}
}

// Every composite index of firestore.indexes.json is in the gcloud commands of the pages of
// docs/ (storage-and-operations.md, and alert-shapes.md for alert list's), and the other way
// round.
func TestIndexesDocumented(t *testing.T) {
	t.Parallel()
	var readme []byte
	pages, _ := filepath.Glob("../../../docs/*.md")
	for _, p := range pages {
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		readme = append(append(readme, '\n'), page...)
	}
	describe := func(group string, fields []string) string { return group + ": " + strings.Join(fields, ", ") }
	var documented []string
	cmd := regexp.MustCompile(`(?s)gcloud firestore indexes composite create [^\n]*--collection-group=(\w+)((?: \\\n  --field-config=[^\n]*?)+)\n`)
	field := regexp.MustCompile(`--field-config=(?:'([^']*)'|(\S+))`)
	for _, m := range cmd.FindAllStringSubmatch(string(readme), -1) {
		var fs []string
		for _, f := range field.FindAllStringSubmatch(m[2], -1) {
			cfg := f[1] + f[2]
			if strings.Contains(cfg, "vector-config") {
				fs = append(fs, "vector")
				continue
			}
			kv := map[string]string{}
			for _, part := range strings.Split(cfg, ",") {
				k, v, _ := strings.Cut(part, "=")
				kv[k] = v
			}
			if kv["array-config"] == "contains" {
				fs = append(fs, kv["field-path"]+" contains")
			} else {
				fs = append(fs, kv["field-path"]+" "+kv["order"])
			}
		}
		documented = append(documented, describe(m[1], fs))
	}
	var shipped []string
	for _, idx := range shippedIndexes(t) {
		var fs []string
		for _, f := range idx.Fields {
			switch {
			case f.ArrayConfig != "":
				fs = append(fs, f.FieldPath+" contains")
			case f.Order != "":
				fs = append(fs, f.FieldPath+" "+strings.ToLower(f.Order))
			default:
				fs = append(fs, "vector")
			}
		}
		shipped = append(shipped, describe(idx.CollectionGroup, fs))
	}
	slices.Sort(documented)
	slices.Sort(shipped)
	if !slices.Equal(documented, shipped) {
		t.Fatalf("docs/storage-and-operations.md's gcloud commands and firestore.indexes.json differ:\ndocs:\n  %s\nfirestore.indexes.json:\n  %s",
			strings.Join(documented, "\n  "), strings.Join(shipped, "\n  "))
	}
}
