package cmd

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
)

// A warning logged with an error shows the error's message; its values and stack trace only
// with -v.
func TestLoggedErrorsArePlainUnlessVerbose(t *testing.T) {
	t.Parallel()
	err := goerr.Wrap(errors.New("no such file"), "failed to read the key", goerr.V("path", "/k"))
	for _, verbose := range []bool{false, true} {
		var buf bytes.Buffer
		cfg := &cmdutil.Config{Workspace: "default", Verbose: verbose}
		cfg.Retry.MaxAttempts, cfg.Retry.MaxWait, cfg.Retry.CallTimeout = 1, 1, 1
		logger, verr := validate(cfg, "warn", &buf)
		if verr != nil {
			t.Fatal(verr)
		}
		logger.Warn("key unavailable", "error", err)
		out := buf.String()
		if !strings.Contains(out, `"failed to read the key"`) || !strings.Contains(out, `"no such file"`) {
			t.Fatalf("verbose %v: the message is missing: %q", verbose, out)
		}
		if hasStack := strings.Contains(out, "stacktrace"); hasStack != verbose {
			t.Fatalf("verbose %v: stack trace shown %v: %q", verbose, hasStack, out)
		}
	}
}
