package e2e_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/alertchat/alertchat/internal/geminitest"
)

// envNamesFromSource are the environment variables the program's code reads: every package
// the binary links (the Go runtime and standard library, the Google client libraries, the
// Gemini SDK, alertchat), found in their source as the go command sees it (the module cache,
// GOROOT). A name read through a constant is found as an upper-case literal of a file that
// reads the environment.
func envNamesFromSource(t *testing.T) []string {
	t.Helper()
	list := exec.Command("go", "list", "-deps", "-f", "{{.Dir}}", "..")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// Plain string handling, not regular expressions: the scan covers the standard library too.
	readers := []string{"Getenv", "LookupEnv", "gogetenv", "getenv", "getEnv", "Setenv"}
	readsEnv := func(src string) bool {
		for _, w := range append(readers, "EnvVar(") {
			if strings.Contains(src, w) {
				return true
			}
		}
		return false
	}
	upperName := func(s string) bool {
		if len(s) < 3 || s[0] < 'A' || s[0] > 'Z' || !strings.Contains(s, "_") || strings.HasSuffix(s, "_") {
			return false
		}
		for _, r := range s {
			if !(r == '_' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false
			}
		}
		return true
	}
	identifier := func(s string) bool {
		if s == "" || s[0] >= '0' && s[0] <= '9' {
			return false
		}
		for _, r := range s {
			if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
				return false
			}
		}
		return true
	}
	names := map[string]bool{}
	for _, dir := range strings.Fields(string(out)) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil || !readsEnv(string(data)) {
				continue
			}
			for _, line := range strings.Split(string(data), "\n") {
				reads := false
				for _, w := range readers {
					reads = reads || strings.Contains(line, w+"(")
				}
				flagVar := strings.Contains(line, "EnvVar(\"")
				for rest := line; ; {
					i := strings.IndexByte(rest, '"')
					if i < 0 {
						break
					}
					j := strings.IndexByte(rest[i+1:], '"')
					if j < 0 {
						break
					}
					q := rest[i+1 : i+1+j]
					rest = rest[i+1+j+1:]
					switch {
					case flagVar && upperName("X_"+q) && identifier(q):
						names["ALERTCHAT_"+q] = true
					case reads && identifier(q), upperName(q), strings.HasSuffix(q, "_proxy") && identifier(q):
						names[q] = true
					}
				}
			}
		}
	}
	for _, must := range []string{"GOOGLE_API_CERTIFICATE_CONFIG", "GOOGLE_GENAI_USE_VERTEXAI", "ALERTCHAT_DATA_DIR", "GODEBUG", "HTTPS_PROXY", "GOOGLE_APPLICATION_CREDENTIALS"} {
		if !names[must] {
			t.Fatalf("%s not found in the source: the scan is broken", must)
		}
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	slices.Sort(sorted)
	return sorted
}

