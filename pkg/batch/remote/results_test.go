package remote

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"google.golang.org/genai"
)

func TestParseKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want key
		ok   bool
	}{
		{"q1", key{line: 1}, true},
		{"t12", key{title: true, line: 12}, true},
		{"q3@7", key{line: 3, at: 7}, true},
		{"t3@7", key{}, false},
		{"q0", key{}, false},
		{"q", key{}, false},
		{"x1", key{}, false},
		{"q1@", key{}, false},
		{"q1@0", key{}, false},
		{"q-1", key{}, false},
		{"", key{}, false},
	}
	for _, tc := range tests {
		got, err := parseKey(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("parseKey(%q) = %+v, %v", tc.in, got, err)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("%+v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
}

func TestResultLines(t *testing.T) {
	t.Parallel()
	r := newResults()
	for _, l := range []string{
		`{"key": "q1", "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": "one"}]}}]}}`,
		`{"key": "t1", "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": "Title"}]}}]}}`,
		`{"key": "q2", "error": {"code": 429, "message": "quota"}}`,
		`{"key": "q3@4", "response": {"candidates": [`,
		`{"key": "q4", "response": null}`,
		`{"key": "zz", "response": {}}`,
		`garbage`,
	} {
		r.addLine([]byte(l))
	}
	if a := r.answers[1]; a.err != nil || a.resp == nil || r.titles[1] == nil {
		t.Fatalf("line 1: %+v, title %v", a, r.titles[1])
	}
	if a := r.answers[2]; a.err == nil || !strings.Contains(a.err.Error(), "quota") {
		t.Fatalf("line 2: %+v", a)
	}
	if a := r.answers[3]; a.err == nil || a.at != 4 {
		t.Fatalf("line 3 (unreadable): %+v", a)
	}
	if a := r.answers[4]; a.err == nil {
		t.Fatalf("line 4 (no response): %+v", a)
	}
	if r.unmatched != 2 {
		t.Fatalf("unmatched %d, want 2", r.unmatched)
	}
}

// FuzzResultLine: no line of a results file panics, and each is counted once: as an answer, a
// title or unmatched.
func FuzzResultLine(f *testing.F) {
	for _, s := range []string{`{"key": "q1", "response": {}}`, `{"key": "t2", "error": {"code": 1}}`, `{"key": "q3@2"`, `{}`, `"key":"q9"`, ``,
		`{"key": "q2", "error": {"code": 400, "message": "m", "details": [{"@type": "t"}, "s", 3]}}`,
		`{"status": "Bad Request: {\"error\": {\"code\": 400}}", "request": {"labels": {"alertchat_key": "q1-2"}}}`,
		`{"status": "", "request": {"contents": [{"parts": [{"text": "x"}]}]}, "response": {}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r := newResults()
		r.addLine([]byte(line))
		if n := len(r.answers) + len(r.titles) + r.unmatched; n > 1 {
			t.Fatalf("%q counted %d times", line, n)
		}
	})
}

func TestKeyLabel(t *testing.T) {
	t.Parallel()
	for _, k := range []key{{line: 1}, {title: true, line: 12}, {line: 3, at: 7}} {
		got, err := parseKey(k.label())
		if err != nil || got != k || strings.ContainsAny(k.label(), "@") {
			t.Errorf("label %q of %+v parsed as %+v, %v", k.label(), k, got, err)
		}
	}
}

// TestVertexLines: Vertex AI's predictions, matched by key, by key label or by the echoed
// request, failed ones with their embedded error.
func TestVertexLines(t *testing.T) {
	t.Parallel()
	input := `{"key": "q1", "request": {"contents": [{"role": "user", "parts": [{"text": "one"}]}], "systemInstruction": {"parts": [{"text": "alert A"}]}}}
{"key": "t1", "request": {"contents": [{"role": "user", "parts": [{"text": "title of one"}]}]}}
{"key": "q2", "request": {"contents": [{"role": "user", "parts": [{"text": "two"}]}], "systemInstruction": {"parts": [{"text": "alert A"}]}}}
{"key": "q3@2", "request": {"contents": [{"role": "user", "parts": [{"text": "before"}]}, {"role": "model", "parts": [{"text": "ok"}]}, {"role": "user", "parts": [{"text": "three"}]}]}}
`
	r := newResults()
	opened := 0
	r.input = func() (io.ReadCloser, error) { opened++; return io.NopCloser(strings.NewReader(input)), nil }
	resp := `{"candidates": [{"content": {"role": "model", "parts": [{"text": "answer"}]}}]}`
	for _, l := range []string{
		// By key label; a typed error in the status.
		`{"status": "Bad Request: {\"error\": {\"code\": 400, \"message\": \"Request contains an invalid argument.\", \"status\": \"INVALID_ARGUMENT\"}}", "processed_time": "2026-11-27T09:00:00Z", "request": {"contents": [{"role": "user", "parts": [{"text": "one"}]}], "labels": {"alertchat_key": "q1"}}}`,
		// By the echoed request alone, re-encoded (snake case, another order).
		`{"status": "", "processed_time": "2026-11-27T09:00:00Z", "response": ` + resp + `, "request": {"system_instruction": {"parts": [{"text": "alert A"}]}, "contents": [{"parts": [{"text": "two"}], "role": "user"}]}}`,
		`{"status": "", "request": {"contents": [{"role": "user", "parts": [{"text": "title of one"}]}]}, "response": ` + resp + `}`,
		`{"status": "", "request": {"contents": [{"role": "user", "parts": [{"text": "before"}]}, {"role": "model", "parts": [{"text": "ok"}]}, {"role": "user", "parts": [{"text": "three"}]}]}, "response": ` + resp + `}`,
		// A status that is not JSON, and a request that asks nothing of this job.
		`{"status": "Internal error occurred.", "request": {"contents": [{"role": "user", "parts": [{"text": "nobody asked"}]}]}}`,
	} {
		r.addLine([]byte(l))
	}
	var apiErr genai.APIError
	if a := r.answers[1]; !errors.As(a.err, &apiErr) || apiErr.Code != 400 || apiErr.Status != "INVALID_ARGUMENT" || apiErr.Message != "Request contains an invalid argument." || !errors.Is(a.err, ErrJobError) {
		t.Fatalf("line 1: %+v", a)
	}
	if a := r.answers[2]; a.err != nil || a.resp == nil || r.titles[1] == nil {
		t.Fatalf("line 2: %+v, title 1 %v", a, r.titles[1])
	}
	if a := r.answers[3]; a.err != nil || a.at != 2 {
		t.Fatalf("line 3: %+v", a)
	}
	if r.unmatched != 1 || opened != 1 {
		t.Fatalf("%d unmatched, input read %d times", r.unmatched, opened)
	}
}

func TestVertexStatusError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in           string
		code         int
		status, want string
	}{
		{`Bad Request: {"error": {"code": 400, "message": "bad", "status": "INVALID_ARGUMENT"}}`, 400, "INVALID_ARGUMENT", "bad"},
		{`Too Many Requests: {"error":{"code":429,"message":"quota"}}`, 429, "RESOURCE_EXHAUSTED", "quota"},
		{`{"error": {"code": 3, "message": "grpc code"}}`, 400, "INVALID_ARGUMENT", "grpc code"},
		{`Internal error occurred.`, 0, "", "Internal error occurred."},
		{`Bad Request: {"error": `, 0, "", `Bad Request: {"error":`},
	}
	for _, tc := range tests {
		got := vertexStatusError(tc.in)
		if got.Code != tc.code || got.Status != tc.status || got.Message != tc.want {
			t.Errorf("vertexStatusError(%q) = %+v", tc.in, got)
		}
	}
}

// TestStringifyDetails: the details of every status become strings, everything else is kept.
func TestStringifyDetails(t *testing.T) {
	t.Parallel()
	in := `{"name":"batches/1","metadata":{"output":{"inlinedResponses":{"inlinedResponses":[` +
		`{"error":{"code":400,"message":"bad <x> & y","details":[{"@type":"type.googleapis.com/google.rpc.DebugInfo","detail":"d"},"already text"]},"metadata":{"key":"q1"}},` +
		`{"response":{"candidates":[{"content":{"parts":[{"text":"details"}]}}],"usageMetadata":{"promptTokenCount":1234567}},"metadata":{"key":"q2"}}]}}}}`
	out, ok := stringifyDetails([]byte(in))
	if !ok {
		t.Fatal("nothing changed")
	}
	var got struct {
		Metadata struct {
			Output struct {
				InlinedResponses struct {
					InlinedResponses []*genai.InlinedResponse
				}
			}
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	rs := got.Metadata.Output.InlinedResponses.InlinedResponses
	if len(rs) != 2 || rs[0].Error == nil || rs[0].Error.Message != "bad <x> & y" || len(rs[0].Error.Details) != 2 ||
		rs[0].Error.Details[0] != `{"@type":"type.googleapis.com/google.rpc.DebugInfo","detail":"d"}` || rs[0].Error.Details[1] != "already text" {
		t.Fatalf("error: %+v", rs[0].Error)
	}
	if rs[1].Response.Text() != "details" || !strings.Contains(string(out), `"promptTokenCount":1234567}`) {
		t.Fatalf("response changed: %s", out)
	}
	if _, ok := stringifyDetails([]byte(`{"name": "batches/1", "metadata": {"state": "BATCH_STATE_RUNNING"}}`)); ok {
		t.Fatal("a job without details was rewritten")
	}
	if m := detailMaps(rs[0].Error.Details); len(m) != 2 || m[0]["@type"] == nil || m[1]["detail"] != "already text" {
		t.Fatalf("details back: %v", m)
	}
}

// FuzzStringifyDetails: any answer is left alone or rewritten into JSON in which no status has
// a detail that is not a string, and a second pass changes nothing.
func FuzzStringifyDetails(f *testing.F) {
	for _, s := range []string{
		`{"error":{"code":1,"details":[{"@type":"t"}]}}`, `{"details":[{}]}`, `[{"message":"m","details":[1,[2],null]}]`,
		`{"a":{"b":{"message":"x","details":[{"k":{"details":[{}],"code":2}}]}}}`, `"details"`, `{`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		out, ok := stringifyDetails([]byte(body))
		if !ok {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q became invalid JSON %q", body, out)
		}
		if _, again := stringifyDetails(out); again {
			t.Fatalf("%q rewritten twice: %q", body, out)
		}
	})
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	a, okA := fingerprint(json.RawMessage(`{"contents":[{"role":"user","parts":[{"text":"q"}]}],"systemInstruction":{"parts":[{"text":"s"}]},"generationConfig":{"temperature":1}}`))
	b, okB := fingerprint(json.RawMessage(`{"labels":{"x":"y"},"system_instruction":{"role":"user","parts":[{"text":"s"}]},"contents":[{"parts":[{"text":"q"}]}]}`))
	c, _ := fingerprint(json.RawMessage(`{"contents":[{"role":"user","parts":[{"text":"q"}]}],"systemInstruction":{"parts":[{"text":"other alert"}]}}`))
	d, _ := fingerprint(json.RawMessage(`{"contents":[{"role":"model","parts":[{"text":"q"}]}],"systemInstruction":{"parts":[{"text":"s"}]}}`))
	_, okE := fingerprint(json.RawMessage(`{"contents":[]}`))
	if !okA || !okB || a != b || a == c || a == d || okE {
		t.Fatalf("fingerprints %s %s %s %s, %v %v %v", a, b, c, d, okA, okB, okE)
	}
}
