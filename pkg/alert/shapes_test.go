package alert_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/format"
)

// readAll reads in with opts: the findings, what was left out, and the error.
func readAll(t *testing.T, in string, opts alert.Options) ([]alert.Finding, *alert.Stats, error) {
	t.Helper()
	st := &alert.Stats{}
	var out []alert.Finding
	for f, err := range alert.ReadWith(strings.NewReader(in), opts, st) {
		if err != nil {
			return out, st, err
		}
		out = append(out, f)
	}
	return out, st, nil
}

// The raw APIs' envelopes: each finding one alert with its facts, read whole or a finding at
// a time (a small size limit).
func TestRawAPIEnvelopes(t *testing.T) {
	t.Parallel()
	gd := func(id string, sev float64, archived bool) string {
		return fmt.Sprintf(`{"accountId": "123456789012", "arn": "arn:aws:guardduty:us-east-1:123456789012:detector/d/finding/%s", "createdAt": "2024-05-01T10:00:00.000Z", "id": "%s", "schemaVersion": "2.0", "severity": %v, "title": "Finding %s", "type": "Recon:EC2/PortProbeUnprotectedPort", "updatedAt": "2024-05-01T11:00:00.000Z", "service": {"archived": %v, "serviceName": "guardduty"}}`,
			id, id, sev, id, archived)
	}
	scc := func(n int, sev, state string) string {
		return fmt.Sprintf(`{"finding": {"name": "organizations/1/sources/2/findings/f%d", "category": "Category %d", "severity": "%s", "state": "%s", "eventTime": "2024-05-01T10:00:00Z"}, "resource": {"name": "//compute.googleapis.com/projects/p/zones/z/instances/%d"}}`,
			n, n, sev, state, n)
	}
	tests := []struct {
		name       string
		in         string
		titles     []string
		severities []string
		sources    []string
		statuses   []string
		places     []string
	}{
		{"guardduty GetFindings", `{"findings": [` + gd("a", 8.0, false) + `, ` + gd("b", 2.0, true) + `]}`,
			[]string{"Finding a", "Finding b"}, []string{"high", "low"}, []string{"guardduty", "guardduty"}, []string{"", "archived"},
			[]string{"line 1, findings[0]", "line 1, findings[1]"}},
		{"guardduty GetFindings, list not first", `{"ResponseMetadata": {"RequestId": "r"}, "findings": [` + gd("a", 9.5, false) + `]}`,
			[]string{"Finding a"}, []string{"critical"}, []string{"guardduty"}, []string{""}, []string{"line 1, findings[0]"}},
		{"scc REST", `{"listFindingsResults": [` + scc(1, "HIGH", "ACTIVE") + `, ` + scc(2, "LOW", "INACTIVE") + `], "readTime": "2024-05-02T00:00:00Z", "totalSize": 2}`,
			[]string{"Category 1", "Category 2"}, []string{"high", "low"}, []string{"scc", "scc"}, []string{"", "inactive"},
			[]string{"line 1, listFindingsResults[0]", "line 1, listFindingsResults[1]"}},
		{"scc REST, list not first", `{"readTime": "2024-05-02T00:00:00Z", "listFindingsResults": [` + scc(1, "CRITICAL", "ACTIVE") + `], "nextPageToken": "t", "totalSize": 9}`,
			[]string{"Category 1"}, []string{"critical"}, []string{"scc"}, []string{""}, []string{"line 1, listFindingsResults[0]"}},
	}
	for _, tc := range tests {
		for _, max := range []int{0, 700} {
			t.Run(fmt.Sprintf("%s/max %d", tc.name, max), func(t *testing.T) {
				t.Parallel()
				fs, _, err := readAll(t, tc.in, alert.Options{MaxSize: max})
				if err != nil {
					t.Fatal(err)
				}
				var titles, sevs, srcs, stats, places []string
				for _, f := range fs {
					titles, sevs, srcs = append(titles, f.Alert.Title), append(sevs, f.Alert.Severity), append(srcs, f.Alert.Source)
					stats, places = append(stats, f.Alert.Status), append(places, f.Place.String())
					if f.Alert.Time.IsZero() {
						t.Errorf("%s: no time", f.Place)
					}
				}
				for _, c := range []struct {
					what      string
					got, want []string
				}{{"titles", titles, tc.titles}, {"severities", sevs, tc.severities}, {"sources", srcs, tc.sources},
					{"statuses", stats, tc.statuses}} {
					if !slices.Equal(c.got, c.want) {
						t.Errorf("%s %q, want %q", c.what, c.got, c.want)
					}
				}
				if max == 0 && !slices.Equal(places, tc.places) {
					t.Errorf("places %q, want %q", places, tc.places)
				}
			})
		}
	}
	// The finding, not its envelope, is stored and identified: the same finding from the CLI's
	// envelope and the API's has the same ID when written the same way.
	one, _, err := readAll(t, `{"findings": [`+gd("a", 8.0, false)+`]}`, alert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	alone, _, err := readAll(t, gd("a", 8.0, false), alert.Options{})
	if err != nil || one[0].Alert.ID != alone[0].Alert.ID || !bytes.Equal(one[0].Alert.Data, alone[0].Alert.Data) {
		t.Fatalf("the envelope's finding is stored as %s, alone as %s", one[0].Alert.Data, alone[0].Alert.Data)
	}
}

// An envelope that holds no finding adds nothing and is no fault: it is counted.
func TestEmptyEnvelopes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, empty string }{
		{`{"findings": []}`, "findings"},
		{`{"Findings": []}`, "Findings"},
		{`{"NextToken": null, "Findings": []}`, "Findings"},
		{`{"listFindingsResults": [], "readTime": "2024-05-02T00:00:00Z", "totalSize": 0}`, "listFindingsResults"},
		{`{"readTime": "2024-05-02T00:00:00Z", "totalSize": 0}`, "listFindingsResults"},
		{`{"readTime": "2024-05-02T00:00:00Z"}`, "listFindingsResults"},
		{"[]\n", "[]"},
		{`{"detail-type": "Security Hub Findings - Imported", "detail": {"findings": []}}`, "detail.findings"},
	} {
		for _, max := range []int{0, 24} {
			if max > 0 && !strings.HasPrefix(tc.in, `{"`+tc.empty+`"`) {
				continue // read whole: larger than the limit
			}
			fs, st, err := readAll(t, tc.in, alert.Options{MaxSize: max})
			if err != nil || len(fs) != 0 || !slices.Equal(st.Empty, []string{tc.empty}) {
				t.Errorf("%s (max %d): %d findings, empty %q, %v", tc.in, max, len(fs), st.Empty, err)
			}
		}
	}
	// An empty envelope among findings adds nothing to them.
	fs, st, err := readAll(t, "{\"Findings\": []}\n{\"title\": \"x\"}\n", alert.Options{})
	if err != nil || len(fs) != 1 || fs[0].Place.String() != "line 2" || len(st.Empty) != 1 {
		t.Fatalf("%v %v %v", fs, st, err)
	}
	// The other members still have to be JSON.
	if _, _, err := readAll(t, `{"findings": [], "x": }`, alert.Options{}); !errors.Is(err, alert.ErrInvalid) {
		t.Fatalf("broken envelope: %v", err)
	}
}

