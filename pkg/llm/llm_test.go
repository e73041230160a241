package llm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log"
	"net"
	"net/url"
	"os"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/llm"
)

func TestMain(m *testing.M) {
	// The SDK logs cancelled streams with the standard logger.
	log.SetOutput(io.Discard)
	os.Exit(m.Run())
}

// sleeps records the backoff waits instead of sleeping.
type sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) get() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

func genaiModels(t *testing.T, srv *geminitest.Server) *genai.Models {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c.Models
}

// kind is one of the two call shapes, so that each behaviour is checked for both.
type kind struct {
	name string
	call func(ctx context.Context, c *llm.Client, q string) (string, int, error) // text, chunks, error
}

var kinds = []kind{
	{"unary", func(ctx context.Context, c *llm.Client, q string) (string, int, error) {
		resp, err := c.GenerateContent(ctx, "gemini-test", genai.Text(q), nil)
		if err != nil {
			return "", 0, err
		}
		return resp.Text(), 1, nil
	}},
	{"stream", func(ctx context.Context, c *llm.Client, q string) (string, int, error) {
		return collect(c.GenerateContentStream(ctx, "gemini-test", genai.Text(q), nil))
	}},
}

func collect(seq iter.Seq2[*genai.GenerateContentResponse, error]) (string, int, error) {
	text, n := "", 0
	for resp, err := range seq {
		if err != nil {
			return text, n, err
		}
		n++
		text += resp.Text()
	}
	return text, n, nil
}

func apiCode(err error) int {
	var e genai.APIError
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func TestRetriesThenSucceeds(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		for _, tc := range []struct {
			name    string
			replies []geminitest.Reply
		}{
			{"429 then success", []geminitest.Reply{{Status: 429}, {Text: "fine"}}},
			{"503 twice then success", []geminitest.Reply{{Status: 503}, {Status: 503}, {Text: "fine"}}},
			{"500 502 504 then success", []geminitest.Reply{{Status: 500}, {Status: 502}, {Status: 504}, {Text: "fine"}}},
		} {
			t.Run(k.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := geminitest.NewServer(t)
				srv.Enqueue(tc.replies...)
				var s sleeps
				var retries []llm.Retry
				var mu sync.Mutex
				c := llm.New(genaiModels(t, srv), llm.Options{Sleep: s.sleep, OnRetry: func(r llm.Retry) {
					mu.Lock()
					retries = append(retries, r)
					mu.Unlock()
				}})
				text, _, err := k.call(context.Background(), c, "question")
				if err != nil || text != "fine" {
					t.Fatalf("got %q, %v", text, err)
				}
				fails := len(tc.replies) - 1
				if n := len(srv.Requests()); n != len(tc.replies) {
					t.Fatalf("%d requests, want %d", n, len(tc.replies))
				}
				if len(s.get()) != fails || len(retries) != fails {
					t.Fatalf("%d waits and %d retry notices, want %d", len(s.get()), len(retries), fails)
				}
				for i, r := range retries {
					if r.Attempt != i+1 || apiCode(r.Err) != tc.replies[i].Status {
						t.Fatalf("retry %d: %+v", i, r)
					}
				}
			})
		}
	}
}

func TestBackoffIsExponentialWithFullJitter(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(*geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Status: 503}
	}))
	for _, tc := range []struct {
		rand float64
		want []time.Duration
	}{
		// Ceilings 100ms, 200ms, then MaxWait (300ms); the wait is rand times the ceiling.
		{0.5, []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 150 * time.Millisecond, 150 * time.Millisecond, 150 * time.Millisecond}},
		{0, []time.Duration{0, 0, 0, 0, 0}},
	} {
		var s sleeps
		c := llm.New(genaiModels(t, srv), llm.Options{
			MaxAttempts: 6, BaseDelay: 100 * time.Millisecond, MaxWait: 300 * time.Millisecond,
			Sleep: s.sleep, Rand: func() float64 { return tc.rand },
		})
		_, err := c.GenerateContent(context.Background(), "gemini-test", genai.Text("q"), nil)
		var re *llm.RetryError
		if !errors.As(err, &re) || re.Attempts != 6 || apiCode(err) != 503 || llm.Attempts(err) != 6 {
			t.Fatalf("err %v", err)
		}
		if got := s.get(); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Fatalf("rand %v: waits %v, want %v", tc.rand, got, tc.want)
		}
	}
}

