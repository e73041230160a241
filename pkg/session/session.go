// Package session is one conversation about one alert: it sends the transcript and a new
// question to Gemini with the alert in the system instruction, streams the answer, names the
// conversation from its first question, and saves every turn through the redaction step.
//
// Live and stored contents: Gemini keeps seeing what the analyst typed and what it answered
// within a session (it saw it anyway); only what is written is redacted. The session keeps its
// live transcript and summary un-redacted in memory and writes a redacted copy: each save
// copies and redacts only the contents added since the previous one (the redacted copies of
// earlier turns are kept), so a turn's save scans only new contents. A resumed session starts
// from the stored (redacted) transcript, tokens included, and the system instruction tells the
// model what the tokens mean. History returns the history as stored.
package session

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/tokenbudget"
	"github.com/alertchat/alertchat/pkg/tool"
)

// Options are a session's dependencies and settings.
type Options struct {
	LLM      llm.Generator
	Store    store.HistorySaver
	Redactor redacthist.Redactor
	Model    string
	// Thinking is the main answers' thinking level ("": the model's own); titles, summaries and
	// judgements ask at the lowest level their model offers (pkg/modelcfg).
	Thinking genai.ThinkingLevel
	// Titles turns on generated titles; when off (or when generation fails) the title is the
	// first line of the first question.
	Titles bool
	// TitleModel defaults to Model.
	TitleModel string
	// Spool, when set, keeps the history on local disk when the store fails, so that no turn
	// is lost; a later flush uploads it (see Spool and SaveOrFork).
	Spool store.Spool
	// SaveTimeout bounds a save; a turn's save is not cancelled with the turn.
	SaveTimeout time.Duration
	Now         func() time.Time
	// MaxContextTokens is the token budget of one request (alert, summary, turns and question);
	// 0 means DefaultMaxContextTokens. The transcript is stored whole whatever its size.
	MaxContextTokens int
	// CompactAt is the share of the budget past which older turns are summarised; 0 means
	// DefaultCompactAt, a negative value turns summaries off (older turns are then only left
	// out of requests).
	CompactAt float64
	// Logger receives notices about compaction; nil discards them.
	Logger *slog.Logger
	// Tools, when it holds any, are declared on every request of a question; the model's calls
	// are run and answered until it answers in text (tools.go). Nil declares none.
	Tools *tool.Registry
	// Approver is asked before a call to a tool that asks (tool.Origin.Asks); nil denies them.
	Approver tool.Approver
	// MaxToolCalls bounds the calls of one question (0: DefaultMaxToolCalls); MaxToolResult
	// the size of a result as JSON, past which it is cut (0: DefaultMaxToolResult).
	MaxToolCalls, MaxToolResult int
	// Analyst names who asks the questions (pkg/analyst), recorded beside each question in the
	// history's metadata (record.Question), never in the transcript. It is called when a
	// question is saved, so a name still being looked up never holds up the answer. Nil
	// records no name.
	Analyst func() string
	// KeepUnanswered saves a question whose turn ends before any answer arrived, whatever
	// ended it (a model failure after its retries, a cancellation), as every other turn that
	// ends without a complete answer is saved: its reply marked cut short, the error returned
	// with the turn. A chat sets it: a question typed there exists nowhere else. Without it
	// such a question is saved only when the model gave no answer twice (keepsQuestion), else the transcript is left as it was (a batch: its input holds every
	// question, and a failed line's error is its output).
	KeepUnanswered bool
	// Knowledge, when set, gives a new investigation the team's notes on its alert: looked up
	// as the session starts, put into the system instruction before the first request, their
	// IDs recorded on the history (see knowledge.go). Nil gives none (--no-knowledge).
	Knowledge Knowledge
}

// titleTimeout bounds how long a finished answer waits for its title before falling back.
const titleTimeout = 15 * time.Second

// Session is one conversation. It is not safe for concurrent use.
type Session struct {
	opts  Options
	alert *record.Alert
	// history is the history as stored: metadata, and the redacted copy of the transcript
	// (its first history.RedactedCount contents are copies of live's, already redacted).
	history *record.History
	// live is the transcript as the model sees it; liveSummary the summary as written by the
	// model (nil: the stored one, e.g. on a resumed history).
	live        []*genai.Content
	liveSummary *record.Summary
	// redactor is the session's redaction step (the alert's values kept, see redacthist.AlertRedactor).
	redactor redacthist.Redactor
	system   *genai.Content
	saved    saveState
	// cw is what the session knows of its requests' size (see context.go).
	cw *contextState
	// approvals are the current question's decisions about MCP calls, added to the history
	// with the question's contents.
	approvals []record.ToolApproval
	// notes is the lookup of the team's notes (nil: none is made).
	notes *notesLookup
}

