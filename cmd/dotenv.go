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
)

// A .env in the working directory fills variables the environment lacks. Analysts work inside
// folders of evidence that others wrote, so a .env there may set credentials and plain
// settings, but nothing that makes alertchat run a program, send what it holds elsewhere or
// store what is typed raw: those variables are honoured only from the real environment (or
// their flags). A .env that sets one gets one warning line naming it, and the value is ignored.
//
// The design names ALERTCHAT_MCP_CONFIG, GOOGLE_GEMINI_BASE_URL, *_EMULATOR_HOST and
// ALERTCHAT_REDACT; the others below reach the same ends another way (the default MCP config
// under XDG_CONFIG_HOME or HOME, a command found on PATH, a proxy in front of every request).
var (
	// dotenvRefused are refused by name (compared in upper case).
	dotenvRefused = []string{
		// run a program
		"ALERTCHAT_MCP_CONFIG", // MCP servers are commands
		"XDG_CONFIG_HOME",      // where the default MCP config is looked for
		"HOME",                 // the same, when XDG_CONFIG_HOME is unset
		"PATH",                 // which program a server's "command", the pager or the browser opener is
		"PAGER",
		"BROWSER",
		"GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES", // credentials that run a program
		"ALERTCHAT_MCP_TOKEN_STORE",                 // where MCP sign-ins are kept
		// send data elsewhere
		"GOOGLE_GEMINI_BASE_URL", // the API key and the conversation
		"GOOGLE_VERTEX_BASE_URL",
		"GOOGLE_CLOUD_UNIVERSE_DOMAIN", // every Google Cloud endpoint
		"GCE_METADATA_HOST",            // where credentials come from
		"GCE_METADATA_IP",
		"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", // every request
		"SSL_CERT_FILE", "SSL_CERT_DIR", // which servers are believed
		// store what is typed raw
		"ALERTCHAT_REDACT",
		// hand files to the model (and through it, to the conversation)
		"ALERTCHAT_EVIDENCE",
	}
	// dotenvRefusedSuffixes and dotenvRefusedPrefixes are refused by the end or start of the name.
	dotenvRefusedSuffixes = []string{"_EMULATOR_HOST"} // FIRESTORE_, STORAGE_, PUBSUB_, ...: the store elsewhere
	dotenvRefusedPrefixes = []string{"LD_", "DYLD_"}   // code loaded into every program started
)

// dotenvRefusedName reports whether a .env may not set name.
func dotenvRefusedName(name string) bool {
	up := strings.ToUpper(name)
	if slices.Contains(dotenvRefused, up) {
		return true
	}
	for _, s := range dotenvRefusedSuffixes {
		if strings.HasSuffix(up, s) {
			return true
		}
	}
	for _, p := range dotenvRefusedPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	return false
}

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
	for _, name := range names {
		if dotenvRefusedName(name) {
			fmt.Fprintf(warn, "Warning: %s sets %s, which is honoured only from the environment or a flag; ignored.\n", path, name)
			continue
		}
		if _, ok := env.lookup(name); ok {
			continue // the environment wins
		}
		_ = env.set(name, vars[name])
	}
}
