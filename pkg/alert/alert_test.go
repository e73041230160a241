package alert_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/alert"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		title   string
		wantErr bool
	}{
		{"object", `{"Title": "Bad DNS", "severity": 8}`, "Bad DNS", false},
		{"array", `[{"title": "one"}, {"title": "two"}]`, "one", false},
		{"guardduty envelope", `{"Findings": [{"Title": "Trojan:EC2/DropPoint!DNS", "Type": "x"}]}`, "Trojan:EC2/DropPoint!DNS", false},
		{"scc", `{"finding": {"name": "organizations/1/sources/2/findings/3", "category": "Persistence: IAM Anomalous Grant"}}`, "Persistence: IAM Anomalous Grant", false},
		{"no title", `{"a": 1}`, "", false},
		{"surrounding space", "\n  {\"a\": 1}\n", "", false},
		{"empty", ``, "", true},
		{"spaces only", "   \n", "", true},
		{"string", `"hello"`, "", true},
		{"number", `42`, "", true},
		{"broken", `{"a": `, "", true},
		{"trailing", `{"a": 1} {"b": 2}`, "", true},
		{"trailing garbage", `{"a": 1} xyz`, "", true},
		{"binary", "{\"a\": \"\xff\xfe\"}", "", true},
		{"not json", `hello world`, "", true},
		{"too large", `{"a": "` + strings.Repeat("x", alert.MaxSize) + `"}`, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, err := alert.Parse([]byte(tc.in))
			if tc.wantErr {
				if !errors.Is(err, alert.ErrInvalid) {
					t.Fatalf("want ErrInvalid, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Title != tc.title {
				t.Errorf("title %q, want %q", a.Title, tc.title)
			}
			if string(a.Data) != strings.TrimSpace(tc.in) {
				t.Errorf("data not kept as given: %q", a.Data)
			}
		})
	}
}

func TestIDIsContentDerived(t *testing.T) {
	t.Parallel()
	a, _ := alert.Parse([]byte(`{"b": [1, 2.50, "x"], "a": {"y": true, "x": null}}`))
	b, _ := alert.Parse([]byte("{\n  \"a\": {\"x\": null, \"y\": true},\n  \"b\": [1, 2.50, \"x\"]\n}"))
	c, _ := alert.Parse([]byte(`{"b": [1, 2.5, "x"], "a": {"y": true, "x": null}}`))
	d, _ := alert.Parse([]byte(`{"b": [1, 2.50, "y"], "a": {"y": true, "x": null}}`))
	if a.ID != b.ID {
		t.Fatalf("formatting or key order changed the ID: %s vs %s", a.ID, b.ID)
	}
	if a.ID == d.ID {
		t.Fatal("different content, same ID")
	}
	_ = c // 2.50 and 2.5 are kept as written; either ID is acceptable.
	if len(a.ID) != 36 {
		t.Fatalf("ID %q is not a UUID", a.ID)
	}
}

func TestSampleAlerts(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../../testdata/alerts/*.json")
	if len(files) == 0 {
		t.Fatal("no sample alerts in testdata/alerts")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		a, err := alert.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if a.Title == "" {
			t.Errorf("%s: no title found", f)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"Findings":[{"Title":"x"}]}`, `{"a":1e400}`, "\xff", `[[[[[]]]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := alert.Parse(data)
		if err != nil {
			if !errors.Is(err, alert.ErrInvalid) {
				t.Fatalf("error is not ErrInvalid: %v", err)
			}
			return
		}
		again, err := alert.Parse(a.Data)
		if err != nil || again.ID != a.ID {
			t.Fatalf("re-parsing the stored alert changed it: %v", err)
		}
	})
}
