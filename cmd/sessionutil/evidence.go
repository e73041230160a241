package sessionutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/evidence"
)

// EvidenceEnv lists evidence folders separated like PATH. It is honoured only from the real
// environment (a .env may not set it: a planted .env would hand a folder to the model).
const EvidenceEnv = "ALERTCHAT_EVIDENCE"

// EvidenceDirs are the folders of --evidence, or, when the flag is not given, those of
// ALERTCHAT_EVIDENCE.
func EvidenceDirs(flag []string, flagSet bool, getenv func(string) string) []string {
	if flagSet {
		return flag
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	var out []string
	for _, d := range filepath.SplitList(getenv(EvidenceEnv)) {
		if strings.TrimSpace(d) != "" {
			out = append(out, d)
		}
	}
	return out
}

// checkEvidence reports a folder that does not exist or is a file as a usage error naming it.
func (to ToolOptions) checkEvidence() error {
	for _, d := range to.Evidence {
		fi, err := os.Stat(d)
		switch {
		case err != nil && errors.Is(err, os.ErrNotExist):
			return cmdutil.UsageErrorf("evidence folder %s does not exist", d)
		case err != nil:
			return cmdutil.UsageErrorf("evidence folder %s cannot be read: %v", d, errors.Unwrap(err))
		case !fi.IsDir():
			return cmdutil.UsageErrorf("evidence folder %s is not a folder", d)
		}
	}
	return nil
}

// OpenEvidence opens the folders of --evidence (none: nothing), checked; the returned function
// releases the index. Opening reads no file: tables are built on the first query.
func (to *ToolOptions) OpenEvidence(dataDir string) (func(), error) {
	if len(to.Evidence) == 0 || to.NoTools {
		return func() {}, nil
	}
	if err := to.checkEvidence(); err != nil {
		return nil, err
	}
	set, err := evidence.Open(to.Evidence, evidence.Options{CacheDir: evidenceCacheDir(dataDir)})
	if err != nil {
		var de *evidence.DirError
		if errors.As(err, &de) {
			return nil, cmdutil.UsageErrorf("%s", de.Error())
		}
		return nil, err
	}
	to.set = set
	return func() { _ = set.Close() }, nil
}

// EvidenceSet is the opened evidence folders (nil without any).
func (to ToolOptions) EvidenceSet() *evidence.Set { return to.set }

// evidenceCacheDir is where evidence indexes go: the user's cache directory, or the data
// directory when there is none. Never an evidence folder (pkg/evidence refuses that too).
func evidenceCacheDir(dataDir string) string {
	if d, err := os.UserCacheDir(); err == nil && d != "" {
		return filepath.Join(d, "alertchat", "evidence")
	}
	return filepath.Join(dataDir, "cache", "evidence")
}
