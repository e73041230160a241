package mcp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/internal/testinstall"
	"github.com/alertchat/alertchat/pkg/mcp"
	"github.com/alertchat/alertchat/pkg/tool"
)

// everythingDir holds the committed package.json and package-lock.json of the reference
// server @modelcontextprotocol/server-everything; node_modules is installed there by the tests.
const everythingDir = "../../testdata/mcp-everything"

// everythingEntry is the installed server's entry point under everythingDir.
const everythingEntry = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"

var (
	everythingOnce sync.Once
	everythingErr  error
)

// everythingServer installs the reference server with npm ci (once across the run's test
// processes: e2e uses it too) and returns its stdio config. Without node and npm, or when npm ci fails, the test is skipped,
// except under CI=true, where it fails. Under -short it is skipped before npm runs: installing
// and starting node was most of the quick loop's time in this package.
func everythingServer(t *testing.T) mcp.ServerConfig {
	t.Helper()
	if testing.Short() {
		t.Skip("the reference MCP server runs on node from npm: not under -short")
	}
	everythingOnce.Do(func() { everythingErr = testinstall.NPM(everythingDir, everythingEntry) })
	if everythingErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the reference MCP server could not be installed: %v", everythingErr)
		}
		t.Skipf("the reference MCP server could not be installed: %v", everythingErr)
	}
	main, err := filepath.Abs(filepath.Join(everythingDir, everythingEntry))
	if err != nil {
		t.Fatal(err)
	}
	return mcp.ServerConfig{Command: "node", Args: []string{main, "stdio"}, Timeout: 20000}
}

// geminiKeys are the JSON Schema keywords a converted schema may hold: what Gemini's
// function declarations take.
var geminiKeys = map[string]bool{"type": true, "properties": true, "required": true, "description": true, "enum": true,
	"items": true, "format": true, "minimum": true, "maximum": true, "default": true, "title": true, "nullable": true,
	"anyOf": true, "minItems": true, "maxItems": true, "minLength": true, "maxLength": true, "pattern": true, "propertyOrdering": true}

// geminiTakes reports the first part of a converted schema Gemini would refuse, or "".
func geminiTakes(path string, v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return path + " is not an object"
	}
	for k, sub := range m {
		if !geminiKeys[k] {
			return path + "." + k
		}
		switch k {
		case "format":
			if f, _ := sub.(string); f != "date-time" && f != "enum" {
				return fmt.Sprintf("%s.format %q", path, f)
			}
		case "properties":
			props, _ := sub.(map[string]any)
			for name, p := range props {
				if why := geminiTakes(path+".properties."+name, p); why != "" {
					return why
				}
			}
		case "items":
			if why := geminiTakes(path+".items", sub); why != "" {
				return why
			}
		case "anyOf":
			list, _ := sub.([]any)
			for i, p := range list {
				if why := geminiTakes(fmt.Sprintf("%s.anyOf[%d]", path, i), p); why != "" {
					return why
				}
			}
		}
	}
	return ""
}

// The reference server from the npm registry, over stdio: every tool it lists is either
// declared with a schema Gemini takes or left out with one warning line naming it; its echo,
// get-sum and get-structured-content answer {"content": ...}; its get-env shows only the
// allow-listed environment.
func TestEverythingServer(t *testing.T) {
	t.Parallel()
	cfg := everythingServer(t)
	ctx := context.Background()

	// What the server publishes, listed with the SDK directly.
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = mcp.ServerEnv(os.Environ(), nil)
	// Like alertchat, it takes elicitation requests: the server publishes more tools to such clients.
	direct, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "decline"}, nil
		},
	}).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var published []string
	for tl, err := range direct.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		published = append(published, tl.Name)
	}
	_ = direct.Close()
	if len(published) < 3 {
		t.Fatalf("the server published %v", published)
	}

	var mu sync.Mutex
	var warnings []string
	m := mcp.Start(ctx, &mcp.Config{Servers: map[string]mcp.ServerConfig{"everything": cfg}}, mcp.Options{
		Environ:      append(os.Environ(), "GEMINI_API_KEY=secret-gemini-key", "GOOGLE_API_KEY=secret-google-key", "GOOGLE_APPLICATION_CREDENTIALS=/adc.json"),
		Warn:         func(l string) { mu.Lock(); warnings = append(warnings, l); mu.Unlock() },
		StartTimeout: time.Minute,
	})
	defer m.Close()
	tools := m.Tools(ctx, time.Minute)
	reg := registry(t, tools)
	mu.Lock()
	warned := strings.Join(warnings, "\n")
	mu.Unlock()
	declared := 0
	for _, name := range published {
		tl, ok := reg.Lookup(mcp.ToolName("everything", name))
		if !ok {
			if !strings.Contains(warned, "tool "+name+" is left out") {
				t.Errorf("tool %s neither declared nor warned about; warnings:\n%s", name, warned)
			}
			continue
		}
		declared++
		d := tl.Declaration()
		if why := geminiTakes(name, d.ParametersJsonSchema); why != "" {
			t.Errorf("tool %s: Gemini refuses %s in %v", name, why, d.ParametersJsonSchema)
		}
		if o := tool.OriginOf(tl); !o.Asks() || o.Server != "everything" {
			t.Errorf("tool %s origin %+v", name, o)
		}
	}
	if declared != len(tools) || declared < 3 {
		t.Fatalf("%d of %d published tools declared, registry holds %d", declared, len(published), len(tools))
	}
	t.Logf("%d tools published, %d declared; warnings: %q", len(published), declared, warned)

	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"echo", map[string]any{"message": "203.0.113.7"}, "203.0.113.7"},
		{"get-sum", map[string]any{"a": 2, "b": 40}, "42"},
		{"get-structured-content", map[string]any{"location": "Chicago"}, "temperature"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			res := reg.Call(ctx, mcp.ToolName("everything", tc.tool), tc.args)
			content, ok := res["content"]
			if !ok || len(res) != 1 {
				t.Fatalf("result %v, want only content", res)
			}
			if !strings.Contains(fmt.Sprint(content), tc.want) {
				t.Fatalf("content %v, want %q in it", content, tc.want)
			}
		})
	}
	res := reg.Call(ctx, mcp.ToolName("everything", "get-env"), map[string]any{})
	env := fmt.Sprint(res["content"])
	if !strings.Contains(env, "PATH") {
		t.Fatalf("get-env: %v", res)
	}
	for _, leak := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "secret-gemini-key"} {
		if strings.Contains(env, leak) {
			t.Fatalf("the server saw %s", leak)
		}
	}
}

