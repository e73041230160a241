package alert_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/alert"
)

func parseTitles(t *testing.T, in string) ([]alert.Finding, []string) {
	t.Helper()
	fs, err := alert.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, f := range fs {
		titles = append(titles, f.Alert.Title)
	}
	return fs, titles
}

func TestParseShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		titles []string
		places []string
		data   []string // stored as given; nil: the whole input
	}{
		{"object", `{"Title": "Bad DNS", "severity": 8}`, []string{"Bad DNS"}, []string{"line 1"}, nil},
		{"surrounding space", "\n  {\"a\": 1}\n", []string{"a=1"}, []string{"line 2"}, nil},
		{"array of findings", `[{"title": "one"}, {"title": "two"}]`, []string{"one", "two"}, []string{"line 1, [0]", "line 1, [1]"},
			[]string{`{"title": "one"}`, `{"title": "two"}`}},
		{"aws envelope", "{\n \"Findings\": [\n  {\"Title\": \"a\"},\n  {\"Title\": \"b\"}\n ],\n \"NextToken\": null\n}", []string{"a", "b"},
			[]string{"line 3, Findings[0]", "line 4, Findings[1]"}, []string{`{"Title": "a"}`, `{"Title": "b"}`}},
		{"aws envelope, list not first", `{"NextToken": "x", "Findings": [{"Title": "a"}, {"Title": "b"}]}`, []string{"a", "b"},
			[]string{"line 1, Findings[0]", "line 1, Findings[1]"}, []string{`{"Title": "a"}`, `{"Title": "b"}`}},
		{"scc list", `[{"finding": {"name": "organizations/1/sources/2/findings/3", "category": "Persistence: IAM Anomalous Grant"}, "resource": {"name": "r"}}]`,
			[]string{"Persistence: IAM Anomalous Grant"}, []string{"line 1, [0]"},
			[]string{`{"finding": {"name": "organizations/1/sources/2/findings/3", "category": "Persistence: IAM Anomalous Grant"}, "resource": {"name": "r"}}`}},
		{"scc notification", `{"notificationConfigName": "organizations/1/notificationConfigs/n", "finding": {"name": "organizations/1/sources/2/findings/3", "category": "Malware: Bad Domain"}, "resource": {}}`,
			[]string{"Malware: Bad Domain"}, []string{"line 1"}, nil},
		{"eventbridge guardduty", `{"version": "0", "detail-type": "GuardDuty Finding", "source": "aws.guardduty", "time": "2024-01-02T03:04:05Z", "detail": {"schemaVersion": "2.0", "type": "Recon:EC2/PortProbeUnprotectedPort", "title": "Unprotected port probed", "severity": 2, "arn": "arn:aws:guardduty:us-east-1:1:detector/d/finding/f"}}`,
			[]string{"Unprotected port probed"}, []string{"line 1"}, nil},
		{"eventbridge security hub", `{"detail-type": "Security Hub Findings - Imported", "source": "aws.securityhub", "detail": {"findings": [{"Title": "S3 bucket public"}, {"Title": "Root MFA off"}]}}`,
			[]string{"S3 bucket public", "Root MFA off"}, []string{"line 1, detail.findings[0]", "line 1, detail.findings[1]"},
			[]string{`{"Title": "S3 bucket public"}`, `{"Title": "Root MFA off"}`}},
		{"eventbridge other", `{"detail-type": "Inspector2 Finding", "source": "aws.inspector2", "detail": {"x": 1}}`, []string{"Inspector2 Finding"}, []string{"line 1"}, nil},
		{"ndjson", "{\"title\": \"one\"}\n\n{\"title\": \"two\"}\r\n{\"title\": \"three\"}", []string{"one", "two", "three"},
			[]string{"line 1", "line 3", "line 4"}, []string{`{"title": "one"}`, `{"title": "two"}`, `{"title": "three"}`}},
		{"concatenated pretty values", "{\n \"title\": \"one\"\n}\n{\n \"title\": \"two\"\n}\n", []string{"one", "two"}, []string{"line 1", "line 4"},
			[]string{"{\n \"title\": \"one\"\n}", "{\n \"title\": \"two\"\n}"}},
		{"list of no objects: one alert", `[1, "x"]`, []string{"JSON list of 2 values"}, []string{"line 1"}, nil},
		{"nested list: one alert", `[[{"title": "a"}]]`, []string{"a"}, []string{"line 1"}, nil},
		{"numbers: one alert", `[1, 2]`, []string{"JSON list of 2 values"}, []string{"line 1"}, nil},
		{"byte order mark", "\xef\xbb\xbf{\"title\": \"x\"}", []string{"x"}, []string{"line 1"}, []string{`{"title": "x"}`}},
		{"braces inside strings", `{"title": "a } ] \" {"}` + "\n" + `{"title": "b"}`, []string{`a } ] " {`, "b"}, []string{"line 1", "line 2"},
			[]string{`{"title": "a } ] \" {"}`, `{"title": "b"}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs, titles := parseTitles(t, tc.in)
			if strings.Join(titles, "|") != strings.Join(tc.titles, "|") {
				t.Errorf("titles %q, want %q", titles, tc.titles)
			}
			for i, f := range fs {
				if i < len(tc.places) && f.Place.String() != tc.places[i] {
					t.Errorf("finding %d at %q, want %q", i, f.Place, tc.places[i])
				}
				want := strings.TrimPrefix(strings.TrimSpace(tc.in), "\xef\xbb\xbf")
				if tc.data != nil {
					want = tc.data[i]
				}
				if string(f.Alert.Data) != want {
					t.Errorf("finding %d stored as %q, want %q", i, f.Alert.Data, want)
				}
				if len(f.Alert.ID) != 36 {
					t.Errorf("ID %q is not a UUID", f.Alert.ID)
				}
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		place string // in the message
	}{
		{"empty", ``, "empty"},
		{"spaces only", "   \n", "empty"},
		{"string", `"hello"`, "line 1: not a JSON object or array"},
		{"number", `42`, "line 1: not a JSON object or array"},
		{"broken", `{"a": `, "line 1: not valid JSON: unexpected end of input"},
		{"trailing garbage", `{"a": 1} xyz`, "line 1: not JSON"},
		{"binary", "{\"a\": \"\xff\xfe\"}", "line 1: not UTF-8"},
		{"not json", `hello world`, "line 1: not JSON"},
		{"line not json", "{\"a\": 1}\n{\"a\": 2}\nnot json at all\n{\"a\": 3}", "line 3: not JSON"},
		{"line broken", "{\"a\": 1}\n{\"a\": 2,}\n", "line 2: not valid JSON"},
		{"guardduty api element not an object", "{\"findings\": [\n{\"title\": \"a\"},\n42]}", "line 3, findings[1]: not a JSON object"},
		{"scc rest element broken", "{\"listFindingsResults\": [\n{\"finding\": {}},\n{\"finding\": }]}", "line 3, listFindingsResults[1]: not valid JSON"},
		{"scc rest element not an object", `{"readTime": "2024-01-01T00:00:00Z", "listFindingsResults": [{"finding": {}}, 7]}`, "line 1, listFindingsResults[1]: not a JSON object"},
		{"skipped event broken", "{\"event_type\": \"flow\", \"flow_id\": 1}\n{\"event_type\": \"flow\", \"flow_id\": }\n", "line 2: not valid JSON"},
		{"aws element not an object", "{\"Findings\": [\n{\"Title\": \"a\"},\n42]}", "line 3, Findings[1]: not a JSON object"},
		{"missing comma", "[{\"a\": 1}\n{\"a\": 2}]", "line 1: not valid JSON"},
		{"unterminated list", "[{\"a\": 1},\n", "line 1: not valid JSON: unexpected end of input"},
		{"too large", `{"a": "` + strings.Repeat("x", alert.MaxSize) + `"}`, "line 1: value is larger than the limit"},
		{"too large element", `[{"a": "` + strings.Repeat("x", alert.MaxSize) + `"}]`, "line 1, [0]: value is larger than the limit"},
		{"list element not an object", `[{"title": "a"}, "x"]`, "line 1, [1]: not a JSON object"},
		{"scc list element not an object", `[{"finding": {"name": "organizations/1/sources/2/findings/3", "category": "X"}, "resource": {}}, 7]`, "line 1, [1]: not a JSON object"},
		{"streamed list element not an object", `[{"a": "` + strings.Repeat("x", alert.MaxSize-20) + `"}, {"b": 1}, "x"]`, "line 1, [2]: not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs, err := alert.Parse([]byte(tc.in))
			if !errors.Is(err, alert.ErrInvalid) {
				t.Fatalf("want ErrInvalid, got %v (%d findings)", err, len(fs))
			}
			if !strings.Contains(err.Error(), tc.place) {
				t.Errorf("error %q does not say %q", err, tc.place)
			}
		})
	}
}

// A read stops at the first fault: what came before it was yielded, nothing after it.
func TestReadStopsAtFault(t *testing.T) {
	t.Parallel()
	var got int
	var last error
	for _, err := range alert.Read(strings.NewReader("{\"a\": 1}\n{\"a\": 2}\nxx\n{\"a\": 3}\n"), alert.MaxSize) {
		if err != nil {
			last = err
			continue
		}
		got++
	}
	if got != 2 || last == nil || !strings.Contains(last.Error(), "line 3") {
		t.Fatalf("got %d findings, error %v", got, last)
	}
}

// A read error of the input is not the input's fault.
func TestReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk gone")
	r := io.MultiReader(strings.NewReader(`{"a": 1}`+"\n"+`{"a"`), iotestErr{boom})
	var last error
	for _, err := range alert.Read(r, alert.MaxSize) {
		last = err
	}
	if !errors.Is(last, boom) || errors.Is(last, alert.ErrInvalid) {
		t.Fatalf("error %v", last)
	}
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }

func id(t *testing.T, in string) string {
	t.Helper()
	fs, err := alert.Parse([]byte(in))
	if err != nil || len(fs) != 1 {
		t.Fatalf("%v, %d findings", err, len(fs))
	}
	return string(fs[0].Alert.ID)
}

func TestIDIsContentDerived(t *testing.T) {
	t.Parallel()
	a := id(t, `{"b": [1, 2.50, "x"], "a": {"y": true, "x": null}}`)
	b := id(t, "{\n  \"a\": {\"x\": null, \"y\": true},\n  \"b\": [1, 2.50, \"x\"]\n}")
	d := id(t, `{"b": [1, 2.50, "y"], "a": {"y": true, "x": null}}`)
	if a != b {
		t.Fatalf("formatting or key order changed the ID: %s vs %s", a, b)
	}
	if a == d {
		t.Fatal("different content, same ID")
	}
}

// A single object keeps the ID it had before envelopes were recognised.
func TestIDOfSingleObjectUnchanged(t *testing.T) {
	t.Parallel()
	if got := id(t, `{"title":"x","n":1.50}`); got != "f5e380e2-e13d-5388-8ccc-88c8d2a31299" {
		t.Errorf("generic object: %s", got)
	}
	data, err := os.ReadFile("../../testdata/alerts/guardduty-finding.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := id(t, string(data)); got != "514c60ac-5fc0-54af-9cc2-4461a4a576c0" {
		t.Errorf("GuardDuty finding: %s", got)
	}
}

// The same finding is the same alert alone and inside every envelope that carries it.
func TestIDStableAcrossEnvelopes(t *testing.T) {
	t.Parallel()
	gd := `{"SchemaVersion": "2.0", "Type": "Trojan:EC2/DropPoint!DNS", "Title": "Drop point", "Severity": 8, "Arn": "arn:aws:guardduty:us-east-1:1:detector/d/finding/f"}`
	scc := `{"name": "organizations/1/sources/2/findings/3", "category": "Malware: Bad Domain", "severity": "HIGH", "eventTime": "2024-05-01T10:00:00Z"}`
	asff := `{"SchemaVersion": "2018-10-08", "Id": "x", "ProductArn": "arn:aws:securityhub:us-east-1::product/aws/securityhub", "Title": "Root MFA", "Severity": {"Label": "CRITICAL"}}`
	tests := []struct {
		name, alone, wrapped string
	}{
		{"aws envelope", gd, `{"Findings": [{"Title": "other"}, ` + gd + `]}`},
		{"array", gd, `[` + gd + `]`},
		{"ndjson", gd, "{\"a\": 1}\n" + gd},
		{"scc list", scc, `[{"finding": ` + scc + `, "resource": {"name": "//compute"}}]`},
		{"scc notification", scc, `{"notificationConfigName": "organizations/1/notificationConfigs/n", "finding": ` + scc + `, "resource": {"project": "p"}}`},
		{"eventbridge", gd, `{"detail-type": "GuardDuty Finding", "source": "aws.guardduty", "detail": ` + gd + `}`},
		{"security hub event", asff, `{"detail-type": "Security Hub Findings - Imported", "detail": {"findings": [` + asff + `]}}`},
		{"security hub get-findings", asff, `{"Findings": [` + asff + `], "NextToken": "t"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := id(t, tc.alone)
			fs, err := alert.Parse([]byte(tc.wrapped))
			if err != nil {
				t.Fatal(err)
			}
			last := fs[len(fs)-1].Alert
			if string(last.ID) != want {
				t.Errorf("ID %s inside the envelope, %s alone", last.ID, want)
			}
		})
	}
}

func TestSchemas(t *testing.T) {
	t.Parallel()
	ts := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v }
	tests := []struct {
		name, in                string
		title, severity, source string
		when                    time.Time
	}{
		{"guardduty cli", `{"SchemaVersion": "2.0", "Type": "T", "Title": "GD", "Severity": 8.5, "Arn": "arn:aws:guardduty:x", "UpdatedAt": "2024-01-02T03:04:05.5Z"}`, "GD", "high", "guardduty", ts("2024-01-02T03:04:05.5Z")},
		{"guardduty low", `{"SchemaVersion": "2.0", "Type": "T", "Title": "GD", "Severity": 2, "Arn": "arn:aws:guardduty:x"}`, "GD", "low", "guardduty", time.Time{}},
		{"guardduty medium", `{"SchemaVersion": "2.0", "Type": "T", "Title": "GD", "Severity": 5, "Arn": "arn:aws:guardduty:x"}`, "GD", "medium", "guardduty", time.Time{}},
		{"guardduty critical", `{"SchemaVersion": "2.0", "Type": "T", "Title": "GD", "Severity": 9.2, "Arn": "arn:aws:guardduty:x"}`, "GD", "critical", "guardduty", time.Time{}},
		{"guardduty eventbridge", `{"detail-type": "GuardDuty Finding", "source": "aws.guardduty", "time": "2024-03-01T00:00:00Z", "detail": {"schemaVersion": "2.0", "type": "T", "title": "GD", "severity": 7, "arn": "arn:aws:guardduty:x"}}`, "GD", "high", "guardduty", ts("2024-03-01T00:00:00Z")},
		{"asff label", `{"SchemaVersion": "2018-10-08", "ProductArn": "p", "Title": "SH", "Severity": {"Label": "INFORMATIONAL"}, "UpdatedAt": "2024-01-01T00:00:00Z"}`, "SH", "info", "securityhub", ts("2024-01-01T00:00:00Z")},
		{"asff normalized", `{"SchemaVersion": "2018-10-08", "ProductArn": "p", "Title": "SH", "Severity": {"Normalized": 75}}`, "SH", "high", "securityhub", time.Time{}},
		{"scc", `{"finding": {"name": "organizations/1/sources/2/findings/3", "category": "C", "severity": "MEDIUM", "eventTime": "2024-05-01T10:00:00.123Z"}}`, "C", "medium", "scc", ts("2024-05-01T10:00:00.123Z")},
		{"scc unspecified", `{"finding": {"name": "organizations/1/sources/2/findings/3", "category": "C", "severity": "SEVERITY_UNSPECIFIED"}}`, "C", "", "scc", time.Time{}},
		{"suricata alert", `{"timestamp": "2024-01-15T10:23:45.123456+0000", "flow_id": 1, "event_type": "alert", "src_ip": "192.0.2.1", "alert": {"signature": "ET SCAN x", "severity": 1}}`, "ET SCAN x", "high", "suricata", ts("2024-01-15T10:23:45.123456Z")},
		{"suricata 3", `{"flow_id": 1, "event_type": "alert", "alert": {"signature": "s", "severity": 3}}`, "s", "low", "suricata", time.Time{}},
		{"suricata dns", `{"flow_id": 1, "event_type": "dns", "src_ip": "192.0.2.1", "dest_ip": "192.0.2.53"}`, "Suricata dns 192.0.2.1 -> 192.0.2.53", "", "suricata", time.Time{}},
		{"falco", `{"output": "o", "priority": "Warning", "rule": "Terminal shell in container", "time": "2024-02-02T02:02:02.000000002Z"}`, "Terminal shell in container", "medium", "falco", ts("2024-02-02T02:02:02.000000002Z")},
		{"falco critical", `{"output": "o", "priority": "Critical", "rule": "r"}`, "r", "critical", "falco", time.Time{}},
		{"falco notice", `{"output": "o", "priority": "Notice", "rule": "r"}`, "r", "low", "falco", time.Time{}},
		{"falco error", `{"output": "o", "priority": "Error", "rule": "r"}`, "r", "high", "falco", time.Time{}},
		{"falco debug", `{"output": "o", "priority": "Debug", "rule": "r"}`, "r", "info", "falco", time.Time{}},
		{"generic", `{"name": "Impossible travel", "severity": "High", "timestamp": "2024-04-04T04:04:04Z"}`, "Impossible travel", "high", "", ts("2024-04-04T04:04:04Z")},
		{"generic number severity", `{"title": "x", "severity": 8}`, "x", "", "", time.Time{}},
		{"generic summary", `{"id": 5, "summary": "Something odd happened", "level": "x"}`, "Something odd happened", "", "", time.Time{}},
		{"generic log message", `{"host": "web-1", "message": "Failed password for root from 203.0.113.7"}`, "Failed password for root from 203.0.113.7", "", "", time.Time{}},
		{"generic msg", `{"msg": "port scan detected", "priority": "low"}`, "port scan detected", "low", "", time.Time{}},
		{"generic described before message", `{"message": "m", "description": "d"}`, "d", "", "", time.Time{}},
		{"eventbridge without a detail object", `{"detail-type": "Scheduled Event", "source": "aws.events", "detail": null}`, "Scheduled Event", "", "", time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs, err := alert.Parse([]byte(tc.in))
			if err != nil || len(fs) != 1 {
				t.Fatalf("%v %d", err, len(fs))
			}
			a := fs[0].Alert
			if a.Title != tc.title || a.Severity != tc.severity || a.Source != tc.source || !a.Time.Equal(tc.when) {
				t.Errorf("got %q %q %q %v; want %q %q %q %v", a.Title, a.Severity, a.Source, a.Time, tc.title, tc.severity, tc.source, tc.when)
			}
		})
	}
}

