// Package archtest holds the import rules of docs/contributing.md's Architecture section as a test: a
// package that imports against them fails `go test ./...`.
package archtest

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/alertchat/alertchat/"

// rule: packages matching From (a path, or a path ending in "/..." for it and everything
// below) must not import anything matching one of Not, unless it matches one of Except.
type rule struct {
	from   string
	not    []string
	except []string
	why    string
}

// testInfra is what tests are built with: fakes, suites, emulator launchers. None of it may
// reach the shipped binary.
var testInfra = []string{
	"internal/clitest", "internal/emulator", "internal/eventually", "internal/geminitest", "internal/httprr",
	"internal/mcptest", "internal/searchtest", "internal/storetest", "internal/syncbuf", "internal/termtest",
	"internal/testenv",
}

var rules = []rule{
	{"pkg/...", []string{"cmd/..."}, nil, "the library never reaches up into the command line"},
	{"pkg/...", testInfra, nil, "test infrastructure stays out of the library"},
	{"cmd/...", testInfra, nil, "test infrastructure stays out of the command line"},
	{"cmd/cmdutil", []string{"cmd/...", "pkg/..."}, []string{"pkg/sentinel", "pkg/termsafe", "pkg/mdstream", "pkg/statusline", "pkg/format", "pkg/redact"}, "what every command shares stays light: no store, no model"},
	{"cmd/redact", []string{"cmd/factory", "cmd/lookup", "cmd/hits", "cmd/report", "cmd/sessionutil", "pkg/workspace", "pkg/store/...", "pkg/session", "pkg/llm", "pkg/record"}, nil, "redact needs neither storage nor the model"},
	{"cmd/lookup", []string{"cmd/..."}, []string{"cmd/cmdutil"}, "what the commands share is below them, beside cmdutil"},
	{"cmd/hits", []string{"cmd/..."}, []string{"cmd/cmdutil"}, "what the commands share is below them, beside cmdutil"},
	{"cmd/factory", []string{"cmd/..."}, []string{"cmd/cmdutil"}, "the factory constructs, it uses no command nor their helpers"},
	{"cmd/report", []string{"cmd/..."}, []string{"cmd/cmdutil"}, "what the commands share is below them, beside cmdutil"},
	{"cmd/report", []string{"pkg/tool/...", "pkg/evidence", "pkg/search/...", "pkg/workspace"}, nil, "telling what the store and the model did needs no tools: history, alert and models link none"},
	{"cmd/sessionutil", []string{"cmd/..."}, []string{"cmd/cmdutil"}, "what the commands share is below them, beside cmdutil"},
	{"pkg/modelcfg", []string{"pkg/..."}, nil, "what each model takes is a leaf every request builder asks"},
	{"pkg/record", []string{"pkg/..."}, nil, "the records are a leaf"},
	{"pkg/sentinel", []string{"pkg/..."}, nil, "the kinds of failure are a leaf the library returns and the command line maps to exit codes"},
	{"pkg/redact", []string{"pkg/..."}, nil, "the redaction engine is a leaf"},
	{"pkg/store/index", []string{"pkg/..."}, nil, "index primitives are a leaf both stores and search build on"},
	{"pkg/ioc", []string{"pkg/..."}, nil, "reading indicators is a leaf reports build on"},
	{"pkg/handoff", []string{"pkg/store/...", "pkg/workspace", "pkg/session", "pkg/tool/...", "pkg/search/...", "pkg/batch/...", "pkg/mcp/..."}, nil, "a report is made of records the command read: it reads no store and calls no model"},
	{"pkg/tool", []string{"pkg/..."}, nil, "the tool contract is a leaf: built-in and MCP tools implement it"},
	{"pkg/tokenbudget", []string{"pkg/..."}, nil, "token estimates are a leaf"},
	{"pkg/format", []string{"pkg/..."}, nil, "formatting is a leaf"},
	{"pkg/termsafe", []string{"pkg/..."}, nil, "terminal safety is a leaf"},
	{"pkg/statusline", []string{"pkg/..."}, []string{"pkg/format"}, "the status line draws text, nothing more"},
	{"pkg/llm", []string{"pkg/..."}, []string{"pkg/retry"}, "model calls depend on nothing of ours"},
	{"pkg/retry", []string{"pkg/..."}, nil, "backoff and the network verdict are a leaf both retrying callers share"},
	{"pkg/store/...", []string{"pkg/session", "pkg/search/...", "pkg/tool/...", "pkg/batch/...", "pkg/mcp/...", "pkg/samechat", "pkg/transcript"}, nil, "storage never depends on what uses it"},
	{"pkg/store/spool", []string{"pkg/session", "pkg/search/...", "pkg/tool/..."}, nil, "the spool is storage"},
	{"pkg/workspace", []string{"pkg/session", "pkg/tool/...", "pkg/batch/...", "pkg/mcp/...", "pkg/samechat", "pkg/transcript", "pkg/evidence"}, nil, "a workspace's store is storage, redaction and embeddings: sessions and tools build on it"},
	{"pkg/workspace", []string{"pkg/search/..."}, nil, "a save goes down the store's layers (the embedding layer is pkg/store/embedding), never up into search and back"},
	{"pkg/redacthist", []string{"pkg/store/...", "pkg/session"}, nil, "the redaction step is below the stores"},
	{"pkg/search", []string{"pkg/session", "pkg/tool/...", "pkg/batch/...", "pkg/mcp/..."}, nil, "search builds on the stores only"},
	{"pkg/session", []string{"pkg/tool/builtin", "pkg/mcp/...", "pkg/search/...", "pkg/batch/...", "pkg/samechat"}, nil, "the conversation engine knows tools only through pkg/tool"},
	{"pkg/tool/builtin", []string{"pkg/session", "pkg/mcp/...", "pkg/batch/..."}, nil, "built-in tools read the store and search"},
	{"pkg/mcp/...", []string{"pkg/session", "pkg/store/...", "pkg/search/...", "pkg/batch/..."}, nil, "the MCP client is a tool source, nothing more"},
	{"pkg/knowledge", []string{"pkg/session", "pkg/tool/...", "pkg/search/...", "pkg/batch/...", "pkg/mcp/...", "pkg/workspace"}, nil, "team knowledge is records and their matching over the store: sessions and tools use it"},
	{"pkg/evidence", []string{"pkg/session", "pkg/store/...", "pkg/search/...", "pkg/batch/...", "pkg/mcp/...", "pkg/tool/builtin"}, nil, "evidence folders are a tool source over files, never the store"},
}

