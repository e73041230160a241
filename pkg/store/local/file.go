package local

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
)

// writeTemp writes a new 0600 file in dir through write and syncs it, so a rename can publish
// it atomically and durably. The encoder streams into the file: no whole-document buffer.
func writeTemp(dir string, write func(io.Writer) error) (name string, err error) {
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return "", err
	}
	path := f.Name() // not name: a failed return clears it before this runs
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(path)
		}
	}()
	bw := bufio.NewWriterSize(tempWriter(f), 256<<10)
	if err := write(bw); err != nil {
		return "", err
	}
	if err := bw.Flush(); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	return path, f.Close()
}

// tempWriter is where writeTemp's bytes go; tests replace it to inject write errors (a full
// disk).
var tempWriter = func(f *os.File) io.Writer { return f }

// isNoSpace recognises a full disk: ENOSPC or EDQUOT from the file system, SQLITE_FULL from
// the database.
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) ||
		strings.Contains(err.Error(), "database or disk is full")
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
