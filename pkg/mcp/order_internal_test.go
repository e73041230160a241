package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// A form's fields come in the order of the server's JSON; where that order is not known, the
// required fields first, then the rest, each by name.
func TestFormFieldOrder(t *testing.T) {
	t.Parallel()
	const schema = `{"type":"object","required":["name"],"properties":{"birthdate":{"type":"string","format":"date"},` +
		`"name":{"type":"string"},"check":{"type":"boolean"},"email":{"type":"string"}},"title":"x"}`
	for _, tc := range []struct {
		name  string
		order []string
		want  string
	}{
		{"the server's order", propertyOrder(json.RawMessage(schema)), "birthdate,name,check,email"},
		{"no order", nil, "name,birthdate,check,email"},
		// An order that names a field twice, one the schema lacks, or leaves one out.
		{"part of an order", []string{"email", "email", "gone"}, "email,name,birthdate,check"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var decoded any
			if err := json.Unmarshal([]byte(schema), &decoded); err != nil {
				t.Fatal(err)
			}
			fields, why := elicitationFields(decoded, tc.order)
			if why != "" {
				t.Fatal(why)
			}
			names := make([]string, len(fields))
			for i, f := range fields {
				names[i] = f.Name
			}
			if got := strings.Join(names, ","); got != tc.want {
				t.Fatalf("fields %s, want %s", got, tc.want)
			}
		})
	}
}

// The order read from a request's raw parameters is found again by the schema as the SDK
// decodes it, once; parameters without a form note nothing.
func TestPropertyOrders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, params string
		want         string
	}{
		{"a form", `{"message":"m","requestedSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"number"}}}}`, "z,a"},
		{"no schema", `{"message":"m"}`, ""},
		{"no properties", `{"requestedSchema":{"type":"object"}}`, ""},
		{"not JSON", `{"requestedSchema":{"properties":`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var o propertyOrders
			o.note(json.RawMessage(tc.params))
			var p struct {
				RequestedSchema any `json:"requestedSchema"`
			}
			_ = json.Unmarshal([]byte(tc.params), &p)
			if got := strings.Join(o.take(p.RequestedSchema), ","); got != tc.want {
				t.Fatalf("order %q, want %q", got, tc.want)
			}
			if again := o.take(p.RequestedSchema); again != nil {
				t.Fatalf("taken twice: %q", again)
			}
		})
	}
}
