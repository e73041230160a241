package e2e_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/testenv"
)

// evidenceFolder writes the docs' worked example: gzip'd CloudTrail Records, DNS NDJSON, an
// auth log and a CSV of hosts. A personal address sits in the DNS log, to be redacted when
// stored.
func evidenceFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var ct bytes.Buffer
	zw := gzip.NewWriter(&ct)
	_, _ = zw.Write([]byte(`{"Records":[{"eventTime":"2026-11-20T10:01:00Z","eventName":"ConsoleLogin","sourceIPAddress":"203.0.113.7","userIdentity":{"type":"IAMUser","userName":"alice"}},` +
		`{"eventTime":"2026-11-20T10:05:00Z","eventName":"ListBuckets","sourceIPAddress":"203.0.113.7","userIdentity":{"type":"IAMUser","userName":"alice"}},` +
		`{"eventTime":"2026-11-20T11:00:00Z","eventName":"GetObject","sourceIPAddress":"198.51.100.20","userIdentity":{"type":"AssumedRole","userName":"build"}}]}`))
	_ = zw.Close()
	files := map[string][]byte{
		"aws/cloudtrail.json.gz": ct.Bytes(),
		"dns.ndjson": []byte(`{"ts":"2026-11-20T09:59:58Z","client":"10.0.3.7","query":"login.example.com","answer":"203.0.113.7","owner":"mallory.owner@example.com"}` + "\n" +
			`{"ts":"2026-11-20T10:00:30Z","client":"10.0.3.7","query":"evil.example.net","answer":"198.51.100.20"}` + "\n"),
		"auth.log":  []byte("Nov 20 10:00:01 web1 sshd[411]: Accepted publickey for alice from 203.0.113.7 port 50522 (mallory.owner@example.com)\n"),
		"hosts.csv": []byte("hostname,ip,owner\nweb1,10.0.3.7,alice\n"),
		".env":      []byte("SECRET=do-not-read\n"),
	}
	for rel, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var evidenceCalls = []*genai.FunctionCall{
	{Name: "list_evidence", Args: map[string]any{}},
	{Name: "grep_evidence", Args: map[string]any{"pattern": `203\.0\.113\.7`}},
	{Name: "query_evidence", Args: map[string]any{"sql": `SELECT eventName, json_extract(userIdentity, '$.userName') AS user FROM aws_cloudtrail WHERE sourceIPAddress = '203.0.113.7'`}},
	{Name: "grep_evidence", Args: map[string]any{"pattern": "do-not-read", "path": ".env"}},
}

