package evidence

import (
	"io/fs"
	"os"
	"syscall"
)

// stampOf is what identifies a version of a file beyond its size and modification time: a
// rewrite that restores both (cp -p, rsync -t, tar x) changes the inode change time, and a
// file put in its place has another inode.
func stampOf(fi fs.FileInfo) fileStamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}
	}
	return fileStamp{dev: uint64(st.Dev), ino: uint64(st.Ino), ctime: st.Ctim.Nano()}
}

// linkCount is how many names the open file has (0: unknown).
func linkCount(_ *os.File, fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
