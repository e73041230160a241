package inputhist_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/inputhist"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
)

func keyed(t *testing.T) inputhist.Redactor {
	t.Helper()
	tk, err := redact.NewTokenizer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	return redacthist.Engine(redact.New(redact.AllTypes()...).WithTokens(tk))
}

func TestAddRedactsBeforeWriting(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "input_history")
	f, err := inputhist.Open(path, keyed(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Add("Is 203.0.113.7 malicious?\n\"\"\"\ncontact evil@example.com\n"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "203.0.113.7") || strings.Contains(string(data), "evil@") || !strings.Contains(string(data), "[REDACTED_IP_") {
		t.Fatalf("file holds %q", data)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	// the next session is seeded with the redacted lines
	g, err := inputhist.Open(path, keyed(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	if l := g.Lines(); len(l) != 3 || !strings.HasPrefix(l[0], "Is [REDACTED_IP_") {
		t.Fatalf("lines %q", l)
	}
}

func TestOpenRedactsAnOldRawFileAndBounds(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "input_history")
	var b strings.Builder
	for range 30 {
		b.WriteString("password=hunter2hunter2 on 198.51.100.23\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := inputhist.Open(path, keyed(t), 10)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "hunter2") || strings.Contains(string(data), "198.51.100.23") || len(f.Lines()) != 10 {
		t.Fatalf("old file not redacted: %q", data)
	}
	for range 25 {
		if err := f.Add("again 198.51.100.23"); err != nil {
			t.Fatal(err)
		}
	}
	data, _ = os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n > 20 || strings.Contains(string(data), "198.51.100.23") {
		t.Fatalf("%d lines: %q", n, data)
	}
}
