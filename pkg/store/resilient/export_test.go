package resilient

// Kind is how the layer runs a method (see classes), for the conformance test.
type Kind = kind

// The kinds of Kind.
const (
	KindRead  = kindRead
	KindWrite = kindWrite
	KindOnce  = kindOnce
	KindLocal = kindLocal
)

// Classification returns how the layer runs each method of store.Store, by name: the rows
// the methods run by.
func Classification() map[string]Kind {
	out := make(map[string]Kind, len(classes))
	for _, c := range classes {
		out[c.name] = c.kind
	}
	return out
}
