package cmd

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/pkg/llm"
)

// retryOptions are the global flags of resilient Gemini calls (see pkg/llm).
type retryOptions struct {
	MaxAttempts int
	MaxWait     time.Duration
	CallTimeout time.Duration
}

func retryFlags(o *retryOptions) []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "max-attempts", Usage: "tries of one Gemini call on rate limits (429), server errors (5xx), timeouts and network errors", Value: llm.DefaultMaxAttempts, Sources: envVar("MAX_ATTEMPTS"), Destination: &o.MaxAttempts},
		&cli.DurationFlag{Name: "max-wait", Usage: "longest wait between two tries, a retry delay asked by the server included", Value: llm.DefaultMaxWait, Sources: envVar("MAX_WAIT"), Destination: &o.MaxWait},
		&cli.DurationFlag{Name: "call-timeout", Usage: "give up a try of a Gemini call after this long without a response (streamed answers: without a new chunk), and retry", Value: llm.DefaultCallTimeout, Sources: envVar("CALL_TIMEOUT"), Destination: &o.CallTimeout},
	}
}

func (o *retryOptions) validate() error {
	switch {
	case o.MaxAttempts < 1:
		return usageErrorf("invalid --max-attempts %d: at least 1 (1 means no retries)", o.MaxAttempts)
	case o.MaxWait <= 0:
		return usageErrorf("invalid --max-wait %s: it must be positive", o.MaxWait)
	case o.CallTimeout <= 0:
		return usageErrorf("invalid --call-timeout %s: it must be positive", o.CallTimeout)
	}
	return nil
}

// retrying wraps the Gemini client's models with the retries and timeouts of the flags, and
// limiter (nil: no rate limit). Every model call of a command (answers, titles) goes through it.
func (g *globalOptions) retrying(models llm.Generator, limiter *llm.Limiter, onRetry func(llm.Retry)) *llm.Client {
	return llm.New(models, llm.Options{
		MaxAttempts: g.retry.MaxAttempts,
		MaxWait:     g.retry.MaxWait,
		CallTimeout: g.retry.CallTimeout,
		Limiter:     limiter,
		OnRetry: func(r llm.Retry) {
			if g.logger != nil {
				g.logger.Info("retrying a Gemini call", "attempt", r.Attempt, "wait", r.Wait.Round(time.Millisecond), "error", r.Err)
			}
			if onRetry != nil {
				onRetry(r)
			}
		},
	})
}

// triedNote says how many tries a failed call made, when it was more than one.
func triedNote(err error) string {
	if n := llm.Attempts(err); n > 1 {
		return fmt.Sprintf(" (%d attempts)", n)
	}
	return ""
}
