// Package llm makes Gemini calls resilient. Client wraps the genai SDK's model methods (or
// anything with the same two methods, Generator) and retries what is worth retrying:
// rate limits (429), server errors (500, 502, 503, 504), calls that exceed a per-call timeout and
// transient network failures. It waits between attempts with exponential backoff and full
// jitter, or the delay the server asked for (google.rpc.RetryInfo) plus at most a tenth, never
// longer than MaxWait.
// A shared Limiter caps the request rate of every client that uses it.
//
// What is not retried: other API errors (400, 401, 403, 404, ...), a cancelled or expired
// caller context, and a stream that already yielded a chunk (half an answer is never replayed).
package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/retry"
)

// Generator is the part of the Gemini client the package wraps and a session uses; *genai.Models
// have these methods, and so does Client.
type Generator interface {
	GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
	GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error]
}

// Defaults of Options.
const (
	DefaultMaxAttempts = 4
	DefaultMaxWait     = 30 * time.Second
	DefaultBaseDelay   = 500 * time.Millisecond
	DefaultCallTimeout = 120 * time.Second
)

// Options configure a Client. Zero fields take the defaults.
type Options struct {
	// MaxAttempts is the number of tries of one call, the first included (default 4).
	MaxAttempts int
	// MaxWait is the longest wait between two tries, a server's retry delay included
	// (default 30s).
	MaxWait time.Duration
	// BaseDelay is the backoff ceiling after the first failure; it doubles after each further
	// failure, up to MaxWait. The wait is drawn uniformly below the ceiling (full jitter)
	// (default 500ms).
	BaseDelay time.Duration
	// CallTimeout bounds one try (default 120s). For a unary call it is the time to the
	// response; for a stream, the time to the first chunk and then between two chunks, so a
	// long answer that keeps coming is never cut.
	CallTimeout time.Duration
	// Limiter, when set, is waited on before every try. Share one Limiter between clients to
	// cap their combined rate.
	Limiter *Limiter

	// OnRetry, when set, is told about every retry before its wait. It may be called
	// concurrently.
	OnRetry func(Retry)
	// Sleep waits for d or until ctx ends (default: a timer). Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) for the jitter (default math/rand/v2).
	Rand func() float64
}

// Retry describes a failed try that is about to be retried.
type Retry struct {
	// Attempt is the number of the try that failed, from 1.
	Attempt int
	// Err is its error.
	Err error
	// Wait is how long the client waits before the next try.
	Wait time.Duration
}

// ErrCallTimeout is returned (wrapped) when a try got no response within CallTimeout, or a
// stream no chunk within CallTimeout of the previous one.
var ErrCallTimeout = errors.New("no response from the model in time")

// RetryError is returned when a call failed after more than one try. It wraps the last try's
// error, so errors.As still finds a genai.APIError.
type RetryError struct {
	Attempts int
	Err      error
}

func (e *RetryError) Error() string {
	return fmt.Sprintf("gave up after %d attempts: %v", e.Attempts, e.Err)
}

func (e *RetryError) Unwrap() error { return e.Err }

// Attempts reports how many tries a call that returned err made: RetryError's count, else 1.
func Attempts(err error) int {
	var re *RetryError
	if errors.As(err, &re) {
		return re.Attempts
	}
	return 1
}

// Client is a Generator that retries the calls of another.
type Client struct {
	next Generator
	opts Options
	// levels are the thinking levels the API said models take (levels.go).
	levels learnedLevels
}

var _ Generator = (*Client)(nil)

// New wraps next.
func New(next Generator, opts Options) *Client {
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = DefaultMaxWait
	}
	if opts.BaseDelay <= 0 {
		opts.BaseDelay = DefaultBaseDelay
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.Sleep == nil {
		opts.Sleep = retry.Sleep
	}
	if opts.Rand == nil {
		opts.Rand = rand.Float64
	}
	return &Client{next: next, opts: opts}
}

// errTimedOut is the cancellation cause of a try that ran out of time.
var errTimedOut = errors.New("call timeout")

// GenerateContent calls the wrapped GenerateContent, retrying as the package describes.
func (c *Client) GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	config = c.levels.adjust(model, config)
	relearned := false
	for attempt := 1; ; attempt++ {
		if err := c.opts.Limiter.Wait(ctx); err != nil {
			return nil, err
		}
		resp, err := c.generateOnce(ctx, model, contents, config)
		if err == nil {
			return resp, nil
		}
		if next := c.levels.relearn(model, config, err); next != nil && !relearned {
			// The model refused the level and named the ones it takes: once more at the nearest.
			config, relearned = next, true
			attempt--
			continue
		}
		if err := c.beforeRetry(ctx, attempt, err); err != nil {
			return nil, err
		}
	}
}

func (c *Client) generateOnce(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	tctx, cancel := context.WithTimeoutCause(ctx, c.opts.CallTimeout, errTimedOut)
	defer cancel()
	resp, err := c.next.GenerateContent(tctx, model, contents, config)
	if err != nil {
		return nil, c.tryError(ctx, tctx, err)
	}
	return resp, nil
}

