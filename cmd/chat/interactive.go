package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ergochat/readline"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/evidence"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/inputhist"
	"github.com/alertchat/alertchat/pkg/lineedit"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/samechat"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/statusline"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/termsafe"
	"github.com/alertchat/alertchat/pkg/transcript"
)

const chatHelp = `Type a question and press Enter. Commands:
  /help            this help
  /title NEW       rename this conversation
  /history         this alert's conversations
  /new             start a new conversation about the same alert
  /usage           tokens used by this conversation
  /compress        summarise the older turns now (they stay in the history)
  /retry           ask the last question again (after a failure or Ctrl-C)
  /export FILE     write the conversation to FILE (.md or .json)
  /report FILE     write a case report of this conversation to FILE (Markdown, raw values)
  /tools           list the tools Gemini may call, their server and whether they ask
  /evidence        the evidence folders (--evidence) and their tables
  /exit            leave (Ctrl-D works too)
Multi-line input: a line with just """ starts and ends a block; a line ending in \ continues.
Ctrl-C stops an answer in flight; at the prompt it clears the line.
`

// interactiveChat is the state of one terminal chat.
type interactiveChat struct {
	*conversation
	ios  *cmdutil.IOStreams
	sess *session.Session
	ed   *lineedit.Editor
	rl   *readline.Instance // ed's, for the y/N questions
	// pending is the last question when its answer did not complete (a failure, Ctrl-C), for
	// /retry.
	pending string
	// same offers to continue an earlier conversation on the first question (samechat.go).
	same *samechat.Router
	// ended, once set, ends the chat with this error: the model cannot be used, so no later
	// question (nor /retry) could be answered.
	ended error

	mu     sync.Mutex
	cancel context.CancelFunc // of the answer in flight

	// stored: sess's history exists in the store or the spool (it was resumed, or a turn was
	// saved), so a resume hint leads somewhere. unsaved: a turn's save failed and no later
	// save has succeeded.
	stored, unsaved bool
}

// switchTo makes sess the conversation.
func (c *interactiveChat) switchTo(sess *session.Session) {
	c.sess = sess
	c.stored, c.unsaved = len(sess.History().Contents) > 0, false
}

