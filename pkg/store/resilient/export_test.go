package resilient

import "github.com/alertchat/alertchat/pkg/store"

// Kind is how the layer runs a method (its row of store.Contract), for the conformance test.
type Kind = store.Kind

// The kinds of Kind.
const (
	KindRead  = store.KindRead
	KindWrite = store.KindWrite
	KindOnce  = store.KindOnce
	KindLocal = store.KindLocal
)

// Classification returns how the layer runs each method of store.Store, by name: the rows
// the methods run by.
func Classification() map[string]Kind {
	out := make(map[string]Kind, len(rows))
	for name, m := range rows {
		out[name] = m.Kind
	}
	return out
}
