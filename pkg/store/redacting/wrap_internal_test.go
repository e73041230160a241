package redacting

import (
	"testing"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/store"
)

// TestEveryTextWriteIsRedacted fails for a method of store.Store that writes conversation text
// (its contract row says HistoryText) and that the layer does not declare: embedded, it would
// reach the store unredacted. A method the layer declares that writes no such text fails too,
// so the table and the layer tell the same story.
func TestEveryTextWriteIsRedacted(t *testing.T) {
	t.Parallel()
	own := storetest.Overrides[layer](t)
	for _, m := range store.Contract() {
		switch {
		case m.Kind.Writes() && m.HistoryText && !own[m.Name]:
			t.Errorf("%s writes conversation text and has no redaction disposition: declare it on *layer and redact what it writes", m.Name)
		case own[m.Name] && !m.HistoryText:
			t.Errorf("the layer declares %s, whose contract row says it writes no conversation text: fix the row or drop the method", m.Name)
		}
	}
	if !own["SaveHistory"] {
		t.Error("SaveHistory is not redacted here")
	}
}
