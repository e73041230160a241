package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/pkg/sentinel"
)

// Exit codes of the command line contract.
const (
	ExitOK        = 0
	ExitFailure   = 1 // the model or storage failed
	ExitUsage     = 2 // bad flags, arguments or input
	ExitNotFound  = 3
	ExitInterrupt = 130
)

// ErrUsage marks an error as the user's to fix (exit 2).
var ErrUsage = errors.New("usage error")

// ErrNotFound marks an error as "not found" (exit 3): what the user named does not exist. It is
// the store's own "not found" (store.ErrNotFound), the same value.
var ErrNotFound = sentinel.NotFound

// NotFoundf returns a "not found" error (exit 3) whose message is the formatted text alone.
func NotFoundf(format string, args ...any) error {
	return goerr.Wrap(ErrNotFound, fmt.Sprintf(format, args...))
}

// UsageErrorf returns a usage error (exit 2) whose message is the formatted text alone.
func UsageErrorf(format string, args ...any) error {
	return goerr.Wrap(ErrUsage, fmt.Sprintf(format, args...))
}

// FlagError is the command-line parser's complaint (an unknown flag, a bad value, a missing
// argument): the user's to fix, exit 2. MarkUsage makes every parser error one, so the exit
// code comes from the error's type, never from its text.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// MarkUsage is an OnUsageError handler: the parser's error becomes a FlagError.
func MarkUsage(_ context.Context, _ *cli.Command, err error, _ bool) error {
	return &FlagError{Err: err}
}

// IsUsage reports whether err is the user's to fix: a usage error or a parser error. The
// parser's own exit errors (help on an unknown topic) count too: nothing of ours returns one.
func IsUsage(err error) bool {
	var fe *FlagError
	var ec cli.ExitCoder
	return errors.Is(err, ErrUsage) || errors.As(err, &fe) || errors.As(err, &ec)
}

// envValue is the parser's complaint about a flag's value read from a variable
// (ALERTCHAT_MAX_ATTEMPTS=abc): urfave/cli returns it as text alone, without calling
// OnUsageError, so it is the one parser error known by its words.
var envValue = regexp.MustCompile(`^could not parse (".*") as \S+ value from environment variable "([A-Za-z0-9_]+)" for flag ([A-Za-z0-9-]+): (.*)$`)

// EnvValueError makes the parser's complaint about a variable's value a usage error (exit 2)
// that names the variable and its flag; any other error is returned as it is.
func EnvValueError(err error) error {
	if err == nil || IsUsage(err) {
		return err
	}
	m := envValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	return UsageErrorf("invalid %s=%s (--%s): %s", m[2], m[1], m[3], m[4])
}
