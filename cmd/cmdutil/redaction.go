package cmdutil

import (
	"fmt"
	"io"

	"github.com/alertchat/alertchat/pkg/redact"
)

// WarnIfRedactionOff says out loud, before anything is written, that nothing will be redacted.
// An invalid --redact says nothing here: the store refuses it when it opens.
func WarnIfRedactionOff(w io.Writer, types string) {
	if ts, err := redact.ParseTypes(types); err == nil && len(ts) == 0 {
		fmt.Fprintln(w, "Warning: redaction is off (--redact none): personal data and secrets will be stored as typed.")
	}
}
