package redacthist_test

import (
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// peakHeap returns how far the heap of live objects grew above where it was while f ran,
// sampled every millisecond, with the collector made eager so that the heap follows what is
// live.
func peakHeap(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-stopped
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// storable checks that contents marshal to valid JSON that reads back.
func storable(t *testing.T, contents []*genai.Content) []byte {
	t.Helper()
	data, err := json.Marshal(contents)
	if err != nil || !json.Valid(data) {
		t.Fatalf("the redacted contents do not marshal to valid JSON: %v", err)
	}
	var back []*genai.Content
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("the redacted contents do not read back: %v", err)
	}
	return data
}

// TestContentsBadInput: invalid UTF-8, a line of 100 MB, a million tiny parts and deeply
// nested data are redacted without a panic, into contents that are still valid JSON, with
// memory in proportion to the data (the whole text of a content once more, and a pointer per
// part), never more.
func TestContentsBadInput(t *testing.T) {
	r := keyedEngine(t)

	t.Run("invalid UTF-8 cut anywhere", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for range 200 {
			b := []byte("mail alice@example.com from 203.0.113.7 電話は090-1234-5678 password: Tr0mbone!77 ")
			for range 6 {
				b[rng.IntN(len(b))] = byte(0x80 + rng.IntN(0x80))
			}
			var parts []*genai.Part
			for i := 0; i < len(b); {
				n := 1 + rng.IntN(5)
				parts = append(parts, &genai.Part{Text: string(b[i:min(i+n, len(b))]), ThoughtSignature: []byte{byte(i)}})
				i += n
			}
			cs := []*genai.Content{{Role: genai.RoleModel, Parts: parts}}
			redacthist.Contents(r, cs)
			storable(t, cs)
		}
	})

	t.Run("a line of 100 MB", func(t *testing.T) {
		size := 100 << 20
		if testing.Short() || raceOn {
			size = 16 << 20
		}
		unit := "host 203.0.113.7 user alice@example.com id 5f0c2a9e ok; "
		line := strings.Repeat(unit, size/len(unit))
		cs := []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{Text: line}}}}
		line = ""
		n := peakHeap(func() { redacthist.Contents(r, cs) })
		if strings.Contains(cs[0].Parts[0].Text, "alice@example.com") {
			t.Fatal("a value survives")
		}
		t.Logf("redacting %d MB into %d MB: the heap grew by %d MB at most", size>>20, len(cs[0].Parts[0].Text)>>20, n>>20)
		// the redacted copy (longer than the text: tokens are longer than what they replace)
		// twice, gathered and joined, and a window
		if limit := uint64(2*len(cs[0].Parts[0].Text)) + 48<<20; n > limit {
			t.Errorf("redacting %d MB into %d MB took %d MB more heap, more than %d MB", size>>20, len(cs[0].Parts[0].Text)>>20, n>>20, limit>>20)
		}
	})

	t.Run("a million tiny parts", func(t *testing.T) { // a hundred thousand under -race
		size := 1 << 20
		if raceOn {
			size = 128 << 10 // the race detector makes a part cost a hundred times more
		}
		text := strings.Repeat("see 203.0.113.7 and bob@example.org; ", size/36)
		var parts []*genai.Part
		for i := 0; i < len(text); i += 1 {
			parts = append(parts, &genai.Part{Text: text[i : i+1], ThoughtSignature: []byte("s")})
		}
		cs := []*genai.Content{{Role: genai.RoleModel, Parts: parts}}
		want, _ := r.String(text)
		n := allocated(func() { redacthist.Contents(r, cs) })
		var got strings.Builder
		for _, p := range cs[0].Parts {
			got.WriteString(p.Text)
		}
		if got.String() != want {
			t.Fatal("the parts joined are not the whole text redacted")
		}
		if len(cs[0].Parts) != len(parts) {
			t.Errorf("%d signed parts became %d", len(parts), len(cs[0].Parts))
		}
		// a pointer and a flag per part, the joined text, the rewritten parts' texts
		// (the race detector's own bookkeeping allocates, and its sync.Pool drops what it is
		// given at random: the bound holds without it)
		if limit := uint64(24*len(parts) + 4*len(text) + 8<<20); n > limit && !raceOn {
			t.Errorf("%d parts of %d bytes allocated %d MB, more than %d MB", len(parts), len(text), n>>20, limit>>20)
		}
		storable(t, cs)
	})

	t.Run("deeply nested data", func(t *testing.T) {
		deep := map[string]any{"password": "Tr0mbone!77"}
		for range 100000 {
			deep = map[string]any{"a": []any{deep, "203.0.113.7"}}
		}
		nestedText := strings.Repeat(`{"a":[`, 200000) + `"alice@example.com"` + strings.Repeat(`]}`, 200000)
		cs := []*genai.Content{
			{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "f", Args: deep}}}},
			{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "f", Response: map[string]any{"output": nestedText}}}}},
		}
		redacthist.Contents(r, cs)
		data := storable(t, cs)
		if strings.Contains(string(data), "alice@example.com") || strings.Contains(string(data), "203.0.113.7") {
			t.Fatal("a value survives")
		}
		if !strings.Contains(string(data), redact.TooDeep) {
			t.Fatal("the part deeper than MaxDepth was kept")
		}
	})
}
