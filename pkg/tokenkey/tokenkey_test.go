package tokenkey_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/tokenkey"
)

func TestParseKey(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{0xA5, 0x01}, 16)
	for _, c := range []struct {
		name string
		in   []byte
		ok   bool
	}{
		{"hex", []byte(hex.EncodeToString(key) + "\n"), true},
		{"base64", []byte(base64.StdEncoding.EncodeToString(key)), true},
		{"raw", key, true},
		{"short", []byte("abc"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := tokenkey.ParseKey(c.in)
			if c.ok != (err == nil) || c.ok && !bytes.Equal(got, key) {
				t.Fatalf("got %x, %v", got, err)
			}
			if err != nil && strings.Contains(err.Error(), string(c.in)) {
				t.Fatal("the error quotes the key")
			}
		})
	}
}

type failing struct{}

func (failing) WorkspaceKey(context.Context) ([]byte, error) { return nil, errors.New("offline") }

func TestChoose(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := local.Open(ctx, local.Options{Dir: dir, Workspace: "team"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws, err := tokenkey.Choose(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "operator.key")
	op := bytes.Repeat([]byte{7}, 32)
	if err := os.WriteFile(file, []byte(hex.EncodeToString(op)), 0o600); err != nil {
		t.Fatal(err)
	}
	// an operator key wins over the store's, and needs no store
	for _, src := range []tokenkey.Source{s, failing{}, nil} {
		got, err := tokenkey.Choose(ctx, src, file)
		if err != nil || !bytes.Equal(got, op) {
			t.Fatalf("operator key: %x, %v", got, err)
		}
	}
	if _, err := tokenkey.Choose(ctx, failing{}, ""); err == nil {
		t.Fatal("a failing store gave a key")
	}
	tk1, err := tokenkey.Tokenizer(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	tk2, _ := redact.NewTokenizer(ws)
	if tk1.Token(redact.IP, "203.0.113.7") != tk2.Token(redact.IP, "203.0.113.7") {
		t.Fatal("Tokenizer does not use the workspace key")
	}
}

type flaky struct {
	key  []byte
	down bool
}

func (f *flaky) WorkspaceKey(context.Context) ([]byte, error) {
	if f.down {
		return nil, errors.New("unreachable")
	}
	return f.key, nil
}

func TestCachedFallsBackToTheCopy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keys", "team.key")
	src := &flaky{key: bytes.Repeat([]byte{9}, 32)}
	if _, err := tokenkey.Cached(src, path).WorkspaceKey(ctx); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("cache file: %v", err)
	}
	src.down = true
	got, err := tokenkey.Cached(src, path).WorkspaceKey(ctx)
	if err != nil || !bytes.Equal(got, src.key) {
		t.Fatalf("offline: %x, %v", got, err)
	}
	if _, err := tokenkey.Cached(src, filepath.Join(t.TempDir(), "none")).WorkspaceKey(ctx); err == nil {
		t.Fatal("no store and no copy gave a key")
	}
}

func TestRedactorOffNeedsNoKey(t *testing.T) {
	t.Parallel()
	r, err := tokenkey.Redactor(context.Background(), failing{}, "")
	if err != nil || r.Enabled() {
		t.Fatalf("%v %v", r, err)
	}
	r, err = tokenkey.Redactor(context.Background(), &flaky{key: bytes.Repeat([]byte{1}, 32)}, "", redact.IP)
	if err != nil || !r.Tokens() {
		t.Fatalf("%v %v", r, err)
	}
	if out, _ := r.String("from 203.0.113.7"); !strings.HasPrefix(out, "from [REDACTED_IP_") {
		t.Fatalf("got %q", out)
	}
}

// TestCopyFirstAsksOnce: with a copy on disk the store is not asked again.
func TestCopyFirstAsksOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "keys", "ws.key")
	src := &countingSource{key: bytes.Repeat([]byte{7}, 32)}
	s := tokenkey.CopyFirst(src, path)
	for range 3 {
		k, err := s.WorkspaceKey(context.Background())
		if err != nil || !bytes.Equal(k, src.key) {
			t.Fatalf("key %x, %v", k, err)
		}
	}
	if src.calls != 1 {
		t.Fatalf("the store was asked %d times, want once", src.calls)
	}
}

type countingSource struct {
	key   []byte
	calls int
}

func (c *countingSource) WorkspaceKey(context.Context) ([]byte, error) {
	c.calls++
	return c.key, nil
}
