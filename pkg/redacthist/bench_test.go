package redacthist_test

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/redacthist"
)

// sampleAlert is a GuardDuty-like finding as a tool returns it.
const sampleAlert = `{"accountId":"123456789012","resource":{"instanceDetails":{"networkInterfaces":[{"privateIpAddress":"10.0.12.34"}],"tags":[{"key":"Owner","value":"alice@example.com"}]}},"severity":8.0}`

// sampleProse is analyst conversation in English and Japanese.
const sampleProse = "The instance saw 42 SSH attempts from 198.51.100.7; the owner's phone is 090-1234-5678 and the leaked token ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R was rotated. 送信元IPは198.51.100.7で、担当者のメールは yamada.taro@example.jp です。\n"

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
				redacthist.Contents(all, c)
			}
		})
	}
}

// BenchmarkContentParts redacts a model's answer (analyst prose in English and Japanese with
// values in it, about 8 KB) as one part, and as the same text streamed in signed parts of a
// few bytes (each a part of its own): judged as one text, the parts must cost about what the
// one part does.
func BenchmarkContentParts(b *testing.B) {
	text := strings.Repeat(sampleProse, 8192/len(sampleProse)+1)
	for _, size := range []int{0, 64, 16, 4} {
		var orig []*genai.Part
		if size == 0 {
			orig = []*genai.Part{{Text: text, ThoughtSignature: []byte("sig")}}
		} else {
			for i := 0; i < len(text); i += size {
				orig = append(orig, &genai.Part{Text: text[i:min(i+size, len(text))], ThoughtSignature: []byte("sig")})
			}
		}
		name := "one-part"
		if size > 0 {
			name = fmt.Sprintf("parts-of-%dB", size)
		}
		parts := make([]*genai.Part, len(orig))
		for i, p := range orig {
			cp := *p
			parts[i] = &cp
		}
		c := &genai.Content{Role: genai.RoleModel}
		cs := []*genai.Content{c}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				c.Parts = append(c.Parts[:0], parts...)
				for i, p := range parts {
					p.Text = orig[i].Text
				}
				redacthist.Contents(all, cs)
			}
		})
	}
}
