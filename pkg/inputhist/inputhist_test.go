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

// open opens the history file at path with the keyed redactor, keeping limit questions.
func open(t *testing.T, path string, limit int) *inputhist.File {
	t.Helper()
	f, err := inputhist.Open(path, keyed(t), limit)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestAddRedactsBeforeWriting(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "input_history")
	f := open(t, path, 0)
	if err := f.Add("Is 203.0.113.7 malicious?\ncontact evil@example.com\n"); err != nil {
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
	g := open(t, path, 0)
	if l := g.Entries(); len(l) != 1 || !strings.HasPrefix(l[0], "Is [REDACTED_IP_") || !strings.Contains(l[0], "\ncontact [REDACTED_EMAIL_") {
		t.Fatalf("entries %q", l)
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
	f := open(t, path, 10)
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "hunter2") || strings.Contains(string(data), "198.51.100.23") || len(f.Entries()) != 10 {
		t.Fatalf("old file not redacted: %q", data)
	}
	for range 25 {
		if err := f.Add("again 198.51.100.23"); err != nil {
			t.Fatal(err)
		}
	}
	data, _ = os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n > 21 || strings.Contains(string(data), "198.51.100.23") {
		t.Fatalf("%d lines: %q", n, data)
	}
}

// privateKey is a PEM private key as an analyst would paste it: only the whole block is
// recognisable, its body lines alone are not.
const privateKey = `-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi6Z8b2xPQ3Qy5oW0XxNf7Kcs2w
q6Mb9oyRZtB1pMzL4k3W9Kx4V0i2DzNw8rR0yCq3ZlH2bQy7m5vA1c9uT2LsYw8b
Zq1N5nQ8cV3kH2xJ7tM4wR6yP0sD9fA1gB3hC5jE7kI9lK2mN4oQ6rS8tU0vW2xY
-----END RSA PRIVATE KEY-----`

func TestAddRedactsAQuestionWhole(t *testing.T) {
	t.Parallel()
	bodyLines := strings.Split(privateKey, "\n")[1:4]
	for _, tc := range []struct{ name, question string }{
		{"pasted key", "is this key ours?\n" + privateKey},
		{"key typed in a block", privateKey},
		{"key with CRLF breaks", strings.ReplaceAll("whose key?\n"+privateKey, "\n", "\r\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "input_history")
			f := open(t, path, 0)
			if err := f.Add(tc.question); err != nil {
				t.Fatal(err)
			}
			if err := f.Add("and 10.1.2.3?"); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range bodyLines {
				if strings.Contains(string(data), l[:20]) {
					t.Fatalf("a body line of the key was written raw: %q", data)
				}
			}
			if strings.Contains(string(data), "BEGIN RSA") || !strings.Contains(string(data), "[REDACTED_SECRET_") {
				t.Fatalf("file holds %q", data)
			}
			g := open(t, path, 0)
			if e := g.Entries(); len(e) != 2 || !strings.Contains(e[0], "[REDACTED_SECRET_") || !strings.HasPrefix(e[1], "and [REDACTED_IP_") {
				t.Fatalf("entries %q", e)
			}
		})
	}
}

// An earlier version wrote one line an entry, so a key typed in a block lies raw over several
// lines: the file is redacted as one text when opened, and rewritten.
func TestOpenRedactsAKeyOverTheLinesOfAnOldFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "input_history")
	old := "first question\n\"\"\"\n" + privateKey + "\n\"\"\"\nlast question\n"
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	f := open(t, path, 0)
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "MIIEpAIBAAKCAQEA") || strings.Contains(string(data), "Zq1N5nQ8cV3kH2xJ") {
		t.Fatalf("old file keeps the key: %q", data)
	}
	e := f.Entries()
	if len(e) != 5 || e[0] != "first question" || !strings.HasPrefix(e[2], "[REDACTED_SECRET_") || e[4] != "last question" {
		t.Fatalf("entries %q", e)
	}
}

func TestEntriesRoundTripLineBreaksAndBackslashes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "input_history")
	f := open(t, path, 0)
	questions := []string{`C:\new\tools \n stays`, "two\nlines", "ends with a backslash \\", "tab\tand\rreturn"}
	for _, q := range questions {
		if err := f.Add(q); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != len(questions)+1 {
		t.Fatalf("%d lines for %d questions: %q", n, len(questions), data)
	}
	g := open(t, path, 0)
	if got := g.Entries(); strings.Join(got, "|") != strings.Join(questions, "|") {
		t.Fatalf("entries %q, want %q", got, questions)
	}
}
