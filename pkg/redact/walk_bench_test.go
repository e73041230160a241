package redact_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/redact"
)

// toolResults are function responses as tools and MCP servers return them, as JSON: a
// threat-intelligence lookup keyed by IP address, a SIEM summary keyed by e-mail address, a
// list of log records (the same few keys again and again), and a text result.
func toolResults() map[string]string {
	var intel, siem, events strings.Builder
	intel.WriteString(`{"content":{`)
	siem.WriteString(`{"content":{`)
	events.WriteString(`{"content":{"total":200,"events":[`)
	for i := range 200 {
		if i > 0 {
			intel.WriteByte(',')
			siem.WriteByte(',')
			events.WriteByte(',')
		}
		fmt.Fprintf(&intel, `"203.0.%d.%d":{"score":%d,"country":"NL","asn":"AS%d","tags":["c2","scanner"],"first_seen":"2025-11-%02dT06:11:53Z","reports":%d}`,
			i/250, i%250+1, i%100, 64500+i, i%28+1, i*3)
		fmt.Fprintf(&siem, `"user%d@example.com":{"logins":%d,"failed":%d,"last_ip":"198.51.100.%d","mfa":true,"groups":["analysts","vpn"]}`,
			i, i*7, i%5, i%250+1)
		fmt.Fprintf(&events, `{"id":"evt-%06d","time":"2025-11-26T10:%02d:00Z","action":"ConsoleLogin","src_ip":"192.0.2.%d","user":"deploy","result":"Success","region":"us-east-1"}`,
			i, i%60, i%250+1)
	}
	intel.WriteString(`}}`)
	siem.WriteString(`}}`)
	events.WriteString(`]}}`)
	text, _ := json.Marshal(map[string]any{"content": strings.Repeat("Host 10.0.12.34 resolved evil.example.net; owner alice@example.com was notified. ", 100)})
	return map[string]string{"intel": intel.String(), "siem": siem.String(), "events": events.String(), "text": string(text)}
}

// BenchmarkToolResults redacts decoded tool results (the walk of every key and value) with
// keyed tokens, as a history write does.
func BenchmarkToolResults(b *testing.B) {
	tk, err := redact.NewTokenizer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		b.Fatal(err)
	}
	r := redact.New(redact.AllTypes()...).WithTokens(tk)
	results := toolResults()
	for _, name := range []string{"intel", "siem", "events", "text"} {
		src := []byte(results[name])
		b.Run(name, func(b *testing.B) {
			// decoded copies are made ahead, outside the timed loop
			const batch = 64
			copies := make([]map[string]any, batch)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			i := batch
			for b.Loop() {
				if i == batch {
					b.StopTimer()
					for k := range copies {
						copies[k] = nil
						if err := json.Unmarshal(src, &copies[k]); err != nil {
							b.Fatal(err)
						}
					}
					i = 0
					b.StartTimer()
				}
				r.Map(copies[i], redact.Counts{})
				i++
			}
		})
	}
}
