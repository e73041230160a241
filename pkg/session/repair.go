package session

import (
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/tool"
)

// refuseRepaired answers, in a loaded transcript, a call that was stored without a response.
const refuseRepaired = "interrupted: this call was never run"

// repairCalls makes a loaded transcript one the API takes: a model content of calls that is
// not followed by a content of responses (an answer that broke off right after its calls, as
// versions before this check stored it) gets one, each call answered "interrupted" in call
// order with its id and name. Without it every later request of the conversation is refused
// with a 400. The indexes that point into the transcript (what is already redacted, what the
// summary covers, the approvals' contents) move with the inserted contents. It returns how many
// contents were added.
func repairCalls(h *record.History) int {
	added := 0
	for i := 0; i < len(h.Contents); i++ {
		calls := functionCalls(h.Contents[i])
		if h.Contents[i] == nil || h.Contents[i].Role != genai.RoleModel || len(calls) == 0 {
			continue
		}
		if i+1 < len(h.Contents) && hasResponses(h.Contents[i+1]) {
			continue
		}
		answer := &genai.Content{Role: genai.RoleUser}
		for _, fc := range calls {
			answer.Parts = append(answer.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: fc.ID, Name: fc.Name, Response: tool.Error(refuseRepaired)}})
		}
		at := i + 1
		out := make([]*genai.Content, 0, len(h.Contents)+1)
		out = append(append(append(out, h.Contents[:at]...), answer), h.Contents[at:]...)
		h.Contents = out
		// The answer holds nothing to redact: it counts as redacted when its calls are.
		if h.RedactedCount >= at {
			h.RedactedCount++
		}
		if sm := h.Summary; sm != nil && sm.CoversCount >= at {
			cp := *sm
			cp.CoversCount++ // the calls are summarised: so is their answer
			h.Summary = &cp
		}
		if len(h.ToolApprovals) > 0 {
			approvals := append([]record.ToolApproval(nil), h.ToolApprovals...)
			for k := range approvals {
				if approvals[k].Content >= at {
					approvals[k].Content++
				}
			}
			h.ToolApprovals = approvals
		}
		added++
		i++
	}
	if added > 0 {
		h.MessageCount = len(h.Contents)
	}
	return added
}

func hasResponses(c *genai.Content) bool {
	if c == nil {
		return false
	}
	for _, p := range c.Parts {
		if p != nil && p.FunctionResponse != nil {
			return true
		}
	}
	return false
}
