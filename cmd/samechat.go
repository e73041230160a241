package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/spinner"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// defaultMaxContextTokens is --max-context-tokens' default.
const defaultMaxContextTokens = session.DefaultMaxContextTokens

// minContextTokens is the smallest --max-context-tokens accepted.
const minContextTokens = 1000

// judgeCacheFile is the same-conversation verdict cache, under the data directory.
const judgeCacheFile = "judge-cache.json"

// checkContextBudget validates --max-context-tokens.
func (g *globalOptions) checkContextBudget() error {
	if g.MaxContextTokens < minContextTokens {
		return usageErrorf("invalid --max-context-tokens %d: at least %d", g.MaxContextTokens, minContextTokens)
	}
	return nil
}

// continueValue is --continue: alone (or =true) it resumes the alert's most recent history,
// --continue=auto continues the earlier conversation the first question belongs to, as judged
// by the model. It is a boolean flag to the parser, so "--continue" needs no value and
// "--continue=auto" is read as one.
type continueValue struct{ opts *chatOptions }

func (v *continueValue) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes", "latest":
		v.opts.Continue, v.opts.AutoContinue = true, false
	case "auto":
		v.opts.Continue, v.opts.AutoContinue = false, true
	case "false", "0", "no":
		v.opts.Continue, v.opts.AutoContinue = false, false
	default:
		return fmt.Errorf("invalid value %q for --continue: use --continue (the most recent history) or --continue=auto", s)
	}
	return nil
}

func (v *continueValue) String() string {
	switch {
	case v.opts == nil:
		return ""
	case v.opts.AutoContinue:
		return "auto"
	case v.opts.Continue:
		return "true"
	}
	return "false"
}

func (v *continueValue) Get() any         { return v.String() }
func (v *continueValue) IsBoolFlag() bool { return true }

const continueUsage = "resume the alert's most recent history; --continue=auto: let Gemini tell whether the first " +
	"question continues one of the alert's recent conversations, and continue that one if so"

// continueFlag is chat's --continue / -c.
func continueFlag(opts *chatOptions) cli.Flag {
	f := &cli.GenericFlag{Name: "continue", Aliases: []string{"c"}, Usage: continueUsage, Sources: envVar("CONTINUE"), Value: &continueValue{opts: opts}}
	f.SetStringer(func(cli.Flag) string { return "--continue[=auto], -c\t" + continueUsage })
	return f
}

// judgeModelFlag is chat's --judge-model.
func judgeModelFlag(opts *chatOptions) cli.Flag {
	return &cli.StringFlag{Name: "judge-model", Usage: "model that tells whether a new chat's first question continues an earlier conversation (default: --model)", Sources: envVar("JUDGE_MODEL"), Destination: &opts.JudgeModel}
}

// sameConversation offers, when a new chat starts on an alert that already has conversations,
// to continue the one its first question belongs to.
type sameConversation struct {
	g          *globalOptions
	s          store.Store
	opts       *chatOptions
	newSession func(*model.History) (*session.Session, error)
	llm        session.LLM // nil: a client is made when needed
}

// newSameConversation returns nil unless sess is a new conversation the user did not ask to
// resume (no --history, no plain --continue).
func newSameConversation(g *globalOptions, s store.Store, sess *session.Session, newSession func(*model.History) (*session.Session, error),
	opts *chatOptions, llm session.LLM) *sameConversation {
	if opts.HistoryID != "" || opts.Continue || len(sess.History().Contents) > 0 {
		return nil
	}
	return &sameConversation{g: g, s: s, opts: opts, newSession: newSession, llm: llm}
}

