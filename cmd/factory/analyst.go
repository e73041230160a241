package factory

import (
	"context"
	"os"
	"os/user"
	"path/filepath"
	"time"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/analyst"
)

// analystTimeout bounds the lookup of the credentials' Google identity: past it the analyst is
// user@host, and nothing waits longer.
const analystTimeout = 2 * time.Second

// newAnalyst names who asks, once per run: --analyst / ALERTCHAT_ANALYST; else, on the
// cloud store, the Google identity of the credentials in use (the service account's e-mail in
// the Application Default Credentials file, the account of user credentials, or the metadata
// server's service account; the lookups that need the network are not made against
// emulators); else user@host. The store stack calls it once, at the first need, and the
// lookup runs in the background.
func newAnalyst(cfg cmdutil.Config, getenv func(string) string) func(context.Context) *analyst.Naming {
	return func(ctx context.Context) *analyst.Naming {
		var lookup *analyst.Lookup
		if cfg.Analyst == "" && cfg.Cloud() {
			lookup = &analyst.Lookup{
				CredentialsJSON: adcFile(getenv), Network: !cfg.Emulated(), MetadataHost: getenv("GCE_METADATA_HOST"),
			}
		}
		return analyst.Start(ctx, cfg.Analyst, lookup, analystTimeout, localAnalyst(getenv))
	}
}

// adcFile is the Application Default Credentials file's content, as the Google libraries find
// it (GOOGLE_APPLICATION_CREDENTIALS, else gcloud's well-known file); nil when there is none.
func adcFile(getenv func(string) string) []byte {
	path := getenv("GOOGLE_APPLICATION_CREDENTIALS")
	if path == "" {
		dir := getenv("CLOUDSDK_CONFIG")
		if dir == "" {
			home := getenv("HOME")
			if home == "" {
				home, _ = os.UserHomeDir()
			}
			if home == "" {
				return nil
			}
			dir = filepath.Join(home, ".config", "gcloud")
		}
		path = filepath.Join(dir, "application_default_credentials.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return data
}

// localAnalyst is user@host.
func localAnalyst(getenv func(string) string) string {
	name := getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	return analyst.Local(name, host)
}
