package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A form asks its fields in the order the server wrote them in its schema: a server puts the
// one that matters first. The SDK decodes a request's schema into a Go map, which loses that
// order, so the order is read from the message as it arrives (orderedTransport) and found again
// by the schema's content when the request is handled.

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

// keepsOrder wraps transport so that its forms keep their order, except a Streamable HTTP
// transport: its connection hears from the SDK through a method a wrapper cannot pass on (the
// session's start, which opens its stream for the server's messages), so its forms are asked
// with the required fields first.
func keepsOrder(transport sdk.Transport, orders *propertyOrders) sdk.Transport {
	if _, ok := transport.(*sdk.StreamableClientTransport); ok {
		return transport
	}
	return orderedTransport{Transport: transport, orders: orders}
}