// resolve returns the session the first question goes to: sess, or an earlier conversation the
// judge matched and the user accepted (ask) or --continue=auto took. With neither ask nor auto
// nothing is judged. Any failure keeps sess: a new conversation.
func (sc *sameConversation) resolve(ctx context.Context, sess *session.Session, question string, ask func(description string) bool) *session.Session {
	if sc == nil || (!sc.opts.AutoContinue && ask == nil) || strings.TrimSpace(question) == "" {
		return sess
	}
	ios, auto := sc.g.io, sc.opts.AutoContinue
	page, err := sc.s.ListHistories(ctx, store.HistoryQuery{AlertID: sess.Alert().ID, Limit: session.MaxJudgeCandidates})
	if err != nil || len(page.Histories) == 0 {
		if err != nil {
			sc.g.logger.Debug("cannot list earlier conversations", "error", err)
		}
		return sess
	}
	match, err := sc.judge(ctx, question, page.Histories)
	if err != nil {
		sc.g.logger.Debug("same-conversation judgement failed", "error", err)
		if auto {
			fmt.Fprintln(ios.ErrOut, "Could not tell whether this continues an earlier conversation: starting a new one.")
		}
		return sess
	}
	if match == nil {
		if auto {
			fmt.Fprintln(ios.ErrOut, "No earlier conversation about this alert matches: starting a new one.")
		}
		return sess
	}
	if !auto {
		desc := fmt.Sprintf("This looks like the earlier conversation %q (%s, %s, updated %s).",
			termsafe.Line(match.Title), shortID(string(match.ID)), plural(match.MessageCount, "message", "messages"), relativeTime(store.Now(), match.UpdatedAt))
		if !ask(desc) {
			return sess
		}
	}
	full := match
	if full.Contents == nil {
		if full, err = sc.s.GetHistory(ctx, match.ID); err != nil {
			fmt.Fprintf(ios.ErrOut, "Cannot open the earlier conversation (%v): starting a new one.\n", err)
			return sess
		}
	}
	next, err := sc.newSession(full)
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "Cannot continue the earlier conversation (%v): starting a new one.\n", err)
		return sess
	}
	if sc.opts.Title != "" {
		if err := next.SetTitle(ctx, sc.opts.Title); err != nil {
			sc.g.logger.Debug("cannot set the title", "error", err)
		}
	}
	fmt.Fprintf(ios.ErrOut, "Continuing %q (%s), %s.\n", termsafe.Line(full.Title), full.ID, plural(full.MessageCount, "message", "messages"))
	return next
}

// judge asks the judge model, with a spinner for a person.
func (sc *sameConversation) judge(ctx context.Context, question string, candidates []*model.History) (*model.History, error) {
	llm := sc.llm
	if llm == nil {
		client, err := newGeminiClient(ctx)
		if err != nil {
			return nil, err
		}
		llm = sc.g.retrying(client.Models, nil, nil)
	}
	modelName := sc.opts.JudgeModel
	if modelName == "" {
		modelName = sc.g.Model
	}
	j := &session.Judge{LLM: llm, Model: modelName, Cache: session.NewJudgeCache(filepath.Join(sc.g.DataDir, judgeCacheFile), 0)}
	spin := startLabelledSpinner(sc.g.io, spinner.CheckingEarlier)
	defer spin.Stop()
	return j.Match(ctx, question, candidates, func(ctx context.Context, meta *model.History) (*model.History, error) {
		return sc.s.GetHistory(ctx, meta.ID)
	})
}

// offerSameConversation is the one-shot path: on a terminal the user is asked on stderr and
// answers on stdin; elsewhere only --continue=auto judges.
func (g *globalOptions) offerSameConversation(ctx context.Context, s store.Store, sess *session.Session,
	newSession func(*model.History) (*session.Session, error), opts *chatOptions, llm session.LLM, question string) *session.Session {
	sc := newSameConversation(g, s, sess, newSession, opts, llm)
	if sc == nil {
		return sess
	}
	var ask func(string) bool
	if g.io.StdinTTY && g.io.StderrTTY {
		ask = func(desc string) bool {
			fmt.Fprintf(g.io.ErrOut, "%s Continue it? [y/N] ", desc)
			line, err := bufio.NewReader(g.io.In).ReadString('\n')
			if err != nil && line == "" {
				fmt.Fprintln(g.io.ErrOut)
			}
			return yes(line)
		}
	}
	return sc.resolve(ctx, sess, question, ask)
}

func yes(answer string) bool {
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return true
	}
	return false
}

// offerSame runs the offer on the first question of an interactive chat, asking on the line
// editor. Ctrl-C while judging gives up the judgement.
func (c *interactiveChat) offerSame(ctx context.Context, question string) {
	sc := c.same
	c.same = nil
	if sc == nil {
		return
	}
	jctx, done := c.cancellable(ctx)
	defer done()
	c.sess = sc.resolve(jctx, c.sess, question, func(desc string) bool {
		fmt.Fprintln(c.ios.ErrOut, desc)
		c.rl.SetPrompt("Continue it? [y/N] ")
		defer c.rl.SetPrompt("> ")
		line, err := c.rl.ReadLine()
		return err == nil && yes(line)
	})
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
	spin := startSpinner(c.ios)
	covers, err := c.sess.Compact(cctx)
	spin.stop()
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
			err = describeModelError(err)
		}
		fmt.Fprintf(out, "Error: %v\n", err)
	default:
		fmt.Fprintf(out, "Summarised the first %d of %d messages. They stay in the history; requests now carry the summary instead.\n", covers, n)
	}
}
