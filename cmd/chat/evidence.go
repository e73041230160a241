package chat

import (
	"fmt"
	"io"

	"github.com/alertchat/alertchat/pkg/evidence"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// listEvidence is /evidence: the folders of --evidence, their files and their tables. It reads
// the folders' listing and the files' first bytes, never builds an index.
func listEvidence(w io.Writer, set *evidence.Set) {
	if set == nil {
		fmt.Fprintln(w, "No evidence folders: start the chat with --evidence DIR.")
		return
	}
	for _, d := range set.Datasets() {
		fmt.Fprintf(w, "bq://%s: a BigQuery dataset, queried in GoogleSQL (list_evidence names its tables)\n", termsafe.Line(d))
	}
	sum, err := set.Summary()
	if err != nil {
		printError(w, err)
		return
	}
	for _, f := range sum {
		fmt.Fprintf(w, "%s: %s, %s bytes\n", termsafe.Line(f.Root), format.Plural(f.Files, "file", "files"), format.CompactCount(f.Bytes))
		if len(f.Tables) == 0 {
			fmt.Fprintln(w, "  no tables (no NDJSON, JSON or CSV files)")
			continue
		}
		for _, t := range f.Tables {
			fmt.Fprintf(w, "  %-28s %s (%s)\n", termsafe.Line(t.Table), termsafe.Line(t.Path), t.Kind)
		}
	}
}
