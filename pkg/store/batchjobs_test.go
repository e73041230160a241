package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

func jobs(ids ...string) []*record.BatchJob {
	out := make([]*record.BatchJob, len(ids))
	for i, id := range ids {
		out[i] = &record.BatchJob{ID: id}
	}
	return out
}

func TestPickBatchJob(t *testing.T) {
	t.Parallel()
	many := make([]string, store.BatchJobCandidates)
	for i := range many {
		many[i] = fmt.Sprintf("batches/dupe%d", i)
	}
	tests := []struct {
		name  string
		id    string
		found []*record.BatchJob
		want  string
		err   error
		names []string // in the error message
		more  bool     // the message says there are more
	}{
		{"exact full ID", "batches/ab", jobs("batches/ab", "batches/abcd"), "batches/ab", nil, nil, false},
		{"exact short ID", "ab", jobs("batches/ab"), "batches/ab", nil, nil, false},
		{"the ID as given wins", "x123", jobs("x123", "batches/x123"), "x123", nil, nil, false},
		{"unique prefix", "abcd", jobs("batches/abcdef"), "batches/abcdef", nil, nil, false},
		{"short prefix", "abc", jobs("batches/abcdef"), "", store.ErrNotFound, nil, false},
		{"none", "abcd", nil, "", store.ErrNotFound, nil, false},
		// "batc" prefixes "batches/": both ranges return batches/batch1.
		{"overlapping ranges", "batc", jobs("batches/batch1", "batches/batch1"), "batches/batch1", nil, nil, false},
		{"ambiguous", "abcd", jobs("batches/abcd2", "batches/abcd1"), "", store.ErrInvalid, []string{"batches/abcd1", "batches/abcd2"}, false},
		{"ambiguous, more than shown", "dupe", jobs(many...), "", store.ErrInvalid, many[:store.BatchJobCandidates-1], true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := store.PickBatchJob(tc.id, tc.found)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("PickBatchJob(%q) = %v, %v; want %v", tc.id, got, err, tc.err)
				}
				for _, n := range tc.names {
					if !strings.Contains(err.Error(), n) {
						t.Errorf("%q does not name %s", err, n)
					}
				}
				if strings.Contains(err.Error(), "...") != tc.more {
					t.Errorf("%q: more = %v, want %v", err, !tc.more, tc.more)
				}
				return
			}
			if err != nil || got.ID != tc.want {
				t.Fatalf("PickBatchJob(%q) = %v, %v; want %s", tc.id, got, err, tc.want)
			}
		})
	}
}
