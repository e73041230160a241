package knowledge_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/knowledge"
	"github.com/alertchat/alertchat/pkg/record"
)

// ByIDs gives back the entries still active, in the order asked; retired, expired and unknown
// ones are left out; a store failure is an error.
func TestByIDs(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	ctx := context.Background()
	scanner := s.add(t, knowledge.Draft{Text: "198.51.100.23 is our external scanner"}, t0)
	vpn := s.add(t, knowledge.Draft{Text: "203.0.113.99 is the VPN gateway"}, t0)
	backup := s.add(t, knowledge.Draft{Text: "the nightly backup job reads every bucket", Expires: "2d"}, t0)
	retired := s.add(t, knowledge.Draft{Text: "an old note"}, t0)
	retired.RetiredAt = &t0
	if err := s.PutKnowledge(ctx, retired); err != nil {
		t.Fatal(err)
	}
	r := s.retriever(t0.Add(72 * time.Hour)) // backup has expired by then
	got, err := r.ByIDs(ctx, []record.KnowledgeID{vpn.ID, retired.ID, "00000000-0000-4000-8000-000000000000", backup.ID, scanner.ID})
	if err != nil {
		t.Fatal(err)
	}
	if want := []record.KnowledgeID{vpn.ID, scanner.ID}; !slices.Equal(ids(got), want) {
		t.Fatalf("ByIDs = %v, want %v", ids(got), want)
	}
	if got, err := r.ByIDs(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("no IDs: %v, %v", got, err)
	}

	failing := &knowledge.Retriever{Store: brokenGetter{}, Now: time.Now}
	if _, err := failing.ByIDs(ctx, []record.KnowledgeID{vpn.ID}); err == nil {
		t.Error("a store failure was not an error")
	}
	if got, err := (&knowledge.Retriever{Store: matcherOnly{}}).ByIDs(ctx, []record.KnowledgeID{vpn.ID}); err != nil || got != nil {
		t.Errorf("a store that cannot read by ID: %v, %v", got, err)
	}
}

type matcherOnly struct{}

func (matcherOnly) MatchKnowledge(context.Context, []string, int) ([]*record.Knowledge, error) {
	return nil, nil
}

type brokenGetter struct{ matcherOnly }

func (brokenGetter) GetKnowledge(context.Context, string) (*record.Knowledge, error) {
	return nil, errors.New("unavailable")
}
