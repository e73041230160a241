// Package geminitest provides a fake Gemini API server for tests, in the spirit
// of net/http/httptest.
//
// NewServer starts a real HTTP server on a loopback address. Point the genai SDK
// at it with HTTPOptions.BaseURL, or point a subprocess at it with the
// GOOGLE_GEMINI_BASE_URL environment variable:
//
//	srv := geminitest.NewServer(t)
//	srv.Enqueue(geminitest.Reply{Text: "Hello from the fake."})
//
//	client, err := genai.NewClient(ctx, &genai.ClientConfig{
//		Backend:     genai.BackendGeminiAPI,
//		APIKey:      "test",
//		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()},
//	})
//	...
//	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("Hi"), nil)
//	// resp.Text() == "Hello from the fake."
//	// srv.Requests()[0].LastUserText() == "Hi"
//
// A subprocess (such as the CLI binary under an end-to-end test) needs both
// GOOGLE_GEMINI_BASE_URL=srv.URL() and an API key in GEMINI_API_KEY or
// GOOGLE_API_KEY: the SDK refuses to start without one, whatever its value.
//
// The server answers POST requests for any model on the paths the SDK uses with
// the Gemini Developer API backend (API versions v1beta, v1, v1alpha and, to be
// lenient, any path that ends in models/{model}:{method}, as Vertex AI paths do):
//
//	/v1beta/models/{model}:generateContent
//	/v1beta/models/{model}:streamGenerateContent?alt=sse
//	/v1beta/models/{model}:countTokens
//	/v1beta/models/{model}:batchEmbedContents (and :embedContent)
//
// Embedding requests are answered with Embedding of each content's text, a
// deterministic hashed bag of words (outputDimensionality long, default
// DefaultEmbeddingDims), and counted by EmbedRequests; they are not recorded in
// Requests, nor subject to faults or queued replies.
//
// Anything else gets a 404 with a Google-style error body.
//
// # Choosing a reply
//
// For every generateContent or streamGenerateContent request the server picks a
// Reply, in this order:
//
//  1. the fault function set by WithFaults, if it returns a non-nil Reply;
//  2. the oldest Reply queued with Enqueue;
//  3. the handler set by WithHandler;
//  4. the default: the text "ok: " followed by the last user text of the request.
//
// A request whose body is not JSON, or a generate request without contents, is
// answered with a 400 before any of these are consulted, as the API does.
//
// countTokens requests skip the queue (so an incidental token count does not
// consume a scripted answer); faults and the handler still see them, and a Reply
// for countTokens only contributes its timing and error fields, and
// Usage.TotalTokenCount as the count. Without one, the count is an estimate:
// one token per four bytes of request text.
//
// # Load tests
//
// The server handles hundreds of concurrent requests. Stats reports how many
// were received, are in flight and were in flight at most at once, and how many
// got an error reply. WithFaults injects errors: RandomFaults picks a
// deterministic share of the requests from a seed, and OncePerCall keeps a call
// from failing twice in a row, so that a client that retries always gets
// through:
//
//	srv := geminitest.NewServer(b,
//		geminitest.WithLatency(20*time.Millisecond),
//		geminitest.WithoutRecording(),
//		geminitest.WithFaults(geminitest.OncePerCall(
//			geminitest.RandomFaults(0.2, 1, geminitest.Reply{Status: 429, RetryDelay: time.Second}))),
//	)
//
// Close does not wait for hanging or slow requests: it drops their connections,
// and their clients get an error.
//
// # Wire format
//
// Streamed replies use server-sent events exactly as the Gemini API does and as
// the SDK's parser requires: each chunk is one line "data: <json>" followed by
// "\r\n\r\n"; there are no comment lines, event names or multi-line data. The
// finish reason and the usage metadata arrive on the last chunk only. An error
// reply is a non-2xx status with a body {"error":{"code","message","status",
// "details"}}, which the SDK returns as a genai.APIError value (not a pointer).
package geminitest
