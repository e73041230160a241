package session

import (
	"maps"

	"google.golang.org/genai"
)

// cloneContent copies c deeply enough that redacting the copy in place (redact.Contents: part
// texts, call arguments and responses, code, transcriptions, textual inline data) leaves c as
// it is. Strings are shared (immutable); binary data is shared unless it is textual inline
// data, whose Blob is copied so that its Data can be replaced.
func cloneContent(c *genai.Content) *genai.Content {
	if c == nil {
		return nil
	}
	out := &genai.Content{Role: c.Role, Parts: make([]*genai.Part, len(c.Parts))}
	for i, p := range c.Parts {
		if p == nil {
			continue
		}
		cp := *p
		if p.AudioTranscription != nil {
			t := *p.AudioTranscription
			cp.AudioTranscription = &t
		}
		if fc := p.FunctionCall; fc != nil {
			x := *fc
			x.Args = cloneMap(fc.Args)
			if fc.PartialArgs != nil {
				x.PartialArgs = make([]*genai.PartialArg, len(fc.PartialArgs))
				for k, pa := range fc.PartialArgs {
					if pa != nil {
						y := *pa
						x.PartialArgs[k] = &y
					}
				}
			}
			cp.FunctionCall = &x
		}
		if fr := p.FunctionResponse; fr != nil {
			x := *fr
			x.Response = cloneMap(fr.Response)
			if fr.Parts != nil {
				x.Parts = make([]*genai.FunctionResponsePart, len(fr.Parts))
				for k, fp := range fr.Parts {
					if fp == nil {
						continue
					}
					y := *fp
					if fp.InlineData != nil {
						b := *fp.InlineData
						y.InlineData = &b
					}
					x.Parts[k] = &y
				}
			}
			cp.FunctionResponse = &x
		}
		if tc := p.ToolCall; tc != nil {
			x := *tc
			x.Args = cloneMap(tc.Args)
			cp.ToolCall = &x
		}
		if tr := p.ToolResponse; tr != nil {
			x := *tr
			x.Response = cloneMap(tr.Response)
			cp.ToolResponse = &x
		}
		if ec := p.ExecutableCode; ec != nil {
			x := *ec
			cp.ExecutableCode = &x
		}
		if cr := p.CodeExecutionResult; cr != nil {
			x := *cr
			cp.CodeExecutionResult = &x
		}
		if b := p.InlineData; b != nil {
			x := *b
			cp.InlineData = &x
		}
		out.Parts[i] = &cp
	}
	return out
}

// cloneMap copies JSON-shaped values (maps and slices at any depth); other values are shared.
// Typed values reached by reflection are replaced, not changed in place, by the redactor when
// they sit in a map; pointers inside typed values would be shared, and the model's calls and
// responses decoded from JSON hold none.
func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	case []string:
		return append([]string(nil), x...)
	case map[string]string:
		return maps.Clone(x)
	}
	return v
}
