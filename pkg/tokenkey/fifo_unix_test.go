//go:build unix

package tokenkey_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/alertchat/alertchat/pkg/tokenkey"
)

// TestReadFileStopsPastTheBound: a key file that never ends (/dev/zero, a pipe someone keeps
// writing) is refused once it passes the bound, not read whole first.
func TestReadFileStopsPastTheBound(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "key")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	var written atomic.Int64
	done := make(chan struct{})
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		chunk := make([]byte, 4096)
		for i := 0; i < 16384; i++ { // 64 MB at most
			select {
			case <-done:
				return
			default:
			}
			n, err := f.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	_, err := tokenkey.ReadFile(path)
	close(done)
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("err = %v", err)
	}
	if n := written.Load(); n > 1<<20 {
		t.Errorf("%d bytes were read before the file was refused", n)
	}
}
