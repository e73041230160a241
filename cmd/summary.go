package cmd

import (
	"fmt"

	"github.com/alertchat/alertchat/pkg/model"
)

// summaryNote says that a history has a summary and what it covers, for history show: the
// transcript is shown whole, the summary only stands in for its first messages in requests.
func summaryNote(h *model.History) string {
	sm := h.Summary
	if sm == nil || sm.CoversCount <= 0 {
		return ""
	}
	total := max(h.MessageCount, len(h.Contents))
	return fmt.Sprintf("the first %d of %d messages are summarised for Gemini (%s); every message is shown below",
		sm.CoversCount, total, rfc3339(sm.CreatedAt))
}