// New starts a session on alert, continuing h, or a new history when h is nil.
func New(opts Options, alert *record.Alert, h *record.History) (*Session, error) {
	if opts.LLM == nil || opts.Store == nil || opts.Redactor == nil {
		return nil, goerr.New("session needs an LLM, a store and a redactor")
	}
	if opts.Model == "" {
		return nil, goerr.New("session needs a model name")
	}
	if opts.TitleModel == "" {
		opts.TitleModel = opts.Model
	}
	if opts.SaveTimeout == 0 {
		opts.SaveTimeout = 30 * time.Second
	}
	if opts.Now == nil {
		opts.Now = store.Now
	}
	if h == nil {
		h = &record.History{ID: store.NewHistoryID(), AlertID: alert.ID}
	} else if h.AlertID != alert.ID {
		return nil, goerr.New("history belongs to another alert", goerr.V("history_id", h.ID), goerr.V("alert_id", alert.ID))
	}
	red := opts.Redactor
	if ar, ok := red.(redacthist.AlertRedactor); ok {
		red = ar.ForAlert(alert)
	}
	if h.RedactedCount > len(h.Contents) || h.RedactedCount < 0 {
		h.RedactedCount = 0 // the transcript was replaced; redact it all at the next save
	}
	if n := repairCalls(h); n > 0 && opts.Logger != nil {
		opts.Logger.Info("answered calls stored without a response", "history_id", h.ID, "contents_added", n)
	}
	// The live transcript starts as the stored one. Contents past RedactedCount are shared
	// with the stored history until the next save, which replaces them there by redacted
	// copies: live contents are never changed in place.
	live := append(make([]*genai.Content, 0, len(h.Contents)+8), h.Contents...)
	s := &Session{opts: opts, alert: alert, history: h, live: live, redactor: red, system: systemInstruction(alert)}
	s.startNotes()
	return s, nil
}

// systemInstruction puts the alert under analysis in front of every request.
func systemInstruction(a *record.Alert) *genai.Content {
	var b strings.Builder
	b.WriteString("You assist a security analyst who is investigating the alert below. ")
	b.WriteString("Answer precisely and concisely, point to the fields of the alert that support each statement, ")
	b.WriteString("and say plainly when the alert does not contain what is needed to answer. ")
	b.WriteString(TokenNote)
	b.WriteString("\n\nAlert (JSON):\n")
	b.Write(a.Data)
	return genai.NewContentFromText(b.String(), "")
}

// Offer adds text to what every later request of the session tells the model beside the
// alert (the system instruction): context the analyst was shown, such as how earlier
// investigations of related alerts ended. Like the alert, it is never stored in the history.
func (s *Session) Offer(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	parts := append(slices.Clip(s.system.Parts), genai.NewPartFromText("\n\n"+text))
	s.system = &genai.Content{Role: s.system.Role, Parts: parts}
	if s.cw != nil {
		s.cw.sysTokens = tokenbudget.EstimateContent(s.system)
	}
}

// TokenNote is the sentence of the system instruction about redaction tokens.
const TokenNote = "Earlier turns may hold tokens such as [REDACTED_IP_k3v9q2m7xa] or [REDACTED_EMAIL]: " +
	"each stands for a value that was redacted before the conversation was stored; equal tokens stand for " +
	"equal values and different tokens for different values. Refer to such values by their token. " +
	"A reply that ends with " + PartialMarker + " was interrupted before it was complete."

// PartialMarker ends a reply that was cut short (the turn was cancelled, the stream broke, or
// the model failed before answering): it is a text part of its own, appended to what had
// arrived, both in what later requests carry and in what is stored. A turn that ended during
// tool calls gets a reply of its own holding only the marker, after the calls' responses.
// Redaction reads the text before it as one that may end inside a value.
const PartialMarker = redacthist.PartialMarker

// History returns the session's history as stored (metadata and the redacted transcript).
func (s *Session) History() *record.History { return s.history }

// Contents returns the live transcript: what the model is sent, not redacted. Callers must not
// change it.
func (s *Session) Contents() []*genai.Content { return s.live }

