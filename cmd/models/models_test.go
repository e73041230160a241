package models_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/models"
	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/internal/geminitest"
)

func TestNewCmdModels(t *testing.T) {
	t.Parallel()
	ios, _, _ := cmdutil.TestIO("", false)
	f := &factory.Factory{Factory: &cmdutil.Factory{IO: ios}}
	parse := func(args ...string) (*models.ModelsOptions, error) {
		var got *models.ModelsOptions
		c := models.NewCmdModels(f, func(_ context.Context, o *models.ModelsOptions) error { got = o; return nil })
		c.OnUsageError = cmdutil.MarkUsage
		err := c.Run(context.Background(), append([]string{c.Name}, args...))
		return got, err
	}
	if o, err := parse("-o", "json"); err != nil || o.Output != "json" {
		t.Fatalf("%v %+v", err, o)
	}
	for _, args := range [][]string{{"-o", "yaml"}, {"extra"}, {"--nope"}} {
		if _, err := parse(args...); !cmdutil.IsUsage(err) {
			t.Fatalf("%v: %v, want a usage error", args, err)
		}
	}
}

type modelOut struct {
	Name            string `json:"name"`
	DisplayName     string `json:"display_name"`
	InputTokenLimit int    `json:"input_token_limit"`
	Thinking        bool   `json:"thinking"`
	Default         bool   `json:"default"`
}

// The chat models of the credentials, every page of the API's list, the one in use marked:
// JSON, tab-separated rows in a pipe, a table on a terminal.
func TestModels(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithModelPageSize(2))
	run := clitest.FakeGemini(srv.URL())
	dir := t.TempDir()
	out, errOut, code := clitest.RunWith(t, dir, "", false, run, "models", "-o", "json")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []modelOut
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var names []string
	for _, m := range got {
		names = append(names, m.Name)
		if m.Default != (m.Name == "gemini-3.8-flash") || !m.Thinking || m.InputTokenLimit != 1048576 || m.DisplayName == "" {
			t.Fatalf("model %+v", m)
		}
	}
	if strings.Join(names, " ") != "gemini-3.8-flash gemini-3.7-flash gemini-3.6-flash gemini-3.5-flash-lite gemini-3.1-flash-lite gemini-3.1-pro-preview" {
		t.Fatalf("models %v", names)
	}
	// --model marks another one; a model not listed is warned about.
	out, _, _ = clitest.RunWith(t, dir, "", false, run, "--model", "gemini-3.1-pro-preview", "models")
	if !strings.Contains(out, "gemini-3.1-pro-preview\tGemini 3.1 Pro Preview\t1048576\tlow, medium, high (high)\tdefault\n") ||
		!strings.Contains(out, "gemini-3.5-flash-lite\tGemini 3.5 Flash-Lite\t1048576\tminimal, low, medium, high (minimal)\t\n") {
		t.Fatalf("rows:\n%s", out)
	}
	_, errOut, code = clitest.RunWith(t, dir, "", false, run, "--model", "gemini-2.5-flash", "models")
	if code != 0 || !strings.Contains(errOut, "gemini-2.5-flash, is not among them") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out, _, _ = clitest.RunWith(t, dir, "", true, run, "models")
	if !strings.HasPrefix(out, "NAME") || !strings.Contains(out, "*") {
		t.Fatalf("table:\n%s", out)
	}
}

// models -o json is exactly the contract's array of {"name","display_name","input_token_limit",
// "thinking","default"}, and lists chat models only: models the list offers for
// generateContent that speak, draw or embed are not chat models.
func TestModelsJSONShapeAndChatOnly(t *testing.T) {
	t.Parallel()
	models := append(geminitest.DefaultModels(),
		geminitest.ModelInfo{Name: "gemini-3.5-flash-preview-tts", DisplayName: "Gemini 3.5 Flash TTS", InputTokenLimit: 8192, Methods: []string{"generateContent", "countTokens"}},
		geminitest.ModelInfo{Name: "gemini-3-pro-image-preview", DisplayName: "Nano Banana Pro", InputTokenLimit: 65536, Methods: []string{"generateContent", "countTokens", "batchGenerateContent"}},
		geminitest.ModelInfo{Name: "gemini-live-3.5-flash", DisplayName: "Gemini Live", InputTokenLimit: 131072, Methods: []string{"generateContent", "bidiGenerateContent"}},
		geminitest.ModelInfo{Name: "gemma-3-27b-it", DisplayName: "Gemma 3 27B", InputTokenLimit: 131072, Methods: []string{"generateContent", "countTokens"}},
	)
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithModels(models...))
	out, errOut, code := clitest.RunWith(t, t.TempDir(), "", false, clitest.FakeGemini(srv.URL()), "models", "-o", "json")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var names []string
	defaults := 0
	for _, m := range got {
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if strings.Join(keys, ",") != "default,display_name,input_token_limit,name,thinking" {
			t.Fatalf("keys %v of %v", keys, m)
		}
		_, isBool := m["default"].(bool)
		_, isNum := m["input_token_limit"].(float64)
		_, thinks := m["thinking"].(bool)
		if !isBool || !isNum || !thinks {
			t.Fatalf("types of %v", m)
		}
		if m["default"] == true {
			defaults++
		}
		names = append(names, m["name"].(string))
	}
	if defaults != 1 || strings.Join(names, " ") != "gemini-3.8-flash gemini-3.7-flash gemini-3.6-flash gemini-3.5-flash-lite gemini-3.1-flash-lite gemini-3.1-pro-preview gemma-3-27b-it" {
		t.Fatalf("%d default, models %v", defaults, names)
	}
}
