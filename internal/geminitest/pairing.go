package geminitest

import (
	"fmt"

	"google.golang.org/genai"
)

// unpaired checks what the real API checks of function calling in a request's contents: a
// model content of calls is followed by a user content answering each of them, in the same
// number and order (names equal, ids equal when the call had one), and no response answers
// nothing. It returns the API's complaint, or "" when the contents pair up.
func unpaired(contents []*genai.Content) string {
	for i, c := range contents {
		if c == nil {
			continue
		}
		calls := partsWith(c, func(p *genai.Part) bool { return p.FunctionCall != nil })
		responses := partsWith(c, func(p *genai.Part) bool { return p.FunctionResponse != nil })
		if len(responses) > 0 {
			var prev []*genai.Part
			if i > 0 && contents[i-1] != nil {
				prev = partsWith(contents[i-1], func(p *genai.Part) bool { return p.FunctionCall != nil })
			}
			if len(prev) == 0 {
				return fmt.Sprintf("contents[%d]: function response parts without a function call turn before them", i)
			}
		}
		if len(calls) == 0 {
			continue
		}
		if i+1 >= len(contents) {
			// The request's last content is the model's calls: the API takes it (the model
			// is asked to go on), but no client does that; say so.
			return fmt.Sprintf("contents[%d]: a function call turn must be followed by its function responses", i)
		}
		next := partsWith(contents[i+1], func(p *genai.Part) bool { return p.FunctionResponse != nil })
		if len(next) != len(calls) {
			return fmt.Sprintf("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn (contents[%d]: %d calls, %d responses).", i, len(calls), len(next))
		}
		for k, call := range calls {
			fc, fr := call.FunctionCall, next[k].FunctionResponse
			if fc.Name != fr.Name || fc.ID != "" && fc.ID != fr.ID {
				return fmt.Sprintf("contents[%d]: function response %d (%s %q) does not answer function call %d (%s %q)", i+1, k, fr.Name, fr.ID, k, fc.Name, fc.ID)
			}
		}
	}
	return ""
}

func partsWith(c *genai.Content, keep func(*genai.Part) bool) []*genai.Part {
	if c == nil {
		return nil
	}
	var out []*genai.Part
	for _, p := range c.Parts {
		if p != nil && keep(p) {
			out = append(out, p)
		}
	}
	return out
}
