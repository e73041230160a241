package samechat

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redacthist"
)

// Judge limits.
const (
	// DefaultJudgeTimeout bounds a judgement; past it the question starts a new conversation.
	DefaultJudgeTimeout = 10 * time.Second
	// MaxJudgeCandidates is how many of the most recent histories are judged.
	MaxJudgeCandidates = 3
	// judgeQuestions is how many of a candidate's last questions the judge sees.
	judgeQuestions     = 2
	judgeQuestionRunes = 300
	judgeNewRunes      = 1000
)

const judgeSystem = `You decide whether a security analyst's new question continues an earlier conversation about the same alert.
For each numbered earlier conversation, answer SAME when the new question follows up on it: the same topic or lead, the same entities or indicators, or a reference to what was said there. Answer DIFFERENT when it opens another line of inquiry. The topic matters most; being about the same alert is not enough on its own.
Reply with one line per conversation, exactly "1: SAME" or "1: DIFFERENT", and nothing else.`

// The judge's answer for each earlier conversation (about the conversation, not the alert:
// that conclusion is record.Verdict).
const (
	AnswerSame      = "SAME"
	AnswerDifferent = "DIFFERENT"
)

// Judge decides whether a new question continues one of an alert's earlier conversations.
type Judge struct {
	LLM   llm.Generator
	Model string
	// Cache keeps answers by (question, history ID, history revision); nil disables it.
	Cache *JudgeCache
	// Timeout bounds the model call; 0 means DefaultJudgeTimeout.
	Timeout time.Duration
	// Redactor, when set, is the workspace's redaction step: the question is redacted before it
	// is hashed for the cache (a plain hash of raw text would let a guess be checked against
	// the cache file) and before it is compared with the candidates' stored questions, which
	// are redacted.
	Redactor redacthist.Redactor
}

// JudgeLoader returns a candidate's full history (its transcript); it is called only for
// candidates whose answer is not cached.
type JudgeLoader func(ctx context.Context, meta *record.History) (*record.History, error)

// Match returns the most recent candidate (candidates are newest first) that question
// continues, or nil when none does. A candidate whose last question is the question itself is
// the same conversation without asking. An error (the model failing, timing out or answering
// nonsense) means no match; the caller starts a new conversation.
func (j *Judge) Match(ctx context.Context, question string, candidates []*record.History, load JudgeLoader) (*record.History, error) {
	question = strings.TrimSpace(question)
	if question == "" || len(candidates) == 0 {
		return nil, nil
	}
	if len(candidates) > MaxJudgeCandidates {
		candidates = candidates[:MaxJudgeCandidates]
	}
	asStored := question
	if j.Redactor != nil {
		asStored, _ = j.Redactor.RedactString(question)
	}
	qh := questionHash(asStored)
	answers := make([]string, len(candidates))
	full := make([]*record.History, len(candidates))
	var pending []int
	for i, c := range candidates {
		if v, ok := j.Cache.Get(qh, c.ID, c.Revision); ok {
			answers[i] = v
			continue
		}
		h := c
		if c.Contents == nil && load != nil {
			loaded, err := load(ctx, c)
			if err != nil {
				return nil, goerr.Wrap(err, "failed to load a candidate conversation", goerr.V("history_id", c.ID))
			}
			h = loaded
		}
		full[i] = h
		if qs := lastQuestions(h.Contents, 1); len(qs) == 1 && normalizeQuestion(qs[0]) == normalizeQuestion(asStored) {
			answers[i] = AnswerSame
			j.Cache.Put(qh, c.ID, c.Revision, AnswerSame)
			continue
		}
		pending = append(pending, i)
	}
	if len(pending) > 0 {
		asked := make([]*record.History, len(pending))
		for k, i := range pending {
			asked[k] = full[i]
		}
		got, err := j.ask(ctx, question, asked)
		if err != nil {
			return nil, err
		}
		for k, i := range pending {
			answers[i] = got[k]
			j.Cache.Put(qh, candidates[i].ID, candidates[i].Revision, got[k])
		}
	}
	// A cache that cannot be written costs a judgement next time, nothing else.
	_ = j.Cache.Save()
	for i, v := range answers {
		if v == AnswerSame {
			if full[i] != nil {
				return full[i], nil
			}
			return candidates[i], nil
		}
	}
	return nil, nil
}

