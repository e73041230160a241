package mcp

import (
	"encoding/json"
	"io"
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

// An event stream passes through unchanged, and the order of a form in it is noted whatever
// the pieces it is read in; a line too long to keep, or another method, notes nothing.
func TestEventTee(t *testing.T) {
	t.Parallel()
	const form = `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}}}`
	schema := map[string]any{"type": "object", "properties": map[string]any{"z": map[string]any{"type": "string"}, "a": map[string]any{"type": "string"}}}
	for _, tc := range []struct {
		name   string
		stream string
		piece  int
		want   string
	}{
		{"whole", "event: message\ndata: " + form + "\n\n", 1 << 16, "z,a"},
		{"a byte at a time, CRLF", "event: message\r\ndata: " + form + "\r\n\r\n", 1, "z,a"},
		{"another method", "data: " + strings.Replace(form, "elicitation/create", "sampling/createMessage", 1) + "\n", 7, ""},
		{"too long", "data: " + strings.Repeat(" ", maxEventLine) + form + "\n", 4096, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var o propertyOrders
			tee := &eventTee{ReadCloser: io.NopCloser(strings.NewReader(tc.stream)), orders: &o}
			var out strings.Builder
			buf := make([]byte, tc.piece)
			for {
				n, err := tee.Read(buf)
				out.Write(buf[:n])
				if err != nil {
					break
				}
			}
			if out.String() != tc.stream {
				t.Fatal("the stream was changed")
			}
			if got := strings.Join(o.take(schema), ","); got != tc.want {
				t.Fatalf("order %q, want %q", got, tc.want)
			}
		})
	}
}
