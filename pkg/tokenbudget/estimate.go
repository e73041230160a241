// Package tokenbudget shapes a long conversation into requests that fit a token budget: it estimates
// tokens cheaply, calibrates the estimates on the usage the model reports, caches per-content
// estimates of a transcript, and picks the newest whole turns that fit.
//
// The transcript rules it keeps: order is never changed, a request's history starts at a user
// turn that is a real user message (not a function response), and a function call always
// travels with its response (they are inside one turn, and a window is always a whole suffix of
// turns).
package tokenbudget

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"unsafe"

	"google.golang.org/genai"
)

// Fixed costs of the estimate, in tokens.
const (
	// ContentOverhead is the framing of one content (role, separators).
	ContentOverhead = 3
	// PartOverhead is the framing of one part.
	PartOverhead = 1
	// ImageTokens is what Gemini charges for an image up to one 768x768 tile.
	ImageTokens = 258
	// FileTokens is the cost assumed for a file reference (its size is unknown here).
	FileTokens = 258
	// imageTileBytes is the encoded size assumed per image tile.
	imageTileBytes = 256 << 10
	// pdfPageBytes is the size assumed per PDF page (258 tokens each).
	pdfPageBytes = 50_000
)

const highBits = 0x8080808080808080

// EstimateText estimates the tokens of s without tokenizing: a token per four ASCII bytes, per
// two characters of two-byte UTF-8 scripts (Latin with accents, Greek, Cyrillic, Hebrew,
// Arabic), and per character of three- and four-byte ones (CJK, kana, Hangul, Thai, emoji).
func EstimateText(s string) int {
	if s == "" {
		return 0
	}
	return EstimateBytes(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// EstimateBytes is EstimateText for UTF-8 bytes. It reads b and never keeps it.
func EstimateBytes(b []byte) int {
	ascii, two, wide := 0, 0, 0
	i, n := 0, len(b)
	for i < n {
		// ASCII runs go eight bytes at a time.
		for i+8 <= n && binary.LittleEndian.Uint64(b[i:])&highBits == 0 {
			ascii += 8
			i += 8
		}
		if i >= n {
			break
		}
		c := b[i]
		switch {
		case c < 0x80:
			ascii++
		case c&0xC0 == 0x80:
			// continuation byte: counted with its lead
		case c < 0xE0:
			two++
		default:
			wide++
		}
		i++
	}
	return (ascii+3)/4 + (two+1)/2 + wide
}

// EstimateContent estimates the tokens of one content as sent in a request.
func EstimateContent(c *genai.Content) int {
	if c == nil {
		return 0
	}
	n := ContentOverhead
	for _, p := range c.Parts {
		if p != nil {
			n += EstimatePart(p)
		}
	}
	return n
}

// EstimateContents sums EstimateContent over cs.
func EstimateContents(cs []*genai.Content) int {
	n := 0
	for _, c := range cs {
		n += EstimateContent(c)
	}
	return n
}

// EstimatePart estimates one part: its text, code, function call or response as JSON, and
// inline data by kind and size.
func EstimatePart(p *genai.Part) int {
	n := PartOverhead + EstimateText(p.Text)
	if p.InlineData != nil {
		n += blobTokens(p.InlineData.MIMEType, len(p.InlineData.Data), p.InlineData.Data)
	}
	if p.FileData != nil {
		n += FileTokens
	}
	if fc := p.FunctionCall; fc != nil {
		n += EstimateText(fc.Name) + jsonTokens(fc.Args)
	}
	if fr := p.FunctionResponse; fr != nil {
		n += EstimateText(fr.Name) + jsonTokens(fr.Response)
		for _, fp := range fr.Parts {
			if fp != nil && fp.InlineData != nil {
				n += blobTokens(fp.InlineData.MIMEType, len(fp.InlineData.Data), fp.InlineData.Data)
			}
		}
	}
	if p.ExecutableCode != nil {
		n += EstimateText(p.ExecutableCode.Code)
	}
	if p.CodeExecutionResult != nil {
		n += EstimateText(p.CodeExecutionResult.Output)
	}
	// A thought signature is opaque and sent back as is; it is charged a small share of its size.
	n += len(p.ThoughtSignature) / 16
	return n
}

func jsonTokens(v any) int {
	if v == nil {
		return 0
	}
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return EstimateBytes(b)
}

// blobTokens prices inline data: text-like data as text, images per tile, PDFs per page, audio
// and video by typical bitrates (32 and 263 tokens a second), anything else by size.
func blobTokens(mime string, size int, data []byte) int {
	mime = strings.ToLower(mime)
	switch {
	case strings.HasPrefix(mime, "text/"), strings.Contains(mime, "json"), strings.Contains(mime, "xml"),
		strings.Contains(mime, "yaml"), strings.Contains(mime, "csv"):
		return EstimateBytes(data)
	case strings.HasPrefix(mime, "image/"):
		return ImageTokens * max(1, (size+imageTileBytes-1)/imageTileBytes)
	case mime == "application/pdf":
		return ImageTokens * max(1, (size+pdfPageBytes-1)/pdfPageBytes)
	case strings.HasPrefix(mime, "audio/"):
		return max(32, size/500) // ~16 kB a second
	case strings.HasPrefix(mime, "video/"):
		return max(263, size/950) // ~250 kB a second
	}
	return (size + 3) / 4
}
