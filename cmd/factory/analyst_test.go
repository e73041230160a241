package factory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
)

// Who asks: --analyst first; on the cloud store the identity of the credentials file the Google
// libraries would use (GOOGLE_APPLICATION_CREDENTIALS, else gcloud's well-known file); else
// user@host. The local store never looks at credentials.
func TestAnalystSource(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	gcloud := filepath.Join(home, ".config", "gcloud")
	if err := os.MkdirAll(gcloud, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(path, content string) string {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write(filepath.Join(gcloud, "application_default_credentials.json"), `{"type":"authorized_user","account":"alice@example.com","refresh_token":"r"}`)
	sa := write(filepath.Join(t.TempDir(), "sa.json"), `{"type":"service_account","client_email":"triage@p.iam.gserviceaccount.com"}`)
	cloud := cmdutil.Config{FirestoreProject: "p", Bucket: "b", EmulatorHosts: "127.0.0.1:1|"}
	local := localAnalyst(func(string) string { return "" })
	for _, tc := range []struct {
		name string
		cfg  cmdutil.Config
		env  map[string]string
		want string
	}{
		{"given", cmdutil.Config{Analyst: "bob", FirestoreProject: "p", Bucket: "b"}, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": sa}, "bob"},
		{"key file", cloud, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": sa, "HOME": home}, "triage@p.iam.gserviceaccount.com"},
		{"gcloud's file", cloud, map[string]string{"HOME": home}, "alice@example.com"},
		{"CLOUDSDK_CONFIG", cloud, map[string]string{"CLOUDSDK_CONFIG": gcloud}, "alice@example.com"},
		{"no credentials", cloud, map[string]string{"HOME": t.TempDir()}, local},
		{"local store", cmdutil.Config{}, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": sa}, local},
	} {
		env := tc.env
		got := newAnalyst(tc.cfg, func(k string) string { return env[k] })(context.Background()).Name()
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if !strings.Contains(local, "@") {
		t.Errorf("user@host is %q", local)
	}
}
