package factory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/tokenkey"
)

// Store is a command's opened store.
type Store struct {
	// Store is the stack every command writes through: the spool, over the redaction of every
	// history write, over retries and the circuit breaker, over the backend.
	*Stacked
	// Redactor is the workspace's keyed redaction: the redaction layer applies it to every
	// history write; sessions apply it themselves, keeping their alert's values.
	Redactor *KeyedRedactor
	// Sessions is the stack below the redaction layer. Sessions write into it: they redact
	// their writes themselves, with their alert's evidence, which a second pass without it
	// would undo.
	Sessions store.Store
	// Calls counts the backend's requests (logged at debug level on Close).
	Calls  *store.CallCounter
	logger *slog.Logger
	// analyst names who asks (see Analyst).
	analyst *analystSource
}

// Close closes the stack and logs how many requests the command made to the backend.
func (s *Store) Close() error {
	if s.Calls != nil && s.logger != nil {
		s.logger.Debug("storage calls", "total", s.Calls.Total(), "calls", s.Calls.String())
	}
	return s.Stacked.Close()
}

// KeyedRedactor is the redaction of a workspace's writes: keyed tokens
// ([REDACTED_<TYPE>_<tag>]) under the workspace's key, which it fetches on first use, so
// commands that write no history never ask for it. When the key cannot be had (the store is
// down and no copy is kept), it writes plain [REDACTED_<TYPE>] placeholders and says so:
// redaction never stops, and nothing is lost.
type KeyedRedactor struct {
	types   []redact.Type
	resolve func(context.Context) (*redact.Redactor, error)
	warn    io.Writer
	logger  *slog.Logger
	// timeout bounds the key's fetch (a store that hangs must not hold up a write forever).
	timeout time.Duration

	once sync.Once
	eng  *redact.Redactor
}

// NewKeyedRedactor returns the redaction of types with the key of src, or of the operator's
// keyFile when set.
func NewKeyedRedactor(types []redact.Type, src tokenkey.Source, keyFile string, warn io.Writer, logger *slog.Logger, timeout time.Duration) *KeyedRedactor {
	return &KeyedRedactor{types: types, warn: warn, logger: logger, timeout: timeout,
		resolve: func(ctx context.Context) (*redact.Redactor, error) {
			return tokenkey.Redactor(ctx, src, keyFile, types...)
		}}
}

// Engine returns the redaction engine, fetching the key the first time.
func (k *KeyedRedactor) Engine() *redact.Redactor {
	k.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), k.timeout)
		defer cancel()
		eng, err := k.resolve(ctx)
		if err != nil {
			k.logger.Debug("token key unavailable", "error", err) // the warning below says it; -v adds the details
			fmt.Fprintf(k.warn, "Warning: the workspace's token key is unavailable (%s): this command writes plain [REDACTED_TYPE] placeholders.\n", cmdutil.OneLine(Message(err)))
			eng = redact.New(k.types...)
		}
		k.eng = eng
	})
	return k.eng
}

func (k *KeyedRedactor) adapter() redacthist.AlertRedactor { return redacthist.Engine(k.Engine()) }

// RedactContents implements redacthist.Redactor.
func (k *KeyedRedactor) RedactContents(cs []*genai.Content) map[string]int {
	return k.adapter().RedactContents(cs)
}

// RedactString implements redacthist.Redactor.
func (k *KeyedRedactor) RedactString(s string) (string, map[string]int) {
	return k.adapter().RedactString(s)
}

// ForAlert implements redacthist.AlertRedactor: the values alert holds are written as they are.
func (k *KeyedRedactor) ForAlert(a *record.Alert) redacthist.Redactor { return k.adapter().ForAlert(a) }

// keyCachePath is where a cloud workspace's key is copied for outages.
func keyCachePath(cfg cmdutil.Config) string {
	sum := sha256.Sum256([]byte(cfg.BackendID() + "\x00" + cfg.Workspace))
	return filepath.Join(cfg.DataDir, "keys", hex.EncodeToString(sum[:8])+".key")
}

// WithStore opens a store with open and o, runs fn with it, and closes it.
func WithStore(ctx context.Context, open func(context.Context, StoreOptions) (*Store, error), o StoreOptions, fn func(*Store) error) error {
	s, err := open(ctx, o)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}
