package cloud

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestListFieldsCoverTheMetadata: a listing selects every metadata field of a history document
// and none of its search fields, so a field added to historyDoc cannot silently go missing
// from listings.
func TestListFieldsCoverTheMetadata(t *testing.T) {
	t.Parallel()
	var want []string
	typ := reflect.TypeOf(historyDoc{})
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Anonymous { // searchFields
			continue
		}
		want = append(want, strings.Split(f.Tag.Get("firestore"), ",")[0])
	}
	got := slices.Clone(listFields)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("listFields %v, want the metadata fields %v", got, want)
	}
}
