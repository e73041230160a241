package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	p := writeDotEnv(t, "GEMINI_API_KEY=from-dotenv\nALERTCHAT_MODEL=gemini-x\nALERTCHAT_WORKSPACE=team\nALERTCHAT_DATA_DIR=/data\n# a comment\nexport ALERTCHAT_LOG_LEVEL=debug\n")
	env := fakeEnv{"ALERTCHAT_WORKSPACE": "from-env"}
	var warn bytes.Buffer
	loadDotEnv(p, env.environ(), &warn)
	want := fakeEnv{"GEMINI_API_KEY": "from-dotenv", "ALERTCHAT_MODEL": "gemini-x", "ALERTCHAT_WORKSPACE": "from-env", "ALERTCHAT_DATA_DIR": "/data", "ALERTCHAT_LOG_LEVEL": "debug"}
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
		"PUBSUB_EMULATOR_HOST", "ANY_NEW_EMULATOR_HOST", "ALERTCHAT_REDACT", "ALERTCHAT_EVIDENCE", "GOOGLE_VERTEX_BASE_URL", "XDG_CONFIG_HOME",
		"HOME", "PATH", "PAGER", "BROWSER", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "ALL_PROXY", "LD_PRELOAD",
		"GOOGLE_CLOUD_UNIVERSE_DOMAIN", "GCE_METADATA_HOST", "SSL_CERT_FILE", "GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES",
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
