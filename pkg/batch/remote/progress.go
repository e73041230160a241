package remote

import (
	"fmt"
	"strings"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
)

// ProgressText is a job's state for a progress line: its name (and model, withModel), state,
// requests counted as unit ("questions", "runs"), once any are done how many were answered and
// failed, and elapsed, to the second.
func ProgressText(j *record.BatchJob, elapsed time.Duration, unit string, withModel bool) string {
	var b strings.Builder
	b.WriteString(j.ID)
	if withModel {
		b.WriteString("  " + j.Model)
	}
	fmt.Fprintf(&b, "  %s  %d %s", strings.ToLower(strings.TrimPrefix(j.State, "JOB_STATE_")), j.Requests, unit)
	if j.Succeeded+j.Failed > 0 {
		fmt.Fprintf(&b, "  %d answered  %d failed", j.Succeeded, j.Failed)
	}
	b.WriteString("  " + elapsed.Round(time.Second).String())
	return b.String()
}
