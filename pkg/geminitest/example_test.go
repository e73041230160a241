package geminitest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/geminitest"
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
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()},
	})
	if err != nil {
		log.Fatal(err)
	}

	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("Summarize the alert."), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())

	_, err = client.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("Again."), nil)
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
	// generateContent gemini-2.5-flash Summarize the alert.
	// generateContent gemini-2.5-flash Again.
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
