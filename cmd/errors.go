package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/store"
)

// Exit codes of the command line contract.
const (
	ExitOK       = 0
	ExitFailure  = 1 // the model or storage failed
	ExitUsage    = 2 // bad flags, arguments or input
	ExitNotFound = 3
)

// errUsage marks an error as the user's to fix (exit 2).
var errUsage = errors.New("usage error")

func usageErrorf(format string, args ...any) error {
	return goerr.Wrap(errUsage, fmt.Sprintf(format, args...))
}

// exitCode maps an error to the contract's exit codes.
func exitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, store.ErrNotFound):
		return ExitNotFound
	case errors.Is(err, errUsage), errors.Is(err, store.ErrInvalid), errors.Is(err, alert.ErrInvalid):
		return ExitUsage
	case errors.Is(err, context.Canceled):
		return 130
	}
	return ExitFailure
}

// printError writes err for a person: the message chain, then (verbose) its values and stack.
// Values are the program's own (IDs, paths, sizes); never secrets or transcript text.
func printError(w io.Writer, err error, verbose bool) {
	msg := err.Error()
	// The sentinel's text adds nothing the wrapping message did not say.
	for _, s := range []error{errUsage, store.ErrNotFound, store.ErrInvalid, alert.ErrInvalid} {
		msg = strings.TrimSuffix(msg, ": "+s.Error())
	}
	fmt.Fprintf(w, "Error: %s\n", msg)
	if !verbose {
		return
	}
	values := goerr.Values(err)
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %s: %v\n", k, values[k])
	}
	if ge := goerr.Unwrap(err); ge != nil {
		fmt.Fprintf(w, "%+v\n", ge)
	}
}