// checkEvidenceChat asks one question in which the model lists, greps and queries the case
// folder, and checks what the model got (raw), what chat -o json says, and what is stored
// (redacted), through history show.
func checkEvidenceChat(t *testing.T, c *cli, dir string) {
	t.Helper()
	out := askEvidence(t, c, 4, "what did 203.0.113.7 do?", "--evidence", dir)
	for i, tc := range out.ToolCalls[:3] {
		if tc.Name != evidenceCalls[i].Name || tc.Error != "" {
			t.Fatalf("call %d: %+v", i, tc)
		}
	}
	if out.ToolCalls[3].Error != "outside the evidence folder" {
		t.Fatalf("grep of .env: %+v", out.ToolCalls[3])
	}
	// What the model got, live and raw.
	modelGot(t, out, `"table":"aws_cloudtrail"`, `"kind":"csv"`, `"path":"auth.log"`, `"line":1`,
		`["ConsoleLogin","alice"]`, `["ListBuckets","alice"]`, "mallory.owner@example.com")
	if strings.Contains(out.Answer, "do-not-read\"") {
		t.Errorf("a hidden file was read: %s", out.Answer)
	}
	// The evidence tools were declared, beside the store's.
	reqs := c.answerRequests()
	var declared []string
	for _, tl := range reqs[0].Tools {
		for _, d := range tl.FunctionDeclarations {
			declared = append(declared, d.Name)
		}
	}
	if s := strings.Join(declared, " "); !strings.Contains(s, "grep_evidence list_evidence") || !strings.Contains(s, "query_evidence") {
		t.Errorf("declared %s", s)
	}
	// Stored redacted: the address is gone from the responses, the calls are shown.
	stored := c.mustRun("", "history", "show", out.HistoryID, "-o", "json")
	if strings.Contains(stored, "mallory.owner@example.com") || !strings.Contains(stored, "REDACTED_EMAIL") {
		t.Errorf("stored evidence results are not redacted: %s", stored)
	}
	if !strings.Contains(stored, "ConsoleLogin") || !strings.Contains(stored, "aws_cloudtrail") {
		t.Errorf("stored results lost their content: %s", stored)
	}
	text := c.mustRun("", "history", "show", out.HistoryID)
	for _, want := range []string{"grep_evidence", "query_evidence", "list_evidence"} {
		if !strings.Contains(text, want) {
			t.Errorf("history show does not render %s:\n%s", want, text)
		}
	}
	// Nothing was written into the folder; the index went to the cache directory.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 5 {
		t.Errorf("the folder holds %d entries, want 5", len(ents))
	}
	if m, _ := filepath.Glob(filepath.Join(c.dataDir, ".cache", "alertchat", "evidence", "*.db")); len(m) != 1 {
		t.Errorf("index files in the cache: %v", m)
	}
}

func TestEvidenceOneShotLocal(t *testing.T) {
	t.Parallel()
	c := newCLI(t, toolRound(evidenceCalls...))
	checkEvidenceChat(t, c, evidenceFolder(t))
}

func TestEvidenceOneShotCloud(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	c := newCLI(t, toolRound(evidenceCalls...))
	c.env = append(c.env, cloud.Env()...)
	checkEvidenceChat(t, c, evidenceFolder(t))
}

