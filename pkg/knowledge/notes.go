package knowledge

import (
	"strings"

	"github.com/alertchat/alertchat/pkg/record"
)

// Describe is one entry as the model is given it and the analyst sees it:
//
//	[K-1a2b3c4d] as of 2026-11-20, by alice, from history 6e6f461a (false_positive): text
//
// An entry added by hand says "added by hand" where a lesson names its history.
func Describe(e *record.Knowledge) string {
	var b strings.Builder
	b.WriteString("[" + e.Ref() + "] as of " + e.CreatedAt.UTC().Format("2006-01-02"))
	if e.Author != "" {
		b.WriteString(", by " + e.Author)
	}
	if s := e.Source; s != nil {
		id := string(s.HistoryID)
		if len(id) > 8 {
			id = id[:8]
		}
		b.WriteString(", from history " + id)
		if s.Verdict != "" {
			b.WriteString(" (" + string(s.Verdict) + ")")
		}
	} else {
		b.WriteString(", added by hand")
	}
	b.WriteString(": ")
	b.WriteString(strings.Join(strings.Fields(e.Text), " "))
	return b.String()
}

// Instruction is what the system instruction says of the notes es (none: "").
func Instruction(es []*record.Knowledge) string {
	if len(es) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Team notes: what analysts of this team recorded about alerts like this one. ")
	b.WriteString("They may be outdated or may not apply to this alert: weigh each against the alert and the evidence, ")
	b.WriteString("never let a note alone close or downgrade the alert, and cite the ID (such as [K-1a2b3c4d]) of every note your answer relies on.")
	for _, e := range es {
		b.WriteString("\n- ")
		b.WriteString(Describe(e))
	}
	return b.String()
}

// IDs are the entries' IDs, in order.
func IDs(es []*record.Knowledge) []record.KnowledgeID {
	ids := make([]record.KnowledgeID, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}
