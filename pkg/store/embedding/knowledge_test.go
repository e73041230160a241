package embedding_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store/embedding"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// fakeEmbedder gives each text a vector of its own from its first letter, and counts calls.
type fakeEmbedder struct {
	calls int
	err   error
}

func (f *fakeEmbedder) Embed(_ context.Context, texts []string, query bool) ([][]float32, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 4)
		v[int(t[0])%4] = 1
		out[i] = v
	}
	return out, nil
}

// An entry written through the layer carries the vector of its text, found by meaning; one
// whose embedding failed is written all the same, without a vector; a retired one is neither
// embedded nor found.
func TestPutKnowledgeEmbedsTheText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	entry := func(id, text string) *record.Knowledge {
		return &record.Knowledge{ID: record.KnowledgeID(id), Text: text, Indicators: []string{}, AlertTypes: []string{}, CreatedAt: at}
	}
	for _, tc := range []struct {
		name      string
		err       error
		retired   bool
		wantCalls int
		wantFound bool
	}{
		{name: "embedded", wantCalls: 1, wantFound: true},
		{name: "embedding failed", err: errors.New("model down"), wantCalls: 1},
		{name: "retired", retired: true},
	} {
		emb := &fakeEmbedder{err: tc.err}
		s := embedding.New(b, emb, nil)
		e := entry("e-"+tc.name, "a note")
		if tc.retired {
			e.RetiredAt = &at
		}
		if err := s.PutKnowledge(ctx, e); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, err := b.GetKnowledge(ctx, string(e.ID)); err != nil {
			t.Fatalf("%s: not written: %v", tc.name, err)
		}
		hits, err := b.NearestKnowledge(ctx, []float32{0, 1, 0, 0}, 10) // 'a' is 97: coordinate 1
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range hits {
			found = found || h.Entry.ID == e.ID
		}
		if emb.calls != tc.wantCalls || found != tc.wantFound {
			t.Errorf("%s: %d embedding calls, found by meaning %v; want %d, %v", tc.name, emb.calls, found, tc.wantCalls, tc.wantFound)
		}
	}
}