// formByName answers a form by field name: what is typed for each field (Enter for the rest),
// after "y" to fill it in.
type formByName struct {
	typed map[string]string
	mu    sync.Mutex
	shown strings.Builder
	// asked are the fields' prompts, in the order they were asked.
	asked []string
}

func (f *formByName) Elicit(ctx context.Context, r mcp.ElicitRequest) (mcp.ElicitAnswer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	form := &mcp.Form{Out: &f.shown, ReadLine: func(prompt string) (string, error) {
		f.shown.WriteString(prompt + "\n")
		if strings.HasPrefix(prompt, "Answer?") {
			return "y", nil
		}
		f.asked = append(f.asked, prompt)
		for name, v := range f.typed {
			if strings.Contains(prompt, "("+name+")") {
				return v, nil
			}
		}
		return "", nil
	}}
	return form.Elicit(ctx, r)
}

// The reference server's form holds every field type of MCP 2025-11-25 (titled and untitled
// single- and multi-select enums, formats, numbers, booleans): it is asked, not declined, and
// the server gets what was typed and the defaults; its fields are asked in the order the
// server wrote them, its one required field, the name, first. With accept-defaults its
// required field without a default makes it declined, with one line naming the field and no
// warning about its shape.
func TestEverythingServerElicitation(t *testing.T) {
	t.Parallel()
	cfg := everythingServer(t)
	ctx := context.Background()
	var defaultsSaid []string
	var defaultsMu sync.Mutex
	for _, tc := range []struct {
		name     string
		elicitor mcp.Elicitor
		want     []string
	}{
		{"form", &formByName{typed: map[string]string{"name": "Ada Lovelace", "titledMultipleSelectEnum": "2, 3", "untitledSingleSelectEnum": "Joey", "check": "y"}},
			[]string{"User provided the requested information", "- Name: Ada Lovelace", "- Agreed to terms: true", "- Favorite Integer: 42",
				`"titledMultipleSelectEnum": [`, `"fish-2"`, `"fish-3"`, `"untitledMultipleSelectEnum": [`, `"Guitar"`, `"titledSingleSelectEnum": "hero-1"`,
				`"untitledSingleSelectEnum": "Joey"`, `"legacyTitledEnum": "pet-1"`}},
		{"accept-defaults", mcp.AcceptDefaults{Warn: func(l string) { defaultsMu.Lock(); defaultsSaid = append(defaultsSaid, l); defaultsMu.Unlock() }},
			[]string{"User declined"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var warnings []string
			srv := cfg
			srv.Trust = true
			m := mcp.Start(ctx, &mcp.Config{Servers: map[string]mcp.ServerConfig{"everything": srv}}, mcp.Options{
				Environ: os.Environ(), Elicitor: tc.elicitor, StartTimeout: time.Minute,
				Warn: func(l string) { mu.Lock(); warnings = append(warnings, l); mu.Unlock() },
			})
			defer m.Close()
			reg := registry(t, m.Tools(ctx, time.Minute))
			res := reg.Call(ctx, mcp.ToolName("everything", "trigger-elicitation-request"), map[string]any{})
			got := fmt.Sprint(res["content"])
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the server answered %v; want %q in it", res, w)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for _, w := range warnings {
				if strings.Contains(w, "asked for input") {
					t.Errorf("warning %q", w)
				}
			}
			if f, ok := tc.elicitor.(*formByName); ok {
				// The server's schema, in the order it wrote it (dist/tools/trigger-elicitation-request.js).
				want := []string{"(name)", "(check)", "(firstLine)", "(email)", "(homepage)", "(birthdate)", "(integer)", "(number)",
					"(untitledSingleSelectEnum)", "(untitledMultipleSelectEnum)", "(titledSingleSelectEnum)", "(titledMultipleSelectEnum)", "(legacyTitledEnum)"}
				if len(f.asked) != len(want) {
					t.Errorf("%d fields asked, want %d", len(f.asked), len(want))
				}
				for i := range min(len(f.asked), len(want)) {
					if !strings.Contains(f.asked[i], want[i]) {
						t.Errorf("field %d asked is %q, want %s", i+1, f.asked[i], want[i])
					}
				}
				if t.Failed() {
					t.Logf("the form:\n%s", f.shown.String())
				}
			}
			if _, ok := tc.elicitor.(mcp.AcceptDefaults); ok {
				defaultsMu.Lock()
				defer defaultsMu.Unlock()
				if len(defaultsSaid) != 1 || defaultsSaid[0] != "MCP server everything asked for input and was declined: --elicit accept-defaults has no default for its required field name" {
					t.Errorf("accept-defaults said %q", defaultsSaid)
				}
			}
		})
	}
}
