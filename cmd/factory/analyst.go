package factory

import (
	"context"
	"os"
	"os/user"
	"path/filepath"
	"sync"
	"time"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/analyst"
)

// analystTimeout bounds the lookup of the credentials' Google identity: past it the analyst is
// user@host, and nothing waits longer.
const analystTimeout = 2 * time.Second

// analystSource names who asks, once per run: --analyst / ALERTCHAT_ANALYST; else, on the
// cloud store, the Google identity of the credentials in use (the service account's e-mail in
// the Application Default Credentials file, the account of user credentials, or the metadata
// server's service account; the lookups that need the network are not made against
// emulators); else user@host. The lookup starts at the first call, in the background.
type analystSource struct {
	once   sync.Once
	start  func(ctx context.Context) *analyst.Naming
	result *analyst.Naming
}

func (a *analystSource) resolver(ctx context.Context) *analyst.Naming {
	a.once.Do(func() { a.result = a.start(ctx) })
	return a.result
}

func newAnalystSource(cfg cmdutil.Config, getenv func(string) string) *analystSource {
	return &analystSource{start: func(ctx context.Context) *analyst.Naming {
		var lookup *analyst.Lookup
		if cfg.Analyst == "" && cfg.Cloud() {
			lookup = &analyst.Lookup{
				CredentialsJSON: adcFile(getenv), Network: !cfg.Emulated(), MetadataHost: getenv("GCE_METADATA_HOST"),
			}
		}
		return analyst.Start(ctx, cfg.Analyst, lookup, analystTimeout, localAnalyst(getenv))
	}}
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

// Analyst is who asks in this run (see analystSource), waiting for a lookup still under way
// (never longer than analystTimeout). A store stack not opened by the factory has none: "".
func (s *Store) Analyst(ctx context.Context) string {
	if s.analyst == nil {
		return ""
	}
	return s.analyst.resolver(ctx).Name()
}
