// Command gen-docs writes the command reference (docs/reference/*.md), the thinking levels of
// the models alertchat knows (docs/reference/thinking.md) and the man pages (docs/man/*.1) from
// the command definitions and pkg/modelcfg: `make docs`, or
//
//	go run ./internal/cmd/gen-docs [-dir docs]
//
// Its test fails when the committed pages differ from what it would write.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/alertchat/alertchat/cmd"
	"github.com/alertchat/alertchat/internal/docs"
	"github.com/alertchat/alertchat/pkg/modelcfg"
)

// environment is what alertchat reads from the environment besides its flags' ALERTCHAT_*
// variables (those come from the flags themselves).
var environment = []docs.Variable{
	{Name: "GEMINI_API_KEY", Meaning: "Gemini API key"},
	{Name: "GOOGLE_API_KEY", Meaning: "Gemini API key (the SDK's other name for it)"},
	{Name: "GOOGLE_GENAI_USE_VERTEXAI", Meaning: "true: use Vertex AI with Application Default Credentials instead of an API key"},
	{Name: "GOOGLE_CLOUD_PROJECT", Meaning: "Vertex AI: the project"},
	{Name: "GOOGLE_CLOUD_LOCATION", Meaning: "Vertex AI: the location (region)"},
	{Name: "GOOGLE_APPLICATION_CREDENTIALS", Meaning: "service account file for Application Default Credentials (Vertex AI, the cloud store, \"auth\": \"google\" MCP servers)"},
	{Name: "GOOGLE_GEMINI_BASE_URL", Meaning: "proxy or test server for Gemini; from the environment only, never a .env"},
	{Name: "FIRESTORE_EMULATOR_HOST", Meaning: "Firestore emulator (host:port) for the cloud store; from the environment only"},
	{Name: "STORAGE_EMULATOR_HOST", Meaning: "Cloud Storage emulator (URL) for the cloud store and gs:// evidence; from the environment only"},
	{Name: "PUBSUB_EMULATOR_HOST", Meaning: "Pub/Sub emulator (host:port) for alert pull; from the environment only"},
	{Name: "ALERTCHAT_MCP_TOKEN_STORE", Meaning: "file: keep MCP sign-ins in 0600 files only, never the system keyring; from the environment only"},
	{Name: "XDG_DATA_HOME", Default: "~/.local/share", Meaning: "where the local store lives (alertchat/ under it) unless --data-dir"},
	{Name: "XDG_CONFIG_HOME", Default: "~/.config", Meaning: "where the default MCP config (alertchat/mcp.json) and MCP sign-ins are; from the environment only"},
	{Name: "NO_COLOR", Meaning: "set: no colour, spinner or Markdown styling"},
	{Name: "PAGER", Default: "less -R", Meaning: "pager of history show on a terminal (cat: none); from the environment only"},
	{Name: "BROWSER", Meaning: "program that opens the sign-in page of mcp login; from the environment only"},
	{Name: "DISPLAY", Meaning: "Linux: with neither it nor WAYLAND_DISPLAY set, mcp login prints the sign-in page's address instead of opening a browser"},
	{Name: "WAYLAND_DISPLAY", Meaning: "Linux: see DISPLAY"},
	{Name: "ALERTCHAT_EVIDENCE", Meaning: "evidence folders (and gs://BUCKET/PREFIX) of chat, separated like PATH, when --evidence is not given; from the environment only"},
	{Name: "GOOGLE_API_USE_CLIENT_CERTIFICATE", Meaning: "true: client certificates (mTLS) for the Google clients of the cloud store; from the environment only, off otherwise"},
	{Name: "GCE_METADATA_HOST", Meaning: "metadata server asked for the cloud store's Google identity (who asks) on Google Cloud; from the environment only"},
	{Name: "CLOUDSDK_CONFIG", Default: "~/.config/gcloud", Meaning: "gcloud's directory, where Application Default Credentials are found without GOOGLE_APPLICATION_CREDENTIALS"},
	{Name: "USER", Meaning: "who asks (user@host) when neither --analyst nor the cloud store's identity names anyone"},
	{Name: "VT_APIKEY", Meaning: "mcp add virustotal: set, the server is reached with this key (written as $VT_APIKEY, expanded when the config is read) instead of a sign-in"},
}

// files is every generated page: the command reference, the environment, the man pages and
// the thinking levels.
func files() map[string]string {
	f := docs.Files(cmd.CommandTree(), environment)
	f["reference/thinking.md"] = thinkingPage()
	return f
}

// thinkingPage is the table of the models alertchat knows and the thinking levels each takes,
// from pkg/modelcfg.
func thinkingPage() string {
	var b strings.Builder
	b.WriteString("<!-- Generated from pkg/modelcfg by `make docs` (go run ./internal/cmd/gen-docs). Do not edit. -->\n\n")
	b.WriteString("# Thinking levels\n\n")
	fmt.Fprintf(&b, "`--thinking` (`ALERTCHAT_THINKING`) takes %s;\n", orList(modelcfg.LevelValues()))
	b.WriteString("each model offers some of them. A level the model does not offer is a usage error (exit 2)\n")
	b.WriteString("naming the ones it does. See\n")
	b.WriteString("[configuration](../configuration.md#gemini-as-it-is-served-today-models-and-thinking).\n\n")
	b.WriteString("| model | levels | its own |\n|---|---|---|\n")
	row := func(name string, p modelcfg.Profile) {
		switch p.Kind {
		case modelcfg.Levels:
			fmt.Fprintf(&b, "| %s | %s | %s |\n", name, p.LevelNames(), strings.ToLower(string(p.Default)))
		case modelcfg.Budget:
			fmt.Fprintf(&b, "| %s | a token budget (%d to %d) for the level | the model's |\n", name, p.MinBudget, p.MaxBudget)
		}
	}
	for _, p := range modelcfg.Known() {
		row("`"+p.Model+"`", p)
	}
	// Models the table does not name are placed by their name; Gemini 4 is the one kind not
	// shown above.
	row("`gemini-4*` (placed by its name)", modelcfg.For("gemini-4-pro"))
	return b.String()
}

// orList is "`a`, `b` or `c`".
func orList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "`" + v + "`"
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func main() {
	dir := flag.String("dir", "docs", "directory that holds reference/ and man/")
	flag.Parse()
	if err := docs.WriteTree(files(), *dir); err != nil {
		fmt.Fprintln(os.Stderr, "gen-docs:", err)
		os.Exit(1)
	}
}
