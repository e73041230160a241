package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A form asks its fields in the order the server wrote them in its schema: a server puts the
// one that matters first. The SDK decodes a request's schema into a Go map, which loses that
// order, so the order is read from the message as it arrives (orderedTransport for a stdio
// server's connection, watchOrders for the event streams of an HTTP server) and found again by
// the schema's content when the request is handled.

// maxOrders bounds the orders kept for requests not handled yet (a server's requests are
// handled one by one, and each takes its order back).
const maxOrders = 8

// propertyOrders holds the field order of the forms a server sent, by the schema's content.
type propertyOrders struct {
	mu     sync.Mutex
	orders []schemaOrder
}

type schemaOrder struct {
	key   string
	names []string
}

// note reads the order of a request's form from its raw parameters.
func (o *propertyOrders) note(params json.RawMessage) {
	var p struct {
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestedSchema) == 0 {
		return
	}
	names := propertyOrder(p.RequestedSchema)
	var schema any
	if len(names) == 0 || json.Unmarshal(p.RequestedSchema, &schema) != nil {
		return
	}
	key, err := json.Marshal(schema)
	if err != nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.orders) == maxOrders {
		o.orders = o.orders[1:]
	}
	o.orders = append(o.orders, schemaOrder{key: string(key), names: names})
}

// take returns the order noted for schema (as the SDK decoded it) and forgets it; nil when
// none was noted. Two requests with the same schema share one order, so which is taken does
// not matter.
func (o *propertyOrders) take(schema any) []string {
	key, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, so := range o.orders {
		if so.key == string(key) {
			o.orders = append(o.orders[:i], o.orders[i+1:]...)
			return so.names
		}
	}
	return nil
}

// propertyOrder returns the names of a schema's properties in the order the JSON gives them;
// nil when the schema is not an object with properties.
func propertyOrder(schema json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(schema))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		if key, _ := t.(string); key != "properties" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return nil
		}
		var names []string
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return nil
			}
			name, _ := t.(string)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			names = append(names, name)
		}
		return names
	}
	return nil
}

// orderedTransport notes the field order of every form its connection brings.
type orderedTransport struct {
	sdk.Transport
	orders *propertyOrders
}

func (t orderedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return orderedConn{Connection: c, orders: t.orders}, nil
}

type orderedConn struct {
	sdk.Connection
	orders *propertyOrders
}

func (c orderedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok && err == nil && r.Method == "elicitation/create" {
		c.orders.note(r.Params)
	}
	return m, err
}

// keepsOrder wraps transport so that its forms keep their order, except an HTTP transport: a
// Streamable HTTP connection hears from the SDK through a method a wrapper cannot pass on (the
// session's start, which opens its stream for the server's messages), so the order of an HTTP
// server's forms is read from its responses instead (watchOrders).
func keepsOrder(transport sdk.Transport, orders *propertyOrders) sdk.Transport {
	switch transport.(type) {
	case *sdk.StreamableClientTransport, *sdk.SSEClientTransport:
		return transport
	}
	return orderedTransport{Transport: transport, orders: orders}
}

// watchOrders notes the field order of the forms in the event streams next brings back (an HTTP
// server sends its requests as server-sent events, one JSON-RPC message a "data:" line).
func watchOrders(next http.RoundTripper, orders *propertyOrders) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return orderWatch{next: next, orders: orders}
}

type orderWatch struct {
	next   http.RoundTripper
	orders *propertyOrders
}

func (w orderWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	if err == nil && resp.Body != nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &eventTee{ReadCloser: resp.Body, orders: w.orders}
	}
	return resp, err
}

// maxEventLine bounds the line an eventTee keeps while it waits for its end: a longer one is
// not read for an order (its form is asked with the required fields first).
const maxEventLine = 1 << 20

// eventTee passes an event stream through unchanged and reads each of its "data:" lines that
// holds an elicitation request, before the SDK sees the line's end.
type eventTee struct {
	io.ReadCloser
	orders *propertyOrders
	line   []byte
	long   bool // the current line passed maxEventLine
}

func (t *eventTee) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	for rest := p[:n]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			t.keep(rest)
			break
		}
		t.keep(rest[:i])
		if !t.long {
			t.event(bytes.TrimSuffix(t.line, []byte("\r")))
		}
		t.line, t.long = t.line[:0], false
		rest = rest[i+1:]
	}
	return n, err
}

func (t *eventTee) keep(b []byte) {
	if t.long || len(t.line)+len(b) > maxEventLine {
		t.line, t.long = t.line[:0], true
		return
	}
	t.line = append(t.line, b...)
}

func (t *eventTee) event(line []byte) {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok || !bytes.Contains(data, []byte("elicitation/create")) {
		return
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &m) == nil && m.Method == "elicitation/create" {
		t.orders.note(m.Params)
	}
}
