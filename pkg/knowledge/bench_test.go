package knowledge_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/knowledge"
)

// benchEntries is the size of a team's knowledge the speed targets are set for.
const benchEntries = 10_000

// fillStack writes n entries: each about an address of its own and one of 50 alert types, in
// words a team writes.
func fillStack(b *testing.B, n int) stack {
	b.Helper()
	s := newStack(b)
	for i := range n {
		s.add(b, knowledge.Draft{
			Text: fmt.Sprintf("10.%d.%d.%d is the backup host of team %d; it scans on Sundays and its reports go to ops%d@example.com",
				i/65536%256, i/256%256, i%256, i%97, i%13),
			AlertTypes: []string{fmt.Sprintf("Rule number %d", i%50)},
			Author:     "alice",
		}, t0.Add(time.Duration(i)*time.Second))
	}
	return s
}

// BenchmarkRetrieval is what an investigation's start costs on the local store with 10,000
// entries: the alert's indicators and type matched, the notes ranked (target: under 5 ms).
func BenchmarkRetrieval(b *testing.B) {
	s := fillStack(b, benchEntries)
	r := s.retriever(t0.Add(time.Hour))
	a := guardDuty("10.0.3.7")
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		es, err := r.ForAlert(ctx, a)
		if err != nil || len(es) != 1 {
			b.Fatalf("%d notes, %v", len(es), err)
		}
	}
}

// BenchmarkSearch is knowledge search's work on the local store with 10,000 entries: words
// shared by many entries and a raw address (target: under 50 ms).
func BenchmarkSearch(b *testing.B) {
	s := fillStack(b, benchEntries)
	r := s.retriever(t0.Add(time.Hour))
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		es, err := r.Search(ctx, "backup host 10.0.3.7", 10)
		if err != nil || len(es) == 0 {
			b.Fatalf("%d results, %v", len(es), err)
		}
	}
}