func TestRetryDelayIsHonoured(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t)
			srv.Enqueue(
				geminitest.Reply{Status: 429, RetryDelay: 400 * time.Millisecond},
				geminitest.Reply{Status: 503, RetryDelay: 250 * time.Millisecond},
				geminitest.Reply{Text: "after the wait"},
			)
			// BaseDelay is tiny: only the server's delay can explain the spacing.
			c := llm.New(genaiModels(t, srv), llm.Options{BaseDelay: time.Millisecond})
			text, _, err := k.call(context.Background(), c, "q")
			if err != nil || text != "after the wait" {
				t.Fatalf("got %q, %v", text, err)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests", len(reqs))
			}
			if d := reqs[1].Time.Sub(reqs[0].Time); d < 400*time.Millisecond {
				t.Fatalf("second request %v after the first, want >= 400ms", d)
			}
			if d := reqs[2].Time.Sub(reqs[1].Time); d < 250*time.Millisecond {
				t.Fatalf("third request %v after the second, want >= 250ms", d)
			}
		})
	}
}

func TestRetryDelayWaits(t *testing.T) {
	t.Parallel()
	// The server's delay replaces the backoff (which would be at most 1ms), with up to a
	// tenth added as jitter.
	for _, tc := range []struct {
		rand float64
		want time.Duration
	}{{0, 2 * time.Second}, {0.5, 2100 * time.Millisecond}} {
		srv := geminitest.NewServer(t)
		srv.Enqueue(geminitest.Reply{Status: 429, RetryDelay: 2 * time.Second}, geminitest.Reply{Text: "ok"})
		var s sleeps
		c := llm.New(genaiModels(t, srv), llm.Options{BaseDelay: time.Millisecond, Sleep: s.sleep, Rand: func() float64 { return tc.rand }})
		if _, err := c.GenerateContent(context.Background(), "gemini-test", genai.Text("q"), nil); err != nil {
			t.Fatal(err)
		}
		if got := s.get(); len(got) != 1 || got[0] != tc.want {
			t.Fatalf("rand %v: waits %v, want [%v]", tc.rand, got, tc.want)
		}
	}
}

func TestRetryDelayIsCappedByMaxWait(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	srv.Enqueue(geminitest.Reply{Status: 429, RetryDelay: time.Hour}, geminitest.Reply{Text: "ok"})
	var s sleeps
	c := llm.New(genaiModels(t, srv), llm.Options{MaxWait: 2 * time.Second, Sleep: s.sleep})
	if _, err := c.GenerateContent(context.Background(), "gemini-test", genai.Text("q"), nil); err != nil {
		t.Fatal(err)
	}
	if got := s.get(); len(got) != 1 || got[0] != 2*time.Second {
		t.Fatalf("waits %v, want [2s]", got)
	}
}

func TestPermanentErrorsAreNotRetried(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		for _, status := range []int{400, 401, 403, 404} {
			t.Run(fmt.Sprintf("%s/%d", k.name, status), func(t *testing.T) {
				t.Parallel()
				srv := geminitest.NewServer(t)
				srv.Enqueue(geminitest.Reply{Status: status}, geminitest.Reply{Text: "must not be reached"})
				var s sleeps
				c := llm.New(genaiModels(t, srv), llm.Options{Sleep: s.sleep})
				_, _, err := k.call(context.Background(), c, "q")
				if apiCode(err) != status {
					t.Fatalf("err %v, want the %d", err, status)
				}
				var re *llm.RetryError
				if errors.As(err, &re) || llm.Attempts(err) != 1 {
					t.Fatalf("a single attempt reported as %v", err)
				}
				if n := len(srv.Requests()); n != 1 || len(s.get()) != 0 {
					t.Fatalf("%d requests, %d waits; want exactly one request", n, len(s.get()))
				}
			})
		}
	}
}

func TestSafetyBlockIsNotRetried(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(*geminitest.Request) geminitest.Reply {
		return geminitest.Reply{BlockReason: "SAFETY"}
	}))
	c := llm.New(genaiModels(t, srv), llm.Options{})
	var blocked string
	for resp, err := range c.GenerateContentStream(context.Background(), "gemini-test", genai.Text("q"), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if resp.PromptFeedback != nil {
			blocked = string(resp.PromptFeedback.BlockReason)
		}
	}
	if blocked != "SAFETY" || len(srv.Requests()) != 1 {
		t.Fatalf("block reason %q after %d requests", blocked, len(srv.Requests()))
	}
}

