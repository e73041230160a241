package redact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"",
	"mail a@b.example from 10.0.0.1 card 4111 1111 1111 1111 ssn 078-05-1123",
	"GET /t?email=alice%40corp%2Eexample.com&q=mail+to+bob%40x.example%2E&n=100%40",
	"password=[REDACTED_SECRET] api_key: [REDACTED_API_KEY] [REDACTED_EMAIL_2]",
	"電話は０９０－１２３４－５６７８です パスワード: Hunter2Pass",
	"The admin password was Dragon4036! and the leaked token wf8YfSPhEOQhc1bOczMNQ6FliKtekOEaZJGQqBm9 was revoked.",
	"db.internal:5432:*:app:P@fi0M6966!\n{\"c\":\"x\\ndb:5432:*:app:pa\\:ss1\\n\"}",
	"$cred = Get-Credential\n$secret = (Get-AzKeyVaultSecret -VaultName kv).SecretValue",
	"-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
	`{"token": "tok_1a2b3c4d5e6f7g8h9i0j", "ip": "2001:db8::1"}`,
	"curl -u user:P@ss https://u:p4ss@host.example/x",
	"+1 (555) 123-4567 x12, 1.2.3.4.5.6.7.8, ::ffff:1.2.3.4",
	"Authorization: Basic YnJvd3Nlcjo= Bearer abcdefghijklmnop1234",
	"\xff\xfe invalid \xe3\x80 utf8 a@b.co",
}

func addCorpusSeeds(f *testing.F) {
	fh, err := os.Open(corpusPath)
	if err != nil {
		return
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for i := 0; sc.Scan(); i++ {
		var r corpusRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil && i%4 == 0 {
			f.Add(r.Text)
		}
	}
}

// FuzzString checks, for any input: no panic; UTF-8 stays valid; the output
// is exactly the input with the reported matches replaced (matches sorted,
// non-overlapping, on character boundaries); the counts agree; redaction is
// idempotent; and a redacted value appears in the output only where the same
// text was kept elsewhere in the input.
func FuzzString(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	addCorpusSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		out, counts := all.String(s)
		valid := utf8.ValidString(s)
		if valid && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 output for valid input %q: %q", s, out)
		}

		sc := getScanner()
		ms := append([]match(nil), sc.find(s)...)
		putScanner(sc)
		var b strings.Builder
		prev := 0
		type region struct{ a, b int } // placeholder bounds in out
		var placed []region
		var values []string
		seen := Counts{}
		for _, m := range ms {
			if m.start < prev || m.end <= m.start || m.end > len(s) {
				t.Fatalf("bad match order or bounds %+v (prev %d, len %d)", m, prev, len(s))
			}
			if valid && (!utf8.RuneStart(s[m.start]) || (m.end < len(s) && !utf8.RuneStart(s[m.end]))) {
				t.Fatalf("match %+v splits a character in %q", m, s)
			}
			if m.typ == tKeep {
				if !strings.HasPrefix(s[m.start:m.end], phPrefix) {
					t.Fatalf("keep span %q is not a placeholder", s[m.start:m.end])
				}
				continue
			}
			b.WriteString(s[prev:m.start])
			a := b.Len()
			b.WriteString(placeholders[m.typ])
			placed = append(placed, region{a, b.Len()})
			values = append(values, s[m.start:m.end])
			seen[allTypes[m.typ]]++
			prev = m.end
		}
		b.WriteString(s[prev:])
		if b.String() != out {
			t.Fatalf("output is not the input with its matches replaced:\n in  %q\n out %q\n rec %q", s, out, b.String())
		}
		if len(seen) != len(counts) {
			t.Fatalf("counts %v, matches %v", counts, seen)
		}
		for k, v := range seen {
			if counts[k] != v {
				t.Fatalf("counts %v, matches %v", counts, seen)
			}
		}

		// survival: an occurrence of a redacted value in the output that does
		// not touch a placeholder lies in kept text, so the input must hold
		// that text outside every redacted span
		for _, v := range values {
			for off := 0; ; {
				k := strings.Index(out[off:], v)
				if k < 0 {
					break
				}
				at := off + k
				off = at + 1
				touches := false
				for _, r := range placed {
					if at < r.b && r.a < at+len(v) {
						touches = true
						break
					}
				}
				if touches {
					continue
				}
				if !keptElsewhere(s, ms, v) {
					t.Fatalf("redacted value %q survives in %q", v, out)
				}
			}
		}

		again, c2 := all.String(out)
		if again != out || c2.Total() != 0 {
			t.Fatalf("not idempotent:\n in    %q\n once  %q\n twice %q (%v)", s, out, again, c2)
		}
	})
}

// keptElsewhere reports whether v occurs in s at a position that overlaps no
// replaced match.
func keptElsewhere(s string, ms []match, v string) bool {
	for off := 0; ; {
		k := strings.Index(s[off:], v)
		if k < 0 {
			return false
		}
		at := off + k
		off = at + 1
		clear := true
		for _, m := range ms {
			if m.typ != tKeep && at < m.end && m.start < at+len(v) {
				clear = false
				break
			}
		}
		if clear {
			return true
		}
	}
}

// FuzzRunJSONL checks that the line protocol returns, for any text, exactly
// String(text), and echoes the id.
func FuzzRunJSONL(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "id-1")
	}
	f.Add("tab\tquote\" back\\ ctl\x01 \u2028 nul\x00", `x"y`)
	f.Fuzz(func(t *testing.T, text, id string) {
		type line struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		}
		in, err := json.Marshal(line{id, text})
		if err != nil {
			t.Skip()
		}
		var out bytes.Buffer
		if err := all.RunJSONL(bytes.NewReader(append(in, '\n')), &out); err != nil {
			t.Fatalf("RunJSONL: %v (line %s)", err, in)
		}
		var got line
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("output is not JSON: %v: %q", err, out.String())
		}
		// encoding/json replaces invalid UTF-8; compare with what it decoded
		var dec line
		_ = json.Unmarshal(in, &dec)
		want, _ := all.String(dec.Text)
		if got.ID != dec.ID || got.Text != want {
			t.Fatalf("got %+v want id %q text %q", got, dec.ID, want)
		}
		if !bytes.HasSuffix(out.Bytes(), []byte("}\n")) || bytes.Count(out.Bytes(), []byte("\n")) != 1 {
			t.Fatalf("not one line: %q", out.String())
		}
	})
}
