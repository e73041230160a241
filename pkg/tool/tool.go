// Package tool is what Gemini may call during a chat. Built-in tools over the workspace's own
// store (pkg/tool/builtin) and the tools of MCP servers (pkg/mcp) implement Tool; a Registry
// holds the tools of one chat; the call loop (pkg/session) declares them, runs the model's calls
// and sends the results back.
//
// Tools are a security boundary. Their arguments come from the model and their results are
// untrusted data: a result is only ever sent back to the model, never read by alertchat as an
// instruction, and nothing in a result can approve, trust or enable a tool. Whether a tool asks
// before it runs is decided by its Origin, which comes from alertchat's own configuration.
package tool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"google.golang.org/genai"
)

// Tool is one function the model may call.
type Tool interface {
	// Declaration is what the model is told: the name it calls, a short description and the
	// parameters' JSON schema.
	Declaration() *genai.FunctionDeclaration
	// Call runs the tool with the model's arguments and returns FunctionResponse.Response. A
	// failure is a result too, {"error": "..."}: Call never panics on bad arguments and honours
	// ctx (cancellation and timeouts).
	Call(ctx context.Context, args map[string]any) map[string]any
}

// Origin says where a tool comes from. Built-in tools have the zero Origin.
type Origin struct {
	// Server is the name of the MCP server the tool belongs to ("" for a built-in tool).
	Server string
	// Trusted tools run without asking; only the user's configuration sets it.
	Trusted bool
}

// Asks reports whether a call needs the user's approval before it runs.
func (o Origin) Asks() bool { return o.Server != "" && !o.Trusted }

// Sourced is implemented by tools whose Origin is not the zero value.
type Sourced interface {
	Origin() Origin
}

// OriginOf returns t's Origin (the zero Origin for a built-in tool).
func OriginOf(t Tool) Origin {
	if s, ok := t.(Sourced); ok {
		return s.Origin()
	}
	return Origin{}
}

// Call is one call the model made, as the loop sees it.
type Call struct {
	Name   string
	Origin Origin
	Args   map[string]any
	// Definition is the Fingerprint of the tool as it is declared now: an approval "for the
	// rest of the session" holds for the tool as it was when it was given, so a server that
	// redefines a tool (tools/list_changed) is asked about again.
	Definition string
}

// Fingerprint identifies what t is: its name, description and parameters' schema, hashed.
func Fingerprint(t Tool) string {
	d := t.Declaration()
	if d == nil {
		return ""
	}
	b, err := json.Marshal(struct {
		Name        string
		Description string
		Parameters  *genai.Schema
		JSONSchema  any
		Response    *genai.Schema
		JSONResp    any
	}{d.Name, d.Description, d.Parameters, d.ParametersJsonSchema, d.Response, d.ResponseJsonSchema})
	if err != nil {
		// A schema that cannot be written down is no stable definition: never equal.
		return "unmarshalable:" + err.Error()
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Decision is the answer to whether a call may run.
type Decision string

const (
	// Trusted: the tool needs no approval (built-in, or a server configured "trust": true).
	Trusted Decision = "trusted"
	// ApprovedOnce: the user allowed this call.
	ApprovedOnce Decision = "approved"
	// ApprovedAlways: the user allowed this tool for the rest of the session.
	ApprovedAlways Decision = "approved_always"
	// Denied: the user said no, or nobody could be asked.
	Denied Decision = "denied"
	// DeniedUnshown: the call was too long to show the user whole, so it was denied without
	// asking (what is approved is what is shown).
	DeniedUnshown Decision = "denied_unshown"
)

// Approver asks the user whether a call may run. It is only ever implemented on the terminal
// (or as a refusal where nobody can be asked); nothing from the conversation reaches it.
// Approve returns the decision and whether the user was asked for this very call (an
// earlier "always" answers without asking).
type Approver interface {
	Approve(ctx context.Context, c Call) (d Decision, asked bool)
}
