package chat

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/geminitest"
)

// BenchmarkFirstByteEvidence: a one-shot's time to the first answer byte without and with
// --evidence on a folder holding 64 MB of NDJSON. Nothing is indexed at start-up, so the two
// should match.
func BenchmarkFirstByteEvidence(b *testing.B) {
	srv := geminitest.NewServer(b, geminitest.WithoutRecording(), geminitest.WithHandler(decliningJudge))
	dir := b.TempDir()
	f, err := os.Create(filepath.Join(dir, "cloudtrail.ndjson"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for n := 0; n < 64<<20; {
		k, _ := fmt.Fprintf(w, `{"eventTime":"2026-11-20T10:00:%02dZ","eventName":"GetObject","sourceIPAddress":"10.0.%d.%d"}`+"\n", n%60, n%256, n%251)
		n += k
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	_ = f.Close()
	for _, with := range []bool{false, true} {
		name := "without"
		if with {
			name = "with-evidence"
		}
		b.Run(name, func(b *testing.B) {
			b.Setenv("XDG_CACHE_HOME", b.TempDir())
			ios, _, _ := cmdutil.TestIO("", true)
			opts := testOptions(b, srv, ios)
			if with {
				opts.Tools.Evidence = []string{dir}
			}
			benchFirstByte(b, opts, false)
		})
	}
}