// GenerateContentStream calls the wrapped GenerateContentStream. A try that fails before its
// first chunk is retried; once a chunk was yielded, an error ends the stream as it is.
func (c *Client) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		config := c.levels.adjust(model, config)
		relearned := false
		for attempt := 1; ; attempt++ {
			if err := c.opts.Limiter.Wait(ctx); err != nil {
				yield(nil, err)
				return
			}
			started, stopped, err := c.streamOnce(ctx, model, contents, config, yield)
			switch {
			case stopped || err == nil:
				return
			case started:
				yield(nil, err)
				return
			}
			if next := c.levels.relearn(model, config, err); next != nil && !relearned {
				config, relearned = next, true
				attempt--
				continue
			}
			if err := c.beforeRetry(ctx, attempt, err); err != nil {
				yield(nil, err)
				return
			}
		}
	}
}

// streamOnce runs one try of a stream, passing its chunks to yield. It reports whether a chunk
// was yielded, whether the consumer stopped, and the try's error.
func (c *Client) streamOnce(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig,
	yield func(*genai.GenerateContentResponse, error) bool) (started, stopped bool, err error) {
	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The timer runs only while the stream is awaited, not while the consumer handles a chunk.
	timer := time.AfterFunc(c.opts.CallTimeout, func() { cancel(errTimedOut) })
	defer timer.Stop()
	for resp, err := range c.next.GenerateContentStream(tctx, model, contents, config) {
		if err != nil {
			return started, false, c.tryError(ctx, tctx, err)
		}
		timer.Stop()
		started = true
		if !yield(resp, nil) {
			return true, true, nil
		}
		timer.Reset(c.opts.CallTimeout)
	}
	if context.Cause(tctx) == errTimedOut && ctx.Err() == nil {
		// The wrapped stream ended quietly after its context was cancelled.
		return started, false, c.timeoutError()
	}
	return started, false, nil
}

// tryError tells the caller's cancellation and the try's timeout apart from other errors.
func (c *Client) tryError(ctx, tctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if context.Cause(tctx) == errTimedOut {
		return c.timeoutError()
	}
	return err
}

func (c *Client) timeoutError() error {
	// The SDK's own error only says that a context ended, which would read as the caller's
	// cancellation; the timeout replaces it.
	return fmt.Errorf("%w (%s)", ErrCallTimeout, c.opts.CallTimeout)
}

// beforeRetry decides whether the failed try number attempt is retried, and waits if so. It
// returns nil to retry, else the error to return.
func (c *Client) beforeRetry(ctx context.Context, attempt int, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !Retryable(err) || attempt >= c.opts.MaxAttempts {
		if attempt > 1 {
			return &RetryError{Attempts: attempt, Err: err}
		}
		return err
	}
	wait := c.backoff(attempt, err)
	if c.opts.OnRetry != nil {
		c.opts.OnRetry(Retry{Attempt: attempt, Err: err, Wait: wait})
	}
	return c.opts.Sleep(ctx, wait)
}

// backoff is the wait after the failed try number attempt, at most MaxWait: the server's retry
// delay when it gave one, plus up to a tenth more so that clients told the same delay do not
// come back all at once; else full jitter under a ceiling that doubles from BaseDelay.
func (c *Client) backoff(attempt int, err error) time.Duration {
	if d, ok := RetryDelay(err); ok && d > 0 {
		return min(d+time.Duration(c.opts.Rand()*float64(d)/10), c.opts.MaxWait)
	}
	return retry.Backoff(c.opts.BaseDelay, c.opts.MaxWait, attempt, c.opts.Rand())
}

// Retryable reports whether err is worth another try: a 429, 500, 502, 503 or 504 from the API,
// a try that timed out, or a transient network failure. A cancelled or expired context is not.
func Retryable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrCallTimeout) {
		return true
	}
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.Code {
		case 429, 500, 502, 503, 504:
			return true
		}
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	// A stream cut before its end (EOF) is retried too: the answer did not start.
	return errors.Is(err, io.EOF) || retry.Network(err)
}

// RetryDelay returns the delay the server asked for in a google.rpc.RetryInfo detail of a
// genai.APIError ("retryDelay": "1.5s").
func RetryDelay(err error) (time.Duration, bool) {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		return 0, false
	}
	for _, d := range apiErr.Details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		if delay, ok := parseDelay(d["retryDelay"]); ok {
			return delay, true
		}
	}
	return 0, false
}

// parseDelay reads a protobuf Duration in its JSON form ("1.5s"), or as {"seconds", "nanos"}.
func parseDelay(v any) (time.Duration, bool) {
	switch v := v.(type) {
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d < 0 {
			return 0, false
		}
		return d, true
	case map[string]any:
		secs, ok1 := number(v["seconds"])
		nanos, ok2 := number(v["nanos"])
		if !ok1 && !ok2 {
			return 0, false
		}
		d := time.Duration(secs*float64(time.Second) + nanos)
		if d < 0 {
			return 0, false
		}
		return d, true
	}
	return 0, false
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case string:
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil
	}
	return 0, false
}
