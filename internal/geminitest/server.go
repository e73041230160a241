package geminitest

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genai"
)

// A Server is a fake Gemini API server listening on a loopback address. Its
// methods are safe for concurrent use.
type Server struct {
	srv *httptest.Server

	// Set by options before the server starts, read-only afterwards.
	handler    func(*Request) Reply
	faults     func(*Request) *Reply
	latency    time.Duration
	chunkDelay time.Duration
	noRecord   bool

	// Gemini 3 mode (WithGemini3) and the model list (models.go), set by options.
	g3        bool
	models    []ModelInfo
	modelPage int
	thinking  map[genai.ThinkingLevel]int32
	thinkTime time.Duration
	// sigs are the thought signatures the server sent (Gemini 3 mode), guarded by mu.
	sigs       map[string]bool
	modelLists atomic.Int64

	ctx    context.Context // canceled by Close; parent of every request context
	cancel context.CancelFunc

	mu    sync.Mutex
	seq   int64
	queue []Reply
	reqs  []*Request

	inFlight    atomic.Int64
	maxInFlight atomic.Int64
	errors      atomic.Int64
	embeds      atomic.Int64
	chunks      atomic.Int64

	// failures are the faults scripted by FailNext, by kind; guarded by mu.
	failures map[string]*failure

	// The Batch API and Files API: jobs, files and uploads, guarded by bmu.
	batchHandler func(*BatchRequest) Reply // set by options
	vertex       *VertexBatches            // set by WithVertexBatches (vertex.go)
	bmu          sync.Mutex
	jobs         map[string]*batchJob
	jobOrder     []string
	files        map[string]*storedFile
	uploads      map[string]*pendingUpload
	nextJob      int
	nextFile     int
	nextUpload   int
	bcount       struct {
		created, gets, lists, cancels, deletes, uploads, fileGets, downloads atomic.Int64
	}
}

// An Option configures a Server.
type Option func(*Server)

// WithHandler sets the function that computes the reply to a request when no
// fault applies and the queue is empty. It may route on the Kind, the model,
// the system instruction, the text... It is called concurrently.
func WithHandler(h func(*Request) Reply) Option {
	return func(s *Server) { s.handler = h }
}

// WithFaults sets a function consulted first for every request: a non-nil
// Reply is answered instead of the normal one. See RandomFaults and OncePerCall.
// It is called concurrently.
func WithFaults(f func(*Request) *Reply) Option {
	return func(s *Server) { s.faults = f }
}

// WithLatency sets the wait before the first byte of every reply whose Latency
// is zero.
func WithLatency(d time.Duration) Option {
	return func(s *Server) { s.latency = d }
}

// WithChunkDelay sets the wait between streamed chunks of every reply whose
// ChunkDelay is zero.
func WithChunkDelay(d time.Duration) Option {
	return func(s *Server) { s.chunkDelay = d }
}

// WithoutRecording stops the server from keeping requests for Requests, so that
// long benchmarks do not accumulate memory. Stats still count them.
func WithoutRecording() Option {
	return func(s *Server) { s.noRecord = true }
}

