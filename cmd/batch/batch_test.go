package batch

import (
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/batch"
)

func TestProgressLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p       batch.Progress
		retries int64
		elapsed time.Duration
		want    string
	}{
		{batch.Progress{Total: 200}, 0, 0, "[....................] 0/200  --/min  ETA --"},
		{batch.Progress{Total: 200, Done: 50, Failed: 2}, 3, time.Minute, "[#####...............] 50/200  2 failed  3 retries  50/min  ETA 3m0s"},
		{batch.Progress{Total: 10, Done: 10}, 0, 30 * time.Second, "[####################] 10/10  20/min  ETA 0s"},
	} {
		if got := progressLine(tc.p, tc.retries, tc.elapsed); got != tc.want {
			t.Errorf("progressLine(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestLineRanges(t *testing.T) {
	t.Parallel()
	if got := lineRanges([]int{3, 7, 8, 9, 12, 15, 16}, 20); got != "3, 7-9, 12, 15-16" {
		t.Fatal(got)
	}
	if got := lineRanges([]int{1, 3, 5, 7}, 2); got != "1, 3, ..." {
		t.Fatal(got)
	}
}
