package chat

import (
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/knowledge"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// maxNoteLine bounds a note's line at the start of a chat, in display columns.
const maxNoteLine = 160

// knowledgeLines are the team's notes given to the model, as the analyst is shown them at the
// start of a chat: a heading, then one line each (knowledge show ID has the whole text).
func knowledgeLines(es []*record.Knowledge) []string {
	if len(es) == 0 {
		return nil
	}
	lines := []string{format.Plural(len(es), "team note", "team notes") + " given to Gemini (alertchat knowledge show ID):"}
	for _, e := range es {
		lines = append(lines, "  "+format.Truncate(termsafe.Line(knowledge.Describe(e)), maxNoteLine, format.Ellipsis))
	}
	return lines
}