// eve is a Suricata eve.json of one alert among other events.
const eve = `{"timestamp":"2024-05-01T10:00:00.000000+0000","flow_id":1,"event_type":"flow","src_ip":"192.0.2.10","dest_ip":"198.51.100.5","proto":"TCP","flow":{"pkts_toserver":3}}
{"timestamp":"2024-05-01T10:00:01.000000+0000","flow_id":2,"event_type":"dns","src_ip":"192.0.2.10","dest_ip":"192.0.2.53","dns":{"type":"query","rrname":"example.com"}}
{"timestamp":"2024-05-01T10:00:02.000000+0000","flow_id":3,"event_type":"alert","src_ip":"192.0.2.10","dest_ip":"198.51.100.5","alert":{"signature":"ET POLICY curl User-Agent Outbound","severity":2}}
{"timestamp":"2024-05-01T10:00:03.000000+0000","flow_id":4,"event_type":"flow","src_ip":"192.0.2.11","dest_ip":"198.51.100.6","flow":{"pkts_toserver":1}}
{"timestamp":"2024-05-01T10:00:04.000000+0000","event_type":"stats","stats":{"uptime":60}}
{"timestamp":"2024-05-01T10:00:05.000000+0000","flow_id":5,"event_type":"dns","src_ip":"192.0.2.10","dest_ip":"192.0.2.53","dns":{"type":"answer"}}
{"timestamp":"2024-05-01T10:00:06.000000+0000","flow_id":6,"event_type":"flow","src_ip":"192.0.2.12","dest_ip":"198.51.100.7","flow":{}}
`

