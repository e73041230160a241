package store_test

import (
	"reflect"
	"testing"

	"github.com/alertchat/alertchat/pkg/store"
)

// TestContractIsStore keeps the contract table's rows equal to store.Store's method set, and
// each row whole: a method of Store without a row (or a row of no method) fails here, by name.
func TestContractIsStore(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeFor[store.Store]()
	rows := map[string]store.Method{}
	for _, m := range store.Contract() {
		if _, dup := rows[m.Name]; dup {
			t.Errorf("the contract table has two rows for %s", m.Name)
		}
		rows[m.Name] = m
	}
	for i := range typ.NumMethod() {
		if name := typ.Method(i).Name; !hasRow(rows, name) {
			t.Errorf("store.Store.%s has no row in the contract table (pkg/store/contract.go): say its kind and whether it writes history text", name)
		}
	}
	for name, m := range rows {
		if _, ok := typ.MethodByName(name); !ok {
			t.Errorf("the contract table has a row for %s, which store.Store does not have", name)
		}
		switch {
		case m.Kind < store.KindRead || m.Kind > store.KindLocal:
			t.Errorf("%s: no kind", name)
		case (m.Kind == store.KindLocal) != (m.Op == ""):
			t.Errorf("%s: a %s method with op %q (a method that makes requests names them, a local one makes none)", name, m.Kind, m.Op)
		case m.HistoryText && !m.Kind.Writes():
			t.Errorf("%s carries history text but is a %s", name, m.Kind)
		}
		if got, ok := store.MethodNamed(name); !ok || got != m {
			t.Errorf("MethodNamed(%q) = %+v, %v, want its row %+v", name, got, ok, m)
		}
	}
	if _, ok := store.MethodNamed("NoSuchMethod"); ok {
		t.Error("MethodNamed finds a method Store does not have")
	}
}

func hasRow(rows map[string]store.Method, name string) bool {
	_, ok := rows[name]
	return ok
}
