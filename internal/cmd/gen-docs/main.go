// Command gen-docs writes the command reference (docs/reference/*.md) and the man pages
// (docs/man/*.1) from the command definitions: `make docs`, or
//
//	go run ./internal/cmd/gen-docs [-dir docs]
//
// Its test fails when the committed pages differ from what it would write.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/alertchat/alertchat/cmd"
	"github.com/alertchat/alertchat/internal/docs"
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
	{Name: "STORAGE_EMULATOR_HOST", Meaning: "Cloud Storage emulator (URL) for the cloud store; from the environment only"},
	{Name: "PUBSUB_EMULATOR_HOST", Meaning: "Pub/Sub emulator (host:port) for alert pull; from the environment only"},
	{Name: "ALERTCHAT_MCP_TOKEN_STORE", Meaning: "file: keep MCP sign-ins in 0600 files only, never the system keyring; from the environment only"},
	{Name: "XDG_DATA_HOME", Default: "~/.local/share", Meaning: "where the local store lives (alertchat/ under it) unless --data-dir"},
	{Name: "XDG_CONFIG_HOME", Default: "~/.config", Meaning: "where the default MCP config (alertchat/mcp.json) and MCP sign-ins are; from the environment only"},
	{Name: "NO_COLOR", Meaning: "set: no colour, spinner or Markdown styling"},
	{Name: "PAGER", Default: "less -R", Meaning: "pager of history show on a terminal (cat: none); from the environment only"},
	{Name: "BROWSER", Meaning: "program that opens the sign-in page of mcp login; from the environment only"},
}

func main() {
	dir := flag.String("dir", "docs", "directory that holds reference/ and man/")
	flag.Parse()
	if err := docs.WriteTree(cmd.CommandTree(), environment, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "gen-docs:", err)
		os.Exit(1)
	}
}
