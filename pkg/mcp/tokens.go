package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zalando/go-keyring"
	"golang.org/x/oauth2"
)

// Grant is what a sign-in to one server leaves: the OAuth client it was made with, the
// authorization server's endpoints (to refresh), and the token. It is a secret: it lives in the
// system keyring or a 0600 file, and is never logged, printed, or written with a history.
type Grant struct {
	// Resource is the server's canonical URL: a grant is only ever used for that server.
	Resource     string        `json:"resource"`
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	AuthURL      string        `json:"auth_url,omitempty"`
	TokenURL     string        `json:"token_url"`
	AuthStyle    int           `json:"auth_style,omitempty"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

// config is the grant's OAuth client, which refreshes its token.
func (g *Grant) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID: g.ClientID, ClientSecret: g.ClientSecret, Scopes: g.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: g.AuthURL, TokenURL: g.TokenURL, AuthStyle: oauth2.AuthStyle(g.AuthStyle)},
	}
}

// TokenStore keeps grants by server URL.
type TokenStore interface {
	// Load returns the grant for the server at resource, nil when there is none.
	Load(resource string) (*Grant, error)
	Save(g *Grant) error
	// Delete forgets the grant for the server at resource and reports whether there was one.
	Delete(resource string) (bool, error)
}

// Keyring is the system's secret store (github.com/zalando/go-keyring's functions).
type Keyring interface {
	Get(service, user string) (string, error)
	Set(service, user, secret string) error
	Delete(service, user string) error
}

// ErrKeyringNotFound is what a Keyring returns for a secret it does not hold.
var ErrKeyringNotFound = keyring.ErrNotFound

// SystemKeyring is the system's keyring (Secret Service on Linux, Keychain on macOS, the
// Credential Manager on Windows). A keyring that does not answer within a few seconds (a
// locked one waiting for a password dialog nobody sees) counts as unavailable.
func SystemKeyring() Keyring { return systemKeyring{timeout: 3 * time.Second} }

type systemKeyring struct{ timeout time.Duration }

func (k systemKeyring) Get(service, user string) (string, error) {
	var v string
	err := k.within(func() (err error) { v, err = keyring.Get(service, user); return err })
	return v, err
}

func (k systemKeyring) Set(service, user, secret string) error {
	return k.within(func() error { return keyring.Set(service, user, secret) })
}

func (k systemKeyring) Delete(service, user string) error {
	return k.within(func() error { return keyring.Delete(service, user) })
}

func (k systemKeyring) within(f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(k.timeout):
		return errors.New("the system keyring did not answer")
	}
}

// keyringService is the keyring's service name for alertchat's MCP grants.
const keyringService = "alertchat-mcp"

// Tokens is the token store: the system keyring when there is one (Keyring non-nil and
// answering), else a file of mode 0600 per server in Dir (mode 0700). CI machines and
// containers have no keyring: the file is what they use.
type Tokens struct {
	Keyring Keyring
	Dir     string
}

// ResourceKey is the canonical form of a server URL under which its grant is kept: scheme
// and host lower-cased, the default port dropped, no fragment.
func ResourceKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" && !(u.Scheme == "http" && p == "80") && !(u.Scheme == "https" && p == "443") {
		host += ":" + p
	}
	u.Host = host
	u.Fragment, u.RawFragment, u.User = "", "", nil
	return u.String()
}

func (s *Tokens) file(resource string) string {
	sum := sha256.Sum256([]byte(ResourceKey(resource)))
	return filepath.Join(s.dir(), hex.EncodeToString(sum[:16])+".json")
}

// dir is Dir when it is an absolute path, else "" (no files): a relative one is the working
// directory's, a folder others may have written, or may read.
func (s *Tokens) dir() string {
	if !filepath.IsAbs(s.Dir) {
		return ""
	}
	return s.Dir
}

// Load implements TokenStore.
func (s *Tokens) Load(resource string) (*Grant, error) {
	key := ResourceKey(resource)
	if s.Keyring != nil {
		if v, err := s.Keyring.Get(keyringService, key); err == nil {
			return parseGrant([]byte(v), key)
		}
	}
	if s.dir() == "" {
		return nil, nil
	}
	b, err := os.ReadFile(s.file(key))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the stored sign-in: %w", err)
	}
	return parseGrant(b, key)
}

func parseGrant(b []byte, key string) (*Grant, error) {
	var g Grant
	// The error of a malformed grant never quotes it: it holds tokens.
	if json.Unmarshal(b, &g) != nil || g.Token == nil {
		return nil, errors.New("the stored sign-in is unreadable; sign in again")
	}
	if g.Resource != key {
		// A grant is for the server it was made for, whatever its storage key says.
		return nil, nil
	}
	return &g, nil
}

// Save implements TokenStore.
func (s *Tokens) Save(g *Grant) error {
	c := *g
	c.Resource = ResourceKey(g.Resource)
	b, err := json.Marshal(&c)
	if err != nil {
		return errors.New("the sign-in could not be encoded")
	}
	if s.Keyring != nil {
		if err := s.Keyring.Set(keyringService, c.Resource, string(b)); err == nil {
			// One copy: a file left from a time without keyring goes.
			if s.dir() != "" {
				_ = os.Remove(s.file(c.Resource))
			}
			return nil
		}
	}
	if s.dir() == "" {
		return errors.New("no keyring and no (absolute) directory to keep the sign-in in")
	}
	return writePrivate(s.file(c.Resource), b)
}

// Delete implements TokenStore.
func (s *Tokens) Delete(resource string) (bool, error) {
	key := ResourceKey(resource)
	found := false
	if s.Keyring != nil {
		if err := s.Keyring.Delete(keyringService, key); err == nil {
			found = true
		}
	}
	if s.dir() != "" {
		err := os.Remove(s.file(key))
		switch {
		case err == nil:
			found = true
		case !errors.Is(err, os.ErrNotExist):
			return found, fmt.Errorf("removing the stored sign-in: %w", err)
		}
	}
	return found, nil
}

// writePrivate writes b to path readable by the user alone, through a temporary file renamed
// into place, so a crash never leaves half a token file.
func writePrivate(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("securing %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".grant-*")
	if err != nil {
		return fmt.Errorf("writing the sign-in: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("writing the sign-in: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("writing the sign-in: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the sign-in: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing the sign-in: %w", err)
	}
	return nil
}
