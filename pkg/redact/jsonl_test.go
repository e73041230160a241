package redact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

func TestRunJSONL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"one", `{"id":"a","text":"mail a@b.example"}` + "\n", `{"id":"a","text":"mail [REDACTED_EMAIL]"}` + "\n"},
		{"order and blank lines", "{\"id\":\"1\",\"text\":\"10.0.0.1\"}\n\n  \n{\"id\":\"2\",\"text\":\"none\"}",
			`{"id":"1","text":"[REDACTED_IP]"}` + "\n" + `{"id":"2","text":"none"}` + "\n"},
		{"numeric id and field order", `{"text":"x","id":7}` + "\n", `{"id":7,"text":"x"}` + "\n"},
		{"escapes", `{"id":"e","text":"line\nnext \"q\" \u00e9 \ud83d\ude00 tab\t"}` + "\n",
			`{"id":"e","text":"line\nnext \"q\" é 😀 tab\t"}` + "\n"},
		{"extra fields", `{"id":"x","text":"a@b.example","lang":"en","n":1.5,"ok":true,"z":null}` + "\n",
			`{"id":"x","text":"[REDACTED_EMAIL]"}` + "\n"},
		{"nested falls back", `{"id":"n","text":"1.1.1.1","spans":[{"start":0}]}` + "\n", `{"id":"n","text":"[REDACTED_IP]"}` + "\n"},
		{"no id", `{"text":"hi"}` + "\n", `{"id":null,"text":"hi"}` + "\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			if err := all.RunJSONL(strings.NewReader(tc.in), &out); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Fatalf("got  %q\nwant %q", out.String(), tc.want)
			}
		})
	}
}

func TestRunJSONLErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"{\"id\":\"1\",\"text\":\"ok\"}\nnot json secret=hunter22\n",
		"{\"id\":\"1\",\"text\":\"ok\"}\n{\"id\":\"2\"}\n",
		"{\"id\":\"1\",\"text\":\"ok\"}\n{\"id\":\"2\",\"text\":5}\n",
	} {
		var out bytes.Buffer
		err := all.RunJSONL(strings.NewReader(in), &out)
		if err == nil {
			t.Fatalf("no error for %q", in)
		}
		if strings.Contains(err.Error(), "hunter22") {
			t.Fatalf("error leaks input: %v", err)
		}
		if got := strings.Count(out.String(), "\n"); got != 1 {
			t.Fatalf("want the first line answered, got %q", out.String())
		}
	}
}

// TestRunJSONLInteractive checks that each answer is flushed before the
// next line is sent: a caller that waits for every answer must not block.
func TestRunJSONLInteractive(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- all.RunJSONL(inR, outW)
		outW.Close()
	}()
	rd := bufio.NewReader(outR)
	for i, text := range []string{"a@b.example", "nothing here", "10.0.0.1"} {
		line, _ := json.Marshal(map[string]any{"id": i, "text": text})
		if _, err := inW.Write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			s, _ := rd.ReadString('\n')
			got <- s
		}()
		select {
		case s := <-got:
			want, _ := all.String(text)
			var v struct{ Text string }
			if err := json.Unmarshal([]byte(s), &v); err != nil || v.Text != want {
				t.Fatalf("answer %q, want text %q (%v)", s, want, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no answer before the next line: output not flushed")
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "q\"b\\s/", "\x00\x01\x1f\x7f", "é😀\u2028\u2029", "bad\xffutf8\xe3\x80", "<html>&amp;"} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(buf.String(), "\n")
		if got := string(appendJSONString(nil, s)); got != want {
			t.Errorf("appendJSONString(%q) = %s want %s", s, got, want)
		}
	}
}