// NewServer starts a Server on 127.0.0.1 at a free port. When t is not nil, the
// server is closed by t.Cleanup; otherwise (e.g. in TestMain or an example) the
// caller must call Close.
func NewServer(t testing.TB, opts ...Option) *Server {
	if t != nil {
		t.Helper()
	}
	s := &Server{
		failures: map[string]*failure{},
		jobs:     map[string]*batchJob{},
		files:    map[string]*storedFile{},
		uploads:  map[string]*pendingUpload{},
		models:   DefaultModels(),
		sigs:     map[string]bool{},
		thinking: ThinkingTokens(),
	}
	for _, o := range opts {
		o(s)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	s.srv.Config.BaseContext = func(net.Listener) context.Context { return s.ctx }
	s.srv.Start()
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// URL returns the server's base URL, of the form http://127.0.0.1:PORT, for
// genai.HTTPOptions.BaseURL or the GOOGLE_GEMINI_BASE_URL environment variable.
func (s *Server) URL() string { return s.srv.URL }

// Client returns an HTTP client with a transport of its own, closed with the
// server. Tests that run in parallel should use it rather than
// http.DefaultClient: every httptest server's Close closes the default
// transport's idle connections, and a POST that has just taken one of them
// fails with "CloseIdleConnections called" instead of being retried.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Close shuts the server down. Requests still in flight, including hanging
// ones, are abandoned: their connections are closed. Close may be called more
// than once.
func (s *Server) Close() {
	s.cancel()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Enqueue appends replies to the queue. Each generateContent or
// streamGenerateContent request for which no fault applies takes the oldest
// queued reply, in arrival order.
func (s *Server) Enqueue(r ...Reply) {
	s.mu.Lock()
	s.queue = append(s.queue, r...)
	s.mu.Unlock()
}

// Requests returns the requests received so far on the model paths, in
// arrival order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// Stats holds counters of the requests received on the model paths.
type Stats struct {
	// Requests is the number of requests received.
	Requests int64
	// InFlight is the number of requests being handled now.
	InFlight int64
	// MaxInFlight is the largest number of requests handled at the same time.
	MaxInFlight int64
	// Errors is the number of error replies, including error events that end
	// a stream.
	Errors int64
	// Chunks counts the stream chunks written and flushed to clients.
	Chunks int64
}

// Stats returns the server's counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	n := s.seq
	s.mu.Unlock()
	return Stats{
		Requests:    n,
		InFlight:    s.inFlight.Load(),
		MaxInFlight: s.maxInFlight.Load(),
		Errors:      s.errors.Load(),
		Chunks:      s.chunks.Load(),
	}
}

// modelPath matches the paths of the model methods. The API version comes
// first; anything may sit between it and models/{model} (Vertex AI puts
// projects/{p}/locations/{l}/publishers/google there).
var modelPath = regexp.MustCompile(`^/(?:v1|v1beta|v1alpha|v1beta1)/(?:.*/)?(models|tunedModels)/([^/:]+):(generateContent|streamGenerateContent|countTokens)$`)

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if s.serveBatches(w, r) || s.serveFiles(w, r) || s.serveModels(w, r) {
		return
	}
	if e := embedPath.FindStringSubmatch(r.URL.Path); e != nil && r.Method == http.MethodPost {
		s.serveEmbed(w, r, e[2])
		return
	}
	m := modelPath.FindStringSubmatch(r.URL.Path)
	if m == nil || r.Method != http.MethodPost {
		writeError(w, &Reply{Status: http.StatusNotFound, ErrorMessage: "Method not found: " + r.Method + " " + r.URL.Path})
		return
	}

	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		peak := s.maxInFlight.Load()
		if n <= peak || s.maxInFlight.CompareAndSwap(peak, n) {
			break
		}
	}

	req := &Request{
		Time:   time.Now(),
		Kind:   m[3],
		Model:  m[2],
		Path:   r.URL.Path,
		Header: r.Header.Clone(),
	}
	if m[1] == "tunedModels" {
		req.Model = "tunedModels/" + m[2]
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	req.Body = body
	decodeErr := req.decode()

	s.mu.Lock()
	s.seq++
	req.Seq = s.seq
	if !s.noRecord {
		s.reqs = append(s.reqs, req)
	}
	s.mu.Unlock()

	var reply Reply
	var g3Err *Reply
	if s.g3 && decodeErr == nil {
		g3Err = s.g3Check(req)
	}
	switch {
	case decodeErr != nil:
		reply = Reply{Status: http.StatusBadRequest, ErrorMessage: "Invalid JSON payload received. " + decodeErr.Error()}
	case g3Err != nil && g3Err.Status == http.StatusNotFound:
		reply = *g3Err
	case req.Kind != KindCountTokens && len(req.Contents) == 0:
		reply = Reply{Status: http.StatusBadRequest, ErrorMessage: "* GenerateContentRequest.contents: contents is not specified"}
	case req.Kind != KindCountTokens && unpaired(req.Contents) != "":
		reply = Reply{Status: http.StatusBadRequest, ErrorMessage: unpaired(req.Contents)}
	case g3Err != nil:
		reply = *g3Err
	default:
		reply = s.pick(req)
	}
	if s.g3 && req.Kind != KindCountTokens && !reply.isError() && reply.BlockReason == "" {
		think := s.g3Shape(req, &reply)
		if reply.Latency == 0 {
			reply.Latency = s.latency
		}
		reply.Latency += think
	}
	s.serve(r.Context(), w, req, &reply)
}

// pick chooses the reply to a request: scripted failure, fault, queue, handler, default.
func (s *Server) pick(req *Request) Reply {
	if f := s.takeFailure(req.Kind); f != nil {
		return *f
	}
	if s.faults != nil {
		if f := s.faults(req); f != nil {
			return *f
		}
	}
	if req.Kind != KindCountTokens {
		s.mu.Lock()
		if len(s.queue) > 0 {
			r := s.queue[0]
			s.queue[0] = Reply{}
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return r
		}
		s.mu.Unlock()
	}
	if s.handler != nil {
		return s.handler(req)
	}
	if req.Kind == KindCountTokens {
		return Reply{}
	}
	return Reply{Text: "ok: " + req.LastUserText()}
}

func (s *Server) serve(ctx context.Context, w http.ResponseWriter, req *Request, reply *Reply) {
	latency := reply.Latency
	if latency == 0 {
		latency = s.latency
	}
	if !sleep(ctx, latency) {
		abort()
	}
	stream := req.Kind == KindStreamGenerateContent
	if reply.Hang && !(stream && reply.hasContent()) {
		<-ctx.Done()
		abort()
	}
	if reply.isError() && !(stream && reply.hasContent()) {
		s.errors.Add(1)
		writeError(w, reply)
		return
	}

	switch req.Kind {
	case KindCountTokens:
		total := estimateTokens(req.textBytes())
		if reply.Usage != nil {
			total = reply.Usage.TotalTokenCount
		}
		writeJSON(w, http.StatusOK, map[string]int32{"totalTokens": total})
	case KindGenerateContent:
		writeJSON(w, http.StatusOK, reply.responses(req, false)[0])
	case KindStreamGenerateContent:
		s.stream(ctx, w, req, reply)
	}
}

func (s *Server) stream(ctx context.Context, w http.ResponseWriter, req *Request, reply *Reply) {
	delay := reply.ChunkDelay
	if delay == 0 {
		delay = s.chunkDelay
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)

	var events []any
	for _, resp := range reply.responses(req, true) {
		events = append(events, resp)
	}
	if reply.isError() && !reply.Hang {
		events = append(events, errorBody{reply.apiError()})
	}
	for i, ev := range events {
		if i > 0 && !sleep(ctx, delay) {
			abort()
		}
		b, err := json.Marshal(ev)
		if err != nil {
			panic("geminitest: encoding a stream chunk: " + err.Error())
		}
		if _, ok := ev.(errorBody); ok {
			s.errors.Add(1)
		}
		// The framing the API uses and the SDK's scanner accepts: a single
		// data line, then a blank line, with CRLF line ends.
		if _, err := w.Write(append(append([]byte("data: "), b...), "\r\n\r\n"...)); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		// Counted once the chunk is on the wire: a test waits on the count, not on a clock.
		req.chunks.Add(1)
		s.chunks.Add(1)
	}
	if reply.Hang {
		<-ctx.Done()
		abort()
	}
}

// abort ends a request that was given up (the client left or the server is
// closing) without a complete response: the connection is dropped, so the
// client sees an error rather than an empty success.
func abort() { panic(http.ErrAbortHandler) }

type errorBody struct {
	Error genai.APIError `json:"error"`
}

func writeError(w http.ResponseWriter, r *Reply) {
	writeJSON(w, r.Status, errorBody{r.apiError()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("geminitest: encoding a response: " + err.Error())
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// sleep waits for d, reporting false if ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
