package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/mcp"
)

// 'mcp add' writes the preset into the user's mcp.json (made 0600 in a 0700 directory when
// missing) and prints it; an entry already there is kept unless --force; bad input is exit 2.
func TestAdd(t *testing.T) {
	t.Parallel()
	d, out, errOut := testDeps(t, "")
	path := filepath.Join(d.Getenv("XDG_CONFIG_HOME"), "alertchat", "mcp.json")
	run := func(o AddOptions) error { o.Deps = d; return addRun(&o) }

	if err := run(AddOptions{Preset: "virustotal"}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mcp.json: %v %v", st, err)
	}
	if dst, _ := os.Stat(filepath.Dir(path)); dst.Mode().Perm() != 0o700 {
		t.Fatalf("its directory is %v", dst.Mode())
	}
	want, _ := os.ReadFile(filepath.Join("..", "..", "pkg", "mcp", "testdata", "presets", "new-virustotal.json"))
	if got, _ := os.ReadFile(path); string(got) != string(want) {
		t.Fatalf("wrote:\n%s\nwant:\n%s", got, want)
	}
	if !strings.HasPrefix(out.String(), `"virustotal": {`) || !strings.Contains(out.String(), `"trust": false`) ||
		!strings.Contains(errOut.String(), "Added MCP server virustotal to "+path) {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}

	// Another preset goes beside it; the same one again is kept.
	if err := run(AddOptions{Preset: "google-secops", Project: "sec-prod-1234", Region: "us"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if err := run(AddOptions{Preset: "virustotal"}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("an existing entry was changed without --force")
	}
	if !strings.Contains(errOut.String(), "MCP server virustotal is already in "+path+"; it is kept as it is (use --force to replace it).") {
		t.Fatalf("stderr %q", errOut)
	}
	d.Getenv = func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": filepath.Dir(filepath.Dir(path)), "VT_APIKEY": "secret-key"}[k]
	}
	if err := run(AddOptions{Preset: "virustotal", Force: true}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !strings.Contains(string(got), `"x-apikey":"$VT_APIKEY"`) || strings.Contains(string(got), "secret-key") ||
		!strings.Contains(string(got), "chronicle.us.rep.googleapis.com") {
		t.Fatalf("after --force:\n%s", got)
	}

	for _, bad := range []struct {
		o    AddOptions
		says string
	}{
		{AddOptions{Preset: "shodan"}, "the presets are google-bigquery, google-logging, google-scc, google-secops, virustotal"},
		{AddOptions{Preset: "google-secops", Region: "us"}, "needs --project"},
	} {
		err := run(bad.o)
		if cmdutil.ExitCode(err) != 2 || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("%+v: %v (exit %d), want exit 2 saying %q", bad.o, err, cmdutil.ExitCode(err), bad.says)
		}
	}

	// --list names each preset and its endpoint.
	out.Reset()
	if err := run(AddOptions{List: true}); err != nil {
		t.Fatal(err)
	}
	for _, p := range mcp.PresetNames() {
		if !strings.Contains(out.String(), p+" ") {
			t.Errorf("--list: no %s in %q", p, out)
		}
	}
}

// standIn is a streamable-HTTP MCP server on loopback with tools of the given names, and the
// requests it received.
type standIn struct {
	url  *url.URL
	mu   sync.Mutex
	reqs []*http.Request
}

func newStandIn(t *testing.T, tools ...string) *standIn {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "stand-in", Version: "1"}, nil)
	for _, n := range tools {
		s.AddTool(&sdk.Tool{Name: n, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: n}}}, nil
			})
	}
	si := &standIn{}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		si.mu.Lock()
		si.reqs = append(si.reqs, r.Clone(context.Background()))
		si.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	si.url, _ = url.Parse(srv.URL)
	return si
}

// RoundTrip sends a request meant for the preset's host to the stand-in, path and headers kept.
func (s *standIn) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = s.url.Scheme, s.url.Host, s.url.Host
	return http.DefaultTransport.RoundTrip(r)
}

// Each preset's entry, as 'mcp add' writes it, loads and connects: its requests, redirected to
// a stand-in on loopback speaking tool names of the hosted server, go to the preset's path
// with its sign-in and headers, and its tools are listed.
func TestPresetsReachStandIns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		preset, project, region string
		env                     map[string]string
		tools                   []string
		path                    string
		headers                 map[string]string
	}{
		{"virustotal", "", "", nil, []string{"get_file_report", "get_ip_report"}, "/mcp", nil},
		{"virustotal", "", "", map[string]string{"VT_APIKEY": "vt-key"}, []string{"get_file_report"}, "/mcp", map[string]string{"X-Apikey": "vt-key"}},
		{"google-logging", "", "", nil, []string{"list_log_entries"}, "/mcp", map[string]string{"Authorization": "Bearer adc-token"}},
		{"google-bigquery", "sec-prod-1234", "", nil, []string{"list_dataset_ids", "execute_sql_readonly"}, "/mcp",
			map[string]string{"Authorization": "Bearer adc-token", "X-Goog-User-Project": "sec-prod-1234"}},
		{"google-scc", "", "", nil, []string{"list_findings"}, "/mcp/investigate", map[string]string{"Authorization": "Bearer adc-token"}},
		{"google-secops", "sec-prod-1234", "europe-west2", nil, []string{"list_rules", "udm_search"}, "/mcp",
			map[string]string{"Authorization": "Bearer adc-token", "X-Goog-User-Project": "sec-prod-1234"}},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			t.Parallel()
			getenv := func(k string) string { return tc.env[k] }
			entry, err := mcp.PresetEntry(tc.preset, tc.project, tc.region, getenv)
			if err != nil {
				t.Fatal(err)
			}
			data, err := mcp.AddServer(nil, tc.preset, entry, false)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := mcp.Parse(data, getenv)
			if err != nil {
				t.Fatal(err)
			}
			si := newStandIn(t, tc.tools...)
			var scopes []string
			o := mcp.Options{HTTPTransport: si, Auth: mcp.AuthOptions{Google: func(_ context.Context, aud string, s []string) (oauth2.TokenSource, error) {
				scopes = s
				return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "adc-token"}), nil
			}}}
			c, err := mcp.Dial(context.Background(), tc.preset, cfg.Servers[tc.preset], o)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			tools, err := c.Tools(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
			}
			slices.Sort(names)
			if want := slices.Sorted(slices.Values(tc.tools)); !slices.Equal(names, want) {
				t.Fatalf("tools %v, want %v", names, want)
			}
			si.mu.Lock()
			defer si.mu.Unlock()
			for _, r := range si.reqs {
				if r.URL.Path != tc.path {
					t.Errorf("a request to %s, want %s", r.URL.Path, tc.path)
				}
				for k, v := range tc.headers {
					if got := r.Header.Get(k); got != v {
						t.Errorf("%s: %q, want %q", k, got, v)
					}
				}
			}
			if entry.Auth == mcp.AuthGoogle && !slices.Equal(scopes, []string{"https://www.googleapis.com/auth/cloud-platform"}) {
				t.Errorf("ADC scopes %v", scopes)
			}
		})
	}
}
