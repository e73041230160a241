package redact

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// sampleAlert is a GuardDuty-like finding as a tool returns it.
const sampleAlert = `{"schemaVersion":"2.0","accountId":"123456789012","region":"us-east-1","id":"16afba5c5c43e07c9e3e5e2e544e95df",` +
	`"type":"UnauthorizedAccess:EC2/SSHBruteForce","resource":{"resourceType":"Instance","instanceDetails":{"instanceId":"i-0abc1234def567890",` +
	`"networkInterfaces":[{"privateIpAddress":"10.0.12.34","publicIp":"54.12.34.56"}],"tags":[{"key":"Owner","value":"alice@example.com"}]},` +
	`"accessKeyDetails":{"accessKeyId":"ASIAY34FZKBOKMUTVV7A","userName":"deploy"}},"service":{"count":42,"eventFirstSeen":"2023-04-16T06:11:53.438Z",` +
	`"action":{"networkConnectionAction":{"remoteIpDetails":{"ipAddressV4":"198.51.100.7"},"remotePortDetails":{"port":22}}}},"severity":8.0}`

// sampleProse is analyst conversation in English and Japanese.
const sampleProse = "The instance i-0abc1234def567890 saw 42 SSH attempts from 198.51.100.7 between 2023-04-16T06:11:53Z and 07:22. " +
	"I checked the runbook at https://wiki.example.com/runbooks/ssh and the owner is on call; their phone is 090-1234-5678. " +
	"The leaked config had password=Tr0ub4dor&3 and the token ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R, both rotated now. " +
	"送信元IPは198.51.100.7で、担当者のメールは yamada.taro@example.jp です。ハッシュ d41d8cd98f00b204e9800998ecf8427e は既知のマルウェアではありません。\n"

func mixedText(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		if i%2 == 0 {
			b.WriteString(sampleAlert)
		} else {
			b.WriteString(sampleProse)
		}
		b.WriteByte('\n')
	}
	return b.String()[:size]
}

// transcript builds a conversation of about size bytes: user prompts,
// model thoughts and answers, and function calls with alert payloads.
func transcript(size int) []*genai.Content {
	var out []*genai.Content
	total := 0
	for i := 0; total < size; i++ {
		var c *genai.Content
		switch i % 3 {
		case 0:
			c = &genai.Content{Role: "user", Parts: []*genai.Part{{Text: sampleProse}}}
			total += len(sampleProse)
		case 1:
			c = &genai.Content{Role: "model", Parts: []*genai.Part{
				{Text: "Looking at " + sampleProse[:200], Thought: true, ThoughtSignature: []byte("sig")},
				{FunctionCall: &genai.FunctionCall{Name: "get_alert", Args: map[string]any{"id": fmt.Sprintf("alert-%d", i), "filter": map[string]any{"ip": "10.0.0.1"}}}},
			}}
			total += 200 + 40
		default:
			c = &genai.Content{Role: "user", Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "get_alert", Response: map[string]any{
				"alert": sampleAlert, "notes": []any{"owner alice@example.com", 3.0},
			}}}}}
			total += len(sampleAlert) + 30
		}
		out = append(out, c)
	}
	return out
}

func cloneTranscript(src []*genai.Content) []*genai.Content {
	out := make([]*genai.Content, len(src))
	for i, c := range src {
		nc := &genai.Content{Role: c.Role}
		for _, p := range c.Parts {
			np := *p
			if p.FunctionCall != nil {
				fc := *p.FunctionCall
				fc.Args = map[string]any{"id": p.FunctionCall.Args["id"], "filter": map[string]any{"ip": "10.0.0.1"}}
				np.FunctionCall = &fc
			}
			if p.FunctionResponse != nil {
				fr := *p.FunctionResponse
				fr.Response = map[string]any{"alert": sampleAlert, "notes": []any{"owner alice@example.com", 3.0}}
				np.FunctionResponse = &fr
			}
			nc.Parts = append(nc.Parts, &np)
		}
		out[i] = nc
	}
	return out
}

func transcriptBytes(c []*genai.Content) int {
	n := 0
	for _, x := range c {
		for _, p := range x.Parts {
			n += len(p.Text)
			if p.FunctionCall != nil {
				n += 40
			}
			if p.FunctionResponse != nil {
				n += len(sampleAlert) + 30
			}
		}
	}
	return n
}

func BenchmarkString(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		s := mixedText(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				all.String(s)
			}
		})
	}
	clean := strings.Repeat("The quick brown fox jumps over the lazy dog while the analyst reviews logs. ", 14000)[:1<<20]
	b.Run("clean1MB", func(b *testing.B) {
		b.SetBytes(int64(len(clean)))
		for b.Loop() {
			all.String(clean)
		}
	})
}

func BenchmarkContents(b *testing.B) {
	for _, size := range []int{10 << 10, 10 << 20} {
		src := transcript(size)
		n := transcriptBytes(src)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				c := cloneTranscript(src)
				b.StartTimer()
				all.Contents(c)
			}
		})
	}
}
