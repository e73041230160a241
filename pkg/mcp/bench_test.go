package mcp_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/mcp"
)

// One call to a stdio tool that answers at once, through the registry as the call loop makes
// it: p50-ms is the median round trip.
func BenchmarkStdioCall(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	m := mcp.Start(context.Background(), &mcp.Config{Servers: map[string]mcp.ServerConfig{
		"intel": {Command: exe, Env: map[string]string{"ALERTCHAT_MCP_TEST_SERVER": "1"}},
	}}, mcp.Options{Environ: os.Environ()})
	defer m.Close()
	reg := registry(b, m.Tools(context.Background(), 20*time.Second))
	args := map[string]any{"text": "203.0.113.7"}
	ctx := context.Background()
	if res := reg.Call(ctx, "mcp_intel_echo", args); res["content"] == nil {
		b.Fatalf("echo: %v", res)
	}
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		res := reg.Call(ctx, "mcp_intel_echo", args)
		durations = append(durations, time.Since(start))
		if res["content"] == nil {
			b.Fatalf("echo: %v", res)
		}
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
}

// Three stdio servers, one of them ready only after 300 ms, against none: start-ms is how long
// starting them keeps the chat from its prompt, first-question-ms how long a question asked at
// once waits for their tools (at most the slowest start plus 50 ms is the goal).
func BenchmarkStartThreeServers(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	const slow = 300 * time.Millisecond
	server := func(mode string) mcp.ServerConfig {
		return mcp.ServerConfig{Command: exe, Env: map[string]string{"ALERTCHAT_MCP_TEST_SERVER": mode, "ALERTCHAT_MCP_TEST_DELAY": slow.String()}}
	}
	for _, bc := range []struct {
		name    string
		servers map[string]mcp.ServerConfig
	}{
		{"none", map[string]mcp.ServerConfig{}},
		{"three", map[string]mcp.ServerConfig{"a": server("1"), "b": server("1"), "slow": server("slowstart")}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var startSum, waitSum time.Duration
			for b.Loop() {
				t0 := time.Now()
				m := mcp.Start(context.Background(), &mcp.Config{Servers: bc.servers}, mcp.Options{Environ: os.Environ()})
				started := time.Since(t0)
				tools := m.Tools(context.Background(), 5*time.Second)
				waited := time.Since(t0)
				if want := 4 * len(bc.servers); len(tools) != want {
					b.Fatalf("%d tools, want %d", len(tools), want)
				}
				startSum += started
				waitSum += waited
				_ = m.Close()
			}
			n := float64(b.N)
			b.ReportMetric(float64(startSum.Microseconds())/1000/n, "start-ms")
			b.ReportMetric(float64(waitSum.Microseconds())/1000/n, "first-question-ms")
			if len(bc.servers) > 0 {
				b.ReportMetric(float64(slow.Milliseconds()), "slowest-start-ms")
			}
		})
	}
}
