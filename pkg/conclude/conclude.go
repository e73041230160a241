// Package conclude is how investigations conclude beyond storing a verdict (record.Verdict):
// Gemini's suggested verdict and conclusion for a history (Suggest, with structured output), the
// evidence it rests on checked against what the investigation saw (Ground), and the words that
// tell the next analyst how an earlier investigation ended (Outcome).
package conclude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/termsafe"
	"github.com/alertchat/alertchat/pkg/transcript"
)

// Outcome is how h ended, in a few words: "false positive (alice, 11-20)" for a resolved
// history (who resolved it, and the day, in loc), "open (bob)" for an open one (who asked
// first), "open" when nobody is known. Everything in it passes termsafe.
func Outcome(h *record.History, loc *time.Location) string {
	if r := h.Resolution; r != nil {
		who := termsafe.Line(r.ResolvedBy)
		day := r.ResolvedAt.In(loc).Format("01-02")
		if who == "" {
			return fmt.Sprintf("%s (%s)", r.Verdict.Label(), day)
		}
		return fmt.Sprintf("%s (%s, %s)", r.Verdict.Label(), who, day)
	}
	if as := h.Analysts(); len(as) > 0 {
		return "open (" + termsafe.Line(as[0]) + ")"
	}
	return "open"
}

// Suggestion is Gemini's proposed conclusion of an investigation.
type Suggestion struct {
	Verdict    record.Verdict `json:"verdict"`
	Conclusion string         `json:"conclusion"`
	// Confidence is how sure the model is of the verdict, from 0 to 1 (alertchat triage shows
	// it beside its proposal); 0 when the answer gave none.
	Confidence float64 `json:"confidence"`
	// Evidence are the values the conclusion rests on, each with what it shows. Ground marks
	// those found nowhere in the investigation.
	Evidence []Evidence `json:"evidence,omitempty"`
	// Lessons are drafts of team knowledge (at most MaxLessons): only a person's yes keeps one.
	Lessons []string `json:"lessons,omitempty"`
	// Usage is what the request cost (both tries when it was asked twice).
	Usage record.Usage `json:"-"`
}

// Evidence is one value a conclusion rests on: an indicator, a field's value, a log line's
// part, exactly as it appears in the alert or a tool's result.
type Evidence struct {
	Value string `json:"value"`
	Claim string `json:"claim"`
	// Unsupported is set by Ground when Value appears neither in the alert nor in any tool
	// result of the investigation: the model cited something it did not see.
	Unsupported bool `json:"unsupported,omitempty"`
}

// ErrBadAnswer is returned when Gemini's answer is not a verdict and a conclusion in the
// schema's shape, twice in a row.
var ErrBadAnswer = errors.New("not the schema asked for")

// answerTokens is the allowance of the answer itself (a verdict and a conclusion of at most
// maxConclusion bytes), thinking aside: modelcfg adds room for the model's thinking.
const answerTokens = 2048

// temperature is for models older than Gemini 3 only (modelcfg keeps Gemini 3's default).
const temperature = 0.2

// maxTranscriptBytes bounds the conversation sent: its most recent part, with the summary of
// what came before when there is one.
const maxTranscriptBytes = 400 << 10

// maxConclusion bounds the conclusion (two to four sentences are asked for).
const maxConclusion = 2000

// MaxLessons bounds the lessons a suggestion drafts.
const MaxLessons = 3

// maxEvidence bounds the evidence listed; maxEvidenceValue and maxClaim one item's parts.
const (
	maxEvidence      = 8
	maxEvidenceValue = 512
	maxClaim         = 300
)

const instruction = `You conclude a security investigation. Below are the alert under investigation and the conversation in which a security analyst investigated it with an assistant.
Decide the investigation's verdict:
- true_positive: the alert is a real threat or compromise;
- false_positive: the alert fired on activity that is not what it describes (for example a scanner the organisation owns);
- benign: the activity is real but expected and harmless;
- escalated: it must be handed to incident response or to others to act on;
- inconclusive: the evidence gathered does not decide.
Write a conclusion of two to four sentences, in the language of the conversation, saying what was found and why the verdict follows.
Say how sure the verdict is as a confidence from 0 (a guess) to 1 (certain): low when the evidence gathered is thin or points both ways.
List as evidence the values the conclusion rests on (at most 8): each value copied exactly as it appears in the alert or in a tool's result (an IP address, a user, a domain, a hash, an API call, a field's value), with what it shows in a few words. Cite only values you saw there.
Draft up to 3 lessons: short facts the team should know the next time a similar alert comes (for example "203.0.113.5 is the organisation's vulnerability scanner, it scans on Sundays"), each naming the values it is about; none when the investigation taught nothing lasting. An analyst decides whether to keep each.
Values such as [REDACTED_IP_k3v9q2m7xa] are redacted values: equal tokens are equal values; refer to them by their token.
Answer with the JSON object only.`