func runInteractive(ctx context.Context, conv *conversation, sess *session.Session) error {
	ios := conv.opts.IO
	// The input history file holds redacted lines only; the raw ones stay in memory.
	inputs, err := inputhist.Open(filepath.Join(conv.cfg.DataDir, "input_history"), conv.store.Redactor, inputHistoryLimit)
	if err != nil {
		return err
	}
	ed, err := lineedit.New(lineedit.Config{
		Stdin: ios.In, Stdout: ios.Out, Stderr: ios.ErrOut, Terminal: ios.StdinTTY && ios.StdoutTTY,
		History: inputs, HistoryLimit: inputHistoryLimit,
		OnInterrupt: func() { fmt.Fprintln(ios.ErrOut, "(Ctrl-D or /exit to leave)") },
	})
	if err != nil {
		return err
	}
	defer ed.Close()
	ed.HistoryErr = func(err error) { conv.opts.Logger().Debug("cannot write the input history", "error", err) }

	c := &interactiveChat{conversation: conv, ios: ios, ed: ed, rl: ed.Readline()}
	c.switchTo(sess)
	// Approval questions are asked through the line editor, which owns the terminal.
	conv.lineReader = func(prompt string) (string, error) {
		c.rl.SetPrompt(prompt)
		defer c.rl.SetPrompt("> ")
		return c.rl.ReadLine()
	}
	c.same = conv.router(sess)
	// Ctrl-C at an approval question is a key the line editor reads: it cancels the turn as
	// Ctrl-C during the answer does.
	conv.interrupt = c.interrupt

	// Ctrl-C while an answer streams (the terminal is not in raw mode then) cancels that answer
	// only; the session goes on.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
			c.interrupt()
		}
	}()

	c.banner()
	// The team's notes the model is given for this investigation, one line each; a store slower
	// than the related lookup's bound costs the lines, not the notes (the first question takes
	// them).
	kctx, cancel := context.WithTimeout(ctx, relatedTimeout)
	c.printLines(knowledgeLines(c.sess.Knowledge(kctx)))
	cancel()
	// Looked up before the first question: the analyst reads them, and the model is offered them.
	rel := c.relatedLines(ctx, c.sess)()
	c.printLines(rel.lines)
	c.sess.Offer(rel.offer)
	defer c.farewell(ctx)
	// SIGTERM or SIGHUP (the run's context) ends the chat even at the prompt: closing the editor
	// ends the read, so the deferred clean-up (MCP servers, the terminal) runs.
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			_ = c.ed.Close()
		case <-stopped:
		}
	}()
	for {
		input, err := c.ed.ReadQuestion()
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return goerr.Wrap(err, "failed to read input")
		}
		if strings.TrimSpace(input) == "" {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(input), "/") {
			if done := c.command(ctx, strings.TrimSpace(input)); done {
				return nil
			}
		} else {
			c.ask(ctx, input)
		}
		if c.ended != nil {
			return c.ended
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

func (c *interactiveChat) banner() {
	a := c.sess.Alert()
	title := a.Title
	if title == "" {
		title = string(a.ID)
	}
	fmt.Fprintf(c.ios.ErrOut, "alertchat: %s\n", termsafe.Line(title))
	if h := c.sess.History(); len(h.Contents) > 0 {
		fmt.Fprintf(c.ios.ErrOut, "Resuming %q (%s), %d messages.\n", termsafe.Line(h.Title), h.ID, h.MessageCount)
	}
	fmt.Fprintln(c.ios.ErrOut, "Ask about the alert. /help for commands, /exit or Ctrl-D to leave.")
}

// farewell leaves the conversation: a turn whose save failed is saved once more, and the
// resume hint is printed only for a history that is stored (or spooled).
func (c *interactiveChat) farewell(ctx context.Context) {
	h := c.sess.History()
	if c.unsaved {
		if err := c.sess.Save(ctx); err != nil {
			fmt.Fprintf(c.ios.ErrOut, "\nError: the last turns of this conversation could not be saved: %s\n", cmdutil.Message(err))
			if c.stored {
				fmt.Fprintf(c.ios.ErrOut, "History %s holds the conversation up to its last saved turn.\n", h.ID)
			} else {
				fmt.Fprintln(c.ios.ErrOut, "Nothing of it is stored.")
			}
		} else {
			c.stored, c.unsaved = true, false
			h = c.sess.History()
			if c.sess.Pending() {
				fmt.Fprintf(c.ios.ErrOut, "\nThe last turns were kept locally (in the spool of the data directory); they are uploaded by the next command that reaches the store, or by 'alertchat history sync'.\n")
			} else {
				fmt.Fprintln(c.ios.ErrOut, "\nThe last turns are saved now.")
			}
		}
	}
	if !c.stored {
		return
	}
	fmt.Fprintf(c.ios.ErrOut, "\nResume with: alertchat chat -a %s --history %s\n", h.AlertID, h.ID)
}

// inputHistoryLimit is how many input lines are kept.
const inputHistoryLimit = 1000

// ask sends a question and prints the streamed answer. A failed question is kept for /retry.
func (c *interactiveChat) ask(ctx context.Context, question string) {
	c.mcp.ready(ctx)
	judging := c.startSame(ctx, question)
	turnCtx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.cancel = nil
		c.mu.Unlock()
		cancel()
	}()

	aw := newAnswerWriter(c.ios, c.opts.Raw)
	c.ios.StartProgressIndicatorWithLabel(statusline.AskingGemini)
	turn, err := c.sess.SendTurn(turnCtx, question, savingHooks(turnCtx, c.ios, aw))
	c.ios.StopProgressIndicator()
	if errors.Is(err, context.Canceled) {
		aw.Interrupt()
	} else {
		aw.Close()
	}
	// A turn that ended without a complete answer is in the conversation all the same (the
	// question, what had arrived, the reply marked cut short); /retry asks the question again
	// as a new turn.
	c.pending = ""
	if err != nil {
		c.pending = question
		kept := "your question is saved in the conversation; /retry sends it again"
		switch {
		case turn == nil:
			kept = "your question is kept: /retry sends it again"
		case turn.Answer != "" || len(turn.ToolCalls) > 0:
			kept = "the partial answer was kept; /retry asks the question again"
		}
		var unavailable *modelcfg.UnavailableError
		switch {
		case errors.Is(err, context.Canceled):
			fmt.Fprintf(c.ios.ErrOut, "(cancelled; %s)\n", kept)
		case errors.As(err, &unavailable):
			// The model is retired or unknown: the chat ends (exit 1) with the one line that
			// names it and what to use instead; the question is saved, the resume hint says
			// where.
			c.ended = report.DescribeModelError(err)
		default:
			fmt.Fprintf(c.ios.ErrOut, "Error: %s\n(%s)\n", cmdutil.Message(report.DescribeModelError(err)), kept)
		}
	}
	switch {
	case turn != nil && turn.SaveErr != nil:
		c.unsaved = true
		fmt.Fprintf(c.ios.ErrOut, "Warning: not saved yet (%s); it stays in this session and is saved with the next turn, or when you leave.\n", cmdutil.Message(turn.SaveErr))
	case turn != nil:
		c.stored, c.unsaved = true, false
	}
	report.Save(c.ios.ErrOut, turn, c.sess.History())
	if judging != nil && err == nil {
		c.offerMove(ctx, judging, question)
	}
}