func TestStreamRetriedOnlyBeforeTheFirstChunk(t *testing.T) {
	t.Parallel()
	t.Run("failure before the first chunk", func(t *testing.T) {
		t.Parallel()
		srv := geminitest.NewServer(t)
		srv.Enqueue(geminitest.Reply{Status: 503}, geminitest.Reply{Chunks: []string{"one ", "two ", "three"}})
		var s sleeps
		c := llm.New(genaiModels(t, srv), llm.Options{Sleep: s.sleep})
		text, chunks, err := collect(c.GenerateContentStream(context.Background(), "gemini-test", genai.Text("q"), nil))
		if err != nil || text != "one two three" || chunks != 3 {
			t.Fatalf("got %q in %d chunks, %v", text, chunks, err)
		}
		if len(srv.Requests()) != 2 {
			t.Fatalf("%d requests", len(srv.Requests()))
		}
	})
	t.Run("failure after a chunk", func(t *testing.T) {
		t.Parallel()
		srv := geminitest.NewServer(t)
		// The content streams with status 200, then an error event ends the stream.
		srv.Enqueue(geminitest.Reply{Chunks: []string{"half ", "an answer"}, Status: 503}, geminitest.Reply{Text: "replayed"})
		var s sleeps
		c := llm.New(genaiModels(t, srv), llm.Options{Sleep: s.sleep})
		text, chunks, err := collect(c.GenerateContentStream(context.Background(), "gemini-test", genai.Text("q"), nil))
		if apiCode(err) != 503 || text != "half an answer" || chunks != 2 {
			t.Fatalf("got %q in %d chunks, %v", text, chunks, err)
		}
		if len(srv.Requests()) != 1 || len(s.get()) != 0 {
			t.Fatalf("%d requests: a stream that yielded was retried", len(srv.Requests()))
		}
	})
	t.Run("stall after a chunk", func(t *testing.T) {
		t.Parallel()
		srv := geminitest.NewServer(t)
		srv.Enqueue(geminitest.Reply{Chunks: []string{"first "}, Hang: true})
		c := llm.New(genaiModels(t, srv), llm.Options{CallTimeout: 200 * time.Millisecond})
		text, _, err := collect(c.GenerateContentStream(context.Background(), "gemini-test", genai.Text("q"), nil))
		if !errors.Is(err, llm.ErrCallTimeout) || text != "first " {
			t.Fatalf("got %q, %v", text, err)
		}
		if len(srv.Requests()) != 1 {
			t.Fatalf("%d requests", len(srv.Requests()))
		}
	})
}

func TestStreamTimeoutIsBetweenChunks(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	// Six chunks 100ms apart: 500ms in all, twice the timeout, yet never 250ms without a chunk.
	srv.Enqueue(geminitest.Reply{Chunks: []string{"a", "b", "c", "d", "e", "f"}, ChunkDelay: 100 * time.Millisecond})
	c := llm.New(genaiModels(t, srv), llm.Options{CallTimeout: 250 * time.Millisecond})
	text, _, err := collect(c.GenerateContentStream(context.Background(), "gemini-test", genai.Text("q"), nil))
	if err != nil || text != "abcdef" {
		t.Fatalf("got %q, %v", text, err)
	}
	// One request, all six chunks sent: the stream was never cut and retried.
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Chunks() != 6 {
		t.Fatalf("%d requests", len(reqs))
	}
}

func TestCallTimeoutGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t, geminitest.WithHandler(func(*geminitest.Request) geminitest.Reply {
				return geminitest.Reply{Hang: true}
			}))
			var s sleeps
			c := llm.New(genaiModels(t, srv), llm.Options{MaxAttempts: 3, CallTimeout: 150 * time.Millisecond, Sleep: s.sleep})
			_, _, err := k.call(context.Background(), c, "q")
			if !errors.Is(err, llm.ErrCallTimeout) || llm.Attempts(err) != 3 {
				t.Fatalf("err %v", err)
			}
			// A timeout must not read as the caller's cancellation.
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("timeout reported as a context error: %v", err)
			}
			if n := len(srv.Requests()); n != 3 || len(s.get()) != 2 {
				t.Fatalf("%d requests, %d waits", n, len(s.get()))
			}
		})
	}
}

func TestCallerCancellationStopsAtOnce(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		t.Run(k.name+"/during a call", func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t, geminitest.WithHandler(func(*geminitest.Request) geminitest.Reply {
				return geminitest.Reply{Hang: true}
			}))
			notified := false
			c := llm.New(genaiModels(t, srv), llm.Options{CallTimeout: time.Minute, OnRetry: func(llm.Retry) { notified = true }})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(150*time.Millisecond, cancel)
			start := time.Now()
			_, _, err := k.call(ctx, c, "q")
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v", err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("returned %v after the cancellation", d)
			}
			if len(srv.Requests()) != 1 || notified {
				t.Fatalf("%d requests, retried %v", len(srv.Requests()), notified)
			}
		})
		t.Run(k.name+"/during the backoff", func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t)
			srv.Enqueue(geminitest.Reply{Status: 503, RetryDelay: 20 * time.Second}, geminitest.Reply{Text: "too late"})
			c := llm.New(genaiModels(t, srv), llm.Options{})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(150*time.Millisecond, cancel)
			start := time.Now()
			_, _, err := k.call(ctx, c, "q")
			if !errors.Is(err, context.Canceled) || time.Since(start) > 3*time.Second {
				t.Fatalf("err %v after %v", err, time.Since(start))
			}
			if len(srv.Requests()) != 1 {
				t.Fatalf("%d requests", len(srv.Requests()))
			}
		})
	}
}