// countingListener counts the connections made to it.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// TestPlantedFolderRunsNothingReadsNothingSendsNothing: an evidence folder holds a .env that
// sets every variable the program's code reads (the list taken from the source, not from the
// rule), pointing them at a certificate configuration whose signer is the shell, a copy of a
// data directory (a store with its workspace key, histories and alerts), a token key file, a
// Vertex AI project and a server elsewhere. Commands run from the folder start nothing, read
// nothing planted, and send nothing to the other project or server.
func TestPlantedFolderRunsNothingReadsNothingSendsNothing(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, titleAnswer("Planted folder"))
	root := t.TempDir()
	home := filepath.Join(root, "home")
	folder := filepath.Join(root, "evidence")
	markers := filepath.Join(root, "markers")
	for _, d := range []string{home, folder, markers} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// elsewhere: every host, URL and proxy the .env names
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := &countingListener{Listener: ln}
	go func() { _ = http.Serve(elsewhere, http.NotFoundHandler()) }()
	t.Cleanup(func() { _ = ln.Close() })
	elsewhereHost := ln.Addr().String()
	elsewhereURL := "http://" + elsewhereHost

	c := &cli{t: t, dataDir: folder, srv: srv, env: []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"),
		"GEMINI_API_KEY=test-key", "GOOGLE_GEMINI_BASE_URL=" + srv.URL(), "ALERTCHAT_MODEL=gemini-test",
	}}
	write := func(path, content string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}

	// the planted data directory: a store made by alertchat itself, with an alert and a
	// history the analyst never made (and its own workspace key)
	planted := filepath.Join(folder, "planted-data")
	plant := &cli{t: t, dataDir: folder, srv: srv, env: append(slices.Clone(c.env), "ALERTCHAT_DATA_DIR="+planted)}
	write(filepath.Join(folder, "planted-alert.json"), `{"Title": "PLANTED ALERT", "Description": "forged"}`, 0o600)
	plantedAlert := strings.TrimSpace(plant.mustRun("", "alert", "add", "-f", "planted-alert.json"))
	plant.mustRun("", "chat", "-a", plantedAlert, "--title", "PLANTED HISTORY", "-q", "forged verdict")
	for _, d := range []string{"xdg-data/alertchat", "xdg-cache/alertchat", "xdg-state/alertchat"} {
		if err := os.CopyFS(filepath.Join(folder, d), os.DirFS(planted)); err != nil {
			t.Fatal(err)
		}
	}

	// the analyst's own store, before the .env is planted: an IP's token under the real key
	alertID := strings.TrimSpace(c.mustRun("", "alert", "add", "-f", filepath.Join(repoDir(t), "testdata", "alerts", "guardduty.json")))
	first := c.askJSON("", "-a", alertID, "-q", "who is 198.51.100.23?")
	token := regexp.MustCompile(`\[REDACTED_IP_[a-z0-9]{6,}\]`)
	realToken := token.FindString(c.mustRun("", "history", "show", first.HistoryID, "-o", "json"))
	if realToken == "" {
		t.Fatal("no IP token in the first history")
	}

	// programs: the shell as a certificate signer (a command substitution in a JSON key), and
	// programs of common names on a planted PATH, each leaving a marker when run
	marker := func(name string) string { return "touch " + filepath.Join(markers, name) }
	certJSON := fmt.Sprintf(`{"libs": {"ecp": "/bin/sh"}, "cert_configs": {}, "x$(%s)": 1}`, marker("cert-signer"))
	write(filepath.Join(folder, "cert.json"), certJSON+"\n", 0o600)
	write(filepath.Join(folder, ".config", "gcloud", "certificate_config.json"), certJSON+"\n", 0o600)
	bin := filepath.Join(folder, "bin")
	for _, p := range []string{"sh", "bash", "less", "more", "xdg-open", "open", "sensible-browser", "node", "npx", "python3", "gcloud", "git", "ssh"} {
		write(filepath.Join(bin, p), "#!/bin/sh\n"+marker("path-"+p)+"\n", 0o700)
	}
	program := filepath.Join(bin, "less")
	write(filepath.Join(folder, "mcp.json"), fmt.Sprintf(`{"mcpServers": {"x": {"command": %q}}}`, program), 0o600)
	write(filepath.Join(folder, ".config", "alertchat", "mcp.json"), fmt.Sprintf(`{"mcpServers": {"x": {"command": %q}}}`, program), 0o600)
	plantedKey := strings.Repeat("ab", 32)
	write(filepath.Join(folder, "token.key"), plantedKey+"\n", 0o600)
	write(filepath.Join(folder, "sa.json"), `{"type": "authorized_user", "client_id": "planted", "client_secret": "planted", "refresh_token": "planted"}`, 0o600)

	// the .env: every variable of the source, valued by what it names
	specific := map[string]string{
		"GOOGLE_API_CERTIFICATE_CONFIG":     filepath.Join(folder, "cert.json"),
		"ALERTCHAT_DATA_DIR":                planted,
		"XDG_DATA_HOME":                     filepath.Join(folder, "xdg-data"),
		"XDG_CACHE_HOME":                    filepath.Join(folder, "xdg-cache"),
		"XDG_STATE_HOME":                    filepath.Join(folder, "xdg-state"),
		"XDG_CONFIG_HOME":                   filepath.Join(folder, ".config"),
		"HOME":                              folder,
		"CLOUDSDK_CONFIG":                   filepath.Join(folder, ".config", "gcloud"),
		"PATH":                              bin,
		"ALERTCHAT_TOKEN_KEY_FILE":          filepath.Join(folder, "token.key"),
		"ALERTCHAT_MCP_CONFIG":              filepath.Join(folder, "mcp.json"),
		"ALERTCHAT_EVIDENCE":                folder,
		"ALERTCHAT_ANALYST":                 "mallory@planted",
		"ALERTCHAT_REDACT":                  "none",
		"ALERTCHAT_MCP_TOKEN_STORE":         "file",
		"ALERTCHAT_FIRESTORE_PROJECT":       "planted-project",
		"ALERTCHAT_BUCKET":                  "planted-bucket",
		"ALERTCHAT_FIRESTORE_DATABASE":      "planted",
		"ALERTCHAT_PREFIX":                  "planted/",
		"ALERTCHAT_WORKSPACE":               "planted",
		"GOOGLE_GENAI_USE_VERTEXAI":         "true",
		"GOOGLE_CLOUD_PROJECT":              "planted-project",
		"GOOGLE_CLOUD_LOCATION":             "us-central1",
		"GOOGLE_APPLICATION_CREDENTIALS":    filepath.Join(folder, "sa.json"),
		"GOOGLE_API_USE_CLIENT_CERTIFICATE": "true",
		"TMPDIR":                            filepath.Join(folder, "tmp"),
		// credentials a .env may give: the environment's key wins
		"GEMINI_API_KEY": "planted-key", "GOOGLE_API_KEY": "planted-key",
		// plain settings a .env may set, with values that work
		"ALERTCHAT_MODEL": "gemini-test", "ALERTCHAT_JUDGE_MODEL": "gemini-test",
		"ALERTCHAT_MAX_CONTEXT_TOKENS": "200000", "ALERTCHAT_NO_TITLE_GENERATION": "true", "ALERTCHAT_NO_RELATED": "true",
		"ALERTCHAT_NO_TOOLS": "false", "ALERTCHAT_MAX_TOOL_CALLS": "12", "ALERTCHAT_MAX_TOOL_RESULT": "32768",
		"ALERTCHAT_RAW": "true", "ALERTCHAT_LOG_LEVEL": "warn", "ALERTCHAT_VERBOSE": "false", "ALERTCHAT_STORE_TIMEOUT": "5s",
		"ALERTCHAT_MAX_ATTEMPTS": "1", "ALERTCHAT_MAX_WAIT": "1s", "ALERTCHAT_CALL_TIMEOUT": "20s",
	}
	skip := map[string]bool{"ALERTCHAT_ALERT": true, "ALERTCHAT_CONTINUE": true, "ALERTCHAT_THINKING": true, "ALERTCHAT_EMBEDDINGS": true}
	var dotenv strings.Builder
	names := envNamesFromSource(t)
	for _, name := range names {
		if skip[name] {
			continue
		}
		v, ok := specific[name]
		up := strings.ToUpper(name)
		switch {
		case ok:
		case strings.Contains(up, "PROXY"):
			v = elsewhereURL
		case strings.HasSuffix(up, "_HOST") || strings.HasSuffix(up, "_IP") || strings.HasSuffix(up, "ADDR") || strings.HasSuffix(up, "ADDRESS"):
			v = elsewhereHost
		case strings.Contains(up, "URL") || strings.Contains(up, "ENDPOINT") || strings.Contains(up, "DOMAIN") || strings.Contains(up, "URI"):
			v = elsewhereURL
		case slices.Contains([]string{"PAGER", "BROWSER", "EDITOR", "VISUAL", "SHELL"}, up):
			v = program
		case strings.Contains(up, "CONFIG") || strings.Contains(up, "FILE") || strings.Contains(up, "CRED") || strings.Contains(up, "CERT"):
			v = filepath.Join(folder, "cert.json")
		case strings.Contains(up, "DIR") || strings.Contains(up, "PATH") || strings.Contains(up, "HOME"):
			v = folder
		default:
			v = "true"
		}
		fmt.Fprintf(&dotenv, "%s=%q\n", name, v)
	}
	write(filepath.Join(folder, ".env"), dotenv.String(), 0o600)
	t.Logf(".env of %d variables", len(names))

	check := func(what string, r result) {
		t.Helper()
		t.Logf("%s: exit %d", what, r.code)
		if !strings.Contains(r.stderr, " sets GOOGLE_API_CERTIFICATE_CONFIG,") {
			t.Errorf("%s: the .env was not read: %s", what, r.stderr)
		}
		if ran, _ := os.ReadDir(markers); len(ran) != 0 {
			var ns []string
			for _, e := range ran {
				ns = append(ns, e.Name())
			}
			t.Fatalf("%s ran planted programs: %v", what, ns)
		}
		if n := elsewhere.n.Load(); n != 0 {
			t.Fatalf("%s: %d connections to the server the .env names", what, n)
		}
		for _, req := range srv.Requests() {
			if strings.Contains(req.Path, "/projects/") || req.Header.Get("x-goog-api-key") != "test-key" {
				t.Fatalf("%s: a request for another project or with another key: %s", what, req.Path)
			}
		}
	}
	mustOK := func(stdin string, args ...string) string {
		t.Helper()
		r := c.run(stdin, args...)
		check(fmt.Sprint(args), r)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		return r.stdout
	}

	if out := mustOK("", "alert", "list", "-o", "json"); strings.Contains(out, "PLANTED") || !strings.Contains(out, alertID) {
		t.Errorf("alert list read the planted store: %s", out)
	}
	if r := c.run("", "alert", "show", plantedAlert); r.code != 3 {
		t.Errorf("the planted alert is found: exit %d", r.code)
	}
	var second chatOut
	if err := json.Unmarshal([]byte(mustOK("", "chat", "-o", "json", "-a", alertID, "-q", "and 198.51.100.23 again?")), &second); err != nil || second.Answer == "" {
		t.Fatalf("chat: %v %+v", err, second)
	}
	mustOK("", "history", "list")
	out := mustOK("", "history", "list", "-o", "json")
	if strings.Contains(out, "PLANTED") || strings.Contains(out, "mallory") {
		t.Errorf("history list read the planted store or took the planted analyst: %s", out)
	}
	shown := mustOK("", "history", "show", second.HistoryID, "-o", "json")
	if got := token.FindString(shown); got != realToken {
		t.Errorf("the IP's token is %q, not the workspace's %q: a planted key was used", got, realToken)
	}
	if strings.Contains(shown, "198.51.100.23") {
		t.Error("stored unredacted")
	}
	mustOK("", "history", "search", "again")
	mustOK("", "mcp", "list")
	mustOK("", "models")
	write(filepath.Join(folder, "q.jsonl"), fmt.Sprintf(`{"alert_id": %q, "query": "batch?"}`+"\n", alertID), 0o600)
	mustOK("", "batch", "-f", "q.jsonl")

	// With the cloud store in the real environment (no network here, credentials of the
	// environment's own), opening the Google clients starts no certificate signer.
	write(filepath.Join(home, "adc.json"), `{"type": "authorized_user", "client_id": "c", "client_secret": "s", "refresh_token": "r"}`, 0o600)
	c.env = append(c.env, "ALERTCHAT_FIRESTORE_PROJECT=team-project", "ALERTCHAT_BUCKET=team-bucket",
		"GOOGLE_APPLICATION_CREDENTIALS="+filepath.Join(home, "adc.json"), "ALERTCHAT_DATA_DIR="+filepath.Join(home, "data"))
	for _, args := range [][]string{{"alert", "list"}, {"history", "list"}} {
		r := c.run("", append([]string{"--store-timeout", "1s"}, args...)...)
		check(fmt.Sprint("cloud ", args), r)
	}
}