// command runs a slash command; it reports whether the chat should end.
func (c *interactiveChat) command(ctx context.Context, line string) bool {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	out := c.ios.ErrOut
	switch name {
	case "/exit", "/quit":
		return true
	case "/help":
		fmt.Fprint(out, chatHelp)
	case "/title":
		if arg == "" {
			fmt.Fprintf(out, "Title: %s\nUsage: /title NEW TITLE\n", termsafe.Line(c.sess.History().Title))
			break
		}
		if err := c.sess.SetTitle(ctx, arg); err != nil {
			printError(out, err)
			break
		}
		fmt.Fprintf(out, "Title set: %s\n", c.sess.History().Title)
	case "/history":
		c.listHistories(ctx)
	case "/new":
		sess, err := c.newSession(nil)
		if err != nil {
			printError(out, err)
			break
		}
		c.farewell(ctx)
		c.switchTo(sess)
		c.pending, c.same = "", nil
		fmt.Fprintln(out, "New conversation about the same alert.")
	case "/tools":
		c.mcp.ready(ctx) // the servers' tools too, once they are up
		listTools(c.ios, c.tools)
	case "/evidence":
		listEvidence(out, c.evidence)
	case "/usage":
		h := c.sess.History()
		fmt.Fprintf(out, "Tokens: %d in, %d out, %d thinking (%d total) over %d messages.\n",
			h.Usage.InputTokens, h.Usage.OutputTokens, h.Usage.ThoughtTokens, h.Usage.Total(), h.MessageCount)
		if c.evidence != nil && len(c.evidence.Datasets()) > 0 {
			fmt.Fprintf(out, "BigQuery: %s.\n", evidence.BQCost(c.evidence.BigQueryBytes()))
		}
	case "/compress":
		c.compress(ctx)
	case "/retry":
		if c.pending == "" {
			fmt.Fprintln(out, "Nothing to retry.")
			break
		}
		c.ask(ctx, c.pending)
	case "/export":
		if err := c.export(arg); err != nil {
			printError(out, err)
		}
	case "/report":
		if err := c.report(arg); err != nil {
			printError(out, err)
		}
	default:
		fmt.Fprintf(out, "Unknown command %s; /help lists them.\n", name)
	}
	return false
}

func (c *interactiveChat) listHistories(ctx context.Context) {
	out := c.ios.ErrOut
	page, err := c.store.ListHistories(ctx, store.HistoryQuery{AlertID: c.sess.Alert().ID, Limit: 20})
	if err != nil {
		printError(out, err)
		return
	}
	if len(page.Histories) == 0 {
		fmt.Fprintln(out, "No saved conversations about this alert yet.")
		return
	}
	t := cmdutil.NewTable(out, true, "ID", "TITLE", "UPDATED", "MSGS").Fit(c.ios.TermWidth, "TITLE")
	for _, h := range page.Histories {
		mark := ""
		if h.ID == c.sess.History().ID {
			mark = " *"
		}
		t.Row(string(h.ID)+mark, h.Title, format.RelativeTime(store.Now(), h.UpdatedAt), fmt.Sprint(h.MessageCount))
	}
	t.Flush()
	fmt.Fprintln(out, "Resume one with: alertchat chat --history ID")
}

