package geminitest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
)

func ExampleNewServer() {
	// In a test, pass t: the server is closed by t.Cleanup.
	srv := geminitest.NewServer(nil)
	defer srv.Close()
	srv.Enqueue(
		geminitest.Reply{Text: "Disk usage is at 91%."},
		geminitest.Reply{Status: 429, RetryDelay: 2 * time.Second},
	)

	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		Backend:     genai.BackendGeminiAPI,
		APIKey:      "test",
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client(),
	})
	if err != nil {
		log.Fatal(err)
	}

	resp, err := client.Models.GenerateContent(ctx, "gemini-3.8-flash", genai.Text("Summarize the alert."), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())

	_, err = client.Models.GenerateContent(ctx, "gemini-3.8-flash", genai.Text("Again."), nil)
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Code, apiErr.Status, apiErr.Details[0]["retryDelay"])
	}

	for _, r := range srv.Requests() {
		fmt.Println(r.Kind, r.Model, r.LastUserText())
	}
	// Output:
	// Disk usage is at 91%.
	// 429 RESOURCE_EXHAUSTED 2s
	// generateContent gemini-3.8-flash Summarize the alert.
	// generateContent gemini-3.8-flash Again.
}

func ExampleWithGemini3() {
	srv := geminitest.NewServer(nil, geminitest.WithGemini3())
	defer srv.Close()
	srv.Enqueue(geminitest.Reply{Text: "Drop Point DNS Query"}, geminitest.Reply{Text: "Drop Point DNS Query"})
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "test", HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client()})
	if err != nil {
		log.Fatal(err)
	}

	// A retired model answers 404.
	_, err = client.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("Title?"), nil)
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Code, apiErr.Status)
	}
	// Thinking counts against the output cap: 64 tokens at LOW leave no room for the text.
	low := &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelLow}
	resp, _ := client.Models.GenerateContent(ctx, "gemini-3.8-flash", genai.Text("Title?"), &genai.GenerateContentConfig{MaxOutputTokens: 64, ThinkingConfig: low})
	fmt.Printf("%s %q\n", resp.Candidates[0].FinishReason, resp.Text())
	resp, _ = client.Models.GenerateContent(ctx, "gemini-3.8-flash", genai.Text("Title?"), &genai.GenerateContentConfig{MaxOutputTokens: 64 + 2048, ThinkingConfig: low})
	fmt.Printf("%s %q thoughts=%d\n", resp.Candidates[0].FinishReason, resp.Text(), resp.UsageMetadata.ThoughtsTokenCount)
	// Output:
	// 404 NOT_FOUND
	// MAX_TOKENS ""
	// STOP "Drop Point DNS Query" thoughts=160
}

func ExampleWithFaults() {
	// One call in five gets a 429, but never twice in a row for the same call,
	// so a client that retries once always gets through.
	srv := geminitest.NewServer(nil, geminitest.WithFaults(
		geminitest.OncePerCall(geminitest.RandomFaults(0.2, 1, geminitest.Reply{Status: 429})),
	))
	defer srv.Close()
	fmt.Println(srv.Stats().Requests)
	// Output: 0
}

func ExampleServer_AdvanceBatches() {
	srv := geminitest.NewServer(nil, geminitest.WithBatchHandler(func(r *geminitest.BatchRequest) geminitest.Reply {
		return geminitest.Reply{Text: "answer to " + r.Key}
	}))
	defer srv.Close()

	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		Backend:     genai.BackendGeminiAPI,
		APIKey:      "test",
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client(),
	})
	if err != nil {
		log.Fatal(err)
	}
	var reqs []*genai.InlinedRequest
	for _, key := range []string{"q1", "q2"} {
		reqs = append(reqs, &genai.InlinedRequest{Contents: genai.Text("Summarize " + key), Metadata: map[string]string{"key": key}})
	}
	job, err := client.Batches.Create(ctx, "gemini-2.5-flash", &genai.BatchJobSource{InlinedRequests: reqs},
		&genai.CreateBatchJobConfig{DisplayName: "alerts"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.State)

	srv.AdvanceBatches() // running
	srv.AdvanceBatches() // succeeded
	job, err = client.Batches.Get(ctx, job.Name, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.State)
	for _, r := range job.Dest.InlinedResponses {
		fmt.Println(r.Metadata["key"], r.Response.Text())
	}
	// Output:
	// JOB_STATE_PENDING
	// JOB_STATE_SUCCEEDED
	// q2 answer to q2
	// q1 answer to q1
}
