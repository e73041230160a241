// Package mcp runs Model Context Protocol servers for the chat and offers their tools on the
// tool registry (pkg/tool), on the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// Security: a server is a program or a remote service the user configured. What it sees is
// what alertchat sends it: the arguments the model gave, and for a stdio server an environment
// made of an allow-list (PATH, HOME, LANG, LC_*, TMPDIR, USER) plus what its "env" names, never
// the rest of alertchat's environment (Gemini and Google credentials included). Its tool
// descriptions and results are untrusted text: they only ever go to the model. Whether a tool
// asks before it runs comes from the configuration ("trust"), never from the server.
package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Config is the "mcpServers" file, in the shape other MCP clients use.
type Config struct {
	Servers map[string]ServerConfig `json:"mcpServers"`
	// InternalDomains are the organisation's own domains: a host under one of them never
	// leaves for a public-only server (besides .internal, .local, .corp and .lan).
	InternalDomains []string `json:"internalDomains,omitempty"`
}

// ServerConfig is one server: stdio (Command), streamable HTTP (HTTPURL) or SSE (URL).
type ServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	HTTPURL string            `json:"httpUrl,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Timeout bounds a call, in milliseconds (default 60 s).
	Timeout      int      `json:"timeout,omitempty"`
	Trust        bool     `json:"trust,omitempty"`
	IncludeTools []string `json:"includeTools,omitempty"`
	ExcludeTools []string `json:"excludeTools,omitempty"`
	// Auth is how an HTTP server is signed in to: "oauth" (the MCP authorization
	// specification, tokens from 'alertchat mcp login'), "google" (Application Default
	// Credentials), or "" (none, or what headers carry).
	Auth  string       `json:"auth,omitempty"`
	OAuth *OAuthConfig `json:"oauth,omitempty"`
	// Egress "public-only": the server is a third party, and a call whose arguments carry
	// internal or personal data is held back (see egress.go).
	Egress string `json:"egress,omitempty"`

	// internalDomains are the config's, for the egress check.
	internalDomains []string
}

// OAuthConfig is a pre-registered OAuth client, for authorization servers that do not
// register clients themselves, and the scopes to ask for besides those the server names.
type OAuthConfig struct {
	ClientID     string   `json:"clientId,omitempty"`
	ClientSecret string   `json:"clientSecret,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`
	// ClientMetadataURL is an https URL where this client's metadata document is published
	// (an OAuth client ID metadata document); used as the client ID by servers that take one.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// Issuer is the authorization server the pre-registered client belongs to (its issuer
	// URL). The MCP server names the authorization server to sign in with; when Issuer is set,
	// one that names another is refused before the client ID or secret is sent anywhere. With
	// ClientMetadataURL it is the one authorization server that client ID is offered to;
	// without it, that client ID is used only where the code comes back with the issuer's
	// RFC 9207 "iss" (see oauthguard.go).
	Issuer string `json:"issuer,omitempty"`
}

// Auth kinds (ServerConfig.Auth).
const (
	AuthOAuth  = "oauth"
	AuthGoogle = "google"
)

// Endpoint is the URL of an HTTP server (streamable HTTP or SSE), "" for a stdio server.
func (c ServerConfig) Endpoint() string {
	if c.HTTPURL != "" {
		return c.HTTPURL
	}
	return c.URL
}

// Transport names the server's transport: stdio, http or sse.
func (c ServerConfig) Transport() string {
	switch {
	case c.Command != "":
		return "stdio"
	case c.HTTPURL != "":
		return "http"
	}
	return "sse"
}

// DefaultTimeout bounds a call when the server's config says nothing.
const DefaultTimeout = 60 * time.Second

// CallTimeout is the server's call timeout.
func (c ServerConfig) CallTimeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return time.Duration(c.Timeout) * time.Millisecond
}

// Wants reports whether the server's tool t is offered: includeTools, when set, lists the
// tools offered, and excludeTools wins.
func (c ServerConfig) Wants(t string) bool {
	for _, x := range c.ExcludeTools {
		if x == t {
			return false
		}
	}
	if len(c.IncludeTools) == 0 {
		return true
	}
	for _, x := range c.IncludeTools {
		if x == t {
			return true
		}
	}
	return false
}

