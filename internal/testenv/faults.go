package testenv

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Fault is how a FaultProxy treats requests.
type Fault int32

// Faults a FaultProxy can inject.
const (
	// Pass forwards requests to the target.
	Pass Fault = iota
	// Refuse closes the listening socket (and every open connection): connections are
	// refused, as by a host whose server is down.
	Refuse
	// Unavailable answers every request with 503 and a Google-style error body.
	Unavailable
	// Hang accepts requests and never answers them, until the client gives up.
	Hang
)

func (f Fault) String() string {
	switch f {
	case Refuse:
		return "refuse"
	case Unavailable:
		return "503"
	case Hang:
		return "hang"
	}
	return "pass"
}

// FaultProxy is a reverse proxy on a loopback port in front of an HTTP server (such as
// fake-gcs-server), whose behaviour a test switches at run time with Set. It is closed when
// the test ends.
type FaultProxy struct {
	addr  string
	fault atomic.Int32
	proxy *httputil.ReverseProxy
	srv   *http.Server

	mu       sync.Mutex
	ln       net.Listener
	conns    map[net.Conn]struct{}
	closed   chan struct{}
	requests atomic.Int64
	faulted  atomic.Int64
}

// NewFaultProxy starts a proxy to target (e.g. "http://127.0.0.1:1234") in Pass mode.
func NewFaultProxy(t testing.TB, target string) *FaultProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("fault proxy target %q: %v", target, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fault proxy: %v", err)
	}
	p := &FaultProxy{addr: ln.Addr().String(), proxy: httputil.NewSingleHostReverseProxy(u),
		conns: map[net.Conn]struct{}{}, closed: make(chan struct{})}
	p.proxy.ErrorLog = nil
	p.srv = &http.Server{
		Handler:           http.HandlerFunc(p.serve),
		ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(c net.Conn, s http.ConnState) {
			p.mu.Lock()
			defer p.mu.Unlock()
			switch s {
			case http.StateNew:
				p.conns[c] = struct{}{}
			case http.StateClosed, http.StateHijacked:
				delete(p.conns, c)
			}
		},
	}
	p.ln = ln
	go func() { _ = p.srv.Serve(ln) }()
	t.Cleanup(p.close)
	return p
}

// URL is the proxy's base URL, e.g. the value of STORAGE_EMULATOR_HOST.
func (p *FaultProxy) URL() string { return "http://" + p.addr }

// Requests is how many requests reached the proxy; Faulted how many of them it failed.
func (p *FaultProxy) Requests() int64 { return p.requests.Load() }

// Faulted is how many requests were answered with a fault (503 or a hang).
func (p *FaultProxy) Faulted() int64 { return p.faulted.Load() }

// Fault returns the current mode.
func (p *FaultProxy) Fault() Fault { return Fault(p.fault.Load()) }

// Set switches the proxy's behaviour for new requests and connections.
func (p *FaultProxy) Set(f Fault) {
	old := Fault(p.fault.Swap(int32(f)))
	if old == f {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case f == Refuse:
		if p.ln != nil {
			_ = p.ln.Close()
			p.ln = nil
		}
		for c := range p.conns {
			_ = c.Close()
		}
	case old == Refuse:
		// Listen again on the same port: the server is "back up".
		for i := 0; ; i++ {
			ln, err := net.Listen("tcp", p.addr)
			if err == nil {
				p.ln = ln
				go func() { _ = p.srv.Serve(ln) }()
				return
			}
			if i == 50 {
				panic("fault proxy: cannot listen again on " + p.addr + ": " + err.Error())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func (p *FaultProxy) serve(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	switch Fault(p.fault.Load()) {
	case Unavailable:
		p.faulted.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"code":503,"message":"injected outage","status":"UNAVAILABLE"}}`))
		return
	case Hang:
		p.faulted.Add(1)
		select {
		case <-r.Context().Done():
		case <-p.closed:
		}
		return
	case Refuse:
		// A request on a connection accepted just before the switch.
		p.faulted.Add(1)
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				_ = c.Close()
				return
			}
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	p.proxy.ServeHTTP(w, r)
}

func (p *FaultProxy) close() {
	close(p.closed)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := p.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		_ = p.srv.Close()
	}
}
