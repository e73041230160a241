package local

import (
	"bufio"
	"io"
	"os"
)

// writeTemp writes a new 0600 file in dir through write and syncs it, so a rename can publish
// it atomically and durably. The encoder streams into the file: no whole-document buffer.
func writeTemp(dir string, write func(io.Writer) error) (name string, err error) {
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return "", err
	}
	name = f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(name)
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	if err := write(bw); err != nil {
		return "", err
	}
	if err := bw.Flush(); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	return name, f.Close()
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
