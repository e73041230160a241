package cmdutil

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/joho/godotenv"
)

// A .env in the working directory fills variables the environment lacks. Analysts work inside
// folders of evidence that others wrote, so a .env may set credentials and plain settings, but
// nothing that makes alertchat run a program, take its MCP servers or keep its sign-ins
// elsewhere, or send data elsewhere: those variables are honoured only from the real
// environment (or flags), and a .env that sets one is told so in one line.

// envOnly reports whether the variable name is honoured only from the real environment.
func envOnly(name string) bool {
	switch name {
	case "ALERTCHAT_MCP_CONFIG", "GOOGLE_GEMINI_BASE_URL", "ALERTCHAT_REDACT",
		// The program a sign-in opens, and where the MCP config and sign-ins are found
		// ($XDG_CONFIG_HOME/alertchat, else ~/.config/alertchat) and kept.
		"BROWSER", "XDG_CONFIG_HOME", "HOME", "ALERTCHAT_MCP_TOKEN_STORE":
		return true
	}
	return strings.HasSuffix(name, "_EMULATOR_HOST")
}

// DotEnv sorts a .env's variables: set are those to put in the environment (the environment
// lacks them and a .env may set them), ignored (sorted) those a .env may not set.
func DotEnv(vars map[string]string, lookup func(string) (string, bool)) (set map[string]string, ignored []string) {
	set = map[string]string{}
	for k, v := range vars {
		if _, ok := lookup(k); ok {
			continue
		}
		if envOnly(k) {
			ignored = append(ignored, k)
			continue
		}
		set[k] = v
	}
	sort.Strings(ignored)
	return set, ignored
}

// LoadDotEnv loads the .env at path into the process's environment as DotEnv sorts it, with one
// warning line on errOut for each variable it ignores.
func LoadDotEnv(path string, errOut io.Writer) error {
	vars, err := godotenv.Read(path)
	if err != nil {
		return err
	}
	set, ignored := DotEnv(vars, os.LookupEnv)
	for _, k := range ignored {
		fmt.Fprintf(errOut, "Warning: %s in %s is ignored: it is honoured only from the environment\n", k, path)
	}
	for k, v := range set {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}