// commandOf is the command a package under cmd/ belongs to ("chat" for cmd/chat and
// cmd/chat/x), "" for the root package cmd, which wires every command, and for packages
// outside cmd/.
func commandOf(path string) string {
	rest, ok := strings.CutPrefix(path, "cmd/")
	if !ok {
		return ""
	}
	a, _, _ := strings.Cut(rest, "/")
	return a
}

// crossCommand reports whether from, a package of one command, imports another command: it may
// import the wiring (cmd/cmdutil, cmd/factory), what the commands share beside it (cmd/lookup,
// cmd/hits, cmd/report, cmd/sessionutil) and its own subpackages, never cmd/<b>. What two commands share otherwise goes
// into the library, below both.
func crossCommand(from, imp string) bool {
	a, b := commandOf(from), commandOf(imp)
	if a == "" || b == "" || a == b {
		return false
	}
	return !shared[b]
}

// shared are the packages under cmd/ that are not commands: every command may import them.
var shared = map[string]bool{"cmdutil": true, "factory": true, "lookup": true, "report": true, "hits": true, "sessionutil": true}

// violations are the reasons from importing imp breaks the rules (none when it may).
func violations(from, imp string) []string {
	var why []string
	if crossCommand(from, imp) {
		why = append(why, "no command imports another: what two share goes into pkg/")
	}
	for _, r := range rules {
		if !matches(r.from, from) {
			continue
		}
		bad := slices.ContainsFunc(r.not, func(p string) bool { return matches(p, imp) })
		if bad && !slices.ContainsFunc(r.except, func(p string) bool { return matches(p, imp) }) {
			why = append(why, r.why)
		}
	}
	return why
}

