package session

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strconv"
	"strings"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/tokenbudget"
)

// Context budget defaults.
const (
	// DefaultMaxContextTokens is the default token budget of one request: a fifth of
	// gemini-3.8-flash's 1M-token window, which keeps requests fast and cheap and leaves room
	// for estimation error.
	DefaultMaxContextTokens = 200_000
	// DefaultCompactAt is the share of the budget past which older turns are summarised.
	DefaultCompactAt = 0.75
	// keepShare is the share of the budget the recent turns may take right after a compaction.
	keepShare = 0.4
	// minFoldShare is the least share of the budget worth summarising automatically, so that a
	// large alert does not cause a summary every turn.
	minFoldShare = 0.05
	// minBudget is the smallest budget accepted; smaller values are raised to it.
	minBudget = 256
)

// ErrContextTooLong is returned when the model refuses a request as too long even after the
// conversation was compacted.
var ErrContextTooLong = errors.New("the conversation is too long for the model")

// tooLongError is a refusal as too long that compacting did not cure: it is ErrContextTooLong
// and still the model's error.
type tooLongError struct{ err error }

func (e *tooLongError) Error() string {
	return "the conversation is too long for the model, even after summarising it: " + e.err.Error()
}

func (e *tooLongError) Unwrap() []error { return []error{ErrContextTooLong, e.err} }

// ErrNothingToCompact is returned by Compact when there is no older turn to summarise.
var ErrNothingToCompact = errors.New("nothing to summarise")

// contextState is what a session knows about the size of its requests: cached estimates of
// the transcript and the calibration on reported usage.
type contextState struct {
	ledger tokenbudget.Ledger
	calib  tokenbudget.Calibrator
	// sysTokens is the raw estimate of the system instruction (the alert).
	sysTokens int
	// summaryKey/summaryTokens cache the estimate of the summary pair.
	summaryKey    string
	summaryTokens int
	// modelLimit is the model's input limit when a refusal told it, else 0.
	modelLimit int
	// last is what the latest request was estimated at (raw) and what it held.
	lastRaw      int
	lastContents int
	lastStart    int
}

func (s *Session) cstate() *contextState {
	if s.cw == nil {
		s.cw = &contextState{sysTokens: tokenbudget.EstimateContent(s.system)}
	}
	return s.cw
}

