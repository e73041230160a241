package spinner_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/syncbuf"

	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/pkg/spinner"
)

func waitFor(t *testing.T, b *syncbuf.Buffer, want string) {
	t.Helper()
	eventually.True(t, 10*time.Second, fmt.Sprintf("%q to show", want),
		func() bool { return strings.Contains(b.String(), want) }, func() string { return fmt.Sprintf("shown %q", b.String()) })
}

func TestLabels(t *testing.T) {
	t.Parallel()
	var out syncbuf.Buffer
	sp := spinner.Start(&out, true, spinner.CheckingEarlier)
	waitFor(t, &out, spinner.CheckingEarlier)
	sp.Set(spinner.AskingGemini)
	waitFor(t, &out, spinner.AskingGemini)
	sp.Stop()
	sp.Stop()
	if !strings.HasSuffix(out.String(), "\r\x1b[K\x1b[?25h") {
		t.Fatalf("the line is not erased after Stop: %q", out.String())
	}
}

func TestDisabled(t *testing.T) {
	t.Parallel()
	var out syncbuf.Buffer
	sp := spinner.Start(&out, false, spinner.AskingGemini)
	sp.Set(spinner.Saving)
	sp.Stop()
	var nilSpinner *spinner.Spinner
	nilSpinner.Set("x")
	nilSpinner.Stop()
	if out.String() != "" {
		t.Fatalf("a disabled spinner wrote %q", out.String())
	}
}

// TestWidth: on a narrow terminal a wide label is cut so the line never wraps (a wrapped line
// could not be redrawn in place).
func TestWidth(t *testing.T) {
	t.Parallel()
	var out syncbuf.Buffer
	sp := spinner.Start(&out, true, "以前の会話を確認しています…", spinner.Width(20))
	sp.Stop()
	first := strings.SplitN(out.String(), "\x1b[K", 2)[0]
	first = strings.TrimPrefix(first, "\x1b[?25l\r")
	if first != "⠋ 以前の会話を確認…" {
		t.Fatalf("first frame = %q", first)
	}
}
