package cmdutil

import (
	"time"

	"github.com/urfave/cli/v3"
)

// RemoteOptions are the flags of a command that can run through the Gemini Batch API: --remote,
// --resubmit, --no-wait and --poll-interval (batch and eval have them).
type RemoteOptions struct {
	Enabled      bool
	Resubmit     bool
	NoWait       bool
	PollInterval time.Duration
}

// RemoteUsage is what each remote flag says in a command's help, in the command's own words
// (one job or one per model, questions or cases).
type RemoteUsage struct {
	Remote, Resubmit, NoWait, PollInterval string
}

// Flags are the remote flags bound to o, in the order help lists them. defaultPoll is the
// --poll-interval default, the Batch API package's (which this package does not import: it
// links genai, and every command links this package).
func (o *RemoteOptions) Flags(defaultPoll time.Duration, u RemoteUsage) []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "remote", Usage: u.Remote, Destination: &o.Enabled},
		&cli.BoolFlag{Name: "resubmit", Usage: u.Resubmit, Destination: &o.Resubmit},
		&cli.BoolFlag{Name: "no-wait", Usage: u.NoWait, Destination: &o.NoWait},
		&cli.DurationFlag{Name: "poll-interval", Usage: u.PollInterval, Value: defaultPoll, Destination: &o.PollInterval},
	}
}

// Check refuses the remote flags without --remote, and a pause under a second. What the command
// cannot do remotely is the command's to refuse.
func (o RemoteOptions) Check() error {
	switch {
	case !o.Enabled && (o.Resubmit || o.NoWait):
		return UsageErrorf("--resubmit and --no-wait go with --remote")
	case o.Enabled && o.PollInterval < time.Second:
		return UsageErrorf("invalid --poll-interval %s: at least 1s", o.PollInterval)
	}
	return nil
}