// Alert returns the alert under discussion.
func (s *Session) Alert() *record.Alert { return s.alert }

// Turn is the outcome of one Send.
type Turn struct {
	// Answer is the model's text (thoughts excluded).
	Answer string
	Usage  record.Usage
	// Partial is set when the turn ended without a complete answer (cancelled, or the model
	// failed) and was kept: the question and what had arrived, the reply marked cut short.
	Partial bool
	// SaveErr is set when the turn is in the session but could not be saved.
	SaveErr error
	// Spooled is set when the store failed and the turn was kept in the local spool instead,
	// to be uploaded later; SpoolCause is the store's error.
	Spooled    bool
	SpoolCause error
	// ForkedFrom is set when another writer saved the history since it was loaded: the turn
	// went to a new history (History().ID) forked from ForkedFrom. See SaveOrFork.
	ForkedFrom record.HistoryID
	// ToolCalls are the calls the model made for this question, in order.
	ToolCalls []ToolCall
}

// Send asks input, streaming the answer's text to onText as it arrives. On success, the
// question and the model's complete reply are appended to the transcript and the history is
// saved. A turn that ends without a complete answer returns its error, with the turn when it
// was kept (see Turn.Partial); one that ended before any answer arrived is kept only with
// Options.KeepUnanswered (or when the model gave no answer twice), otherwise the
// transcript is unchanged and no turn is returned, so the question can be sent again.
func (s *Session) Send(ctx context.Context, input string, onText func(string)) (*Turn, error) {
	return s.SendTurn(ctx, input, TurnHooks{OnText: onText})
}

// TurnHooks tell the caller of SendTurn where a turn is.
type TurnHooks struct {
	// OnText receives the answer's text as it streams.
	OnText func(string)
	// OnSaving is called once the answer is complete (or cut short), before the turn waits for
	// its title and is saved: a terminal can say it is saving.
	OnSaving func()
	// OnToolCall is called as each call of the model starts (a terminal shows a line and
	// names the tool it waits for); OnToolsDone when a round of calls has been answered.
	OnToolCall  func(name string, args map[string]any)
	OnToolsDone func()
}

// SendTurn is Send with hooks.
func (s *Session) SendTurn(ctx context.Context, input string, hooks TurnHooks) (*Turn, error) {
	onText := hooks.OnText
	if onText == nil {
		onText = func(string) {}
	}
	input = strings.TrimSpace(input)
	if input == "" {
		return nil, goerr.New("empty question")
	}
	user := genai.NewContentFromText(input, genai.RoleUser)
	s.Knowledge(ctx)

	// The title is asked for alongside the first answer, never before it. A turn that ends
	// without a complete answer does not wait for it (setTitle), and gives it up here.
	var titleCh chan titleResult
	if s.needsTitle() && s.opts.Titles {
		titleCh = make(chan titleResult, 1)
		tctx, cancel := context.WithTimeout(ctx, titleTimeout)
		defer cancel()
		go func() {
			t, err := generateTitle(tctx, s.opts.LLM, s.opts.TitleModel, input)
			titleCh <- titleResult{t, err}
		}()
	}

	// The request carries the newest turns that fit the budget and the whole exchange (see
	// context.go); the model's calls are run and answered until it answers in text (tools.go).
	s.approvals = nil
	exchange, reply, usage, calls, streamErr := s.exchange(ctx, user, onText, hooks)
	return s.finishTurn(ctx, input, exchange, reply, usage, calls, titleCh, streamErr, hooks)
}

// keepsQuestion reports whether a turn that failed before any answer is saved without
// Options.KeepUnanswered: the model gave no answer to this question even when asked twice, so
// the question is kept to be read. Other failures (an unavailable model, rate limits, outages,
// cancellation) then leave the transcript as it was, the question to be asked again from where
// it came (a batch's input).
func keepsQuestion(err error) bool {
	return errors.Is(err, ErrEmptyAnswer)
}

