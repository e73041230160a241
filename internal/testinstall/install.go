// Package testinstall installs what tests need from outside the module (npm packages, a
// program built from a module of its own) once across the parallel test processes of a run.
package testinstall

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Once makes what installed reports present, running install at most once at a time
// across the test processes of a run (go test runs packages in parallel processes): the first
// to find it missing takes a lock (a directory, made atomically) and installs; the others wait
// until it is there. A lock older than wait is taken to be a dead installer's and removed.
func Once(lock string, wait time.Duration, installed func() bool, install func() error) error {
	deadline := time.Now().Add(wait)
	for {
		if installed() {
			return nil
		}
		if err := os.Mkdir(lock, 0o755); err == nil {
			break
		} else if fi, serr := os.Stat(lock); serr == nil && time.Since(fi.ModTime()) > wait {
			_ = os.Remove(lock)
			continue
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waited %s for another test process to finish installing (lock %s)", wait, lock)
		}
		time.Sleep(500 * time.Millisecond)
	}
	defer os.Remove(lock)
	if installed() {
		return nil
	}
	return install()
}

// NPM runs `npm ci` in dir (a folder with a committed package-lock.json) unless entry,
// a file of the installed packages, is there already. `npm ci` first deletes node_modules, so
// two at once in one folder break each other, and one under a server that another test
// started from it breaks that server: the install happens once, under a lock the other test
// processes wait on.
func NPM(dir, entry string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Errorf("npm not found: %w", err)
	}
	h := sha256.Sum256([]byte(abs))
	lock := filepath.Join(os.TempDir(), "alertchat-npm-"+hex.EncodeToString(h[:6])+".lock")
	return Once(lock, 10*time.Minute, func() bool {
		_, err := os.Stat(filepath.Join(abs, entry))
		return err == nil
	}, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
		cmd.Dir = abs
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("npm ci in %s: %w: %s", dir, err, out)
		}
		return nil
	})
}
