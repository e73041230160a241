package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/procgroup"
	"github.com/alertchat/alertchat/pkg/tool"
)

// server is one configured server, connected.
type server struct {
	name    string
	cfg     ServerConfig
	session *sdk.ClientSession
	stopped atomic.Bool
	// closing is set when alertchat closes the session itself (not a death to report).
	closing atomic.Bool
	// ended is closed when the session's connection ends, for whatever reason.
	ended chan struct{}
	// onStop is told once when the server goes away mid-session.
	onStop   func(name string)
	stopOnce sync.Once
	mu       sync.Mutex // guards onStop
	// oauth is the sign-in of a server of "auth": "oauth", nil otherwise.
	oauth *oauthHandler
	// calls are the calls in flight, to which the server's requests to the user belong.
	calls calls
	// changed is set when the server says its tool list changed.
	changed atomic.Bool
	// o are the options it was started with.
	o Options
	// warnedSignIn: the sign-in it needs mid-session was reported once.
	warnedSignIn atomic.Bool
	// guard checks the arguments of a public-only server's calls; nil for another server.
	guard *egressGuard
	// orders are the field orders of the forms it sent, read as they arrived.
	orders propertyOrders
}

// connect starts or reaches the server and initialises the session. transport overrides the
// config's (tests).
func connect(ctx context.Context, name string, cfg ServerConfig, o Options, transport sdk.Transport) (*server, error) {
	s := &server{name: name, cfg: cfg, ended: make(chan struct{}), o: o}
	if cfg.Egress == EgressPublicOnly {
		s.guard = newEgressGuard(cfg.internalDomains)
	}
	if transport == nil {
		var err error
		if transport, err = s.transport(ctx); err != nil {
			return nil, err
		}
	}
	transport = keepsOrder(transport, &s.orders)
	client := sdk.NewClient(&sdk.Implementation{Name: "alertchat", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: s.elicit,
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			s.progress(r.Params)
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			s.changed.Store(true)
			if o.ToolsChanged != nil {
				o.ToolsChanged(name)
			}
		},
	})
	client.AddReceivingMiddleware(s.screenElicitation)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		if s.oauth != nil {
			s.oauth.close()
		}
		if e, ok := authError(err); ok {
			return nil, e
		}
		return nil, err
	}
	s.session = session
	// A server that exits or drops the connection is noticed when it happens, not at the
	// next call: it is reported once, and its tools answer "server stopped".
	go func() {
		_ = session.Wait()
		close(s.ended)
		if !s.closing.Load() {
			s.gone()
		}
	}()
	return s, nil
}

// transport is the config's transport; an HTTP server's client reaches its origin only, with
// its headers and the token of its "auth".
func (s *server) transport(ctx context.Context) (sdk.Transport, error) {
	cfg := s.cfg
	if cfg.Command != "" {
		cmd := exec.Command(cfg.Command, cfg.Args...)
		cmd.Env = ServerEnv(s.o.Environ, cfg.Env)
		cmd.Dir = cfg.Cwd
		// A group of its own, so Ctrl-C at the terminal does not reach it, ended whole when
		// the session closes: what the server started goes with it (procgroup says what each
		// system adds when alertchat itself is killed).
		procgroup.Prepare(cmd)
		return &groupTransport{CommandTransport: sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}}, nil
	}
	endpoint := cfg.Endpoint()
	if endpoint == "" {
		return nil, errors.New("no transport")
	}
	var base http.RoundTripper = s.o.HTTPTransport
	if cfg.Auth == AuthGoogle {
		rt, err := googleTransport(ctx, s.name, endpoint, cfg.OAuth, s.o.Auth, base)
		if err != nil {
			return nil, err
		}
		base = rt
	}
	if cfg.Auth == AuthOAuth {
		s.oauth = newOAuthHandler(s.name, endpoint, cfg.OAuth, s.o.Auth, s.o.Warn)
		base = s.oauth.watch(base)
	}
	if cfg.Auth == "" {
		base = refuseUnauthorized(NoAuthError{Server: s.name, Headers: len(cfg.Headers) > 0, SSE: cfg.URL != ""}, base)
	}
	base = watchOrders(base, &s.orders)
	client, err := originClient(endpoint, cfg.Headers, base)
	if err != nil {
		return nil, err
	}
	if cfg.URL != "" {
		return &sdk.SSEClientTransport{Endpoint: endpoint, HTTPClient: client}, nil
	}
	t := &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client}
	if s.oauth != nil {
		t.OAuthHandler = s.oauth
	}
	return t, nil
}

// tools lists the server's tools as tool.Tools; a tool whose schema cannot be declared is
// left out and reported in skipped.
func (s *server) tools(ctx context.Context) (out []tool.Tool, skipped []string, err error) {
	for t, err := range s.session.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, err
		}
		if !s.cfg.Wants(t.Name) {
			continue
		}
		schema, why := declarableSchema(t.InputSchema)
		if why != "" {
			skipped = append(skipped, fmt.Sprintf("%s (%s)", t.Name, why))
			continue
		}
		out = append(out, &mcpTool{srv: s, remote: t.Name, decl: &genai.FunctionDeclaration{
			Name: ToolName(s.name, t.Name), Description: t.Description, ParametersJsonSchema: schema,
		}})
	}
	return out, skipped, nil
}