func (s *Session) logger() *slog.Logger {
	if s.opts.Logger != nil {
		return s.opts.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// budget is the token budget of one request.
func (s *Session) budget() int {
	b := s.opts.MaxContextTokens
	if b <= 0 {
		b = DefaultMaxContextTokens
	}
	b = max(b, minBudget)
	if l := s.cstate().modelLimit; l > 0 {
		b = min(b, l*9/10)
	}
	return b
}

func (s *Session) compactAt() float64 {
	switch t := s.opts.CompactAt; {
	case t == 0:
		return DefaultCompactAt
	case t < 0:
		return -1
	default:
		return t
	}
}

// syncLedger brings the cached estimates up to date with the transcript.
func (s *Session) syncLedger() *contextState {
	cs := s.cstate()
	// live contents are never changed in place: every one is settled
	cs.ledger.Sync(s.live, len(s.live))
	return cs
}

// summaryCovers is how many leading contents the summary stands for, 0 without a usable one.
func (s *Session) summaryCovers() int {
	sm := s.summary()
	if sm == nil || strings.TrimSpace(sm.Text) == "" || sm.CoversCount <= 0 || sm.CoversCount > len(s.live) {
		return 0
	}
	return sm.CoversCount
}

// summary is the summary the model is sent: the one made in this session, else the stored one.
func (s *Session) summary() *record.Summary {
	if s.liveSummary != nil {
		return s.liveSummary
	}
	return s.history.Summary
}

// summaryPair is the summary as it opens a request: a user turn with the summary, then the
// model's acknowledgement, so that user and model turns keep alternating.
func summaryPair(sm *record.Summary) []*genai.Content {
	lead, ack := summaryLeadEN, summaryAckEN
	if isJapanese(sm.Text) {
		lead, ack = summaryLeadJA, summaryAckJA
	}
	return []*genai.Content{
		genai.NewContentFromText(lead+sm.Text, genai.RoleUser),
		genai.NewContentFromText(ack, genai.RoleModel),
	}
}

const (
	summaryLeadEN = "Summary of the earlier conversation (those turns are not repeated below):\n\n"
	summaryAckEN  = "Understood. I will continue from this summary and the turns that follow."
	summaryLeadJA = "これまでの会話の要約（以下では繰り返しません）:\n\n"
	summaryAckJA  = "了解しました。この要約と以降のやり取りを踏まえて続けます。"
)

func (s *Session) summaryTokens(cs *contextState) int {
	sm := s.summary()
	if s.summaryCovers() == 0 {
		return 0
	}
	if cs.summaryKey != sm.Text {
		cs.summaryKey = sm.Text
		cs.summaryTokens = tokenbudget.EstimateContents(summaryPair(sm))
	}
	return cs.summaryTokens
}

// shape builds the contents of a request for the current question's exchange (pending: the
// question, then any calls and their responses so far) within limit calibrated tokens: the
// summary pair when there is one, then the newest whole turns that fit, then the whole
// exchange, never cut (a call always goes with its response). It returns the contents and
// their raw estimate (system instruction included).
func (s *Session) shape(pending []*genai.Content, limit int) ([]*genai.Content, int) {
	cs := s.syncLedger()
	live := s.live
	n := len(live)
	covers := s.summaryCovers()
	fixed := cs.sysTokens + estimateAll(pending) + s.summaryTokens(cs)
	start := cs.ledger.Window(covers, cs.calib.Raw(limit)-fixed)

	out := make([]*genai.Content, 0, n-start+2+len(pending))
	if covers > 0 {
		out = append(out, summaryPair(s.summary())...)
	}
	out = append(out, live[start:n]...)
	out = append(out, pending...)
	raw := fixed + cs.ledger.Sum(start, n)
	cs.lastRaw, cs.lastContents, cs.lastStart = raw, len(out), start
	return out, raw
}

// pendingTokens is the calibrated size of a request that would carry everything not yet
// summarised.
func (s *Session) pendingTokens(pending []*genai.Content) int {
	cs := s.syncLedger()
	covers := s.summaryCovers()
	raw := cs.sysTokens + s.summaryTokens(cs) + cs.ledger.Sum(covers, len(s.live)) + estimateAll(pending)
	return cs.calib.Tokens(raw)
}

// streamShaped sends user with as much of the conversation as the budget allows, summarising
// older turns first when the conversation has grown past the threshold. When the model refuses
// the request as too long, it compacts and retries once.
func (s *Session) streamShaped(ctx context.Context, pending []*genai.Content, onText func(string), mode toolMode) (*genai.Content, record.Usage, error) {
	cs := s.cstate()
	budget := s.budget()
	if t := s.compactAt(); t > 0 && float64(s.pendingTokens(pending)) > t*float64(budget) {
		if _, err := s.compact(ctx, pending, false); err != nil && !errors.Is(err, ErrNothingToCompact) {
			// The question still goes out, with the newest turns that fit.
			s.logger().Warn("could not summarise earlier turns", "history_id", s.history.ID, "error", err)
		}
	}
	contents, raw := s.shape(pending, budget)
	reply, usage, err := s.stream(ctx, contents, onText, mode)
	if err != nil && !hasParts(reply) {
		if tooLong, count, limit := contextTooLong(err); tooLong {
			return s.retryShorter(ctx, pending, onText, mode, err, raw, count, limit)
		}
	}
	if usage.InputTokens > 0 {
		cs.calib.Observe(int(usage.InputTokens), raw)
	}
	return reply, usage, err
}

// retryShorter handles a refusal as too long: learn what it says, compact (or, when that is
// not possible, keep fewer turns) and send once more. A second refusal is returned.
func (s *Session) retryShorter(ctx context.Context, pending []*genai.Content, onText func(string), mode toolMode, cause error, raw, count, limit int) (*genai.Content, record.Usage, error) {
	cs := s.cstate()
	if count > 0 {
		cs.calib.AtLeast(count, raw)
	}
	if limit > 0 {
		cs.modelLimit = limit
	}
	s.logger().Info("the model refused the request as too long; compacting", "history_id", s.history.ID, "estimate", raw, "reported", count, "limit", limit)
	budget := s.budget()
	if _, err := s.compact(ctx, pending, true); err != nil {
		if errors.Is(err, ErrNothingToCompact) && cs.lastStart >= len(s.live) {
			return &genai.Content{Role: genai.RoleModel}, record.Usage{}, &tooLongError{cause}
		}
		s.logger().Warn("could not summarise earlier turns; sending fewer", "history_id", s.history.ID, "error", err)
		budget = int(keepShare * float64(budget))
	}
	contents, raw2 := s.shape(pending, budget)
	reply, usage, err := s.stream(ctx, contents, onText, mode)
	if err != nil && !hasParts(reply) {
		if tooLong, _, _ := contextTooLong(err); tooLong {
			return reply, usage, &tooLongError{err}
		}
	}
	if usage.InputTokens > 0 {
		cs.calib.Observe(int(usage.InputTokens), raw2)
	}
	return reply, usage, err
}

// tooLongCount finds the numbers in "The input token count (N) exceeds the maximum number of
// tokens allowed (M)".
var tooLongCount = regexp.MustCompile(`(?i)input token count\D{0,8}(\d+)\D+?maximum number of tokens allowed\D{0,8}(\d+)`)

// contextTooLong reports whether err is the model refusing a request as too long, with the
// counts the message gives (0 when absent).
func contextTooLong(err error) (tooLong bool, count, limit int) {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 400 {
		return false, 0, 0
	}
	m := strings.ToLower(apiErr.Message)
	switch {
	case strings.Contains(m, "exceeds the maximum number of tokens"),
		strings.Contains(m, "input token count"),
		strings.Contains(m, "too many tokens"),
		strings.Contains(m, "token") && (strings.Contains(m, "exceed") || strings.Contains(m, "too long")):
	default:
		return false, 0, 0
	}
	if g := tooLongCount.FindStringSubmatch(apiErr.Message); g != nil {
		count, _ = strconv.Atoi(g[1])
		limit, _ = strconv.Atoi(g[2])
	}
	return true, count, limit
}

// ContextInfo describes how the conversation fits the model's context.
type ContextInfo struct {
	// Budget is the token budget of one request.
	Budget int
	// Ratio is the calibration: reported prompt tokens per estimated token.
	Ratio float64
	// TranscriptTokens is the calibrated estimate of the whole stored transcript.
	TranscriptTokens int
	// LastRequestTokens is the calibrated estimate of the latest request (0 before the first).
	LastRequestTokens int
	// LastRequestContents is how many contents the latest request carried (summary pair and
	// question included); LastWindowStart the index of the first transcript content it carried.
	LastRequestContents int
	LastWindowStart     int
	// SummaryCovers is how many leading contents the summary stands for (0: no summary).
	SummaryCovers int
}

// Context reports how the conversation fits the model's context.
func (s *Session) Context() ContextInfo {
	cs := s.syncLedger()
	info := ContextInfo{
		Budget:              s.budget(),
		Ratio:               cs.calib.Ratio(),
		TranscriptTokens:    cs.calib.Tokens(cs.ledger.Sum(0, cs.ledger.Len())),
		LastRequestContents: cs.lastContents,
		LastWindowStart:     cs.lastStart,
		SummaryCovers:       s.summaryCovers(),
	}
	if cs.lastRaw > 0 {
		info.LastRequestTokens = cs.calib.Tokens(cs.lastRaw)
	}
	return info
}

// estimateAll is the raw token estimate of contents.
func estimateAll(contents []*genai.Content) int {
	n := 0
	for _, c := range contents {
		n += tokenbudget.EstimateContent(c)
	}
	return n
}
