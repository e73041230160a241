package testinstall

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Callers at once: one installs, the others wait for it and find it installed.
func TestOnceInstallsOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "installed")
	installed := func() bool { _, err := os.Stat(marker); return err == nil }
	var installs atomic.Int32
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			errs[i] = Once(filepath.Join(dir, "lock"), time.Minute, installed, func() error {
				installs.Add(1)
				time.Sleep(100 * time.Millisecond) // the others arrive meanwhile
				return os.WriteFile(marker, nil, 0o600)
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if n := installs.Load(); n != 1 {
		t.Errorf("installed %d times", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "lock")); !os.IsNotExist(err) {
		t.Errorf("the lock is left: %v", err)
	}
}

// A failed install is the caller's error and frees the lock; a lock older than the wait is a
// dead installer's.
func TestOnceFailureAndStaleLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lock := filepath.Join(dir, "lock")
	never := func() bool { return false }
	if err := Once(lock, time.Minute, never, func() error { return errors.New("npm: offline") }); err == nil || err.Error() != "npm: offline" {
		t.Fatalf("Once = %v", err)
	}
	if err := os.Mkdir(lock, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	ran := false
	if err := Once(lock, time.Minute, never, func() error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("over a stale lock: %v, ran %v", err, ran)
	}
}