func TestLimiterSpacesRequests(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	models := genaiModels(t, srv)
	// Warm up: the first call of a process pays for connections and lazy setup, which would
	// blur the arrival times.
	if _, err := models.GenerateContent(context.Background(), "gemini-test", genai.Text("warm-up"), nil); err != nil {
		t.Fatal(err)
	}
	// 600 a minute: one request every 100ms, shared by two clients (answers and titles).
	lim := llm.NewLimiter(600, 1)
	answers := llm.New(models, llm.Options{Limiter: lim})
	titles := llm.New(genaiModels(t, srv), llm.Options{Limiter: lim})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		c := answers
		if i%2 == 1 {
			c = titles
		}
		wg.Go(func() {
			if i%2 == 0 {
				_, _, err := collect(c.GenerateContentStream(context.Background(), "gemini-test", genai.Text(fmt.Sprint("q", i)), nil))
				errs <- err
				return
			}
			_, err := c.GenerateContent(context.Background(), "gemini-test", genai.Text(fmt.Sprint("t", i)), nil)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var times []time.Time
	for _, r := range srv.Requests()[1:] {
		times = append(times, r.Time)
	}
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	// The limiter releases the requests 100ms apart, 700ms from first to last; the time each
	// takes to reach the server blurs that a little.
	if span := times[len(times)-1].Sub(times[0]); span < 600*time.Millisecond {
		t.Fatalf("8 requests arrived within %v, want about 700ms (%v)", span, times)
	}
	// Any 4 consecutive requests span about 300ms.
	for i := 3; i < len(times); i++ {
		if d := times[i].Sub(times[i-3]); d < 200*time.Millisecond {
			t.Fatalf("requests %d to %d arrived within %v", i-3, i, d)
		}
	}
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{genai.APIError{Code: 429}, true},
		{fmt.Errorf("wrapped: %w", genai.APIError{Code: 503}), true},
		{genai.APIError{Code: 500}, true},
		{genai.APIError{Code: 502}, true},
		{genai.APIError{Code: 504}, true},
		{genai.APIError{Code: 400}, false},
		{genai.APIError{Code: 401}, false},
		{genai.APIError{Code: 403}, false},
		{genai.APIError{Code: 404}, false},
		{genai.APIError{Code: 501}, false},
		{fmt.Errorf("%w (1m0s)", llm.ErrCallTimeout), true},
		{context.Canceled, false},
		{fmt.Errorf("doRequest: %w", &url.Error{Op: "Post", URL: "x", Err: context.DeadlineExceeded}), false},
		{&url.Error{Op: "Post", URL: "x", Err: io.EOF}, true},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{&url.Error{Op: "Post", URL: "x", Err: &net.OpError{Op: "read", Err: syscall.ECONNRESET}}, true},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{errors.New("invalid stream chunk"), false},
		{nil, false},
	} {
		if got := llm.Retryable(tc.err); got != tc.want {
			t.Errorf("Retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	info := func(v any) error {
		return genai.APIError{Code: 429, Details: []map[string]any{
			{"@type": "type.googleapis.com/google.rpc.QuotaFailure"},
			{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": v},
		}}
	}
	for _, tc := range []struct {
		err  error
		want time.Duration
		ok   bool
	}{
		{info("1.5s"), 1500 * time.Millisecond, true},
		{info("37s"), 37 * time.Second, true},
		{fmt.Errorf("wrapped: %w", info("0.25s")), 250 * time.Millisecond, true},
		{info(map[string]any{"seconds": "2", "nanos": 500000000.0}), 2500 * time.Millisecond, true},
		{info("soon"), 0, false},
		{info("-1s"), 0, false},
		{genai.APIError{Code: 429}, 0, false},
		{errors.New("x"), 0, false},
	} {
		got, ok := llm.RetryDelay(tc.err)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RetryDelay(%v) = %v, %v; want %v, %v", tc.err, got, ok, tc.want, tc.ok)
		}
	}
}