// finishTurn appends a question's exchange and reply to the transcript, titles a new history
// and saves: the end of every turn, asked here (SendTurn) or answered by a job (Complete). A
// turn that failed before any answer arrived is kept only as SendTurn says; otherwise it
// returns the error alone and the transcript is unchanged.
func (s *Session) finishTurn(ctx context.Context, input string, exchange []*genai.Content, reply *genai.Content, usage record.Usage,
	calls []ToolCall, titleCh chan titleResult, streamErr error, hooks TurnHooks) (*Turn, error) {
	if streamErr != nil && !hasParts(reply) && len(exchange) == 1 {
		if !s.opts.KeepUnanswered && !keepsQuestion(streamErr) {
			return nil, streamErr
		}
		// Nothing arrived: the question is saved all the same, its reply marked as cut short,
		// so that it is not lost; the error says why.
		reply = &genai.Content{Role: genai.RoleModel}
	}
	// A nil reply is a turn that ended during calls (cancelled, or the stream broke right
	// after them): it ends at that content boundary, its calls answered.
	turn := &Turn{Usage: usage, ToolCalls: calls, Partial: streamErr != nil}
	switch {
	case reply != nil:
		turn.Answer = answerText(reply)
	case len(exchange) >= 2 && exchange[len(exchange)-2].Role == genai.RoleModel:
		// Ended at the boundary of calls: what the model wrote beside them is the answer.
		turn.Answer = answerText(exchange[len(exchange)-2])
	}
	if turn.Partial {
		if reply == nil {
			// After the calls' responses, a reply of the model's that says the turn was cut.
			reply = &genai.Content{Role: genai.RoleModel}
		}
		marker := PartialMarker
		if answerText(reply) != "" {
			marker = "\n\n" + marker
		}
		reply.Parts = append(reply.Parts, genai.NewPartFromText(marker))
	}

	if hooks.OnSaving != nil {
		hooks.OnSaving()
	}
	h := s.history
	now := s.opts.Now()
	if h.CreatedAt.IsZero() {
		h.CreatedAt = now
	}
	h.UpdatedAt = now
	if len(exchange) > 0 {
		s.recordQuestion(len(s.live), now)
	}
	s.live = append(s.live, exchange...)
	if reply != nil {
		s.live = append(s.live, reply)
	}
	h.Usage = h.Usage.Add(usage)
	h.ToolCalls += len(calls)
	h.ToolApprovals = append(h.ToolApprovals, s.approvals...)
	s.approvals = nil
	if s.needsTitle() {
		s.setTitle(input, titleCh, streamErr == nil)
	}
	turn.SaveErr = s.save(ctx)
	turn.Spooled, turn.SpoolCause, turn.ForkedFrom = s.saved.lastErr != nil, s.saved.lastErr, s.saved.last.ForkedFrom
	if streamErr != nil {
		return turn, streamErr
	}
	return turn, nil
}

// stream sends contents and assembles the model's reply from the chunks. On an error after
// some chunks, the reply holds what arrived. A reply with neither text nor calls (a Gemini 3
// model can spend a whole answer thinking) is asked once more; a second one is
// ErrEmptyAnswer, never an empty success.
func (s *Session) stream(ctx context.Context, contents []*genai.Content, onText func(string), mode toolMode) (*genai.Content, record.Usage, error) {
	reply, usage, err := s.streamOnce(ctx, contents, onText, mode)
	if !errors.Is(err, ErrEmptyAnswer) {
		return reply, usage, err
	}
	s.logger().Info("the model gave no answer; asking once more", "history_id", s.history.ID, "model", s.opts.Model, "thought_tokens", usage.ThoughtTokens)
	again, u, err := s.streamOnce(ctx, contents, onText, mode)
	return again, usage.Add(u), err
}

// streamOnce is one streamed request of stream.
func (s *Session) streamOnce(ctx context.Context, contents []*genai.Content, onText func(string), mode toolMode) (*genai.Content, record.Usage, error) {
	cfg := &genai.GenerateContentConfig{SystemInstruction: s.system, ThinkingConfig: modelcfg.For(s.opts.Model).Main(s.opts.Thinking)}
	cfg.Tools, cfg.ToolConfig = s.toolsConfig(mode)
	var reply replyBuilder
	for resp, err := range s.opts.LLM.GenerateContentStream(ctx, s.opts.Model, contents, cfg) {
		if err != nil {
			return reply.content(), reply.usage, goerr.Wrap(err, "model request failed", goerr.V("model", s.opts.Model))
		}
		reply.addResponse(resp, onText)
	}
	return reply.finish()
}

