package search_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/genai"
	_ "modernc.org/sqlite"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/searchtest"
	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/embedding"
	"github.com/alertchat/alertchat/pkg/store/local"
)

func hist(id string, title string, score float64, vec []float32, features ...string) search.Candidate {
	return search.Candidate{
		Result:   search.Result{History: &record.History{ID: record.HistoryID(id), Title: title}, Score: score},
		Features: features, Vector: vec,
	}
}

func ids(rs []search.Result) []record.HistoryID {
	var out []record.HistoryID
	for _, r := range rs {
		out = append(out, r.History.ID)
	}
	return out
}

// Seed 000's example: four near-identical answers about Kubernetes networking and one about a
// service mesh. Without diversification the first page is four times the same thing.
func TestMMRNearDuplicates(t *testing.T) {
	t.Parallel()
	dup := []string{"k8s", "network", "cni", "configure"}
	cs := []search.Candidate{
		hist("a", "", 0.95, nil, dup...),
		hist("b", "", 0.94, nil, append(slices.Clone(dup), "plugin")...),
		hist("c", "", 0.93, nil, dup...),
		hist("d", "", 0.92, nil, append(slices.Clone(dup), "depends")...),
		hist("e", "", 0.85, nil, "service", "mesh", "network"),
	}
	tests := []struct {
		name   string
		lambda float64
		want   []record.HistoryID
	}{
		{"relevance only keeps the order", 1, []record.HistoryID{"a", "b", "c"}},
		{"default lifts the different one to second", search.DefaultLambda, []record.HistoryID{"a", "e", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ids(search.MMR(cs, 3, tc.lambda)); !slices.Equal(got, tc.want) {
				t.Fatalf("MMR(lambda=%v) = %v, want %v", tc.lambda, got, tc.want)
			}
		})
	}
}

func TestMMRUsesVectorsWhenKnown(t *testing.T) {
	t.Parallel()
	// Same features, different vectors: the vectors decide.
	cs := []search.Candidate{
		hist("a", "", 1.0, []float32{1, 0, 0}, "x"),
		hist("b", "", 0.9, []float32{0.99, 0.1, 0}, "x"),
		hist("c", "", 0.8, []float32{0, 1, 0}, "x"),
	}
	if got := ids(search.MMR(cs, 2, search.DefaultLambda)); !slices.Equal(got, []record.HistoryID{"a", "c"}) {
		t.Fatalf("MMR = %v, want [a c]", got)
	}
	if got := ids(search.MMR(cs, 10, search.DefaultLambda)); len(got) != 3 {
		t.Fatalf("MMR with k above the candidates = %v, want all 3", got)
	}
}

func TestMergeAddsAgreement(t *testing.T) {
	t.Parallel()
	h := func(id string) *record.History { return &record.History{ID: record.HistoryID(id)} }
	textHits := []store.SearchHit{{History: h("words"), Score: 10}, {History: h("both"), Score: 8}}
	vecHits := []store.SearchHit{{History: h("both"), Score: 0.9}, {History: h("meaning"), Score: 0.95}}
	got := search.Merge(textHits, vecHits)
	var order []record.HistoryID
	for _, c := range got {
		order = append(order, c.History.ID)
	}
	if want := []record.HistoryID{"both", "words", "meaning"}; !slices.Equal(order, want) {
		t.Fatalf("Merge order = %v, want %v", order, want)
	}
	if got[0].Score != 1 {
		t.Fatalf("best score = %v, want 1", got[0].Score)
	}
}

func TestStoreQuery(t *testing.T) {
	t.Parallel()
	s := search.New(search.Options{IndicatorTokens: searchtest.FakeTokens(map[string]string{"203.0.113.7": "[REDACTED_IP_abc1234]"})})
	q := s.StoreQuery(search.Query{Text: "the 203.0.113.7 beacon", Limit: 5})
	if want := [][]string{{"the"}, {"203", "0", "113", "7"}, {"beacon"}}; !slices.EqualFunc(q.Phrases, want, slices.Equal[[]string]) {
		t.Errorf("Phrases = %v, want %v", q.Phrases, want)
	}
	if want := []string{"203.0.113.7", "redacted_ip_abc1234"}; !slices.Equal(q.Terms, want) {
		t.Errorf("Terms = %v, want %v", q.Terms, want)
	}
	if q.Limit < 15 {
		t.Errorf("Limit = %d, want room for MMR (at least 3 x 5)", q.Limit)
	}
}

