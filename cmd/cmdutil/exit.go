package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/sentinel"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// ExitCode maps an error to the contract's exit codes.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, sentinel.NotFound):
		return ExitNotFound
	case IsUsage(err), errors.Is(err, sentinel.InvalidRequest), errors.Is(err, sentinel.InvalidAlert):
		return ExitUsage
	case errors.Is(err, context.Canceled):
		return ExitInterrupt
	}
	return ExitFailure
}

// sentinels are errors whose text only classifies: a message that wraps one has said it all.
var sentinels = []error{ErrUsage, sentinel.NotFound, sentinel.InvalidRequest, sentinel.InvalidAlert}

// Message is err's text for a person: the chain of messages without the classifying
// sentinel's text at its end ("no history x", not "no history x: not found").
func Message(err error) string {
	msg := err.Error()
	for _, s := range sentinels {
		msg = strings.TrimSuffix(msg, ": "+s.Error())
	}
	// a message can carry what a server answered or a file held: shown terminal-safe
	return termsafe.String(msg)
}

// PrintError writes err for a person: "Error: " and its message, then (verbose) its values
// and stack. Values are the program's own (IDs, paths, sizes); never secrets or transcripts.
func PrintError(w io.Writer, err error, verbose bool) {
	fmt.Fprintf(w, "Error: %s\n", Message(err))
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
		fmt.Fprintf(w, "  %s: %s\n", k, termsafe.String(fmt.Sprint(values[k])))
	}
	if ge := goerr.Unwrap(err); ge != nil {
		fmt.Fprintf(w, "%+v\n", ge)
	}
}