// A stream of events keeps the alerts and counts the rest by kind; AllEvents keeps them all,
// each titled after its kind.
func TestEventStreams(t *testing.T) {
	t.Parallel()
	for _, quick := range []bool{true, false} {
		read := alert.ReadWith
		if !quick {
			read = alert.ReadSlow
		}
		st := &alert.Stats{}
		var fs []alert.Finding
		for f, err := range read(strings.NewReader(eve), alert.Options{}, st) {
			if err != nil {
				t.Fatal(err)
			}
			fs = append(fs, f)
		}
		if len(fs) != 1 || fs[0].Alert.Title != "ET POLICY curl User-Agent Outbound" || fs[0].Place.String() != "line 3" {
			t.Fatalf("quick %v: %+v", quick, fs)
		}
		if got, want := st.SkippedSummary(), "skipped 6 events that are not alerts: flow 3, dns 2, stats 1"; got != want {
			t.Errorf("quick %v: %q, want %q", quick, got, want)
		}
	}
	fs, st, err := readAll(t, eve, alert.Options{AllEvents: true})
	if err != nil || len(fs) != 7 || st.SkippedTotal() != 0 {
		t.Fatalf("all events: %d, %v, %v", len(fs), st, err)
	}
	for i, want := range []string{"Suricata flow 192.0.2.10 -> 198.51.100.5", "Suricata dns 192.0.2.10 -> 192.0.2.53", "", "", "Suricata stats"} {
		if want != "" && fs[i].Alert.Title != want {
			t.Errorf("event %d titled %q, want %q", i, fs[i].Alert.Title, want)
		}
		if fs[i].Alert.Source != "suricata" {
			t.Errorf("event %d from %q", i, fs[i].Alert.Source)
		}
	}
	one := &alert.Stats{Skipped: map[string]int{"flow": 1}}
	if got := one.SkippedSummary(); got != "skipped 1 event that is not an alert: flow 1" {
		t.Errorf("%q", got)
	}
}