// TestEvidenceFolders: bad folders exit 2 naming them; ALERTCHAT_EVIDENCE counts from the
// environment, never from a .env; without a folder no evidence tool is declared.
func TestEvidenceFolders(t *testing.T) {
	t.Parallel()
	c := newCLI(t, titleAnswer("T"))
	gd := c.addAlert("guardduty.json")
	dir := evidenceFolder(t)
	missing := filepath.Join(dir, "missing")
	file := filepath.Join(dir, "auth.log")
	for _, c2 := range []struct {
		args []string
		want string
	}{
		{[]string{"chat", "-a", gd, "-q", "x", "--evidence", missing}, "evidence folder " + missing + " does not exist"},
		{[]string{"chat", "-a", gd, "-q", "x", "--evidence", dir, "--evidence", file}, "evidence folder " + file + " is not a folder"},
		{[]string{"batch", "-f", "-", "--evidence", missing}, "evidence folder " + missing + " does not exist"},
	} {
		r := c.run(`{"alert_id":"`+gd+`","query":"x"}`, c2.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c2.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c2.args, r.code, r.stderr, c2.want)
		}
	}
	declares := func() bool {
		reqs := c.answerRequests()
		for _, tl := range reqs[len(reqs)-1].Tools {
			for _, d := range tl.FunctionDeclarations {
				if d.Name == "grep_evidence" {
					return true
				}
			}
		}
		return false
	}
	c.mustRun("", "chat", "-a", gd, "-q", "no folder")
	if declares() {
		t.Error("evidence tools declared without a folder")
	}
	// A .env in the working directory may not hand a folder to the model.
	if err := os.WriteFile(filepath.Join(c.dataDir, ".env"), []byte("ALERTCHAT_EVIDENCE="+dir+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.run("", "chat", "-a", gd, "-q", "from .env")
	if r.code != 0 || !strings.Contains(r.stderr, "sets ALERTCHAT_EVIDENCE, which is honoured only from the environment") || declares() {
		t.Errorf(".env: exit %d, declared %v, stderr %q", r.code, declares(), r.stderr)
	}
	_ = os.Remove(filepath.Join(c.dataDir, ".env"))
	env := c.env
	c.env = append(append([]string{}, env...), "ALERTCHAT_EVIDENCE="+missing+string(os.PathListSeparator)+dir)
	if r := c.run("", "chat", "-a", gd, "-q", "x"); r.code != 2 || !strings.Contains(r.stderr, missing) {
		t.Errorf("ALERTCHAT_EVIDENCE with a missing folder: exit %d %q", r.code, r.stderr)
	}
	c.env = append(append([]string{}, env...), "ALERTCHAT_EVIDENCE="+dir)
	c.mustRun("", "chat", "-a", gd, "-q", "from the environment")
	if !declares() {
		t.Error("ALERTCHAT_EVIDENCE from the environment declared no evidence tools")
	}
	c.env = env
}

// In an interactive chat on a terminal: /evidence lists the folders and their tables, and each
// evidence call shows as one line, the pattern as typed.
func TestEvidenceInteractive(t *testing.T) {
	t.Parallel()
	c := newCLI(t, toolRound(evidenceCalls[1], evidenceCalls[2]))
	alertID := c.addAlert("guardduty.json")
	dir := evidenceFolder(t)
	term := startTerminal(t, c, 160, "chat", "-a", alertID, "--evidence", dir)
	term.waitFor("/help for commands")
	term.typeLine("/evidence")
	term.waitFor("aws_cloudtrail")
	term.waitFor("hosts.csv (csv)")
	term.typeLine("what did 203.0.113.7 do?")
	term.waitFor(`→ grep_evidence pattern="203\.0\.113\.7"`)
	term.waitFor(`→ query_evidence sql="SELECT eventName`)
	term.waitFor(`ConsoleLogin`)
	term.typeLine("/exit")
	screen := term.wait()
	if !strings.Contains(screen, "dns.ndjson (ndjson)") {
		t.Errorf("/evidence: %q", screen)
	}
}

// TestEvidenceTableRedactedAndHardLinkRefused: a query result's cells are stored redacted by
// their column (a password and a phone number in a CSV), while the model got them raw; a hard
// link to a file outside the folder is listed with the reason it is not read, and not read.
func TestEvidenceTableRedactedAndHardLinkRefused(t *testing.T) {
	t.Parallel()
	dir := evidenceFolder(t)
	if err := os.WriteFile(filepath.Join(dir, "accounts.csv"), []byte("user,password,phone\nalice,Zq9-hunter2-x,5551234567\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(outside, []byte("root:SECRET-OUTSIDE:0:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(dir, "linked.log")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	c := newCLI(t, toolRound(
		&genai.FunctionCall{Name: "query_evidence", Args: map[string]any{"sql": "SELECT user, password, phone FROM accounts"}},
		&genai.FunctionCall{Name: "list_evidence", Args: map[string]any{"path": "linked.log"}},
		&genai.FunctionCall{Name: "grep_evidence", Args: map[string]any{"pattern": "SECRET"}},
	))
	gd := c.addAlert("guardduty.json")
	r := c.run("", "chat", "-o", "json", "-a", gd, "--evidence", dir, "-q", "who has a password?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var out toolChatOut
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v: %q", err, r.stdout)
	}
	if !strings.Contains(out.Answer, "Zq9-hunter2-x") || !strings.Contains(out.Answer, "hard link") {
		t.Errorf("the model did not get the row raw and the hard link's reason: %s", out.Answer)
	}
	if strings.Contains(out.Answer, "SECRET-OUTSIDE") {
		t.Errorf("a hard link to a file outside was read: %s", out.Answer)
	}
	// The stored responses (the fake's answer echoes them as prose, which is not a table).
	var stored any
	if err := json.Unmarshal([]byte(c.mustRun("", "history", "show", out.HistoryID, "-o", "json")), &stored); err != nil {
		t.Fatal(err)
	}
	responses := functionResponses(stored)
	if !strings.Contains(responses, "alice") || !strings.Contains(responses, "hard link") {
		t.Fatalf("stored responses: %s", responses)
	}
	for _, raw := range []string{"Zq9-hunter2-x", "5551234567"} {
		if strings.Contains(responses, raw) {
			t.Errorf("%s is stored raw: %s", raw, responses)
		}
	}
}

// functionResponses gathers, as JSON, every functionResponse of a decoded history.
func functionResponses(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if strings.EqualFold(k, "functionResponse") {
					j, _ := json.Marshal(e)
					b.Write(j)
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// TestEvidenceLogTables: from the binary, a Zeek conn.log and an IIS log (testdata/evidence,
// written after the formats' documentation) are listed with their kinds and queried by SQL,
// their columns named as the logs name them (the calls of one round run together, so the
// listing may come before the tables are built: rows and skipped are checked in pkg/evidence).
func TestEvidenceLogTables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for from, to := range map[string]string{"conn.log": "zeek/conn.log", "u_ex261120.log": "iis/u_ex261120.log"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "evidence", from))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(to))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newCLI(t, toolRound(
		&genai.FunctionCall{Name: "query_evidence", Args: map[string]any{"sql": `SELECT "id.orig_h", "id.resp_p", duration, local_orig, tunnel_parents FROM zeek_conn WHERE "id.resp_h" = '203.0.113.7' ORDER BY ts`}},
		&genai.FunctionCall{Name: "query_evidence", Args: map[string]any{"sql": `SELECT "cs-uri-stem", "cs-uri-query", "sc-status" FROM iis_u_ex261120 WHERE "c-ip" = '203.0.113.7' AND "sc-status" >= 400`}},
		&genai.FunctionCall{Name: "list_evidence", Args: map[string]any{}},
	))
	out := askEvidence(t, c, 3, "what did 203.0.113.7 reach?", "--evidence", dir)
	noCallFailed(t, out.ToolCalls)
	modelGot(t, out,
		`["10.0.3.7",443,0.254352,1,"[]"]`,
		`["10.0.3.7",22,null,1,"[\"Cq1a2b3c4d5e6f7g8h\",\"Cz9y8x7w6v5u4t3s2r\"]"]`,
		`"columns":["id.orig_h","id.resp_p","duration","local_orig","tunnel_parents"]`,
		`["/aspnet_client/system_web/shell.aspx","cmd=whoami",404]`,
		`"kind":"zeek"`, `"kind":"w3c"`, `"table":"iis_u_ex261120"`, `"cs(User-Agent)"`,
	)
}

// TestEvidenceEventLog: from the binary, real Windows event logs (testdata/evidence, public
// samples) are listed as evtx tables and queried by SQL, EventData read with json_extract.
func TestEvidenceEventLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "win"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"new-user-security.evtx", "sysmon-first-chunk.evtx"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "evidence", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "win", n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newCLI(t, toolRound(
		&genai.FunctionCall{Name: "query_evidence", Args: map[string]any{"sql": `SELECT EventID, TimeCreated, Computer, json_extract(EventData, '$.TargetUserName') FROM win_new_user_security WHERE EventID = 4728`}},
		&genai.FunctionCall{Name: "query_evidence", Args: map[string]any{"sql": `SELECT Channel, count(*) > 0 FROM win_sysmon_first_chunk WHERE EventID = 1 AND json_extract(EventData, '$.Image') LIKE '%PING.EXE' GROUP BY Channel`}},
		&genai.FunctionCall{Name: "list_evidence", Args: map[string]any{}},
	))
	out := askEvidence(t, c, 3, "which accounts changed?", "--evidence", dir)
	noCallFailed(t, out.ToolCalls)
	modelGot(t, out,
		`[4728,"2013-10-23T16:22:39.9735Z","IE8Win7","None"]`,
		`["Microsoft-Windows-Sysmon/Operational",1]`,
		`"kind":"evtx"`, `"table":"win_sysmon_first_chunk"`, `"EventData"`,
	)
}

// TestEvidenceBucket: from the binary, a Cloud Storage prefix on fake-gcs-server (found through
// STORAGE_EMULATOR_HOST, given by ALERTCHAT_EVIDENCE as users do) is the evidence folder: its
// objects listed by their path under the prefix, a gzip'd NDJSON object and an event log
// queried by SQL, another prefix's object out of reach. A bucket that does not exist is exit 2
// naming it, before the chat starts.
func TestEvidenceBucket(t *testing.T) {
	t.Parallel()
	bucket, url, h := testenv.GCSBucket(t)
	evtx, err := os.ReadFile(filepath.Join("..", "testdata", "evidence", "new-user-security.evtx"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(`{"eventName":"ConsoleLogin","sourceIPAddress":"203.0.113.7"}` + "\n" + `{"eventName":"ListBuckets","sourceIPAddress":"198.51.100.4"}` + "\n"))
	_ = zw.Close()
	for name, data := range map[string][]byte{
		"case-7/aws/ct.json.gz": gz.Bytes(), "case-7/win/Security.evtx": evtx, "other/secret.txt": []byte("hunter2\n"),
	} {
		w := h.Object(name).NewWriter(context.Background())
		w.ChunkSize = 0
		_, _ = w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	c := newCLI(t, toolRound(
		&genai.FunctionCall{Name: "query_evidence", Args: map[string]any{"sql": `SELECT eventName FROM aws_ct WHERE sourceIPAddress = '203.0.113.7'`}},
		&genai.FunctionCall{Name: "query_evidence", Args: map[string]any{"sql": `SELECT EventID, Computer FROM win_Security WHERE EventID = 4728`}},
		&genai.FunctionCall{Name: "list_evidence", Args: map[string]any{}},
		&genai.FunctionCall{Name: "grep_evidence", Args: map[string]any{"pattern": "hunter2", "path": "../other/secret.txt"}},
	))
	c.env = append(c.env, testenv.EnvStorageHost+"="+url, "ALERTCHAT_EVIDENCE=gs://"+bucket+"/case-7")
	out := askEvidence(t, c, 4, "what did 203.0.113.7 do?")
	noCallFailed(t, out.ToolCalls[:3])
	modelGot(t, out,
		`["ConsoleLogin"]`, `[4728,"IE8Win7"]`, `"path":"aws/ct.json.gz"`, `"kind":"evtx"`, `"table":"aws_ct"`,
		"outside the evidence folder",
	)
	if strings.Contains(out.Answer, "hunter2") || strings.Contains(out.Answer, "other/secret") {
		t.Errorf("the model reached another prefix: %s", out.Answer)
	}

	r := c.run("", "chat", "-o", "json", "-a", c.addAlert("guardduty.json"), "--evidence", "gs://no-such-bucket-e2e/logs", "-q", "hello")
	if r.code != 2 || !strings.Contains(r.stderr, "gs://no-such-bucket-e2e/logs does not exist") {
		t.Errorf("a missing bucket: exit %d, %s", r.code, r.stderr)
	}
}

// askEvidence asks one question of a new chat about the GuardDuty sample (args are chat's
// other flags) and returns its -o json, which must hold calls tool calls.
func askEvidence(t *testing.T, c *cli, calls int, question string, args ...string) toolChatOut {
	t.Helper()
	gd := c.addAlert("guardduty.json")
	r := c.run("", append(append([]string{"chat", "-o", "json", "-a", gd}, args...), "-q", question)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var out toolChatOut
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v: %q", err, r.stdout)
	}
	if len(out.ToolCalls) != calls {
		t.Fatalf("tool_calls %+v", out.ToolCalls)
	}
	return out
}

// modelGot checks that the tool results the model was given (the fake echoes them as its
// answer) hold each of wants.
func modelGot(t *testing.T, out toolChatOut, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out.Answer, want) {
			t.Errorf("the model did not get %s: %s", want, out.Answer)
		}
	}
}

// noCallFailed checks that none of calls failed.
func noCallFailed(t *testing.T, calls []toolCallOut) {
	t.Helper()
	for i, tc := range calls {
		if tc.Error != "" {
			t.Fatalf("call %d: %+v", i, tc)
		}
	}
}

// TestEvidenceBigQuery chats with a BigQuery dataset as evidence, from the binary, on the
// BigQuery emulator: its tables listed with their columns and rows, an aggregate run with its
// bytes scanned, a statement that writes refused before BigQuery is asked. A dataset that does
// not exist, and a byte limit that is not one, are exit 2 before the chat starts.
func TestEvidenceBigQuery(t *testing.T) {
	t.Parallel()
	e := testenv.StartBigQuery(t, "sec-lake", filepath.Join("..", "pkg", "evidence", "testdata", "bigquery", "secops.yaml"))
	c := newCLI(t, toolRound(
		&genai.FunctionCall{Name: "list_evidence", Args: map[string]any{}},
		&genai.FunctionCall{Name: "query_evidence", Args: map[string]any{
			"sql": "SELECT principal, COUNT(*) AS n FROM cloudtrail WHERE source_ip = '198.51.100.23' GROUP BY principal"}},
		&genai.FunctionCall{Name: "query_evidence", Args: map[string]any{"sql": "DELETE FROM cloudtrail WHERE true"}},
	))
	c.env = append(c.env, "BIGQUERY_EMULATOR_HOST="+e.Host, "ALERTCHAT_EVIDENCE=bq://sec-lake.secops")
	out := askEvidence(t, c, 3, "what did 198.51.100.23 do?", "--bq-max-bytes", "1GiB")
	noCallFailed(t, out.ToolCalls[:2])
	modelGot(t, out,
		`"path":"bq://sec-lake.secops/cloudtrail"`, `"kind":"bigquery"`, `"table":"`+"`sec-lake.secops.cloudtrail`"+`"`,
		`"types":["TIMESTAMP","STRING"`, `"rows":4`, `["alice",3]`, `"bytes_scanned":`, `"dataset":"sec-lake.secops"`,
		"only reading queries run (SELECT or WITH), not DELETE",
	)
	// No folder, so nothing to grep; query_evidence speaks GoogleSQL and names the dataset.
	for _, tl := range c.answerRequests()[0].Tools {
		for _, d := range tl.FunctionDeclarations {
			if d.Name == "grep_evidence" {
				t.Error("grep_evidence declared with no folder")
			}
			if d.Name == "query_evidence" && !strings.Contains(d.Description, "GoogleSQL query on a BigQuery dataset the analyst gave (sec-lake.secops)") {
				t.Errorf("query_evidence: %s", d.Description)
			}
		}
	}
	r := c.run("", "chat", "-o", "json", "-a", c.addAlert("guardduty.json"), "-q", "and now?")
	if r.code != 0 {
		t.Fatalf("after the refused DELETE: exit %d: %s", r.code, r.stderr)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--evidence", "bq://sec-lake.gone"}, "evidence dataset bq://sec-lake.gone does not exist"},
		{[]string{"--evidence", "bq://sec-lake"}, "is not bq://PROJECT.DATASET"},
		{[]string{"--evidence", "bq://sec-lake.secops", "--bq-max-bytes", "lots"}, `--bq-max-bytes "lots" is not a byte count`},
	} {
		r := c.run("", append(append([]string{"chat", "-o", "json", "-a", c.addAlert("guardduty.json")}, tc.args...), "-q", "hello")...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
