package mcp_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/mcp"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/presets")

// golden compares got with testdata/presets/name (rewritten with -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "presets", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s:\n%s\nwant:\n%s", name, got, want)
	}
}

// What 'mcp add' writes for each preset into a new file, and into existing files of several
// shapes, whose text is kept byte for byte around the inserted entry.
func TestAddServerGolden(t *testing.T) {
	t.Parallel()
	env := func(k string) string { return map[string]string{"VT_APIKEY": "k"}[k] }
	for _, tc := range []struct {
		preset, project, region string
		getenv                  func(string) string
	}{
		{"virustotal", "", "", nil},
		{"virustotal", "", "", env},
		{"google-logging", "", "", nil},
		{"google-bigquery", "sec-prod-1234", "", nil},
		{"google-scc", "", "", nil},
		{"google-secops", "sec-prod-1234", "europe-west2", nil},
	} {
		entry, err := mcp.PresetEntry(tc.preset, tc.project, tc.region, tc.getenv)
		if err != nil {
			t.Fatal(err)
		}
		out, err := mcp.AddServer(nil, tc.preset, entry, false)
		if err != nil {
			t.Fatal(err)
		}
		name := tc.preset
		if tc.getenv != nil {
			name += "-apikey"
		}
		golden(t, "new-"+name+".json", out)
	}

	entry, err := mcp.PresetEntry("virustotal", "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, in string }{
		// Tabs, a comment-like string, odd spacing and key order: all kept.
		{"existing", "{\n\t\"internalDomains\": [\"corp.example\"],\n\t\"mcpServers\": {\n\t\t\"siem\":   {\"httpUrl\": \"https://siem.example/mcp\", \"headers\": {\"Authorization\": \"Bearer $SIEM_TOKEN\"}}\n\t}\n}\n"},
		{"empty-servers", "{\"mcpServers\": {}}\n"},
		{"no-servers", "{\n  \"internalDomains\": [\"corp.example\"]\n}"},
		{"one-line", `{"mcpServers": {"a": {"command": "x"}}}`},
	} {
		out, err := mcp.AddServer([]byte(tc.in), "virustotal", entry, false)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		golden(t, tc.name+".json", out)
		if tc.name == "existing" && !strings.HasPrefix(string(out), strings.TrimSuffix(tc.in, "\n\t}\n}\n")) {
			t.Errorf("the text before the entry changed:\n%s", out)
		}
	}
}

// An entry of that name is kept unless replace; replaced, only its value changes.
func TestAddServerExisting(t *testing.T) {
	t.Parallel()
	in := "{\n  \"mcpServers\": {\n    \"virustotal\": {\"command\": \"vt-mcp\"},\n    \"siem\": {\"command\": \"siem\"}\n  }\n}\n"
	entry, _ := mcp.PresetEntry("virustotal", "", "", nil)
	if _, err := mcp.AddServer([]byte(in), "virustotal", entry, false); !errors.Is(err, mcp.ErrServerExists) {
		t.Fatalf("err %v, want ErrServerExists", err)
	}
	out, err := mcp.AddServer([]byte(in), "virustotal", entry, true)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "replaced.json", out)
	if !strings.HasSuffix(string(out), ",\n    \"siem\": {\"command\": \"siem\"}\n  }\n}\n") {
		t.Errorf("the rest of the file changed:\n%s", out)
	}
}

// Bad input: an unknown preset names the presets; google-secops needs --project and --region;
// a project or region of another shape is refused; a file that is not a config is left alone.
func TestPresetEntryBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ preset, project, region, says string }{
		{"shodan", "", "", `unknown preset "shodan": the presets are google-bigquery, google-logging, google-scc, google-secops, virustotal`},
		{"google-secops", "", "us", "preset google-secops needs --project"},
		{"google-secops", "sec-prod-1234", "", "preset google-secops needs --region"},
		{"google-secops", "Bad_Project", "us", `--project "Bad_Project" is not a Google Cloud project ID`},
		{"google-secops", "sec-prod-1234", "us/../evil", `--region "us/../evil" is not a region name`},
		{"google-logging", "", "us", "preset google-logging has one global endpoint: --region is not for it"},
	} {
		if _, err := mcp.PresetEntry(tc.preset, tc.project, tc.region, nil); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %q", tc.preset, err, tc.says)
		}
	}
	entry, _ := mcp.PresetEntry("google-scc", "", "", nil)
	if _, err := mcp.AddServer([]byte(`{"mcpServers": [`), "google-scc", entry, false); err == nil {
		t.Error("a broken file was edited")
	}
}

// FuzzAddServer: whatever valid config it is given, the result is a valid config holding the
// entry, and the text before the inserted entry is the file's own.
func FuzzAddServer(f *testing.F) {
	for _, s := range []string{`{"mcpServers": {}}`, "{\n\t\"mcpServers\": {\"a\": {\"command\": \"x\"}}\n}", `{"internalDomains": ["a.example"]}`, `{}`} {
		f.Add(s)
	}
	entry, _ := mcp.PresetEntry("google-logging", "", "", nil)
	f.Fuzz(func(t *testing.T, in string) {
		if _, err := mcp.Parse([]byte(in), func(string) string { return "" }); err != nil {
			return
		}
		out, err := mcp.AddServer([]byte(in), "google-logging", entry, true)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		c, err := mcp.Parse(out, func(string) string { return "" })
		if err != nil || c.Servers["google-logging"].HTTPURL != "https://logging.googleapis.com/mcp" {
			t.Fatalf("%q -> %q: %v", in, out, err)
		}
	})
}
