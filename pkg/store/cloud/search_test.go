package cloud_test

import (
	"context"
	"testing"

	"cloud.google.com/go/firestore"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/searchtest"
	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/cloud"
	"github.com/alertchat/alertchat/pkg/store/embedding"
)

func TestSearchConformance(t *testing.T) {
	searchtest.RunSearch(t, func(t testing.TB) *storetest.Harness { return newHarness(t, "alertchat/").Harness })
}

// The meaning path against the emulator's FindNearest: each save embeds what it added, and a
// query is answered by the nearest vectors of the workspace only.
func TestSearchByMeaning(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, "")
	srv := geminitest.NewServer(t)
	c, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "k", HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	emb := &search.GeminiEmbedder{Models: c.Models, Dims: 64}
	st := embedding.New(h.Open(t, "ws"), emb, nil)
	a := storetest.NewHistory("alert-1", []*genai.Content{genai.NewContentFromText("files renamed with a locked extension and a ransom note", genai.RoleUser)})
	a.Title = "Encrypted file share"
	b := storetest.NewHistory("alert-2", []*genai.Content{genai.NewContentFromText("a user clicked a link in a mail", genai.RoleUser)})
	b.Title = "Phishing"
	for _, x := range []*record.History{a, b} {
		if err := st.SaveHistory(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	a.Contents = append(a.Contents, genai.NewContentFromText("the ransom note asks for bitcoin", genai.RoleModel))
	a.MessageCount = len(a.Contents)
	if err := st.SaveHistory(ctx, a); err != nil {
		t.Fatal(err)
	}
	// The save after the embedding kept it (the metadata write carries it over).
	a.Title = "Ransomware on the file share"
	if err := st.SaveHistory(ctx, a); err != nil {
		t.Fatal(err)
	}
	sr := search.New(search.Options{Embedder: emb})
	for _, tc := range []struct {
		q    string
		want record.HistoryID
	}{{"locked files ransom", a.ID}, {"clicked link mail", b.ID}} {
		rs, err := sr.Search(ctx, st, search.Query{Text: tc.q, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 || rs[0].History.ID != tc.want {
			t.Fatalf("search %q = %v, want %s first", tc.q, rs, tc.want)
		}
	}
	// FindNearest itself: both histories have a vector, nearest first, filtered by alert.
	cs := h.Open(t, "ws").(*cloud.Store)
	qv, err := emb.Embed(ctx, []string{"ransom note bitcoin"}, true)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := cs.SearchVector(ctx, qv[0], "", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].History.ID != a.ID || hits[0].Score <= hits[1].Score || len(hits[0].Vector) != 64 {
		t.Fatalf("SearchVector = %+v, want %s nearest of 2", hits, a.ID)
	}
	if hits, err := cs.SearchVector(ctx, qv[0], "alert-2", 5); err != nil || len(hits) != 1 || hits[0].History.ID != b.ID {
		t.Fatalf("SearchVector -a alert-2 = %+v, %v", hits, err)
	}
	if n, err := cs.EmbeddedCount(ctx, a.ID); err != nil || n != 2 {
		t.Fatalf("EmbeddedCount = %d, %v; want 2", n, err)
	}
	other := h.Open(t, "ws2")
	rs, err := sr.Search(ctx, other, search.Query{Text: "locked files ransom"})
	if err != nil || len(rs) != 0 {
		t.Fatalf("another workspace: %v, %v", rs, err)
	}
}

// A history document written before search existed has no search fields: it is reported, found
// by nobody, and indexed by a reindex.
func TestReindexOldDocuments(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, "")
	st := h.Open(t, "ws")
	var ids []record.HistoryID
	for range 3 {
		x := storetest.NewHistory("alert-1", []*genai.Content{genai.NewContentFromText("dns tunnelling through txt records", genai.RoleUser)})
		if err := st.SaveHistory(ctx, x); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, x.ID)
	}
	for _, id := range ids[:2] {
		if _, err := h.fs.Collection("histories").Doc(string(id)).Update(ctx, []firestore.Update{
			{Path: "terms", Value: firestore.Delete}, {Path: "body_terms", Value: firestore.Delete},
			{Path: "indexed_count", Value: firestore.Delete}, {Path: "search_v", Value: firestore.Delete},
		}); err != nil {
			t.Fatal(err)
		}
	}
	cs := st.(*cloud.Store)
	missing, err := cs.Unindexed(ctx, "", 10)
	if err != nil || len(missing) != 2 {
		t.Fatalf("Unindexed = %v, %v; want 2", missing, err)
	}
	count := func() int {
		rs, err := search.New(search.Options{}).Search(ctx, st, search.Query{Text: "tunnelling"})
		if err != nil {
			t.Fatal(err)
		}
		return len(rs)
	}
	if n := count(); n != 1 {
		t.Fatalf("before reindex: %d found, want 1", n)
	}
	n, err := search.IndexMissing(ctx, st, nil, nil)
	if err != nil || n != 2 {
		t.Fatalf("Reindex = %d, %v; want 2", n, err)
	}
	if n := count(); n != 3 {
		t.Fatalf("after reindex: %d found, want 3", n)
	}
	if missing, _ := cs.Unindexed(ctx, "", 10); len(missing) != 0 {
		t.Fatalf("still unindexed: %v", missing)
	}
	// Another workspace's reindex sees none of them.
	if missing, _ := h.Open(t, "ws2").(*cloud.Store).Unindexed(ctx, "", 10); len(missing) != 0 {
		t.Fatalf("other workspace lists %v", missing)
	}
}

// A history document saved before verdicts existed has no verdict field, which --open cannot
// match: it is reported unindexed, and a reindex writes the field (and the analysts) so that it
// is listed as open.
func TestReindexWritesTheVerdictField(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, "")
	st := h.Open(t, "ws")
	old := storetest.NewHistory("alert-1", []*genai.Content{genai.NewContentFromText("q", genai.RoleUser)})
	storetest.Save(t, st, old)
	if _, err := h.fs.Collection("histories").Doc(string(old.ID)).Update(ctx, []firestore.Update{{Path: "verdict", Value: firestore.Delete}}); err != nil {
		t.Fatal(err)
	}
	open := func() int {
		page, err := st.ListHistories(ctx, store.HistoryQuery{Open: true})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Histories)
	}
	cs := st.(*cloud.Store)
	if missing, err := cs.Unindexed(ctx, "", 10); err != nil || len(missing) != 1 || open() != 0 {
		t.Fatalf("before: unindexed %v, %v; %d open", missing, err, open())
	}
	if n, err := search.IndexMissing(ctx, st, nil, nil); err != nil || n != 1 {
		t.Fatalf("Reindex = %d, %v", n, err)
	}
	if missing, _ := cs.Unindexed(ctx, "", 10); len(missing) != 0 || open() != 1 {
		t.Fatalf("after: unindexed %v, %d open", missing, open())
	}
}