// addResponse takes one response (a streamed chunk, or a whole answer) into the reply.
func (b *replyBuilder) addResponse(resp *genai.GenerateContentResponse, onText func(string)) {
	if resp == nil {
		return
	}
	if resp.UsageMetadata != nil {
		b.usage = usageOf(resp.UsageMetadata)
	}
	if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
		b.blocked = string(resp.PromptFeedback.BlockReason)
	}
	if len(resp.Candidates) > 0 && resp.Candidates[0] != nil && resp.Candidates[0].FinishReason != "" {
		b.finishReason = resp.Candidates[0].FinishReason
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
		return
	}
	for _, p := range resp.Candidates[0].Content.Parts {
		if p == nil {
			continue
		}
		b.add(p)
		if p.Text != "" && !p.Thought && onText != nil {
			onText(p.Text)
		}
	}
}

// finish returns the reply, and an error when the model refused or said nothing: neither text
// nor a call (thoughts, and a signed empty part, are not an answer).
func (b *replyBuilder) finish() (*genai.Content, record.Usage, error) {
	content := b.content()
	if b.blocked != "" && !hasAnswer(content) {
		return content, b.usage, goerr.Wrap(ErrBlocked, "the model refused the question", goerr.V("reason", b.blocked))
	}
	if !hasAnswer(content) {
		return content, b.usage, goerr.Wrap(ErrEmptyAnswer, "the model returned no answer",
			goerr.V("finish_reason", string(b.finishReason)), goerr.V("thought_tokens", b.usage.ThoughtTokens))
	}
	return content, b.usage, nil
}

// replyBuilder assembles the model's Content from streamed parts as Gemini streams them
// (Gemini 3: each call in an event of its own, then an empty text part carrying a thought
// signature), joining runs of plain text pieces (same thought flag, no signature) into one
// part in linear time. Parts carrying a thought signature, and anything that is not plain
// text, keep their own place: order is untouched, and the content is sent back as assembled.
// A part that carries nothing at all (an unsigned empty text part, as Gemini 3 ends some
// streams with) is dropped: the API refuses an empty part in a request.
type replyBuilder struct {
	parts []*genai.Part
	open  *genai.Part // the run of text being joined, not yet in parts
	text  strings.Builder

	usage        record.Usage
	blocked      string             // the prompt's block reason, if any
	finishReason genai.FinishReason // the candidate's finish reason, once sent
}

func (b *replyBuilder) add(p *genai.Part) {
	if carriesNothing(p) {
		return
	}
	if isPlainText(p) && len(p.ThoughtSignature) == 0 {
		if b.open != nil && b.open.Thought == p.Thought {
			b.text.WriteString(p.Text)
			return
		}
		b.closeRun()
		cp := *p
		b.open = &cp
		b.text.WriteString(p.Text)
		return
	}
	b.closeRun()
	cp := *p
	b.parts = append(b.parts, &cp)
}

func (b *replyBuilder) closeRun() {
	if b.open == nil {
		return
	}
	b.open.Text = b.text.String()
	b.parts = append(b.parts, b.open)
	b.open = nil
	b.text.Reset()
}

// content is the reply so far.
func (b *replyBuilder) content() *genai.Content {
	b.closeRun()
	return &genai.Content{Role: genai.RoleModel, Parts: b.parts}
}

func isPlainText(p *genai.Part) bool {
	return p.Text != "" && p.InlineData == nil && p.FileData == nil && p.FunctionCall == nil &&
		p.FunctionResponse == nil && p.ExecutableCode == nil && p.CodeExecutionResult == nil &&
		p.VideoMetadata == nil
}

func hasParts(c *genai.Content) bool { return c != nil && len(c.Parts) > 0 }

// hasAnswer reports whether c holds an answer: text that is not a thought, a call, or data.
func hasAnswer(c *genai.Content) bool {
	if c == nil {
		return false
	}
	for _, p := range c.Parts {
		if p == nil {
			continue
		}
		if p.Text != "" && !p.Thought || p.FunctionCall != nil || p.InlineData != nil || p.FileData != nil ||
			p.ExecutableCode != nil || p.CodeExecutionResult != nil {
			return true
		}
	}
	return false
}

// carriesNothing reports whether p holds no data at all, not even a thought signature.
func carriesNothing(p *genai.Part) bool {
	return p.Text == "" && !p.Thought && len(p.ThoughtSignature) == 0 && p.InlineData == nil && p.FileData == nil &&
		p.FunctionCall == nil && p.FunctionResponse == nil && p.ExecutableCode == nil && p.CodeExecutionResult == nil &&
		p.VideoMetadata == nil && p.ToolCall == nil && p.ToolResponse == nil
}

