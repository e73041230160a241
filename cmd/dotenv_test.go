package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
)

// fakeEnv is an environment in a map.
type fakeEnv map[string]string

func (e fakeEnv) environ() environ {
	return environ{
		lookup: func(k string) (string, bool) { v, ok := e[k]; return v, ok },
		set:    func(k, v string) error { e[k] = v; return nil },
	}
}

func writeDotEnv(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDotEnvSetsCredentialsAndPlainSettings(t *testing.T) {
	t.Parallel()
	p := writeDotEnv(t, "GEMINI_API_KEY=from-dotenv\nGOOGLE_API_KEY=k2\nALERTCHAT_MODEL=gemini-x\nALERTCHAT_THINKING=low\nALERTCHAT_MAX_WAIT=5s\n# a comment\nexport ALERTCHAT_LOG_LEVEL=debug\n")
	env := fakeEnv{"ALERTCHAT_THINKING": "high"}
	var warn bytes.Buffer
	loadDotEnv(p, env.environ(), &warn)
	want := fakeEnv{"GEMINI_API_KEY": "from-dotenv", "GOOGLE_API_KEY": "k2", "ALERTCHAT_MODEL": "gemini-x", "ALERTCHAT_THINKING": "high", "ALERTCHAT_MAX_WAIT": "5s", "ALERTCHAT_LOG_LEVEL": "debug"}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if warn.Len() != 0 {
		t.Errorf("warnings for plain settings: %q", warn.String())
	}
}

func TestDotEnvNeverRunsAProgramOrSendsDataElsewhere(t *testing.T) {
	t.Parallel()
	refused := []string{
		"ALERTCHAT_MCP_CONFIG", "GOOGLE_GEMINI_BASE_URL", "FIRESTORE_EMULATOR_HOST", "STORAGE_EMULATOR_HOST",
		"PUBSUB_EMULATOR_HOST", "ANY_NEW_EMULATOR_HOST", "ALERTCHAT_REDACT", "GOOGLE_VERTEX_BASE_URL", "XDG_CONFIG_HOME",
		"HOME", "PATH", "PAGER", "BROWSER", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "ALL_PROXY", "LD_PRELOAD",
		"GOOGLE_CLOUD_UNIVERSE_DOMAIN", "GCE_METADATA_HOST", "SSL_CERT_FILE", "GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES",
		// an allow-list refuses what nobody listed: a program the Google libraries start, the
		// conversation in another project, a store, key, spool or evidence elsewhere, who asks
		"GOOGLE_API_CERTIFICATE_CONFIG", "GOOGLE_API_USE_CLIENT_CERTIFICATE", "GOOGLE_API_USE_MTLS_ENDPOINT",
		"GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_APPLICATION_CREDENTIALS",
		"CLOUDSDK_CONFIG", "ALERTCHAT_DATA_DIR", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "TMPDIR",
		"ALERTCHAT_TOKEN_KEY_FILE", "ALERTCHAT_EVIDENCE", "ALERTCHAT_ANALYST", "ALERTCHAT_FIRESTORE_PROJECT",
		"ALERTCHAT_FIRESTORE_DATABASE", "ALERTCHAT_BUCKET", "ALERTCHAT_PREFIX", "ALERTCHAT_MCP_TOKEN_STORE",
		"GODEBUG", "GOMAXPROCS", "GOTRACEBACK", "NO_PROXY", "USER", "alertchat_model", "gemini_api_key",
	}
	var content strings.Builder
	for _, name := range refused {
		content.WriteString(name + "=http://evil.example\n")
	}
	content.WriteString("GEMINI_API_KEY=k\n")
	p := writeDotEnv(t, content.String())
	// one of them is in the real environment: it keeps its value, and the .env still gets
	// its warning
	env := fakeEnv{"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}
	var warn bytes.Buffer
	loadDotEnv(p, env.environ(), &warn)
	for _, name := range refused {
		if v, ok := env[name]; ok && v == "http://evil.example" {
			t.Errorf("%s taken from .env", name)
		}
	}
	if env["GOOGLE_GEMINI_BASE_URL"] != "http://127.0.0.1:9" || env["GEMINI_API_KEY"] != "k" {
		t.Errorf("env %v", env)
	}
	lines := strings.Split(strings.TrimSuffix(warn.String(), "\n"), "\n")
	if len(lines) != len(refused) {
		t.Fatalf("%d warning lines for %d variables:\n%s", len(lines), len(refused), warn.String())
	}
	for _, name := range refused {
		n := 0
		for _, l := range lines {
			if strings.Contains(l, " sets "+name+",") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s named on %d warning lines:\n%s", name, n, warn.String())
		}
	}
}

// A .env names a model by its bare ID only: a resource name ("projects/X/...") is the request
// path the SDK uses, so a planted one sends every question to the planter's project. Nor may it
// choose the workspace, which would put the analyst's histories in another team's. Each refused
// line names the variable, never the value.
func TestDotEnvRefusesModelPathsAndWorkspace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, line string
		set        bool
	}{
		{"ALERTCHAT_MODEL", "gemini-3.8-flash", true},
		{"ALERTCHAT_MODEL", "projects/evil-proj/locations/us-central1/publishers/google/models/gemini-3.8-flash", false},
		{"ALERTCHAT_MODEL", "tunedModels/evil", false},
		{"ALERTCHAT_JUDGE_MODEL", "gemini-3.8-flash-lite", true},
		{"ALERTCHAT_JUDGE_MODEL", "projects/evil-proj/locations/us/endpoints/1", false},
		{"ALERTCHAT_WORKSPACE", "other-team", false},
	} {
		p := writeDotEnv(t, tc.name+"="+tc.line+"\n")
		env := fakeEnv{}
		var warn bytes.Buffer
		loadDotEnv(p, env.environ(), &warn)
		if _, ok := env[tc.name]; ok != tc.set {
			t.Errorf("%s=%s: set %v, want %v", tc.name, tc.line, ok, tc.set)
		}
		w := warn.String()
		if tc.set != (w == "") || !tc.set && (strings.Count(w, "\n") != 1 || !strings.Contains(w, tc.name) || strings.Contains(w, tc.line)) {
			t.Errorf("%s=%s: warning %q", tc.name, tc.line, w)
		}
	}
}

