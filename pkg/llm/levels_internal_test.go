package llm

import (
	"errors"
	"slices"
	"testing"

	"google.golang.org/genai"
)

func TestAllowedLevels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want []genai.ThinkingLevel
	}{
		{genai.APIError{Code: 400, Message: "Thinking level MINIMAL is not supported for this model. Supported levels: LOW, MEDIUM, HIGH, XHIGH."}, []genai.ThinkingLevel{"LOW", "MEDIUM", "HIGH", "XHIGH"}},
		{genai.APIError{Code: 400, Message: "thinking_level must be one of the supported levels: [low, high]"}, []genai.ThinkingLevel{"LOW", "HIGH"}},
		{genai.APIError{Code: 400, Message: "Supported thinking levels are LOW and HIGH"}, []genai.ThinkingLevel{"LOW", "HIGH"}},
		{genai.APIError{Code: 400, Message: "Thinking level is not supported for this model."}, nil},
		{genai.APIError{Code: 400, Message: "thinking_budget is not supported for this model"}, nil},
		{genai.APIError{Code: 404, Message: "Supported levels: LOW"}, nil},
		{errors.New("Supported levels: LOW"), nil},
	} {
		got, ok := allowedLevels(tc.err)
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("%v: %v %v", tc.err, got, ok)
		}
	}
	for _, tc := range []struct {
		offered []genai.ThinkingLevel
		want    genai.ThinkingLevel
		got     genai.ThinkingLevel
	}{
		{[]genai.ThinkingLevel{"LOW", "MEDIUM", "HIGH", "XHIGH"}, "MINIMAL", "LOW"},
		{[]genai.ThinkingLevel{"LOW", "MEDIUM", "HIGH"}, "XHIGH", "HIGH"},
		{[]genai.ThinkingLevel{"LOW", "HIGH"}, "MEDIUM", "HIGH"},
		{[]genai.ThinkingLevel{"LOW", "HIGH"}, "ULTRA", "LOW"},
	} {
		if n := nearest(tc.offered, tc.want); n != tc.got {
			t.Errorf("nearest(%v, %s) = %s, want %s", tc.offered, tc.want, n, tc.got)
		}
	}
}
