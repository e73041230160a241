// Package analyst names who asks: the analyst recorded beside each question of a history
// (record.Question) and on a verdict (record.Resolution.ResolvedBy). A name is what the
// analyst gave (--analyst), else the Google identity of the credentials the cloud store uses
// (GoogleIdentity), else user@host; whatever its source it is cleaned (Clean) before it is
// stored, compared or shown.
//
// Names are written as given, not redacted: they are the workspace's own users (anyone who can
// read the workspace's records is one of them, and the platform's audit logs name the same
// principals), and the listings, the --analyst filter and the earlier investigations shown to
// the next analyst need them readable.
package analyst

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// MaxWidth is how many display columns a name keeps.
const MaxWidth = 100

// Clean is name as it is stored, filtered by and shown: without control characters, escape
// sequences or bidirectional overrides (termsafe), on one line, at most MaxWidth columns.
func Clean(name string) string {
	return strings.TrimSpace(format.Truncate(termsafe.Line(name), MaxWidth, ""))
}

// Local is user@host, cleaned; host alone or user alone when the other is unknown.
func Local(user, host string) string {
	user, host = Clean(user), Clean(host)
	switch {
	case user != "" && host != "":
		return Clean(user + "@" + host)
	case user != "":
		return user
	}
	return host
}

// Lookup finds the Google identity of credentials: the e-mail of a service account, or the
// account of user credentials.
type Lookup struct {
	// CredentialsJSON is the Application Default Credentials file's content (the file of
	// GOOGLE_APPLICATION_CREDENTIALS or gcloud's well-known file); nil when there is none,
	// which on Google Cloud means the metadata server's service account.
	CredentialsJSON []byte
	// Network allows the lookups that need a request: the account of user credentials that do
	// not name it (a token refresh, then tokeninfo), and the metadata server's service account.
	// Without it only what the file names is found.
	Network bool
	// HTTPClient makes those requests (default http.DefaultClient); each lookup is bounded by
	// its context.
	HTTPClient *http.Client
	// MetadataHost is the metadata server (default metadata.google.internal); TokenURL and
	// TokenInfoURL Google's OAuth endpoints (defaults: the file's token_uri, else
	// https://oauth2.googleapis.com/token, and https://oauth2.googleapis.com/tokeninfo).
	MetadataHost, TokenURL, TokenInfoURL string
}