func (c *interactiveChat) export(path string) error {
	if path == "" {
		return cmdutil.UsageErrorf("usage: /export FILE.md or /export FILE.json")
	}
	h := c.sess.History()
	var write func(io.Writer) error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		write = func(w io.Writer) error { return transcript.Markdown(w, h) }
	case ".json":
		write = func(w io.Writer) error { return cmdutil.PrintJSON(w, transcript.NewJSON(h)) }
	default:
		return cmdutil.UsageErrorf("export to a .md or .json file")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return goerr.Wrap(err, "cannot write "+path, goerr.V("path", path))
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return goerr.Wrap(err, "cannot write "+path, goerr.V("path", path))
	}
	fmt.Fprintf(c.ios.ErrOut, "Exported to %s\n", path)
	return nil
}

// startSame handles the first question of a new conversation on an alert with earlier ones.
// With --continue=auto the judge decides first and the question goes to the match. Otherwise
// the judge works in the background while the question is answered at once in the new
// conversation, and the returned judgement is offered afterwards (offerMove). Ctrl-C while
// judging gives up the judgement.
func (c *interactiveChat) startSame(ctx context.Context, question string) *samechat.Judgement {
	r := c.same
	c.same = nil
	if r == nil {
		return nil
	}
	if !r.Auto {
		return r.Begin(ctx, c.sess, question)
	}
	jctx, done := c.cancellable(ctx)
	defer done()
	if next := r.Route(jctx, c.sess, question, nil); next != c.sess {
		c.switchTo(next)
	}
	return nil
}

// offerMove, after an answer in a new conversation, offers to ask the question again in the
// earlier conversation the judge matched. The new conversation is kept as it is: nothing typed
// or answered is dropped.
func (c *interactiveChat) offerMove(ctx context.Context, j *samechat.Judgement, question string) {
	jctx, done := c.cancellable(ctx)
	match := j.Wait(jctx)
	done()
	if match == nil {
		return
	}
	var line string
	err := c.ios.Prompt(func() (err error) {
		fmt.Fprintln(c.ios.ErrOut, samechat.Describe(match, store.Now()))
		c.rl.SetPrompt("Ask it again there, with that conversation's context? [y/N] ")
		defer c.rl.SetPrompt("> ")
		line, err = c.rl.ReadLine()
		return err
	})
	if err != nil || !samechat.Yes(line) {
		return
	}
	next, err := j.Open(ctx, match)
	if err != nil {
		printError(c.ios.ErrOut, err)
		return
	}
	c.farewell(ctx)
	c.switchTo(next)
	c.ask(ctx, question)
}

// interrupt cancels what Ctrl-C cancels now: the answer in flight, or a judgement.
func (c *interactiveChat) interrupt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
	}
}

// cancellable returns a context that Ctrl-C cancels, until done is called.
func (c *interactiveChat) cancellable(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
	return ctx, func() {
		c.mu.Lock()
		c.cancel = nil
		c.mu.Unlock()
		cancel()
	}
}

// compress is /compress: summarise the older turns now.
func (c *interactiveChat) compress(ctx context.Context) {
	out := c.ios.ErrOut
	cctx, done := c.cancellable(ctx)
	defer done()
	var covers int
	err := c.ios.RunWithProgress(statusline.Summarising, func() (err error) {
		covers, err = c.sess.Compact(cctx)
		return err
	})
	n := len(c.sess.History().Contents)
	switch {
	case errors.Is(err, session.ErrNothingToCompact):
		if covers > 0 {
			fmt.Fprintf(out, "Nothing new to summarise: the summary covers the first %d of %d messages.\n", covers, n)
		} else {
			fmt.Fprintln(out, "Nothing to summarise yet: the conversation has no turn before the last one.")
		}
	case err != nil:
		var apiErr genai.APIError
		if errors.As(err, &apiErr) {
			err = report.DescribeModelError(err)
		}
		printError(out, err)
	default:
		fmt.Fprintf(out, "Summarised the first %d of %d messages. They stay in the history; requests now carry the summary instead.\n", covers, n)
	}
}

// printError reports a failed slash command; the chat goes on.
func printError(w io.Writer, err error) { fmt.Fprintf(w, "Error: %s\n", cmdutil.Message(err)) }