// Every sample reads into findings with a title, and the known schemas with a severity and
// source.
func TestSampleAlerts(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../../testdata/alerts/*.json*")
	if len(files) < 8 {
		t.Fatalf("only %d sample alerts in testdata/alerts", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := alert.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, x := range fs {
			if x.Alert.Title == "" {
				t.Errorf("%s %s: no title found", f, x.Place)
			}
			if x.Alert.Source != "" && x.Alert.Time.IsZero() {
				t.Errorf("%s %s: no time", f, x.Place)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"Findings":[{"Title":"x"}]}`, `{"a":1e400}`, "\xff", `[[[[[]]]]]`,
		"{\"a\":1}\n{\"b\":2}", `{"Findings": [{"a": 1}, 2]}`, `{"detail-type": "x", "detail": {"findings": [{"a": 1}]}}`,
		`[{"finding": {"name": "n"}, "resource": {}}]`, `[{"a": 1}, 2]`, `[1, {"a": 1}]`, `{"a": "\"}"}`, `"x`, `{"Findings": [{"a":1}], "b": }`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, err := alert.Parse(data)
		if err != nil {
			if !errors.Is(err, alert.ErrInvalid) {
				t.Fatalf("error is not ErrInvalid: %v", err)
			}
			return
		}
		for _, x := range fs {
			// What is stored reads back as findings, the first of them this one.
			again, err := alert.Parse(x.Alert.Data)
			if err != nil || again[0].Alert.ID != x.Alert.ID {
				t.Fatalf("re-reading the stored alert %q changed it: %v", x.Alert.Data, err)
			}
		}
	})
}

// What each sample of testdata/alerts gives: how many alerts, their severities and source.
func TestSampleFacts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, severities, source string
	}{
		{"guardduty-findings.json", "medium high low", "guardduty"},
		{"securityhub-findings.json", "high critical", "securityhub"},
		{"scc-findings-list.json", "high high", "scc"},
		{"scc-notification.json", "high", "scc"},
		{"eventbridge-guardduty.json", "high", "guardduty"},
		{"eventbridge-securityhub.json", "critical medium", "securityhub"},
		{"suricata-eve.json", "medium high low", "suricata"},
		{"falco-events.jsonl", "low medium critical", "falco"},
		{"guardduty-getfindings-api.json", "high critical low", "guardduty"},
		{"securityhub-findings-workflow.json", "critical high medium", "securityhub"},
		{"scc-rest-list.json", "high critical medium", "scc"},
		{"suricata-eve-mixed.json", "high", "suricata"},
		{"gcp-audit-entries.jsonl", "low high", "gcp-audit"},
		{"k8s-audit-events.jsonl", " ", "k8s-audit"},
		{"okta-system-log.json", "medium info", "okta"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile("../../testdata/alerts/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			// As alert add reads it: the events of a stream that are not alerts left out.
			var fs []alert.Finding
			for f, err := range alert.Read(strings.NewReader(string(data)), alert.MaxSize) {
				if err != nil {
					t.Fatal(err)
				}
				fs = append(fs, f)
			}
			var sev []string
			for _, f := range fs {
				sev = append(sev, f.Alert.Severity)
				if f.Alert.Source != tc.source {
					t.Errorf("%s: source %q", f.Place, f.Alert.Source)
				}
			}
			if got := strings.Join(sev, " "); got != tc.severities {
				t.Errorf("severities %q, want %q", got, tc.severities)
			}
		})
	}
}

// A list longer than the size limit is read an element at a time, each element still within
// the limit, with its line; its faults are found where they are.
func TestReadStreamedList(t *testing.T) {
	t.Parallel()
	read := func(in string) ([]alert.Finding, error) {
		var out []alert.Finding
		for f, err := range alert.Read(strings.NewReader(in), 40) {
			if err != nil {
				return out, err
			}
			out = append(out, f)
		}
		return out, nil
	}
	list := "[\n {\"title\": \"one\"},\n {\"title\": \"two\"},\n {\"title\": \"three\"}\n]\n{\"title\": \"after\"}\n"
	fs, err := read(list)
	if err != nil || len(fs) != 4 {
		t.Fatalf("%d findings, %v", len(fs), err)
	}
	for i, want := range []string{"line 2, [0]", "line 3, [1]", "line 4, [2]", "line 6"} {
		if fs[i].Place.String() != want {
			t.Errorf("finding %d at %s, want %s", i, fs[i].Place, want)
		}
	}
	envelope := "{\"Findings\": [\n {\"Title\": \"one\"},\n {\"Title\": \"two\"},\n {\"Title\": \"three\"}\n], \"NextToken\": \"x\"}"
	if fs, err := read(envelope); err != nil || len(fs) != 3 || fs[2].Place.String() != "line 4, Findings[2]" || fs[2].Alert.Title != "three" {
		t.Fatalf("streamed envelope: %v %v", fs, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"[\n {\"title\": \"one\"},\n {\"title\": \"two\"},\n {\"title\": \"three\"},\n", "unexpected end of input inside a list"},
		{"[\n {\"title\": \"one\"},\n {\"title\": \"two\"}\n {\"title\": \"x\"}]", "line 4: not valid JSON: expected ','"},
		{"[\n {\"title\": \"one\"},\n {\"title\": \"two\"},\n 7]", "line 4, [2]: not a JSON object"},
		{"[\n {\"title\": \"one\"},\n {\"title\": \"a long title that does not fit\"}]", "line 3, [1]: value is larger than the limit of 40 bytes"},
		{"{\"Findings\": [\n {\"Title\": \"one\"},\n {\"Title\": \"two\"}], \"NextToken\": }", "not valid JSON"},
		{"{\"Findings\": [], \"a\": \"" + strings.Repeat("x", 50) + "\"}", "value is larger than the limit"},
	} {
		if _, err := read(tc.in); !errors.Is(err, alert.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzReadStreamed reads with a small size limit, so that lists and envelopes take the
// element-at-a-time path: never a panic, faults are ErrInvalid, and what is stored reads back
// as the same finding.
func FuzzReadStreamed(f *testing.F) {
	for _, s := range []string{"[{\"a\": 1}, {\"b\": 2}, {\"c\": 3}, {\"d\": 4}]", "{\"Findings\": [{\"a\": 1}, {\"b\": 2}, {\"c\": 3}], \"N\": 1}",
		"[{\"a\": 1}, {\"b\": 2}, 3, {\"c\": \"]\"}]", "{\"Findings\": [{\"a\": 1}, {\"b\": 2}, {\"c\": 3}], \"N\": }", "[\n{}\n,\n{}\n,\n{\"x\":\"\\\"]\"}\n]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for x, err := range alert.Read(strings.NewReader(string(data)), 24) {
			if err != nil {
				if !errors.Is(err, alert.ErrInvalid) {
					t.Fatalf("error is not ErrInvalid: %v", err)
				}
				return
			}
			again, err := alert.Parse(x.Alert.Data)
			if err != nil || again[0].Alert.ID != x.Alert.ID {
				t.Fatalf("re-reading the stored alert %q changed it: %v", x.Alert.Data, err)
			}
		}
	})
}

func TestType(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, data, want string }{
		{"guardduty", `{"SchemaVersion":"2.0","Arn":"arn:aws:guardduty:us-east-1:123456789012:detector/d/finding/f","Type":"Recon:EC2/PortProbeUnprotectedPort","Severity":5}`, "Recon:EC2/PortProbeUnprotectedPort"},
		{"falco", `{"rule":"Terminal shell in container","priority":"Notice","output":"x","time":"2026-11-20T10:00:00Z"}`, "Terminal shell in container"},
		{"suricata", `{"event_type":"alert","src_ip":"10.0.0.1","alert":{"signature":"ET SCAN Nmap"}}`, "ET SCAN Nmap"},
		{"unknown", `{"title":"something"}`, ""},
		{"not json", `nope`, ""},
	}
	for _, tt := range tests {
		if got := alert.Type([]byte(tt.data)); got != tt.want {
			t.Errorf("%s: Type = %q, want %q", tt.name, got, tt.want)
		}
	}
}