func answerText(c *genai.Content) string {
	var b strings.Builder
	for _, p := range c.Parts {
		if p.Text != "" && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// usageOf reads the model's usage report: the answer's tokens and the thinking's apart (both
// billed as output).
func usageOf(u *genai.GenerateContentResponseUsageMetadata) record.Usage {
	return record.Usage{
		InputTokens:   int64(u.PromptTokenCount),
		OutputTokens:  int64(u.CandidatesTokenCount),
		ThoughtTokens: int64(u.ThoughtsTokenCount),
	}
}

// recordQuestion notes who asked the question whose content will be at index content of the
// transcript.
func (s *Session) recordQuestion(content int, at time.Time) {
	if s.opts.Analyst == nil {
		return
	}
	if name := s.opts.Analyst(); name != "" {
		h := s.history
		h.Questions = append(h.Questions, record.Question{Content: content, Analyst: name, At: at.UTC()})
	}
}

func (s *Session) needsTitle() bool {
	return s.history.Title == "" && s.history.TitleSource == ""
}

type titleResult struct {
	title string
	err   error
}

// setTitle takes the generated title when there is a good one, else the fallback. A turn
// without a complete answer (wait false) takes the generated title only when it has come
// already: the turn's error is not held back for it.
func (s *Session) setTitle(input string, titleCh chan titleResult, wait bool) {
	h := s.history
	if titleCh != nil {
		r, came := titleResult{}, true
		if wait {
			r = <-titleCh
		} else {
			select {
			case r = <-titleCh:
			default:
				came = false
			}
		}
		if came && r.err == nil {
			// Redacted before it is cleaned and shortened, as the fallback below.
			red, counts := s.redactor.RedactString(r.title)
			if t := CleanGeneratedTitle(red); t != "" {
				redacthist.AddCounts(h, counts)
				h.Title, h.TitleSource = t, record.TitleGenerated
				return
			}
		}
	}
	// Redacted before it is shortened: a value cut in half might no longer be recognised.
	red, counts := s.redactor.RedactString(input)
	redacthist.AddCounts(h, counts)
	h.Title, h.TitleSource = FallbackTitle(red), record.TitleFallback
}

// SetTitle sets a manual title, which is never replaced by a generated one, and saves.
func (s *Session) SetTitle(ctx context.Context, title string) error {
	t := CleanManualTitle(title)
	if t == "" {
		return goerr.Wrap(ErrInvalidTitle, "a title cannot be empty")
	}
	s.history.Title, s.history.TitleSource = t, record.TitleManual
	if len(s.live) == 0 {
		return nil // saved with the first turn
	}
	return s.save(ctx)
}

// Save writes the history now (after a failed save, for instance).
func (s *Session) Save(ctx context.Context) error { return s.save(ctx) }

// save is the only way a session writes its history: redaction first, then the store.
func (s *Session) save(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.SaveTimeout)
	defer cancel()
	s.syncStored()
	return s.persist(ctx)
}

// syncStored brings the stored copy up to date with the live session: the contents added since
// the last save are copied and redacted (the earlier ones are already), and the title passes
// through the redactor. The summary is redacted when it is made (see compact).
func (s *Session) syncStored() {
	h := s.history
	done := h.RedactedCount
	if done > len(s.live) || done > len(h.Contents) || done < 0 {
		done = 0
	}
	stored := h.Contents[:done]
	fresh := make([]*genai.Content, 0, len(s.live)-done)
	for _, c := range s.live[done:] {
		fresh = append(fresh, cloneContent(c))
	}
	counts := s.redactor.RedactContents(fresh)
	h.Contents = append(stored, fresh...)
	h.RedactedCount = len(h.Contents)
	h.MessageCount = len(h.Contents)
	title, tc := s.redactor.RedactString(h.Title)
	h.Title = title
	redacthist.AddCounts(h, counts)
	redacthist.AddCounts(h, tc)
}

// followStored takes into the live session what the save found stored beyond it (another
// writer's turns, see SaveOrFork), as stored.
func (s *Session) followStored() {
	h := s.history
	if len(h.Contents) > len(s.live) {
		s.live = append(s.live, h.Contents[len(s.live):]...)
	}
	// (a stored copy shorter than live is completed by the next save: RedactedCount says
	// how much of live it holds)
	if s.liveSummary != nil && (h.Summary == nil || h.Summary.CoversCount != s.liveSummary.CoversCount) {
		s.liveSummary = nil // another writer's summary replaced ours
	}
}
