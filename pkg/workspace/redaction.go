package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/tokenkey"
)

// KeyedRedactor is the redaction of a workspace's writes: keyed tokens
// ([REDACTED_<TYPE>_<tag>]) under the workspace's key, which it fetches on first use, so
// commands that write no history never ask for it. When the key cannot be had (the store is
// down and no copy is kept), it writes plain [REDACTED_<TYPE>] placeholders and says so
// through onMissing: redaction never stops, and nothing is lost.
type KeyedRedactor struct {
	types     []redact.Type
	resolve   func(context.Context) (*redact.Redactor, error)
	onMissing func(error)
	logger    *slog.Logger
	// timeout bounds the key's fetch (a store that hangs must not hold up a write forever).
	timeout time.Duration

	once sync.Once
	eng  *redact.Redactor
}

// NewKeyedRedactor returns the redaction of types with the key of src, or of the operator's
// keyFile when set; onMissing (may be nil) is told when the key cannot be had.
func NewKeyedRedactor(types []redact.Type, src tokenkey.Source, keyFile string, onMissing func(error), logger *slog.Logger, timeout time.Duration) *KeyedRedactor {
	return &KeyedRedactor{types: types, onMissing: onMissing, logger: logger, timeout: timeout,
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
			k.logger.Debug("token key unavailable", "error", err) // the warning says it; -v adds the details
			if k.onMissing != nil {
				k.onMissing(err)
			}
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
func keyCachePath(cfg Settings) string {
	sum := sha256.Sum256([]byte(cfg.BackendID + "\x00" + cfg.Workspace))
	return filepath.Join(cfg.DataDir, "keys", hex.EncodeToString(sum[:8])+".key")
}
