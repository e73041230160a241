package evidence

import (
	"io/fs"
	"os"
	"syscall"
)

// stampOf: see stat_linux.go. Darwin names the change time Ctimespec.
func stampOf(fi fs.FileInfo) fileStamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}
	}
	return fileStamp{dev: uint64(st.Dev), ino: st.Ino, ctime: st.Ctimespec.Nano()}
}

// linkCount is how many names the open file has (0: unknown).
func linkCount(_ *os.File, fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
