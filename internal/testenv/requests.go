package testenv

import (
	"context"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"
)

// Requests counts the requests clients send, at the transport: each gRPC call (unary or
// stream) by method, each HTTP request by method. A test compares it with what a store says
// it did, so the store's own count cannot drift from the wire. It also keeps when each
// request was in flight, for Rounds.
type Requests struct {
	mu    sync.Mutex
	n     map[string]int
	spans []*span
}

type span struct{ start, end time.Time }

// NewRequests returns an empty count.
func NewRequests() *Requests { return &Requests{n: map[string]int{}} }

func (r *Requests) begin(k string) *span {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n[k]++
	s := &span{start: time.Now()}
	r.spans = append(r.spans, s)
	return s
}

func (r *Requests) finish(s *span) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.end.IsZero() {
		s.end = time.Now()
	}
}

// Counts returns a copy of the counts.
func (r *Requests) Counts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := make(map[string]int, len(r.n))
	for k, v := range r.n {
		m[k] = v
	}
	return m
}

// Total is the number of requests counted.
func (r *Requests) Total() int {
	t := 0
	for _, v := range r.Counts() {
		t += v
	}
	return t
}

// Rounds is the number of sequential rounds the requests took: a request that starts while
// another is still in flight shares its round. Behind a LatencyProxy whose delay dwarfs the
// time a program takes to issue concurrent requests, it is the number of round trips the
// program waited for.
func (r *Requests) Rounds() int {
	r.mu.Lock()
	spans := make([]span, 0, len(r.spans))
	for _, s := range r.spans {
		c := *s
		if c.end.IsZero() {
			c.end = time.Now()
		}
		spans = append(spans, c)
	}
	r.mu.Unlock()
	slices.SortFunc(spans, func(a, b span) int { return a.start.Compare(b.start) })
	rounds := 0
	var busyUntil time.Time
	for _, s := range spans {
		if !s.start.Before(busyUntil) {
			rounds++
		}
		if s.end.After(busyUntil) {
			busyUntil = s.end
		}
	}
	return rounds
}

// Reset forgets every count.
func (r *Requests) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n = map[string]int{}
	r.spans = nil
}

// GRPCDialOptions are interceptors counting every call on a connection. A stream is in
// flight until its last message is received.
func (r *Requests) GRPCDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			s := r.begin(method)
			defer r.finish(s)
			return invoker(ctx, method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			s := r.begin(method)
			cs, err := streamer(ctx, desc, cc, method, opts...)
			if err != nil {
				r.finish(s)
				return nil, err
			}
			return &countedStream{ClientStream: cs, done: func() { r.finish(s) }}, nil
		}),
	}
}

type countedStream struct {
	grpc.ClientStream
	done func()
}

func (c *countedStream) RecvMsg(m any) error {
	err := c.ClientStream.RecvMsg(m)
	if err != nil {
		c.done()
	}
	return err
}

// HTTPClient is a client whose every request is counted as "http METHOD", in flight until
// its response body is closed.
func (r *Requests) HTTPClient() *http.Client { return r.HTTPClientVia(http.DefaultTransport) }

// HTTPClientVia is HTTPClient sending through rt (a transport of its own, to start without
// open connections).
func (r *Requests) HTTPClientVia(rt http.RoundTripper) *http.Client {
	return &http.Client{Transport: roundTripper(func(req *http.Request) (*http.Response, error) {
		s := r.begin("http " + req.Method)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			r.finish(s)
			return nil, err
		}
		resp.Body = &countedBody{ReadCloser: resp.Body, done: func() { r.finish(s) }}
		return resp, nil
	})}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

type countedBody struct {
	io.ReadCloser
	done func()
}

func (b *countedBody) Close() error {
	b.done()
	return b.ReadCloser.Close()
}
