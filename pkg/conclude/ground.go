package conclude

import (
	"encoding/json"
	"strings"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
)

// Sources are the texts an investigation saw: the alert and every tool result. Evidence
// found in none of them is unsupported: the model cited something it was not shown.
type Sources struct {
	texts []string
}

// SourcesOf gathers the alert's JSON (nil: none) and the results of every tool call in
// contents, as the model received them.
func SourcesOf(a *record.Alert, contents []*genai.Content) *Sources {
	s := &Sources{}
	if a != nil {
		s.add(string(a.Data))
	}
	for _, c := range contents {
		if c == nil {
			continue
		}
		for _, p := range c.Parts {
			if p == nil || p.FunctionResponse == nil {
				continue
			}
			b, err := json.Marshal(p.FunctionResponse.Response)
			if err != nil {
				continue
			}
			s.add(string(b))
			// A value inside a JSON string is escaped there ("a\"b", "\u003c"); the
			// decoded strings are matched as well.
			walkStrings(p.FunctionResponse.Response, s.add)
		}
	}
	return s
}

// SourcesOfText are the given texts as sources (an answer and its evidence, to find the
// indicators a good answer names).
func SourcesOfText(texts ...string) *Sources {
	s := &Sources{}
	for _, t := range texts {
		s.add(t)
	}
	return s
}

func (s *Sources) add(t string) {
	if t != "" {
		s.texts = append(s.texts, t)
	}
}

// Holds reports whether value appears in any source, ignoring case and runs of white space
// (a model copies "Alice@Example.com" or re-flows a log line's spaces).
func (s *Sources) Holds(value string) bool {
	v := fold(value)
	if v == "" {
		return true // nothing cited
	}
	for _, t := range s.texts {
		if strings.Contains(fold(t), v) {
			return true
		}
	}
	return false
}

// Ground marks each item of sg's evidence that no source holds, and returns how many it
// marked.
func Ground(sg *Suggestion, src *Sources) int {
	n := 0
	for i := range sg.Evidence {
		sg.Evidence[i].Unsupported = !src.Holds(sg.Evidence[i].Value)
		if sg.Evidence[i].Unsupported {
			n++
		}
	}
	return n
}

// fold is s in lower case with every run of white space one space, trimmed.
func fold(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// walkStrings calls f with every string in v (a decoded JSON value), object keys included.
func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case map[string]any:
		for k, e := range x {
			f(k)
			walkStrings(e, f)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	}
}
