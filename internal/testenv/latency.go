package testenv

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/storage"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// LatencyProxy is a loopback TCP proxy that delays every byte going from the client to the
// target by Delay, as a network link of that round-trip time would: a request is answered
// Delay later than without the proxy, and requests sent back to back share the wait instead
// of adding up (a delay line, not a queue). A program's added time divided by Delay is the
// number of sequential round trips it made. It is closed when the test ends.
type LatencyProxy struct {
	addr   string
	target string
	delay  time.Duration
	ln     net.Listener

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewLatencyProxy starts a proxy to target (host:port) that adds delay to each exchange.
func NewLatencyProxy(t testing.TB, target string, delay time.Duration) *LatencyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("latency proxy: %v", err)
	}
	p := &LatencyProxy{addr: ln.Addr().String(), target: target, delay: delay, ln: ln, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// Addr is the proxy's host:port.
func (p *LatencyProxy) Addr() string { return p.addr }

// URL is the proxy's base URL for an HTTP target, e.g. a storage emulator endpoint.
func (p *LatencyProxy) URL() string { return "http://" + p.addr }

func (p *LatencyProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		if !p.track(c, up) {
			return
		}
		p.wg.Add(2)
		go func() { defer p.wg.Done(); p.pipe(up, c, p.delay) }()
		go func() { defer p.wg.Done(); p.pipe(c, up, 0) }()
	}
}

func (p *LatencyProxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		for _, c := range cs {
			_ = c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

// chunk is what one read returned and when it arrived.
type chunk struct {
	data []byte
	at   time.Time
}

// pipe copies src to dst, each chunk written delay after it was read. The reader never waits
// for the writer (up to a generous buffer), so consecutive chunks travel together.
func (p *LatencyProxy) pipe(dst, src net.Conn, delay time.Duration) {
	defer func() { _ = dst.Close(); _ = src.Close() }()
	if delay == 0 {
		_, _ = io.Copy(dst, src)
		return
	}
	line := make(chan chunk, 1024)
	go func() {
		defer close(line)
		for {
			buf := make([]byte, 64<<10)
			n, err := src.Read(buf)
			if n > 0 {
				line <- chunk{data: buf[:n], at: time.Now()}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range line {
		if d := time.Until(c.at.Add(delay)); d > 0 {
			time.Sleep(d)
		}
		if _, err := dst.Write(c.data); err != nil {
			for range line { // let the reader finish
			}
			return
		}
	}
}

func (p *LatencyProxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}

// FirestoreVia returns a client of database in project on the Firestore emulator, connected
// through addr (e.g. a LatencyProxy's) instead of FIRESTORE_EMULATOR_HOST, with extra gRPC
// dial options (interceptors). It is closed when the test ends; the caller drops the data.
func FirestoreVia(t testing.TB, addr, project, database string, dial ...grpc.DialOption) *firestore.Client {
	t.Helper()
	if database == "" {
		database = firestore.DefaultDatabaseID
	}
	// What the Firestore client does itself for FIRESTORE_EMULATOR_HOST: plain text, and the
	// emulator's "owner" bearer token, which bypasses security rules.
	dial = append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(emulatorCreds{}),
	}, dial...)
	conn, err := grpc.NewClient(addr, dial...)
	if err != nil {
		t.Fatalf("grpc connection to %s: %v", addr, err)
	}
	c, err := firestore.NewClientWithDatabase(context.Background(), project, database, option.WithGRPCConn(conn))
	if err != nil {
		_ = conn.Close()
		t.Fatalf("firestore client via %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = c.Close(); _ = conn.Close() })
	return c
}

type emulatorCreds struct{}

func (emulatorCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer owner"}, nil
}

func (emulatorCreds) RequireTransportSecurity() bool { return false }

// StorageClientWith is StorageClient with extra client options (an HTTP client counting
// requests, for instance).
func StorageClientWith(t testing.TB, url string, opts ...option.ClientOption) *storage.Client {
	t.Helper()
	c, err := storage.NewClient(context.Background(), append([]option.ClientOption{
		option.WithEndpoint(url + "/storage/v1/"),
		option.WithoutAuthentication(),
		storage.WithJSONReads(),
	}, opts...)...)
	if err != nil {
		t.Fatalf("storage client of %s: %v", url, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