// Schema is the shape of the answer asked for: a verdict (an enum of record.Verdicts) and a
// conclusion.
func Schema() *genai.Schema {
	enum := make([]string, len(record.Verdicts))
	for i, v := range record.Verdicts {
		enum[i] = string(v)
	}
	return &genai.Schema{
		Type: genai.TypeObject,
		Properties: map[string]*genai.Schema{
			"verdict":    {Type: genai.TypeString, Format: "enum", Enum: enum, Description: "how the investigation ended"},
			"conclusion": {Type: genai.TypeString, Description: "two to four sentences: what was found and why the verdict follows"},
			"confidence": {Type: genai.TypeNumber, Minimum: genai.Ptr(0.0), Maximum: genai.Ptr(1.0),
				Description: "how sure the verdict is, from 0 (a guess) to 1 (certain)"},
			"evidence": {
				Type:        genai.TypeArray,
				Description: "the values the conclusion rests on, copied exactly from the alert or a tool result",
				MaxItems:    genai.Ptr[int64](maxEvidence),
				Items: &genai.Schema{
					Type: genai.TypeObject,
					Properties: map[string]*genai.Schema{
						"value": {Type: genai.TypeString, Description: "the value exactly as it appears"},
						"claim": {Type: genai.TypeString, Description: "what it shows, in a few words"},
					},
					Required:         []string{"value", "claim"},
					PropertyOrdering: []string{"value", "claim"},
				},
			},
			"lessons": {
				Type:        genai.TypeArray,
				Description: "up to 3 short facts the team should know next time (may be empty)",
				MaxItems:    genai.Ptr[int64](MaxLessons),
				Items:       &genai.Schema{Type: genai.TypeString},
			},
		},
		Required:         []string{"verdict", "conclusion", "confidence", "evidence"},
		PropertyOrdering: []string{"verdict", "conclusion", "confidence", "evidence", "lessons"},
	}
}

// Request is the request Suggest sends to model for h about alert a (nil when it cannot be
// read): an auxiliary request as modelcfg builds it for that model (Gemini 3: its lowest
// thinking level, no temperature, no thinking budget, an output cap with room for the
// thinking) with structured output (application/json and Schema).
func Request(model string, a *record.Alert, h *record.History) ([]*genai.Content, *genai.GenerateContentConfig) {
	var b strings.Builder
	if a != nil {
		b.WriteString("Alert (JSON):\n")
		b.Write(a.Data)
		b.WriteString("\n\n")
	}
	b.WriteString("Conversation:\n")
	b.WriteString(conversation(h))
	cfg := modelcfg.For(model).Auxiliary(answerTokens, temperature)
	cfg.SystemInstruction = genai.NewContentFromText(instruction, "")
	cfg.ResponseMIMEType = "application/json"
	cfg.ResponseSchema = Schema()
	return []*genai.Content{genai.NewContentFromText(b.String(), genai.RoleUser)}, cfg
}

// conversation is h's transcript as text, "Analyst:" and "Assistant:" turns, its most recent
// maxTranscriptBytes (and then the summary of the earlier turns, when there is one).
func conversation(h *record.History) string {
	var turns []string
	size := 0
	for i := len(h.Contents) - 1; i >= 0; i-- {
		c := h.Contents[i]
		if c == nil {
			continue
		}
		text := transcript.ContentText(c, 2000)
		if text == "" {
			continue
		}
		who := "Analyst"
		if c.Role == genai.RoleModel {
			who = "Assistant"
		}
		turn := who + ": " + text
		if size+len(turn) > maxTranscriptBytes && len(turns) > 0 {
			if h.Summary != nil && h.Summary.Text != "" {
				turns = append(turns, "Summary of the earlier conversation: "+h.Summary.Text)
			}
			break
		}
		size += len(turn)
		turns = append(turns, turn)
	}
	for i, j := 0, len(turns)-1; i < j; i, j = i+1, j-1 {
		turns[i], turns[j] = turns[j], turns[i]
	}
	return strings.Join(turns, "\n\n")
}

