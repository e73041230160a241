package cmdutil

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"
)

// Config is the global settings of one run, fixed once the flags are parsed.
type Config struct {
	DataDir           string
	FirestoreProject  string
	FirestoreDatabase string
	Bucket            string
	Prefix            string
	Workspace         string
	Model             string
	// Thinking is --thinking: the main answers' thinking level ("": the model's own).
	Thinking string
	Verbose  bool
	// Redact is --redact: all, none, or a list of types.
	Redact string
	// TokenKeyFile, when set, holds the operator's token key instead of the workspace's own.
	TokenKeyFile string
	// MaxContextTokens is the token budget of one Gemini request (see pkg/tokenbudget).
	MaxContextTokens int
	// StoreTimeout bounds a storage call, retries included (pkg/store/resilient).
	StoreTimeout time.Duration
	Retry        RetryConfig
	// Pager is $PAGER, for output taller than the terminal.
	Pager string
	// Embeddings turns on search by meaning: each save embeds what it adds (pkg/search).
	Embeddings bool
	// EmulatorHosts names the Firestore and Cloud Storage emulators in use, if any, so that a
	// spool written against an emulator is never flushed into the real backend.
	EmulatorHosts string
	// Analyst is --analyst: who asks, as recorded beside each question and on a verdict
	// (cleaned; empty: the credentials' identity or user@host, see cmd/factory/analyst.go).
	Analyst string
}

// Emulated reports whether the cloud store's backends are emulators (no credentials in use).
func (c Config) Emulated() bool { return c.EmulatorHosts != "" && c.EmulatorHosts != "|" }

// RetryConfig is how Gemini calls are retried (pkg/llm).
type RetryConfig struct {
	MaxAttempts int
	MaxWait     time.Duration
	CallTimeout time.Duration
}

// Cloud reports whether the cloud store is configured.
func (c Config) Cloud() bool { return c.FirestoreProject != "" }

// BackendID names the backend the settings select, so a spool is only ever flushed into the
// store it was written for.
func (c Config) BackendID() string {
	if c.Cloud() {
		id := "cloud:" + c.FirestoreProject + "/" + c.FirestoreDatabase + "/" + c.Bucket + "/" + c.Prefix
		if c.Emulated() {
			id += "@" + c.EmulatorHosts
		}
		return id
	}
	dir, err := filepath.Abs(c.DataDir)
	if err != nil {
		dir = c.DataDir
	}
	return "local:" + dir + "|" + c.Prefix
}

// BreakerFiles are where the store's circuit breakers record an outage for the commands that
// follow: {data-dir}/breakers/{backend hash}-{reads,writes}.json.
func (c Config) BreakerFiles() (reads, writes string) {
	sum := sha256.Sum256([]byte(c.BackendID()))
	base := filepath.Join(c.DataDir, "breakers", hex.EncodeToString(sum[:8]))
	return base + "-reads.json", base + "-writes.json"
}

// SpoolRoot is where spools live: {data-dir}/spool, for the cloud store too.
func (c Config) SpoolRoot() string { return filepath.Join(c.DataDir, "spool") }

// Factory holds what every command may use: the IO streams, the run's settings and the
// logger. The constructors of heavier parts (the store stack, the model client) are in
// cmd/factory, which only the commands that use them import.
type Factory struct {
	IO *IOStreams
	// Config returns the run's settings.
	Config func() Config
	// Logger writes logs to stderr at the level of --log-level / -v.
	Logger func() *slog.Logger
}

// NewFactory returns the factory of a run on ios. cfg and logger are filled by the root
// command once the flags are parsed, and must not change after.
func NewFactory(ios *IOStreams, cfg *Config, logger **slog.Logger) *Factory {
	f := &Factory{IO: ios}
	f.Config = func() Config { return *cfg }
	f.Logger = func() *slog.Logger {
		if *logger == nil {
			return slog.New(slog.NewTextHandler(io.Discard, nil))
		}
		return *logger
	}
	return f
}

// CheckModel refuses a model given as a resource name of another Google Cloud project than
// project (GOOGLE_CLOUD_PROJECT): the Gemini SDK keeps a name that starts with "projects/" as
// the request path, so such a name would send the conversation to that project. flag names
// the setting in the error; a list of models (eval's) is checked one by one.
func CheckModel(flag, models, project string) error {
	for _, m := range strings.Split(models, ",") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(m), "projects/")
		if !ok {
			continue
		}
		p, _, _ := strings.Cut(rest, "/")
		if p == "" || p != project {
			return UsageErrorf("invalid %s: a model's resource name must be in the project GOOGLE_CLOUD_PROJECT names (%q), not %q; give the model's ID instead",
				flag, project, OneLine(p))
		}
	}
	return nil
}