// FuzzQuickEvent holds the quick skipping of events to the full reading: the same findings,
// the same events skipped, the same fault.
func FuzzQuickEvent(f *testing.F) {
	for _, s := range strings.Split(eve, "\n") {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"event_type":"flow","flow_id":1,"event_type":"alert"}`, `{"event_type":"flow","flow_id":1,"event_type":7}`,
		`{"event_type":"fl\u006fw","flow_id":1}`, `{"event_type":"flow","Findings":[]}`, `{"event_type":"x","x":null}`, `{"event_type":"","":1}`,
		`{"event_type":"flow","src_ip":"a",}`, `{"event_type":"flow","src_ip":"\xff"}`, `{"event_type":"dns","dns":{"a":"}"},"src_ip":1}`,
		`{"event_type" : "tls" , "tls" : [ ] }`, `{"name":"x","event_type":"flow","flow_id":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		type result struct {
			ids     []string
			skipped map[string]int
			err     string
		}
		run := func(read func(r *strings.Reader, o alert.Options, st *alert.Stats) []string) result {
			st := &alert.Stats{}
			var res result
			res.ids = read(strings.NewReader(string(data)), alert.Options{}, st)
			res.skipped = st.Skipped
			return res
		}
		collect := func(seq func(*strings.Reader, alert.Options, *alert.Stats) func(func(alert.Finding, error) bool)) func(*strings.Reader, alert.Options, *alert.Stats) []string {
			return func(r *strings.Reader, o alert.Options, st *alert.Stats) []string {
				var ids []string
				for x, err := range seq(r, o, st) {
					if err != nil {
						ids = append(ids, "error: "+err.Error())
						break
					}
					ids = append(ids, string(x.Alert.ID))
				}
				return ids
			}
		}
		quick := run(collect(func(r *strings.Reader, o alert.Options, st *alert.Stats) func(func(alert.Finding, error) bool) {
			return alert.ReadWith(r, o, st)
		}))
		slow := run(collect(func(r *strings.Reader, o alert.Options, st *alert.Stats) func(func(alert.Finding, error) bool) {
			return alert.ReadSlow(r, o, st)
		}))
		if !slices.Equal(quick.ids, slow.ids) || fmt.Sprint(quick.skipped) != fmt.Sprint(slow.skipped) {
			t.Fatalf("quick %v %v, full %v %v", quick.ids, quick.skipped, slow.ids, slow.skipped)
		}
	})
}