// credentialsFile is what of an ADC file names its identity.
type credentialsFile struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	Account      string `json:"account"`
	Impersonate  string `json:"service_account_impersonation_url"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	RefreshToken string `json:"refresh_token"`
	TokenURI     string `json:"token_uri"`
}

// Identity returns the credentials' Google identity, cleaned; "" with an error when it cannot
// be told (the caller falls back to another name).
func (l Lookup) Identity(ctx context.Context) (string, error) {
	if l.CredentialsJSON == nil {
		if !l.Network {
			return "", goerr.New("no credentials file, and no network lookup allowed")
		}
		return l.metadataEmail(ctx)
	}
	var f credentialsFile
	if err := json.Unmarshal(l.CredentialsJSON, &f); err != nil {
		return "", goerr.Wrap(err, "the credentials file is not JSON")
	}
	if email := impersonated(f.Impersonate); email != "" {
		return email, nil // the identity its tokens are issued to
	}
	switch f.Type {
	case "service_account":
		if e := Clean(f.ClientEmail); e != "" {
			return e, nil
		}
	case "authorized_user":
		// The file's "account" is what the file says; Google's answer for its token is who the
		// credentials are. The answer wins wherever it can be had.
		if l.Network && f.RefreshToken != "" {
			if e, err := l.userEmail(ctx, f); err == nil || Clean(f.Account) == "" {
				return e, err
			}
		}
		if a := Clean(f.Account); a != "" {
			return a, nil
		}
	}
	return "", goerr.New("the credentials name no identity", goerr.V("type", f.Type))
}

// impersonated is the service account of an impersonation URL
// (".../serviceAccounts/SA@PROJECT.iam.gserviceaccount.com:generateAccessToken").
func impersonated(u string) string {
	_, rest, ok := strings.Cut(u, "/serviceAccounts/")
	if !ok {
		return ""
	}
	email, _, _ := strings.Cut(rest, ":")
	email, err := url.PathUnescape(email)
	if err != nil || !strings.Contains(email, "@") {
		return ""
	}
	return Clean(email)
}

func (l Lookup) client() *http.Client {
	if l.HTTPClient != nil {
		return l.HTTPClient
	}
	return http.DefaultClient
}

// metadataEmail asks the metadata server for the default service account's e-mail.
func (l Lookup) metadataEmail(ctx context.Context) (string, error) {
	host := l.MetadataHost
	if host == "" {
		host = "metadata.google.internal"
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+"/computeMetadata/v1/instance/service-accounts/default/email", nil)
	if err != nil {
		return "", goerr.Wrap(err, "bad metadata server address")
	}
	req.Header.Set("Metadata-Flavor", "Google")
	body, err := l.do(req)
	if err != nil {
		return "", goerr.Wrap(err, "the metadata server did not name the service account")
	}
	if e := Clean(string(body)); strings.Contains(e, "@") {
		return e, nil
	}
	return "", goerr.New("the metadata server's answer is not an e-mail address")
}

// userEmail refreshes user credentials' token and asks tokeninfo whose it is. The token is
// used for nothing else, and never shown.
func (l Lookup) userEmail(ctx context.Context, f credentialsFile) (string, error) {
	tokenURL := l.TokenURL
	if tokenURL == "" {
		tokenURL = f.TokenURI
	}
	if tokenURL == "" {
		tokenURL = "https://oauth2.googleapis.com/token"
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {f.RefreshToken},
		"client_id": {f.ClientID}, "client_secret": {f.ClientSecret}}
	body, err := l.postForm(ctx, tokenURL, form)
	if err != nil {
		return "", goerr.Wrap(err, "failed to refresh the user credentials")
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(body, &tok); err != nil || tok.AccessToken == "" {
		return "", goerr.New("the token endpoint gave no access token")
	}
	infoURL := l.TokenInfoURL
	if infoURL == "" {
		infoURL = "https://oauth2.googleapis.com/tokeninfo"
	}
	if body, err = l.postForm(ctx, infoURL, url.Values{"access_token": {tok.AccessToken}}); err != nil {
		return "", goerr.Wrap(err, "tokeninfo did not answer")
	}
	var info struct {
		Email string `json:"email"`
	}
	if err := json.Unmarshal(body, &info); err != nil || Clean(info.Email) == "" {
		return "", goerr.New("tokeninfo named no e-mail (the credentials lack the email scope)")
	}
	return Clean(info.Email), nil
}

// postForm posts form to u and returns the answer's body.
func (l Lookup) postForm(ctx context.Context, u string, form url.Values) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, goerr.Wrap(err, "bad endpoint")
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return l.do(req)
}

// maxBody bounds what a lookup reads of an answer.
const maxBody = 64 << 10

func (l Lookup) do(req *http.Request) ([]byte, error) {
	resp, err := l.client().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, goerr.New("unexpected status", goerr.V("status", resp.StatusCode))
	}
	return body, nil
}

// Naming names the analyst of a run once, in the background: Start begins the lookup and
// Name waits for it, never longer than the timeout given to Start, and never fails.
type Naming struct {
	done chan struct{}
	name string
}

// Start finds the name: given (cleaned) when set; else lookup's identity when lookup is
// set, bounded by timeout; else (or when that fails) fallback.
func Start(ctx context.Context, given string, lookup *Lookup, timeout time.Duration, fallback string) *Naming {
	r := &Naming{done: make(chan struct{})}
	if g := Clean(given); g != "" || lookup == nil {
		r.name = g
		if r.name == "" {
			r.name = Clean(fallback)
		}
		close(r.done)
		return r
	}
	go func() {
		defer close(r.done)
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		type result struct {
			name string
			err  error
		}
		ch := make(chan result, 1)
		go func() {
			n, err := lookup.Identity(ctx)
			ch <- result{n, err}
		}()
		select {
		case res := <-ch:
			if res.err == nil && res.name != "" {
				r.name = res.name
				return
			}
		case <-ctx.Done():
		}
		r.name = Clean(fallback)
	}()
	return r
}

// Name is the analyst's name, waiting for the lookup when it is still running.
func (r *Naming) Name() string {
	<-r.done
	return r.name
}
