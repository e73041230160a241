// Package tokenkey finds the secret key from which a workspace's redaction tokens are derived
// (see redact.Tokenizer): an operator-supplied key file when one is given, else the key the
// workspace's store keeps, generated on first use.
//
// The trade-off: a key kept with the workspace's records needs no set-up and gives every
// analyst of a shared store the same tokens, but whoever can read the records can read the key
// and test guesses ("is [REDACTED_IP_x] 203.0.113.7?"). An operator key kept elsewhere (a
// mounted secret) keeps tokens opaque to someone holding only the stored records; losing it
// makes later tokens differ from the earlier ones (nothing stored becomes unreadable: tokens
// are never reversed).
package tokenkey

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/redact"
)

// Source is a store that keeps a key per workspace: every store.Store does (store.KeyStore),
// through all its layers.
type Source interface {
	WorkspaceKey(ctx context.Context) ([]byte, error)
}

// maxKeyFile bounds what ReadFile reads.
const maxKeyFile = 4096

// ReadFile reads an operator key: a file holding 64 hexadecimal characters, or standard
// base64 of at least 16 bytes, or at least 32 raw bytes (surrounding white space is ignored in
// the text forms). `openssl rand -hex 32 > key` makes one.
func ReadFile(path string) ([]byte, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	return ParseKey(data)
}

// readBounded reads at most maxKeyFile bytes of path: a device that never ends (/dev/zero) or
// a huge file is refused after one more byte, not read whole first.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read the token key file", goerr.V("path", path))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read the token key file", goerr.V("path", path))
	}
	if len(data) > maxKeyFile {
		return nil, goerr.New("the token key file is too large", goerr.V("path", path))
	}
	return data, nil
}

// ParseKey decodes an operator key (see ReadFile). Errors never quote the key.
func ParseKey(data []byte) ([]byte, error) {
	text := strings.TrimSpace(string(data))
	if len(text) >= 2*redact.MinKeyLen && len(text)%2 == 0 {
		if k, err := hex.DecodeString(text); err == nil {
			return k, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(text); err == nil && len(k) >= redact.MinKeyLen {
			return k, nil
		}
	}
	if len(data) >= 32 {
		return append([]byte(nil), data...), nil
	}
	return nil, goerr.New("the token key must be 64 hexadecimal characters, base64 of at least 16 bytes, or at least 32 bytes",
		goerr.V("length", len(data)))
}

// Choose picks the key: the operator key of operatorFile when it is not empty, else the
// workspace key of src.
func Choose(ctx context.Context, src Source, operatorFile string) ([]byte, error) {
	if operatorFile != "" {
		return ReadFile(operatorFile)
	}
	if src == nil {
		return nil, goerr.New("no token key: the store keeps none and no key file was given")
	}
	k, err := src.WorkspaceKey(ctx)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to get the workspace's token key")
	}
	return k, nil
}

// Tokenizer is Choose followed by redact.NewTokenizer.
func Tokenizer(ctx context.Context, src Source, operatorFile string) (*redact.Tokenizer, error) {
	k, err := Choose(ctx, src, operatorFile)
	if err != nil {
		return nil, err
	}
	t, err := redact.NewTokenizer(k)
	if err != nil {
		return nil, goerr.Wrap(err, "unusable token key")
	}
	return t, nil
}

// Redactor returns the redaction engine for types that writes the workspace's keyed tokens
// (see Choose for where the key comes from). With no types redaction is off and no key is
// looked up.
func Redactor(ctx context.Context, src Source, operatorFile string, types ...redact.Type) (*redact.Redactor, error) {
	r := redact.New(types...)
	if !r.Enabled() {
		return r, nil
	}
	t, err := Tokenizer(ctx, src, operatorFile)
	if err != nil {
		return nil, err
	}
	return r.WithTokens(t), nil
}

// Cached returns a Source that asks src first and keeps a copy of the key in the file at path
// (0600, e.g. under the data directory), from which it answers when src fails: a cloud store
// that cannot be reached at start does not stop a session whose turns the spool would keep.
// The copy is as secret as the key document it mirrors.
func Cached(src Source, path string) Source { return cachedSource{src: src, path: path} }

type cachedSource struct {
	src  Source
	path string
}

func (c cachedSource) WorkspaceKey(ctx context.Context) ([]byte, error) {
	k, err := c.src.WorkspaceKey(ctx)
	if err == nil {
		if old, rerr := readBounded(c.path); rerr != nil || hex.EncodeToString(k) != strings.TrimSpace(string(old)) {
			_ = writeKeyFile(c.path, k) // a cache that cannot be written only loses the fallback
		}
		return k, nil
	}
	if ck, ferr := ReadFile(c.path); ferr == nil {
		return ck, nil
	}
	return nil, err
}

// writeKeyFile writes k in hexadecimal to path (0600), atomically.
func writeKeyFile(path string, k []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".token-key-*")
	if err != nil {
		return err
	}
	_, werr := tmp.WriteString(hex.EncodeToString(k) + "\n")
	cerr := tmp.Close()
	if werr == nil && cerr == nil {
		if werr = os.Rename(tmp.Name(), path); werr == nil {
			return nil
		}
	}
	_ = os.Remove(tmp.Name())
	if werr != nil {
		return werr
	}
	return cerr
}

// CopyFirst returns a Source that answers from the copy at path when there is one, and
// otherwise asks src and keeps a copy (Cached). It saves a cloud store's key read on every
// command, at a cost: if the key document were deleted and made anew, this machine would go
// on with the old key until its copy is removed.
func CopyFirst(src Source, path string) Source {
	return copyFirstSource{cached: cachedSource{src: src, path: path}}
}

type copyFirstSource struct{ cached cachedSource }

func (c copyFirstSource) WorkspaceKey(ctx context.Context) ([]byte, error) {
	if k, err := ReadFile(c.cached.path); err == nil {
		return k, nil
	}
	return c.cached.WorkspaceKey(ctx)
}