// Suggest asks model for h's verdict and conclusion. An answer that is not the schema's shape
// (not JSON, an unknown verdict, no conclusion, nothing at all) is asked for once more; a
// second one is ErrBadAnswer. An answer that thought its whole allowance away is asked once
// more with room (modelcfg.Generate), and a second such one is ErrBadAnswer too. A failed
// request is returned as it is.
func Suggest(ctx context.Context, gen modelcfg.Generator, model string, a *record.Alert, h *record.History) (*Suggestion, error) {
	contents, cfg := Request(model, a, h)
	var why error
	var used record.Usage
	for range 2 {
		resp, err := modelcfg.Generate(ctx, gen, model, contents, cfg)
		if resp != nil {
			used = used.Add(usageOf(resp.UsageMetadata))
		}
		if errors.Is(err, modelcfg.ErrNoText) {
			why = err
			break // asked with room already: that was the one retry
		}
		if err != nil {
			return nil, goerr.Wrap(err, "the verdict request failed", goerr.V("model", model))
		}
		s, err := parse(resp)
		if err == nil {
			s.Usage = used
			return s, nil
		}
		why = err
	}
	return nil, goerr.Wrap(ErrBadAnswer, "Gemini answered twice without a verdict and a conclusion (the last time: "+why.Error()+
		"); nothing was recorded; try again, or give --verdict", goerr.V("model", model))
}

// parse reads the answer's JSON: exactly a known verdict and a conclusion.
func parse(resp *genai.GenerateContentResponse) (*Suggestion, error) {
	raw := strings.TrimSpace(modelcfg.Text(resp))
	if raw == "" {
		return nil, errors.New("the answer was empty")
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	var s Suggestion
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("the answer is not the JSON asked for: %v", err)
	}
	if dec.More() {
		return nil, errors.New("the answer holds more than one JSON value")
	}
	if _, ok := record.ParseVerdict(string(s.Verdict)); !ok {
		return nil, fmt.Errorf("%q is not one of the verdicts", termsafe.Line(string(s.Verdict)))
	}
	s.Confidence = min(max(s.Confidence, 0), 1) // the schema says so; the answer is the model's
	s.Conclusion = strings.TrimSpace(termsafe.String(s.Conclusion))
	s.Evidence = cleanEvidence(s.Evidence)
	s.Lessons = cleanLessons(s.Lessons)
	switch {
	case s.Conclusion == "":
		return nil, errors.New("the conclusion is empty")
	case len(s.Conclusion) > maxConclusion:
		return nil, fmt.Errorf("the conclusion is %d bytes long, not two to four sentences", len(s.Conclusion))
	}
	return &s, nil
}

// cleanEvidence keeps the items that name a value, at most maxEvidence, each made one
// terminal-safe line and bounded (the model's text is shown and stored).
func cleanEvidence(in []Evidence) []Evidence {
	var out []Evidence
	for _, e := range in {
		e.Value = strings.TrimSpace(termsafe.Line(e.Value))
		e.Claim = strings.TrimSpace(termsafe.Line(e.Claim))
		e.Unsupported = false // only Ground decides
		if e.Value == "" || len(e.Value) > maxEvidenceValue {
			continue
		}
		if len(e.Claim) > maxClaim {
			e.Claim = e.Claim[:maxClaim]
			e.Claim = strings.ToValidUTF8(e.Claim, "")
		}
		out = append(out, e)
		if len(out) == maxEvidence {
			break
		}
	}
	return out
}

// cleanLessons keeps the drafts that say something, at most MaxLessons, each one
// terminal-safe line within a knowledge entry's length.
func cleanLessons(in []string) []string {
	var out []string
	for _, l := range in {
		l = strings.TrimSpace(termsafe.Line(l))
		if l == "" || utf8.RuneCountInString(l) > record.MaxKnowledgeText {
			continue
		}
		out = append(out, l)
		if len(out) == MaxLessons {
			break
		}
	}
	return out
}

// usageOf reads a response's usage report (nil: nothing counted).
func usageOf(u *genai.GenerateContentResponseUsageMetadata) record.Usage {
	if u == nil {
		return record.Usage{}
	}
	return record.Usage{InputTokens: int64(u.PromptTokenCount), OutputTokens: int64(u.CandidatesTokenCount), ThoughtTokens: int64(u.ThoughtsTokenCount)}
}
