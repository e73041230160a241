package store_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// FuzzDecodeTranscript: the transcript loader never panics on any object content, its error
// names the history, and what it accepts round-trips through EncodeTranscript unchanged.
func FuzzDecodeTranscript(f *testing.F) {
	every, _ := json.Marshal(storetest.EveryPartKind())
	for _, seed := range [][]byte{
		every, []byte(`[]`), []byte(`null`), []byte(`[null]`), []byte(`{}`), []byte(``), []byte(`[{"role":"user","parts":[{"text":"hi"}]}`),
		[]byte(`[{"parts":[{"inlineData":{"data":"!!notbase64"}}]}]`), []byte(`[{"role":"user","parts":[{"text":"\u0000\u001b[31m"}]}]`),
		[]byte{0xff, 0xfe, '[', ']'}, []byte(`[{"parts":[{"functionCall":{"args":{"a":[1,2,{"b":null}]}}}]}]`),
		[]byte(strings.Repeat("[", 10000)),
	} {
		f.Add(seed)
	}
	const id = record.HistoryID("0b8f2c62-2b2b-4bb0-9d4e-3f0e8c1a7d55")
	f.Fuzz(func(t *testing.T, data []byte) {
		contents, err := store.DecodeTranscript(id, data)
		if err != nil {
			if !strings.Contains(err.Error(), string(id)) {
				t.Fatalf("error does not name the history: %v", err)
			}
			return
		}
		enc, err := store.EncodeTranscript(contents)
		if err != nil {
			t.Fatalf("accepted transcript does not encode: %v", err)
		}
		again, err := store.DecodeTranscript(id, enc)
		if err != nil {
			t.Fatalf("re-encoded transcript does not decode: %v", err)
		}
		enc2, err := store.EncodeTranscript(again)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("transcript does not round-trip:\n%s\n%s", enc, enc2)
		}
		var buf bytes.Buffer
		if err := store.WriteTranscript(&buf, again); err != nil || !bytes.Equal(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), enc) {
			t.Fatalf("WriteTranscript differs from EncodeTranscript: %v", err)
		}
	})
}