// Every alert has a title, one line of at most the design's 60 columns, cut at a word
// boundary with "…".
func TestTitles(t *testing.T) {
	t.Parallel()
	long := "Unusual outbound communication seen from EC2 instance i-99999999 to a known command and control server"
	cjk := strings.Repeat("不審なログインが発生しました", 6)
	longWord := strings.Repeat("x", 80)
	tests := []struct{ name, in, want string }{
		{"gcp audit entry", `{"protoPayload": {"@type": "type.googleapis.com/google.cloud.audit.AuditLog", "serviceName": "iam.googleapis.com", "methodName": "google.iam.admin.v1.CreateServiceAccountKey", "authenticationInfo": {"principalEmail": "dev@example.com"}}, "insertId": "x", "logName": "projects/p/logs/cloudaudit.googleapis.com%2Factivity", "severity": "NOTICE", "timestamp": "2024-05-01T10:00:00.123Z"}`,
			"CreateServiceAccountKey by dev@example.com"},
		{"gcp audit entry, short", `{"protoPayload": {"@type": "type.googleapis.com/google.cloud.audit.AuditLog", "methodName": "v1.compute.instances.insert", "authenticationInfo": {"principalEmail": "dev@example.com"}}}`,
			"v1.compute.instances.insert by dev@example.com"},
		{"kubernetes audit event", `{"kind": "Event", "apiVersion": "audit.k8s.io/v1", "verb": "create", "user": {"username": "dev@example.com"}, "objectRef": {"resource": "pods", "subresource": "exec", "namespace": "payments", "name": "api-1"}, "stageTimestamp": "2025-06-12T10:05:58.412Z"}`,
			"create pods/exec api-1 in payments by dev@example.com"},
		{"okta system log event", `{"uuid": "u", "eventType": "user.session.start", "displayMessage": "User login to Okta", "published": "2025-06-12T11:20:31.402Z", "severity": "INFO", "actor": {"alternateId": "alice@example.com"}}`,
			"User login to Okta by alice@example.com"},
		{"long title at a word", `{"title": "` + long + `"}`, "Unusual outbound communication seen from EC2 instance…"},
		{"CJK cut between characters", `{"title": "` + cjk + `"}`, format.Truncate(cjk, 60, "…")},
		{"one long word", `{"title": "` + longWord + `"}`, strings.Repeat("x", 59) + "…"},
		{"no descriptive field", `{"host": "web-1", "user": "alice", "bytes": 12, "nested": {"a": 1}}`, "bytes=12 host=web-1 user=alice"},
		{"nothing but objects", `{"a": {"b": 1}}`, "JSON object of a"},
		{"empty object", `{}`, "empty JSON object"},
	}
	for _, tc := range tests {
		fs, err := alert.Parse([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		got := fs[0].Alert.Title
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if format.Width(got) > alert.MaxTitleWidth {
			t.Errorf("%s: %q is %d columns", tc.name, got, format.Width(got))
		}
	}
	// A word is never cut where a space leaves room: the last word that fits ends the title.
	for n := 1; n < 34; n++ {
		words := strings.Fields(strings.Repeat("ab ", n) + strings.Repeat("y", 70-2*n) + " tail " + long)
		in := strings.Join(words, " ")
		fs, err := alert.Parse([]byte(`{"title": "` + in + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		got := strings.TrimSuffix(fs[0].Alert.Title, "…")
		if !strings.HasPrefix(in, got) || (len(got) < len(in) && in[len(got)] != ' ' && strings.Contains(got, " ")) {
			t.Errorf("%d: %q cuts a word of %q", n, got, in)
		}
	}
}

// Findings their tool closed carry the status it gave them.
func TestClosedStatus(t *testing.T) {
	t.Parallel()
	asff := func(extra string) string {
		return `{"SchemaVersion": "2018-10-08", "Id": "x", "ProductArn": "arn:aws:securityhub:us-east-1::product/aws/securityhub", "Title": "T", "Severity": {"Label": "HIGH"}` + extra + `}`
	}
	for _, tc := range []struct{ in, want string }{
		{asff(`, "Workflow": {"Status": "NEW"}, "RecordState": "ACTIVE"`), ""},
		{asff(`, "Workflow": {"Status": "NOTIFIED"}`), ""},
		{asff(`, "Workflow": {"Status": "RESOLVED"}, "RecordState": "ACTIVE"`), "resolved"},
		{asff(`, "Workflow": {"Status": "SUPPRESSED"}`), "suppressed"},
		{asff(`, "Workflow": {"Status": "NEW"}, "RecordState": "ARCHIVED"`), "archived"},
		{asff(`, "WorkflowState": "RESOLVED"`), "resolved"},
		{`{"name": "organizations/1/sources/2/findings/3", "category": "C", "state": "INACTIVE"}`, "inactive"},
		{`{"name": "organizations/1/sources/2/findings/3", "category": "C", "state": "ACTIVE"}`, ""},
		{`{"title": "x", "status": "resolved"}`, ""},
	} {
		fs, err := alert.Parse([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := fs[0].Alert.Status; got != tc.want {
			t.Errorf("%s: status %q, want %q", tc.in, got, tc.want)
		}
	}
}

// BenchmarkReadMixedEve reads an eve.json of 10,000 events of about 500 bytes, 1% alerts:
// the rate at which events are skipped or read.
func BenchmarkReadMixedEve(b *testing.B) {
	var in bytes.Buffer
	for i := range 10_000 {
		kind := []string{"flow", "dns", "http", "tls", "stats"}[i%5]
		if i%100 == 0 {
			kind = "alert"
		}
		head := fmt.Sprintf(`{"timestamp":"2025-06-09T10:00:00.%06d+0000","flow_id":%d,"in_iface":"eth0","event_type":"%s","src_ip":"10.0.%d.%d","src_port":%d,"dest_ip":"198.51.100.%d","dest_port":443,"proto":"TCP","%s":{"signature":"sig %d","severity":2,"note":"`,
			i, 1000000000+i, kind, i>>8&255, i&255, 1024+i, i%250, kind, i)
		in.WriteString(head + strings.Repeat("x", max(500-len(head)-4, 0)) + `"}}` + "\n")
	}
	b.SetBytes(int64(in.Len()))
	for b.Loop() {
		st := &alert.Stats{}
		n := 0
		for _, err := range alert.ReadWith(bytes.NewReader(in.Bytes()), alert.Options{}, st) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 100 || st.SkippedTotal() != 9_900 {
			b.Fatalf("%d alerts, %d skipped", n, st.SkippedTotal())
		}
	}
	b.ReportMetric(float64(b.N)*10_000/b.Elapsed().Seconds(), "events/s")
}