// declarableSchema is a server's input schema as Gemini takes it (parametersJsonSchema): the
// keywords it refuses removed at every level; a schema that is not an object, or that refers
// to definitions it cannot resolve, is refused with the reason.
func declarableSchema(in any) (any, string) {
	b, err := json.Marshal(in)
	if err != nil {
		return nil, "schema not JSON"
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return nil, "schema is not an object"
	}
	if t, ok := m["type"]; ok && t != "object" {
		return nil, "parameters are not an object"
	}
	if strings.Contains(string(b), `"$ref"`) {
		return nil, "schema uses $ref"
	}
	clean(m)
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	return m, ""
}

// dropped are JSON Schema keywords Gemini's function declarations refuse or do not need.
var dropped = []string{"$schema", "$id", "$comment", "additionalProperties", "$defs", "definitions"}

func clean(v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range dropped {
			delete(x, k)
		}
		if f, ok := x["format"].(string); ok && f != "date-time" && f != "enum" {
			delete(x, "format")
		}
		for _, e := range x {
			clean(e)
		}
	case []any:
		for _, e := range x {
			clean(e)
		}
	}
}

// mcpTool is one of a server's tools on the registry.
type mcpTool struct {
	srv    *server
	remote string
	decl   *genai.FunctionDeclaration
}

func (t *mcpTool) Declaration() *genai.FunctionDeclaration { return t.decl }

// Origin is the server, trusted only when the user's config says so.
func (t *mcpTool) Origin() tool.Origin {
	return tool.Origin{Server: t.srv.name, Trusted: t.srv.cfg.Trust}
}

// Call calls the tool on its server, within the server's timeout; a timed-out or cancelled call
// is cancelled on the server (the SDK sends notifications/cancelled).
func (t *mcpTool) Call(ctx context.Context, args map[string]any) map[string]any {
	if t.srv.stopped.Load() {
		return tool.Error("server stopped")
	}
	cctx, cancel := context.WithTimeout(ctx, t.srv.cfg.CallTimeout())
	defer cancel()
	res, err := t.srv.callTool(cctx, t.remote, args)
	var held *EgressDeniedError
	if errors.As(err, &held) {
		return tool.Error(held.Error())
	}
	if e, ok := authError(err); ok {
		// Said once on the terminal; the model reads it in every call's answer.
		if !t.srv.warnedSignIn.Swap(true) {
			t.srv.warn(e.Error())
		}
		return tool.Error(e.Error())
	}
	switch {
	case ctx.Err() != nil:
		return tool.Error("cancelled")
	case cctx.Err() != nil:
		return tool.Error("timed out")
	case err != nil && (isGone(err) || t.srv.endedSoon()):
		t.srv.gone()
		return tool.Error("server stopped")
	case err != nil:
		return tool.Error(err.Error())
	}
	text := resultText(res)
	if res.IsError {
		return tool.Error(text)
	}
	if res.StructuredContent != nil {
		return map[string]any{"content": res.StructuredContent}
	}
	return map[string]any{"content": text}
}

// callTool calls the server's tool name as a call in flight: the server's progress
// notifications and requests for input during it belong to it. A public-only server's call
// that would send internal data is not sent unless the user says so (*EgressDeniedError).
func (s *server) callTool(ctx context.Context, name string, args map[string]any) (*sdk.CallToolResult, error) {
	if err := s.egress(ctx, name, args); err != nil {
		return nil, err
	}
	call, done := s.calls.start(ctx, name)
	defer done()
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	params.SetProgressToken(call.token)
	return s.session.CallTool(ctx, params)
}

func isGone(err error) bool {
	return errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "connection closed")
}

// endedSoon reports whether the connection ends within a moment of a failed call: the error
// of a call in flight when the server died can arrive before the end of the connection.
func (s *server) endedSoon() bool {
	select {
	case <-s.ended:
		return true
	case <-time.After(200 * time.Millisecond):
		return false
	}
}

// setOnStop sets what is told when the server goes away; told at once if it already has.
func (s *server) setOnStop(f func(name string)) {
	s.mu.Lock()
	s.onStop = f
	s.mu.Unlock()
	if s.stopped.Load() && !s.closing.Load() {
		s.gone()
	}
}

// gone marks the server stopped and reports it once (once someone listens).
func (s *server) gone() {
	s.stopped.Store(true)
	s.mu.Lock()
	f := s.onStop
	s.mu.Unlock()
	if f == nil {
		return
	}
	s.stopOnce.Do(func() { f(s.name) })
}

// resultText is a result's text content, joined.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch x := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, x.Text)
		default:
			if b, err := json.Marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	return strings.Join(parts, "\n")
}

func (s *server) close() error {
	s.closing.Store(true)
	s.stopped.Store(true)
	if s.oauth != nil {
		s.oauth.close()
	}
	return s.session.Close()
}
