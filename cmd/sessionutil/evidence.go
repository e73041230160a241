package sessionutil

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/storage"
	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/evidence"
	"github.com/dustin/go-humanize"
	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"
)

// EvidenceEnv lists evidence folders (and gs://BUCKET/PREFIX sources) separated like PATH. It
// is honoured only from the real environment (a .env may not set it: a planted .env would
// hand a folder to the model).
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
	parts := filepath.SplitList(getenv(EvidenceEnv))
	for i := 0; i < len(parts); i++ {
		d := parts[i]
		// The list separator is ":" on Unix, so gs://b/p arrives as "gs" and "//b/p".
		if (d == "gs" || d == "bq") && i+1 < len(parts) && strings.HasPrefix(parts[i+1], "//") {
			d, i = d+":"+parts[i+1], i+1
		}
		if strings.TrimSpace(d) != "" {
			out = append(out, d)
		}
	}
	return out
}

// checkEvidence reports a folder that does not exist or is a file as a usage error naming it.
func (to ToolOptions) checkEvidence() error {
	for _, d := range to.Evidence {
		if evidence.IsBucket(d) || evidence.IsDataset(d) {
			continue // checked by evidence.OpenContext, with one call each
		}
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

// OpenEvidence opens the folders and buckets of --evidence (none: nothing), checked; the
// returned function releases the index (and the Cloud Storage client). Opening reads no file:
// tables are built on the first query; a bucket costs one listing call, so one that does not
// exist or cannot be read is named before the chat starts.
func (to *ToolOptions) OpenEvidence(ctx context.Context, dataDir string) (func(), error) {
	if len(to.Evidence) == 0 || to.NoTools {
		return func() {}, nil
	}
	if err := to.checkEvidence(); err != nil {
		return nil, err
	}
	o := evidence.Options{CacheDir: evidenceCacheDir(dataDir)}
	if slices.ContainsFunc(to.Evidence, evidence.IsDataset) {
		n, err := ParseBQMaxBytes(to.BQMaxBytes)
		if err != nil {
			return nil, err
		}
		o.BQMaxBytes = n
		// The user's Google credentials, or BIGQUERY_EMULATOR_HOST from the real environment
		// (a .env may not set it), as the other Google emulators' variables.
		host := os.Getenv(evidence.EnvBigQueryEmulator)
		o.BigQuery = func(ctx context.Context, project string) (*bigquery.Client, error) {
			return evidence.NewBigQueryClient(ctx, project, host)
		}
	}
	if slices.ContainsFunc(to.Evidence, evidence.IsBucket) {
		// The user's Google credentials, or STORAGE_EMULATOR_HOST from the environment, as for
		// the cloud store; JSON reads, which the emulator serves too.
		sc, err := storage.NewClient(ctx, storage.WithJSONReads())
		if err != nil {
			return nil, goerr.Wrap(err, "failed to create the Cloud Storage client for the evidence buckets")
		}
		o.Storage = sc
	}
	release := func() {
		if o.Storage != nil {
			_ = o.Storage.Close()
		}
	}
	set, err := evidence.OpenContext(ctx, to.Evidence, o)
	if err != nil {
		release()
		var de *evidence.DirError
		if errors.As(err, &de) {
			return nil, cmdutil.UsageErrorf("%s", de.Error())
		}
		return nil, err
	}
	to.set = set
	return func() { _ = set.Close(); release() }, nil
}

// BQMaxBytesFlag is --bq-max-bytes, for the commands that take --evidence. Only chat's has a
// variable, ALERTCHAT_BQ_MAX_BYTES, as chat's other defaults do; a .env cannot set it (a
// planted one would set the analyst's bill).
func BQMaxBytesFlag(to *ToolOptions, withEnv bool) cli.Flag {
	f := &cli.StringFlag{Name: "bq-max-bytes", Usage: "most bytes one BigQuery query of an --evidence bq:// dataset may scan " +
		"(checked by a dry run, then BigQuery's maximumBytesBilled), e.g. 500MiB or 2GiB (default 10GiB)",
		Destination: &to.BQMaxBytes}
	if withEnv {
		f.Sources = cmdutil.EnvVar("BQ_MAX_BYTES")
	}
	return f
}

// ParseBQMaxBytes reads --bq-max-bytes: a byte count, with a unit or not ("" is the default).
func ParseBQMaxBytes(s string) (int64, error) {
	if strings.TrimSpace(s) == "" {
		return evidence.DefaultBQMaxBytes, nil
	}
	n, err := humanize.ParseBytes(s)
	if err != nil || n == 0 || n > math.MaxInt64 {
		return 0, cmdutil.UsageErrorf("--bq-max-bytes %q is not a byte count such as 500MiB or 10GiB", s)
	}
	return int64(n), nil
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
