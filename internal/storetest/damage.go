package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/store"
)

// Damage contract: a corrupt, truncated or empty transcript is an error that names the
// history.

func testCorruptTranscript(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	for name, mangle := range map[string]func([]byte) []byte{
		"truncated": func(b []byte) []byte { return b[:len(b)/2] },
		"garbage":   func([]byte) []byte { return []byte("\x00\xffnot json") },
		"wrong":     func([]byte) []byte { return []byte(`{"role":"user"}`) },
		"empty":     func([]byte) []byte { return nil },
	} {
		t.Run(name, func(t *testing.T) {
			hist := NewHistory("alert-1", EveryPartKind())
			Save(t, s, hist)
			key := store.ObjectKey(h.Prefix, hist.ID)
			obj, _ := h.ReadObject(t, key)
			h.WriteObject(t, key, mangle(obj))
			_, err := s.GetHistory(ctx, hist.ID)
			if err == nil {
				t.Fatal("corrupt transcript loaded without error")
			}
			if errors.Is(err, store.ErrNotFound) {
				t.Fatalf("corrupt transcript reported as not found: %v", err)
			}
			if !strings.Contains(err.Error(), string(hist.ID)) {
				t.Fatalf("error does not name the history: %v", err)
			}
			if _, err := s.GetHistoryMeta(ctx, hist.ID); err != nil {
				t.Fatalf("metadata unreadable next to a corrupt transcript: %v", err)
			}
		})
	}
}
