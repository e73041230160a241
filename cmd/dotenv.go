package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/joho/godotenv"

	"github.com/alertchat/alertchat/pkg/termsafe"
)

// A .env in the working directory fills variables the environment lacks. Analysts work inside
// folders of evidence that others wrote, so what a .env may set is an allow-list: the plain
// ALERTCHAT_* settings that neither read nor write a file nor send data anywhere but where the
// real environment already sends it, and the Gemini API key. Everything else (every other
// variable the Go runtime, the Google client libraries, a child program or alertchat reads)
// gets one warning line naming it, and its value is ignored. A list of what is refused would
// lose: the variables that matter are the ones nobody listed (GOOGLE_API_CERTIFICATE_CONFIG
// names a program the Google libraries start; GOOGLE_GENAI_USE_VERTEXAI moves every question
// to another project).
//
// Left out on purpose, though they are ALERTCHAT_* settings:
//   - where the store is: ALERTCHAT_DATA_DIR (a planted spool is uploaded, a planted key copy
//     or alert cache is read), ALERTCHAT_FIRESTORE_PROJECT, ALERTCHAT_FIRESTORE_DATABASE,
//     ALERTCHAT_BUCKET, ALERTCHAT_PREFIX (a project and a bucket turn a local-store analyst's
//     histories into writes to someone else's project, and open Google clients);
//   - files read: ALERTCHAT_TOKEN_KEY_FILE, ALERTCHAT_MCP_CONFIG, ALERTCHAT_EVIDENCE;
//   - ALERTCHAT_REDACT (none would store what is typed raw), ALERTCHAT_MCP_TOKEN_STORE;
//   - ALERTCHAT_ANALYST: who asks is recorded with every question and verdict; a planted
//     file must not choose it;
//   - ALERTCHAT_WORKSPACE: a shared store holds many teams' workspaces, and a planted one
//     would put the analyst's histories in another team's.
//
// The models (ALERTCHAT_MODEL, ALERTCHAT_JUDGE_MODEL) are taken as bare IDs only: the SDK
// keeps a name with a '/' ("projects/X/...") as the request path, so a planted one would send
// every question to another project.
var dotenvAllowed = []string{
	// the Gemini API's key: the SDK sends it to the Gemini API of the real environment only
	// (GOOGLE_GEMINI_BASE_URL and Vertex AI cannot come from a .env)
	"GEMINI_API_KEY", "GOOGLE_API_KEY",
	// which conversation and how it is answered
	"ALERTCHAT_ALERT", "ALERTCHAT_CONTINUE",
	"ALERTCHAT_MODEL", "ALERTCHAT_JUDGE_MODEL", "ALERTCHAT_THINKING", "ALERTCHAT_MAX_CONTEXT_TOKENS",
	"ALERTCHAT_NO_TITLE_GENERATION", "ALERTCHAT_NO_RELATED", "ALERTCHAT_EMBEDDINGS",
	"ALERTCHAT_NO_TOOLS", "ALERTCHAT_MAX_TOOL_CALLS", "ALERTCHAT_MAX_TOOL_RESULT",
	// how it is shown and logged (to the terminal only)
	"ALERTCHAT_RAW", "ALERTCHAT_LOG_LEVEL", "ALERTCHAT_VERBOSE",
	// retries and timeouts
	"ALERTCHAT_STORE_TIMEOUT", "ALERTCHAT_MAX_ATTEMPTS", "ALERTCHAT_MAX_WAIT", "ALERTCHAT_CALL_TIMEOUT",
}

// dotenvAllowedName reports whether a .env may set name (compared exactly: the programs that
// read these names do so in upper case).
func dotenvAllowedName(name string) bool { return slices.Contains(dotenvAllowed, name) }

// environ is the process environment as LoadDotEnv uses it.
type environ struct {
	lookup func(string) (string, bool)
	set    func(string, string) error
}

// LoadDotEnv reads the .env file at path, when there is one, into the process environment
// under the rule above; warnings go to warn (stderr).
func LoadDotEnv(path string, warn io.Writer) {
	loadDotEnv(path, environ{lookup: os.LookupEnv, set: os.Setenv}, warn)
}

func loadDotEnv(path string, env environ, warn io.Writer) {
	vars, err := godotenv.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		fmt.Fprintf(warn, "Warning: %s is not read: %v\n", path, err)
		return
	}
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	slices.Sort(names)
	hasKey := environmentHasGeminiKey(env)
	for _, name := range names {
		if !dotenvAllowedName(name) {
			fmt.Fprintf(warn, "Warning: %s sets %s, which is honoured only from the environment or a flag; ignored.\n", path, termsafe.Line(name))
			continue
		}
		if _, ok := env.lookup(name); ok {
			continue // the environment wins
		}
		if modelVar(name) && strings.Contains(vars[name], "/") {
			fmt.Fprintf(warn, "Warning: %s sets %s to a resource name, which is honoured only from the environment or a flag (a .env names a model by its ID); ignored.\n", path, name)
			continue
		}
		if geminiKeyVar(name) && hasKey {
			// The SDK prefers GOOGLE_API_KEY to GEMINI_API_KEY: a .env's key of the other name
			// would replace the environment's, and every question would go to the planter's
			// project (where the API's request logs can be read).
			continue
		}
		_ = env.set(name, vars[name])
	}
}

func modelVar(name string) bool { return name == "ALERTCHAT_MODEL" || name == "ALERTCHAT_JUDGE_MODEL" }

func geminiKeyVar(name string) bool { return name == "GEMINI_API_KEY" || name == "GOOGLE_API_KEY" }

func environmentHasGeminiKey(env environ) bool {
	_, a := env.lookup("GEMINI_API_KEY")
	_, b := env.lookup("GOOGLE_API_KEY")
	return a || b
}