func TestDotEnvMissingOrUnreadable(t *testing.T) {
	t.Parallel()
	env := fakeEnv{}
	var warn bytes.Buffer
	loadDotEnv(filepath.Join(t.TempDir(), ".env"), env.environ(), &warn)
	if warn.Len() != 0 || len(env) != 0 {
		t.Fatalf("no .env: warned %q, set %v", warn.String(), env)
	}
	dir := filepath.Join(t.TempDir(), ".env")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	loadDotEnv(dir, env.environ(), &warn)
	if !strings.Contains(warn.String(), "is not read") || len(env) != 0 {
		t.Fatalf("a directory named .env: warned %q, set %v", warn.String(), env)
	}
}

// TestDotEnvAllowsOnlyPlainFlagSettings: every ALERTCHAT_ variable of a flag is either on the
// allow-list or refused for a reason written down here; a new flag's variable is a decision,
// not a default.
func TestDotEnvAllowsOnlyPlainFlagSettings(t *testing.T) {
	t.Parallel()
	refused := map[string]string{
		"ALERTCHAT_DATA_DIR":           "a planted spool, key copy or alert cache",
		"ALERTCHAT_FIRESTORE_PROJECT":  "histories written to another project",
		"ALERTCHAT_FIRESTORE_DATABASE": "histories written to another database",
		"ALERTCHAT_BUCKET":             "transcripts written to another bucket",
		"ALERTCHAT_PREFIX":             "transcripts written under another prefix",
		"ALERTCHAT_TOKEN_KEY_FILE":     "a key the planter knows",
		"ALERTCHAT_REDACT":             "raw storage",
		"ALERTCHAT_MCP_CONFIG":         "programs run",
		"ALERTCHAT_ANALYST":            "who asks, forged",
		"ALERTCHAT_WORKSPACE":          "histories written to another team's workspace",
		"ALERTCHAT_BQ_MAX_BYTES":       "a BigQuery bill the planter sets",
	}
	root, _ := newRoot(&cmdutil.IOStreams{}, RunOptions{Getenv: func(string) string { return "" }})
	var walk func(c *cli.Command)
	seen := map[string]bool{}
	walk = func(c *cli.Command) {
		for _, f := range c.Flags {
			for _, k := range envKeys(f) {
				seen[k] = true
				_, no := refused[k]
				if no == dotenvAllowedName(k) {
					t.Errorf("%s: allowed %v, refused for a reason %v", k, dotenvAllowedName(k), no)
				}
			}
		}
		for _, sub := range c.Commands {
			walk(sub)
		}
	}
	walk(root)
	for _, name := range dotenvAllowed {
		if !seen[name] && name != "GEMINI_API_KEY" && name != "GOOGLE_API_KEY" {
			t.Errorf("%s is allowed but no flag reads it", name)
		}
	}
}

func TestClientCertificatesOffUnlessTheEnvironmentSaysSo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  fakeEnv
		want string
	}{
		{fakeEnv{}, "false"},
		{fakeEnv{clientCertVar: "true"}, "true"},
		{fakeEnv{clientCertVar: ""}, ""},
	} {
		keepClientCertificatesOff(tc.env.environ())
		if got := tc.env[clientCertVar]; got != tc.want {
			t.Errorf("%s = %q, want %q", clientCertVar, got, tc.want)
		}
	}
}

// TestDotEnvKeyNeverReplacesTheEnvironmentsKey: the SDK prefers GOOGLE_API_KEY, so a .env's
// GOOGLE_API_KEY beside the environment's GEMINI_API_KEY would win; it is ignored.
func TestDotEnvKeyNeverReplacesTheEnvironmentsKey(t *testing.T) {
	t.Parallel()
	p := writeDotEnv(t, "GOOGLE_API_KEY=planted\nGEMINI_API_KEY=planted\n")
	for _, real := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		env := fakeEnv{real: "mine"}
		var warn bytes.Buffer
		loadDotEnv(p, env.environ(), &warn)
		if len(env) != 1 || env[real] != "mine" {
			t.Errorf("environment with %s: %v", real, env)
		}
	}
	env := fakeEnv{}
	loadDotEnv(p, env.environ(), &bytes.Buffer{})
	if env["GOOGLE_API_KEY"] != "planted" || env["GEMINI_API_KEY"] != "planted" {
		t.Errorf("no key in the environment: the .env's are credentials: %v", env)
	}
}