func openLocal(t testing.TB, dir, ws string) *local.Store {
	t.Helper()
	s, err := local.Open(context.Background(), local.Options{Dir: dir, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func geminiEmbedder(t testing.TB, srv *geminitest.Server) *search.GeminiEmbedder {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return &search.GeminiEmbedder{Models: c.Models, Dims: 64}
}

func TestGeminiEmbedderDeterministic(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	e := geminiEmbedder(t, srv)
	vs, err := e.Embed(context.Background(), []string{"ransomware encrypted the share", "ransomware encrypted the share", "phishing mail"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 || len(vs[0]) != 64 {
		t.Fatalf("got %d vectors of %d, want 3 of 64", len(vs), len(vs[0]))
	}
	if !slices.Equal(vs[0], vs[1]) {
		t.Fatal("same text, different vectors")
	}
	if c := search.Cosine(vs[0], vs[2]); c > 0.5 {
		t.Fatalf("unrelated texts have cosine %v", c)
	}
	if srv.EmbedRequests() != 1 {
		t.Fatalf("embed requests = %d, want 1 batch", srv.EmbedRequests())
	}
}

// The meaning path: histories embedded as they are saved (through the layer the command line
// stacks), found by a query sharing no exact phrase with the best one's title.
func TestSearchByMeaningLocal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := geminitest.NewServer(t)
	emb := geminiEmbedder(t, srv)
	backend := openLocal(t, t.TempDir(), "ws")
	st := embedding.New(backend, emb, nil)
	a := storetest.NewHistory("alert-1", []*genai.Content{genai.NewContentFromText("files renamed with a locked extension and a ransom note", genai.RoleUser)})
	a.Title = "Encrypted file share"
	b := storetest.NewHistory("alert-2", []*genai.Content{genai.NewContentFromText("a user clicked a link in a mail", genai.RoleUser)})
	b.Title = "Phishing"
	for _, h := range []*record.History{a, b} {
		if err := st.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	// A second turn is embedded alone, and added.
	before := srv.EmbedRequests()
	a.Contents = append(a.Contents, genai.NewContentFromText("the ransom note asks for bitcoin", genai.RoleModel))
	a.MessageCount = len(a.Contents)
	if err := st.SaveHistory(ctx, a); err != nil {
		t.Fatal(err)
	}
	if n, err := backend.EmbeddedCount(ctx, a.ID); err != nil || n != 2 {
		t.Fatalf("EmbeddedCount = %d, %v; want 2", n, err)
	}
	if got := srv.EmbedRequests() - before; got != 1 {
		t.Fatalf("a turn's save made %d embedding requests, want 1", got)
	}
	rs, err := search.New(search.Options{Embedder: emb}).Search(ctx, st, search.Query{Text: "ransom note locked files", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 || rs[0].History.ID != a.ID {
		t.Fatalf("search by meaning = %v, want %s first", ids(rs), a.ID)
	}
	// Words alone do not reach b; meaning ranks it, behind a.
	rs, err = search.New(search.Options{Embedder: emb}).Search(ctx, st, search.Query{Text: "clicked link", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 || rs[0].History.ID != b.ID {
		t.Fatalf("search = %v, want %s first", ids(rs), b.ID)
	}
	// Another workspace sees no vectors of this one.
	other := openLocal(t, backend.Dir(), "ws2")
	rs, err = search.New(search.Options{Embedder: emb}).Search(ctx, other, search.Query{Text: "ransom note locked files"})
	if err != nil || len(rs) != 0 {
		t.Fatalf("other workspace: %v, %v; want nothing", ids(rs), err)
	}
}

// Histories saved before the index existed are found by nobody until reindexed; an interrupted
// reindex leaves what it did, and the next run does the rest.
func TestReindexAfterInterruption(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	st := openLocal(t, dir, "ws")
	for range 5 {
		h := storetest.NewHistory("alert-1", []*genai.Content{genai.NewContentFromText("dns tunnelling through txt records", genai.RoleUser)})
		if err := st.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	// Forget the index, as a database written by an earlier version would have none.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, local.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DELETE FROM search_fts`, `DELETE FROM search_rows`, `DELETE FROM search_state`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.Close()
	find := func() int {
		rs, err := search.New(search.Options{}).Search(ctx, st, search.Query{Text: "tunnelling"})
		if err != nil {
			t.Fatal(err)
		}
		return len(rs)
	}
	if n := find(); n != 0 {
		t.Fatalf("before reindex: %d found, want 0", n)
	}
	missing, err := st.Unindexed(ctx, "", 100)
	if err != nil || len(missing) != 5 {
		t.Fatalf("Unindexed = %v, %v; want 5", missing, err)
	}

	cctx, cancel := context.WithCancel(ctx)
	done, err := search.IndexMissing(cctx, st, nil, func(done, total int) {
		if total != 5 {
			t.Errorf("progress total = %d, want 5", total)
		}
		if done == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || done != 2 {
		t.Fatalf("interrupted reindex = %d, %v; want 2, canceled", done, err)
	}
	if n := find(); n != 2 {
		t.Fatalf("after an interrupted reindex: %d found, want 2", n)
	}
	var last int
	done, err = search.IndexMissing(ctx, st, nil, func(d, total int) { last = total })
	if err != nil || done != 3 || last != 3 {
		t.Fatalf("resumed reindex = %d (total %d), %v; want 3 (3)", done, last, err)
	}
	if n := find(); n != 5 {
		t.Fatalf("after reindex: %d found, want 5", n)
	}
	if missing, _ := st.Unindexed(ctx, "", 100); len(missing) != 0 {
		t.Fatalf("still unindexed: %v", missing)
	}
}

// A new alert that shares an indicator with another alert's conversation is offered that
// conversation, never its own alert's.
func TestRelated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openLocal(t, t.TempDir(), "ws")
	const tok = "[REDACTED_IP_k3j2h1a]"
	old := storetest.NewHistory("alert-old", []*genai.Content{genai.NewContentFromText("traffic to "+tok+" on port 4444", genai.RoleUser)})
	same := storetest.NewHistory("alert-new", []*genai.Content{genai.NewContentFromText("traffic to "+tok, genai.RoleUser)})
	unrelated := storetest.NewHistory("alert-x", []*genai.Content{genai.NewContentFromText("printer out of paper", genai.RoleUser)})
	for _, h := range []*record.History{old, same, unrelated} {
		if err := st.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	a := &record.Alert{ID: "alert-new", Title: "Outbound connection", Data: []byte(`{"Service":{"RemoteIp":"203.0.113.7","Port":4444}}`)}
	s := search.New(search.Options{IndicatorTokens: searchtest.FakeTokens(map[string]string{"203.0.113.7": tok})})
	rs, err := s.Related(ctx, st, a, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(rs); !slices.Equal(got, []record.HistoryID{old.ID}) {
		t.Fatalf("Related = %v, want only %s", got, old.ID)
	}
}
