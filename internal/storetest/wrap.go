package storetest

import (
	"reflect"
	"testing"

	"github.com/alertchat/alertchat/pkg/store"
)

// Overrides returns the methods of store.Store that the layer L declares itself, as rclone's
// FsCheckWrap asks what a wrapper implements. L must be a struct that embeds store.Store and
// declares its own methods on *L: L's value method set then holds only the methods promoted
// from the store below (one declared on *L hides the promoted one), so a method of *L's set
// that L's lacks is the layer's own.
func Overrides[L any](t testing.TB) map[string]bool {
	t.Helper()
	typ := reflect.TypeFor[L]()
	storeType := reflect.TypeFor[store.Store]()
	embeds := false
	if typ.Kind() == reflect.Struct {
		for i := range typ.NumField() {
			if f := typ.Field(i); f.Anonymous && f.Type == storeType {
				embeds = true
			}
		}
	}
	if !embeds {
		t.Fatalf("%v does not embed store.Store: it cannot be asked what it overrides", typ)
	}
	ptr := reflect.PointerTo(typ)
	own := map[string]bool{}
	for i := range storeType.NumMethod() {
		name := storeType.Method(i).Name
		if _, promoted := typ.MethodByName(name); promoted {
			continue
		}
		if _, ok := ptr.MethodByName(name); ok {
			own[name] = true
		}
	}
	return own
}
