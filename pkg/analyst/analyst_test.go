package analyst_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/alertchat/alertchat/pkg/analyst"
	"github.com/alertchat/alertchat/pkg/format"
)

func TestClean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"alice", "alice"},
		{"  alice@example.com \n", "alice@example.com"},
		{"ali\x1b[31mce\x1b[0m", "alice"},
		{"bob\x07\x00", "bob"},
		{"eve\u202egnp.exe", "evegnp.exe"},
		{"carol\nsmith", "carol smith"},
		{"\x1b]0;pwned\x07", ""},
		{"山田 太郎", "山田 太郎"},
	} {
		if got := analyst.Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := strings.Repeat("あ", 80)
	if got := analyst.Clean(long); format.Width(got) > analyst.MaxWidth {
		t.Errorf("Clean of 160 columns kept %d", format.Width(got))
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"alice", "a\x1b[2Jb", "\u202e", "x\ny", strings.Repeat("名", 70), "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := analyst.Clean(s)
		if analyst.Clean(got) != got {
			t.Fatalf("Clean is not idempotent on %q: %q", s, got)
		}
		if format.Width(got) > analyst.MaxWidth {
			t.Fatalf("Clean(%q) is %d columns", s, format.Width(got))
		}
		for _, r := range got {
			if unicode.IsControl(r) || r == '\u202e' {
				t.Fatalf("Clean(%q) = %q holds %U", s, got, r)
			}
		}
	})
}

func TestLocal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ user, host, want string }{
		{"alice", "laptop", "alice@laptop"},
		{"alice", "", "alice"},
		{"", "laptop", "laptop"},
		{"al\x1bice", "lap\ntop", "alice@lap top"},
	} {
		if got := analyst.Local(tc.user, tc.host); got != tc.want {
			t.Errorf("Local(%q, %q) = %q, want %q", tc.user, tc.host, got, tc.want)
		}
	}
}

func TestIdentityFromFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name, json, want string
	}{
		{"service account", `{"type":"service_account","client_email":"triage@proj.iam.gserviceaccount.com","private_key":"-----BEGIN"}`, "triage@proj.iam.gserviceaccount.com"},
		{"user with account", `{"type":"authorized_user","account":"alice@example.com","refresh_token":"r"}`, "alice@example.com"},
		{"impersonation", `{"type":"impersonated_service_account","service_account_impersonation_url":"https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/soc@proj.iam.gserviceaccount.com:generateAccessToken"}`, "soc@proj.iam.gserviceaccount.com"},
		{"federation with impersonation", `{"type":"external_account","service_account_impersonation_url":"https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/wif%40proj.iam.gserviceaccount.com:generateAccessToken"}`, "wif@proj.iam.gserviceaccount.com"},
		{"hostile e-mail", `{"type":"service_account","client_email":"sa\u001b[2J@proj.iam.gserviceaccount.com"}`, "sa@proj.iam.gserviceaccount.com"},
	} {
		got, err := analyst.Lookup{CredentialsJSON: []byte(tc.json)}.Identity(ctx)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	// Nothing to tell offline: an error, never a guess.
	for _, bad := range []string{`not json`, `{"type":"authorized_user","refresh_token":"r"}`, `{"type":"external_account"}`, `{}`} {
		if got, err := (analyst.Lookup{CredentialsJSON: []byte(bad)}).Identity(ctx); err == nil {
			t.Errorf("%s: %q, want an error", bad, got)
		}
	}
	if got, err := (analyst.Lookup{}).Identity(ctx); err == nil {
		t.Errorf("no file, no network: %q, want an error", got)
	}
}

// User credentials that do not name their account: a token refresh, then tokeninfo.
func TestIdentityOfUserCredentials(t *testing.T) {
	t.Parallel()
	var gotRefresh, gotToken string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		switch r.URL.Path {
		case "/token":
			gotRefresh = r.PostForm.Get("refresh_token")
			_, _ = w.Write([]byte(`{"access_token":"ya29.x","expires_in":3599}`))
		case "/tokeninfo":
			gotToken = r.PostForm.Get("access_token")
			_, _ = w.Write([]byte(`{"email":"alice@example.com","email_verified":"true"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	l := analyst.Lookup{
		CredentialsJSON: []byte(`{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"1//r"}`),
		Network:         true, TokenURL: srv.URL + "/token", TokenInfoURL: srv.URL + "/tokeninfo",
	}
	got, err := l.Identity(context.Background())
	if err != nil || got != "alice@example.com" || gotRefresh != "1//r" || gotToken != "ya29.x" {
		t.Fatalf("Identity = %q, %v (refresh %q, token %q)", got, err, gotRefresh, gotToken)
	}
}

func TestIdentityFromMetadataServer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Metadata-Flavor") != "Google" || r.URL.Path != "/computeMetadata/v1/instance/service-accounts/default/email" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		_, _ = w.Write([]byte("123-compute@developer.gserviceaccount.com"))
	}))
	defer srv.Close()
	got, err := analyst.Lookup{Network: true, MetadataHost: srv.URL}.Identity(context.Background())
	if err != nil || got != "123-compute@developer.gserviceaccount.com" {
		t.Fatalf("Identity = %q, %v", got, err)
	}
}

// The lookup never fails the caller and never holds it past its timeout: a server that does
// not answer gives the fallback.
func TestStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hang)
	sa := &analyst.Lookup{CredentialsJSON: []byte(`{"type":"service_account","client_email":"sa@p.iam.gserviceaccount.com"}`)}
	for _, tc := range []struct {
		name   string
		given  string
		lookup *analyst.Lookup
		want   string
	}{
		{"given wins", "al\x1bice", sa, "alice"},
		{"identity", "", sa, "sa@p.iam.gserviceaccount.com"},
		{"no lookup", "", nil, "bob@host"},
		{"unanswered", "", &analyst.Lookup{Network: true, MetadataHost: srv.URL}, "bob@host"},
		{"unusable file", "", &analyst.Lookup{CredentialsJSON: []byte("{")}, "bob@host"},
	} {
		r := analyst.Start(ctx, tc.given, tc.lookup, 200*time.Millisecond, "bob@host")
		if got := r.Name(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The "account" an ADC file names is what the file says: where Google can be asked whose the
// credentials are, its answer is the analyst; the file's word only where it cannot.
func TestIdentityVerifiedOverTheFilesWord(t *testing.T) {
	t.Parallel()
	up := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		switch r.URL.Path {
		case "/token":
			_, _ = w.Write([]byte(`{"access_token":"ya29.x","expires_in":3599}`))
		case "/tokeninfo":
			_, _ = w.Write([]byte(`{"email":"mallory@example.com","email_verified":"true"}`))
		}
	}))
	defer srv.Close()
	l := analyst.Lookup{
		CredentialsJSON: []byte(`{"type":"authorized_user","account":"alice@example.com","client_id":"c","client_secret":"s","refresh_token":"1//r"}`),
		Network:         true, TokenURL: srv.URL + "/token", TokenInfoURL: srv.URL + "/tokeninfo",
	}
	if got, err := l.Identity(context.Background()); err != nil || got != "mallory@example.com" {
		t.Fatalf("Identity = %q, %v: the file's account was taken over Google's answer", got, err)
	}
	up = false
	if got, err := l.Identity(context.Background()); err != nil || got != "alice@example.com" {
		t.Fatalf("without an answer: %q, %v", got, err)
	}
	l.Network = false
	if got, _ := l.Identity(context.Background()); got != "alice@example.com" {
		t.Fatalf("no network lookup: %q", got)
	}
}
