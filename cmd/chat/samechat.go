package chat

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/samechat"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/statusline"
)

// judgeCacheFile is the same-conversation judge's cache, under the data directory.
const judgeCacheFile = "judge-cache.json"

// continueValue is --continue: alone (or =true) it resumes the alert's most recent history,
// --continue=auto continues the earlier conversation the first question belongs to, as judged
// by the model. It is a boolean flag to the parser, so "--continue" needs no value and
// "--continue=auto" is read as one.
type continueValue struct{ opts *Options }

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
func continueFlag(opts *Options) cli.Flag {
	f := &cli.GenericFlag{Name: "continue", Aliases: []string{"c"}, Usage: continueUsage, Sources: cmdutil.EnvVar("CONTINUE"), Value: &continueValue{opts: opts}}
	f.SetStringer(func(cli.Flag) string { return "--continue[=auto], -c\t" + continueUsage })
	return f
}

// router returns the same-conversation offer for sess, or nil when sess is not a new
// conversation the user left to the program (no --history, no plain --continue).
func (c *conversation) router(sess *session.Session) *samechat.Router {
	if !samechat.Applies(sess, c.opts.HistoryID != "" || c.opts.Continue) {
		return nil
	}
	modelName := c.opts.JudgeModel
	if modelName == "" {
		modelName = c.cfg.Model
	}
	ios := c.opts.IO
	return &samechat.Router{
		Store: c.store,
		Matcher: &samechat.Judge{LLM: c.llm, Model: modelName,
			Cache:    samechat.NewJudgeCache(filepath.Join(c.cfg.DataDir, judgeCacheFile), 0),
			Redactor: c.store.Redactor.ForAlert(sess.Alert())},
		NewSession: c.newSession,
		Auto:       c.opts.AutoContinue,
		Title:      c.opts.Title,
		Notify:     func(msg string) { fmt.Fprintln(ios.ErrOut, msg) },
		Busy: func() func() {
			ios.StartProgressIndicatorWithLabel(statusline.CheckingEarlier)
			return ios.StopProgressIndicator
		},
		Logger: c.opts.Logger(),
	}
}
