package local

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
)

// Vectors longer than what the scan reads are ranked by their full cosine: histories that
// agree with the query only in the dimensions past scanDims come out in the right order.
func TestSearchVectorRanksByFullVector(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: t.TempDir(), Workspace: "ws"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const dims = 3 * scanDims
	rng := rand.New(rand.NewPCG(5, 6))
	query := make([]float32, dims)
	for i := range query {
		query[i] = float32(rng.NormFloat64())
	}
	// Same leading dimensions as the query for all; the tail decides.
	var want []record.HistoryID
	for _, tail := range []float32{1, 0.5, 0, -0.5} {
		h := storetest.NewHistory("alert-1", nil)
		if err := s.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
		v := slices.Clone(query)
		for i := scanDims; i < dims; i++ {
			v[i] *= tail
		}
		if ok, err := s.PutEmbedding(ctx, h.ID, 0, 0, v); err != nil || !ok {
			t.Fatalf("PutEmbedding = %v, %v", ok, err)
		}
		want = append(want, h.ID)
	}
	hits, err := s.SearchVector(ctx, query, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []record.HistoryID
	for _, h := range hits {
		got = append(got, h.History.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	if hits[0].Score < 0.999 || hits[0].History.AlertID != "alert-1" {
		t.Fatalf("best = %+v", hits[0])
	}
	// An embedding computed from a stale count is not applied.
	if ok, err := s.PutEmbedding(ctx, want[0], 5, 6, query); err != nil || ok {
		t.Fatalf("stale PutEmbedding = %v, %v; want not applied", ok, err)
	}
}

// Every way a metadata row goes (rm and prune through DeleteHistory, fsck --repair through
// DropMetadata) takes its index rows and vector with it, in the same statement.
func TestIndexGoesWithMetadata(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: t.TempDir(), Workspace: "ws"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []record.HistoryID
	for range 2 {
		h := storetest.NewHistory("alert-1", []*genai.Content{genai.NewContentFromText("beaconing to a sinkhole", genai.RoleUser)})
		if err := s.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
		if _, err := s.PutEmbedding(ctx, h.ID, 0, 1, []float32{1, 0}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, h.ID)
	}
	if err := s.DeleteHistory(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DropMetadata(ctx, ids[1], "test"); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"search_fts", "search_rows", "search_state", "search_vectors"} {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s keeps %d rows after the metadata went", table, n)
		}
	}
}
