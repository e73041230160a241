package cmd

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Commands reach the workspace's store through one door, report.OpenAndUpload (or
// report.WithUploadedStore), which uploads the spool's pending turns and says so. A command that
// opened the store itself could forget the upload, or upload without saying it; history sync,
// which uploads verbosely itself, is the one that opens without the door.
func TestCommandsOpenTheStoreThroughTheDoor(t *testing.T) {
	t.Parallel()
	bypass := regexp.MustCompile(`\.OpenStore\(ctx|factory\.WithStore\(|report\.UploadSpool\(`)
	allowed := map[string]bool{filepath.Join("history", "sync.go"): true}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "report", "factory", "cmdutil":
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed[path] {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if bypass.MatchString(line) {
				t.Errorf("%s:%d opens the store or uploads the spool around report.OpenAndUpload: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
