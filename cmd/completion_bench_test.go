package cmd

import (
	"strings"
	"testing"
)

// BenchmarkCompleteHistoryIDs is the work of a TAB after "history show" on 10,000 histories
// inside the process, after package init: the command line, the store's read of the newest 200
// (local.RecentIDs, BenchmarkRecentIDs alone) and the printing. The process's start-up, which a
// TAB pays as well, is e2e's BenchmarkStartup.
func BenchmarkCompleteHistoryIDs(b *testing.B) {
	dir, _, _ := seedStore(b, 10_000)
	for b.Loop() {
		out := completeWith(b, "--data-dir", dir, "history", "show")
		if n := strings.Count(out, "\n"); n != completionLimit {
			b.Fatalf("%d candidates, want %d", n, completionLimit)
		}
	}
}
