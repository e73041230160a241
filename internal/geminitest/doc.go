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
//	resp, err := client.Models.GenerateContent(ctx, "gemini-3.8-flash", genai.Text("Hi"), nil)
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
// It also serves the model list (GET /v1beta/models?pageSize=&pageToken=, paged as the API
// pages it, retired models left out, and GET /v1beta/models/{model}: Models.List, All and
// Get; see ModelInfo, DefaultModels, WithModels), the Batch API and the Files API (see "Batch
// jobs" below). Anything else gets a 404 with a Google-style error body.
//
// # Gemini 3
//
// WithGemini3 makes the server answer as the Gemini API serves Gemini 3 models: a retired or
// unknown model is a 404 NOT_FOUND with the API's message; thinkingLevel is checked against
// the model's levels and refused beside thinkingBudget; every answer thinks and the thinking
// counts against maxOutputTokens (a tight cap ends MAX_TOKENS with no text) and is reported as
// thoughtsTokenCount; calls get 8-character ids, the first a thought signature, each streamed
// in an event of its own, and every answer ends with a signed empty text part; a request
// whose current turn's calls lack their signature, whose responses lack their call's id, or
// that holds an empty part is a 400. Batch jobs behave alike: a job for a model that is not
// served is the 404, and each request of a job is checked and answered as a direct one (its
// 400s are the job's per-request errors). See WithGemini3 for the details, and WithThinkingTokens
// and WithThinkingTime for how much and how long the model thinks.
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
// # Batch jobs
//
// The server serves the Gemini Developer API's Batch API and Files API on the paths
// the SDK uses with genai.BackendGeminiAPI:
//
//	POST   /v1beta/models/{model}:batchGenerateContent   Batches.Create
//	GET    /v1beta/batches/{id}                          Batches.Get
//	GET    /v1beta/batches?pageSize=&pageToken=          Batches.List, Batches.All
//	POST   /v1beta/batches/{id}:cancel                   Batches.Cancel
//	DELETE /v1beta/batches/{id}                          Batches.Delete
//	POST   /upload/v1beta/files                          Files.Upload (resumable: start, then
//	                                                     chunks to the X-Goog-Upload-URL it answers)
//	GET    /v1beta/files/{id}                            Files.Get
//	DELETE /v1beta/files/{id}                            Files.Delete
//	GET    /v1beta/files/{id}:download?alt=media         Files.Download
//
// The last one is also the results file's download URI (File.DownloadURI, from
// Files.Get): a caller may stream the results with a plain GET of
// srv.URL()+"/v1beta/files/{id}:download?alt=media" carrying the x-goog-api-key header.
// Calls to these paths without an API key get a 403, as from the API.
//
// A job is an operation {"name", "metadata", "done"} whose metadata holds the state
// ("BATCH_STATE_PENDING"..., which the SDK turns into genai.JobState) and, once the job
// has ended with answers, the output: {"inlinedResponses": {"inlinedResponses": [...]}}
// for inlined requests, each with the request's metadata, or {"responsesFile":
// "files/{id}"} for a file source, a JSONL file with one {"key", "response"} or {"key",
// "error"} line per answered request. The create request must have a display name (the
// API requires one; the SDK sends it only from CreateBatchJobConfig.DisplayName), and a
// file source must be an uploaded JSONL file of {"key", "request"} lines; anything else
// is a 400, or a 403 for a file that does not exist.
//
// Jobs are created PENDING and move only when the test says so, never on a clock:
//
//	srv := geminitest.NewServer(t, geminitest.WithBatchHandler(func(r *geminitest.BatchRequest) geminitest.Reply {
//		if r.Key == "q2" {
//			return geminitest.Reply{Status: 429} // this request fails
//		}
//		return geminitest.Reply{Text: "answer to " + r.Key}
//	}))
//	job, err := client.Batches.Create(ctx, "gemini-3.8-flash", &genai.BatchJobSource{InlinedRequests: reqs},
//		&genai.CreateBatchJobConfig{DisplayName: "alerts"})
//	srv.AdvanceBatches() // PENDING to RUNNING
//	srv.AdvanceBatches() // RUNNING to SUCCEEDED: every request answered
//	job, err = client.Batches.Get(ctx, job.Name, nil)
//	// job.Dest.InlinedResponses, in reverse input order; match them by Metadata.
//
// SetBatchState jumps to a state, FinishBatch ends a job with some of its requests
// answered (an expired job's partial results), Cancel through the API cancels it. The
// answers come, in this order, from the job's handler (SetBatchHandler), WithBatchHandler,
// WithHandler, or the default answer. Batch, Batches and BatchStats show what was
// received; FailNext(KindBatchGet, n, Reply{Status: 429}) makes the next n polls fail;
// AddBatchResultLines puts lines such as garbage into a results file. A failed request's error
// carries typed details ({"@type": ...} objects), as the API's do.
//
// WithVertexBatches adds Vertex AI's batch prediction jobs (batchPredictionJobs), reading
// their gs:// input and writing their predictions.jsonl through a Cloud Storage of the
// test's (fake-gcs-server).
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