var serverName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,40}$`)

// Parse reads a config file's bytes: JSON, no unknown key, each server one transport.
// getenv expands $VAR and ${VAR} in env, headers and args (nothing else is expanded).
func Parse(data []byte, getenv func(string) string) (*Config, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && strings.HasPrefix(te.Field, "internalDomains") {
			return nil, fmt.Errorf("internalDomains must be a list of domain names, like [\"corp.example\"]")
		}
		return nil, fmt.Errorf("not a valid MCP config: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not a valid MCP config: more than one JSON value")
	}
	for _, d := range c.InternalDomains {
		if !isDomainName(normalDomain(d)) || strings.ContainsAny(strings.TrimPrefix(strings.TrimSpace(d), "*."), "*") {
			return nil, fmt.Errorf("internalDomains: %q is not a domain name (a list of names like \"corp.example\")", d)
		}
	}
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := c.Servers[n]
		if !serverName.MatchString(n) {
			return nil, fmt.Errorf("server name %q: use letters, digits, '_', '.', '-' (at most 40)", n)
		}
		kinds := 0
		for _, set := range []bool{s.Command != "", s.HTTPURL != "", s.URL != ""} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			return nil, fmt.Errorf("server %q: give exactly one of command, httpUrl or url", n)
		}
		if s.Timeout < 0 {
			return nil, fmt.Errorf("server %q: timeout must be positive milliseconds", n)
		}
		if err := checkAuth(s); err != nil {
			return nil, fmt.Errorf("server %q: %w", n, err)
		}
		if s.Egress != "" && s.Egress != EgressPublicOnly {
			return nil, fmt.Errorf("server %q: unknown egress %q: use %q (or leave it out)", n, s.Egress, EgressPublicOnly)
		}
		s.internalDomains = c.InternalDomains
		expand := func(v string) string { return os.Expand(v, getenv) }
		for i, a := range s.Args {
			s.Args[i] = expand(a)
		}
		for k, v := range s.Env {
			s.Env[k] = expand(v)
		}
		for k, v := range s.Headers {
			s.Headers[k] = expand(v)
		}
		if s.OAuth != nil {
			// A client secret is a secret: like headers, it may come from the environment.
			s.OAuth.ClientSecret = expand(s.OAuth.ClientSecret)
		}
		c.Servers[n] = s
	}
	return &c, nil
}

// checkAuth checks a server's auth settings: a known kind, on an HTTP server, an "oauth"
// block only with "auth": "oauth", and no Authorization header besides.
func checkAuth(s ServerConfig) error {
	switch s.Auth {
	case "", AuthOAuth, AuthGoogle:
	default:
		return fmt.Errorf("unknown auth %q: use \"oauth\" or \"google\"", s.Auth)
	}
	if s.Auth != "" && s.Command != "" {
		return fmt.Errorf("auth is for HTTP servers (httpUrl or url), not a command")
	}
	if s.Auth == AuthOAuth && s.URL != "" {
		// The SDK signs in on the streamable-HTTP transport only: an SSE server would never
		// be signed in to, and every request refused.
		return fmt.Errorf("auth \"oauth\" needs httpUrl (streamable HTTP): the SSE transport (url) cannot sign in")
	}
	if s.OAuth != nil && s.Auth != AuthOAuth {
		return fmt.Errorf("an \"oauth\" block needs \"auth\": \"oauth\"")
	}
	if u := s.Endpoint(); s.Auth != "" && u != "" && !httpsOrLoopback(u) {
		// A token over plain http to another machine is a token anyone on the way can use.
		return fmt.Errorf("auth %q needs an https URL (plain http only to this machine): tokens would be sent in clear", s.Auth)
	}
	if s.Auth != "" {
		for k := range s.Headers {
			if strings.EqualFold(k, "Authorization") {
				return fmt.Errorf("auth %q and an Authorization header: give one", s.Auth)
			}
		}
	}
	if o := s.OAuth; o != nil && o.ClientMetadataURL != "" {
		u, err := url.Parse(o.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
			return fmt.Errorf("oauth.clientMetadataUrl must be an https URL with a path")
		}
	}
	if o := s.OAuth; o != nil && o.ClientSecret != "" && o.ClientID == "" {
		return fmt.Errorf("oauth.clientSecret without oauth.clientId")
	}
	if o := s.OAuth; o != nil && o.Issuer != "" {
		if o.ClientID == "" && o.ClientMetadataURL == "" {
			return fmt.Errorf("oauth.issuer without oauth.clientId or oauth.clientMetadataUrl: it names the authorization server the client is for")
		}
		if !httpsOrLoopback(o.Issuer) {
			return fmt.Errorf("oauth.issuer must be an https URL")
		}
	}
	if u := s.Endpoint(); u != "" {
		if _, err := originOf(u); err != nil {
			return err
		}
	}
	return nil
}

// Load reads and parses the config file at path.
func Load(path string, getenv func(string) string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("MCP config: %w", err)
	}
	c, err := Parse(data, getenv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// allowedEnv are the variables of alertchat's environment a stdio server gets on every
// system; serverEnvExtra (per system) adds what programs there cannot start without.
var allowedEnv = []string{"PATH", "HOME", "LANG", "TMPDIR", "USER"}

// ServerEnv is a stdio server's environment: the allow-list (and LC_*) from environ, then what
// its config's env names.
func ServerEnv(environ []string, own map[string]string) []string {
	return serverEnv(environ, own, append(allowedEnv, serverEnvExtra...), envFoldCase)
}

// serverEnv is ServerEnv for an allow-list; with foldCase (Windows, where "Path" is PATH) names
// are compared whatever their case.
func serverEnv(environ []string, own map[string]string, allowed []string, foldCase bool) []string {
	same := func(a, b string) bool { return a == b }
	if foldCase {
		same = strings.EqualFold
	}
	overridden := func(k string) bool {
		for o := range own {
			if same(o, k) {
				return true
			}
		}
		return false
	}
	var out []string
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		keep := strings.HasPrefix(k, "LC_")
		for _, a := range allowed {
			keep = keep || same(a, k)
		}
		if keep && !overridden(k) {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(own))
	for k := range own {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+own[k])
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// ToolName is the name a server's tool is declared under: mcp_<server>_<tool>, characters
// outside [A-Za-z0-9_.-] as '_', at most 64 characters.
func ToolName(server, t string) string {
	n := unsafeName.ReplaceAllString("mcp_"+server+"_"+t, "_")
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// isDomainName reports whether d is a domain name: dot-separated labels of letters, digits and
// '-' (not at a label's ends), at most 63 characters each and 253 in all.
func isDomainName(d string) bool {
	if d == "" || len(d) > 253 {
		return false
	}
	for _, l := range strings.Split(d, ".") {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