// ask puts the question and the candidates to the model and parses one answer per candidate.
func (j *Judge) ask(ctx context.Context, question string, candidates []*record.History) ([]string, error) {
	timeout := j.Timeout
	if timeout <= 0 {
		timeout = DefaultJudgeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cfg := modelcfg.For(j.Model).Auxiliary(int32(16+12*len(candidates)), 0)
	cfg.SystemInstruction = genai.NewContentFromText(judgeSystem, "")
	resp, err := modelcfg.Generate(ctx, j.LLM, j.Model, []*genai.Content{genai.NewContentFromText(JudgePrompt(question, candidates), genai.RoleUser)}, cfg)
	if err != nil {
		return nil, goerr.Wrap(err, "judge request failed", goerr.V("model", j.Model))
	}
	return ParseAnswers(modelcfg.Text(resp), len(candidates))
}

// JudgePrompt is the judge's question: the new question, then each candidate's title and last
// questions, numbered from 1 in the order given.
func JudgePrompt(question string, candidates []*record.History) string {
	var b strings.Builder
	b.WriteString("New question:\n<<<\n")
	b.WriteString(clipRunesPlain(question, judgeNewRunes))
	b.WriteString("\n>>>\n\nEarlier conversations:\n")
	for i, h := range candidates {
		fmt.Fprintf(&b, "%d. Title: %s\n", i+1, oneLineText(h.Title))
		qs := lastQuestions(h.Contents, judgeQuestions)
		if len(qs) == 0 {
			b.WriteString("   (no questions yet)\n")
			continue
		}
		b.WriteString("   Last questions:\n")
		for _, q := range qs {
			fmt.Fprintf(&b, "   - %s\n", clipRunesPlain(oneLineText(q), judgeQuestionRunes))
		}
	}
	return b.String()
}

var answerLine = regexp.MustCompile(`(?i)^\W*(?:[a-z]+\s*)?(\d+)\W*(SAME|DIFFERENT)\b`)

// ParseAnswers reads n answers ("1: SAME", "2: DIFFERENT", ...). A lone SAME or DIFFERENT
// answers a single candidate. Anything missing or contradictory is an error.
func ParseAnswers(text string, n int) ([]string, error) {
	out := make([]string, n)
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if n == 1 {
			switch w := strings.ToUpper(strings.Trim(line, " .*`\"'")); w {
			case AnswerSame, AnswerDifferent:
				out[0] = w
				continue
			}
		}
		m := answerLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var k int
		if _, err := fmt.Sscan(m[1], &k); err != nil || k < 1 || k > n {
			continue
		}
		v := strings.ToUpper(m[2])
		if out[k-1] != "" && out[k-1] != v {
			return nil, goerr.New("contradictory verdicts", goerr.V("answer", text))
		}
		out[k-1] = v
	}
	for _, v := range out {
		if v == "" {
			return nil, goerr.New("unparsable verdict", goerr.V("answer", clipRunesPlain(text, 200)))
		}
	}
	return out, nil
}

// lastQuestions returns up to n of the analyst's last real questions, oldest first.
func lastQuestions(contents []*genai.Content, n int) []string {
	var out []string
	for i := len(contents) - 1; i >= 0 && len(out) < n; i-- {
		c := contents[i]
		if c == nil || c.Role != genai.RoleUser {
			continue
		}
		var b strings.Builder
		fr := false
		for _, p := range c.Parts {
			if p == nil {
				continue
			}
			if p.FunctionResponse != nil {
				fr = true
			}
			if !p.Thought {
				b.WriteString(p.Text)
			}
		}
		if q := strings.TrimSpace(b.String()); q != "" && !fr {
			out = append(out, q)
		}
	}
	for i, k := 0, len(out)-1; i < k; i, k = i+1, k-1 {
		out[i], out[k] = out[k], out[i]
	}
	return out
}

func normalizeQuestion(q string) string { return strings.Join(strings.Fields(q), " ") }

// questionHash keys the cache; the question itself is never written there.
func questionHash(q string) string {
	sum := sha256.Sum256([]byte(normalizeQuestion(q)))
	return hex.EncodeToString(sum[:16])
}

func oneLineText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func clipRunesPlain(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}
