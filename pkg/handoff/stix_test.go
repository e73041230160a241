package handoff_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/alertchat/alertchat/pkg/handoff"
)

// stixSchemas resolves the OASIS STIX 2.1 JSON schema of a bundle from the copy in testdata
// (see testdata/stix2.1-schemas/README.md): every $ref is read from there, never fetched.
func stixSchemas(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	const base = "http://raw.githubusercontent.com/oasis-open/cti-stix2-json-schemas/stix2.1/schemas/"
	dir := filepath.Join("testdata", "stix2.1-schemas", "schemas")
	read := func(rel string) (*jsonschema.Schema, error) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		var s jsonschema.Schema
		return &s, json.Unmarshal(b, &s)
	}
	root, err := read("common/bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	loader := func(u *url.URL) (*jsonschema.Schema, error) {
		return read(strings.TrimPrefix(u.String(), base))
	}
	rs, err := root.Resolve(&jsonschema.ResolveOptions{BaseURI: base + "common/bundle.json", Loader: loader})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func stixBundle(t *testing.T) []byte {
	t.Helper()
	r := handoff.Build(investigation())
	bundle, skipped := r.STIX(r.IOCs())
	if skipped != 2 {
		t.Errorf("skipped %d, want the ARN and the instance ID", skipped)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(bundle); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSTIXGolden(t *testing.T) {
	t.Parallel()
	got := stixBundle(t)
	golden(t, "iocs.stix.json", got)
	// Deterministic: the same history exports the same bundle.
	if again := stixBundle(t); !bytes.Equal(got, again) {
		t.Error("a second export differs")
	}
	// The URL's quote and backslash are escaped as STIX patterning requires.
	if !strings.Contains(string(got), `"pattern": "[url:value = 'http://evil.example.com/a\\'b\\\\c']"`) {
		t.Errorf("escaped pattern not found:\n%s", got)
	}
}

func TestSTIXValidatesAgainstOASISSchemas(t *testing.T) {
	t.Parallel()
	rs := stixSchemas(t)
	var v any
	if err := json.Unmarshal(stixBundle(t), &v); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(v); err != nil {
		t.Fatalf("bundle does not validate: %v", err)
	}
	// The validator does reject: an indicator without its pattern is refused.
	objs := v.(map[string]any)["objects"].([]any)
	delete(objs[1].(map[string]any), "pattern")
	if err := rs.Validate(v); err == nil {
		t.Fatal("an indicator without a pattern validated")
	}
}
