package cloud

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestListFieldsCoverTheMetadata: a listing selects every metadata field of a history document
// (the verdict's included) and none of its search fields, so a field added to historyDoc cannot
// silently go missing from listings.
func TestListFieldsCoverTheMetadata(t *testing.T) {
	t.Parallel()
	var want []string
	var fields func(typ reflect.Type)
	fields = func(typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			switch {
			case f.Type == reflect.TypeOf(searchFields{}):
				continue
			case f.Anonymous: // verdictFields
				fields(f.Type)
				continue
			}
			// analysts are derived from the questions: a listing does not read them twice.
			if name := strings.Split(f.Tag.Get("firestore"), ",")[0]; name != "analysts" {
				want = append(want, name)
			}
		}
	}
	fields(reflect.TypeOf(historyDoc{}))
	got := slices.Clone(listFields)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("listFields %v, want the metadata fields %v", got, want)
	}
}