func matches(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

// packages returns the module's packages (relative paths) and their non-test imports of the
// module, read with go/build: no go tool, no network.
func packages(t *testing.T) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.Default.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files, or only tests
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for _, imp := range pkg.Imports {
			if own, ok := strings.CutPrefix(imp, module); ok {
				out[rel] = append(out[rel], own)
			}
		}
		if _, ok := out[rel]; !ok {
			out[rel] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestImportsPointDown(t *testing.T) {
	t.Parallel()
	pkgs := packages(t)
	for _, want := range []string{"pkg/record", "pkg/session", "cmd/cmdutil", "pkg/store/local"} {
		if _, ok := pkgs[want]; !ok {
			t.Fatalf("package %s not found: the walk is broken", want)
		}
	}
	for path, imports := range pkgs {
		for _, imp := range imports {
			if imp == path {
				continue
			}
			for _, why := range violations(path, imp) {
				t.Errorf("%s imports %s: %s", path, imp, why)
			}
		}
	}
}

// TestBinaryHoldsNoTestInfrastructure follows the imports from the main package, as
// `go list -deps .` does, and finds none of the test infrastructure.
func TestBinaryHoldsNoTestInfrastructure(t *testing.T) {
	t.Parallel()
	pkgs := packages(t)
	seen := map[string]bool{}
	var walk func(p string)
	walk = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, imp := range pkgs[p] {
			walk(imp)
		}
	}
	walk(".")
	if !seen["pkg/session"] || !seen["pkg/store/local"] {
		t.Fatalf("the walk from the main package missed the session and the store: %d packages", len(seen))
	}
	for p := range seen {
		if slices.ContainsFunc(testInfra, func(ti string) bool { return matches(ti, p) }) {
			t.Errorf("the binary links %s", p)
		}
	}
}

// TestRulesCatchAnUpwardImport checks the checker: a rule table applied to a made-up upward
// import reports it.
func TestRulesCatchAnUpwardImport(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		from, imp string
		want      bool
	}{
		{"pkg/store/local", "pkg/session", true},
		{"pkg/store/cloud", "pkg/search", true},
		{"pkg/session", "internal/geminitest", true},
		{"pkg/session", "pkg/tool", false},
		{"pkg/session", "pkg/tool/builtin", true},
		{"cmd/chat", "cmd/alert", true},
		{"cmd/chat", "cmd/factory", false},
		{"cmd/chat", "cmd/cmdutil", false},
		{"cmd/chat", "cmd/mcp", true},
		{"cmd/mcp", "cmd/chat", true},
		{"cmd/history", "cmd/history/shared", false},
		{"cmd/alert", "cmd/history/shared", true},
		{"cmd/alert/shared", "cmd/history/shared", true},
		{"cmd/alert/shared", "cmd/alert", false},
		{"cmd/factory", "cmd/chat", true},
		{"cmd", "cmd/chat", false},
		{"cmd/redact", "cmd/factory", true},
		{"pkg/mcp", "cmd/mcp", true},
		{"cmd/lookup", "cmd/factory", true},
		{"cmd/cmdutil", "pkg/sentinel", false},
		{"cmd/cmdutil", "pkg/store", true},
		{"cmd/cmdutil", "pkg/redact", false},
		{"cmd/chat", "cmd/sessionutil", false},
		{"cmd/history", "cmd/report", false},
		{"cmd/redact", "cmd/report", true},
		{"cmd/report", "pkg/tool/builtin", true},
		{"cmd/sessionutil", "cmd/factory", true},
		{"cmd/sessionutil", "cmd/report", true},
		{"cmd/history", "cmd/lookup", false},
		{"cmd/hits", "cmd/history", true},
		{"pkg/workspace", "pkg/session", true},
		{"pkg/workspace", "cmd/factory", true},
		{"pkg/search", "pkg/store/index", false},
		{"pkg/workspace", "pkg/search", true},
		{"pkg/workspace", "pkg/store/embedding", false},
		{"pkg/store/embedding", "pkg/search", true},
		{"pkg/search", "pkg/store/embedding", false},
	} {
		got := len(violations(tc.from, tc.imp)) > 0
		if got != tc.want {
			t.Errorf("%s -> %s: flagged %v, want %v", tc.from, tc.imp, got, tc.want)
		}
	}
	if _, err := os.Stat("../../go.mod"); err != nil {
		t.Fatalf("the test must run from its package directory: %v", err)
	}
}
