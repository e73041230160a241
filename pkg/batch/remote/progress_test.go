package remote

import (
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
)

func TestProgressText(t *testing.T) {
	t.Parallel()
	running := record.BatchJob{ID: "batches/a1", Model: "gemini-x", State: "JOB_STATE_RUNNING", Requests: 10}
	done := record.BatchJob{ID: "batches/a1", Model: "gemini-x", State: "JOB_STATE_SUCCEEDED", Requests: 10, Succeeded: 9, Failed: 1}
	tests := []struct {
		job       record.BatchJob
		unit      string
		withModel bool
		want      string
	}{
		{running, "questions", false, "batches/a1  running  10 questions  1m5s"},
		{done, "questions", false, "batches/a1  succeeded  10 questions  9 answered  1 failed  1m5s"},
		{running, "runs", true, "batches/a1  gemini-x  running  10 runs  1m5s"},
		{done, "runs", true, "batches/a1  gemini-x  succeeded  10 runs  9 answered  1 failed  1m5s"},
	}
	for _, tc := range tests {
		if got := ProgressText(&tc.job, 65*time.Second+300*time.Millisecond, tc.unit, tc.withModel); got != tc.want {
			t.Errorf("ProgressText = %q, want %q", got, tc.want)
		}
	}
}
