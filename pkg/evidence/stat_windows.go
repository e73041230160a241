package evidence

import (
	"io/fs"
	"os"
	"syscall"
)

// stampOf: see stat_linux.go. A listing on Windows gives no file index and no change time
// without opening the file, so the stamp is the creation time: a file put in another's place
// has its own; an in-place rewrite that restores size and modification time is not seen.
func stampOf(fi fs.FileInfo) fileStamp {
	d, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	if !ok {
		return fileStamp{}
	}
	return fileStamp{ctime: d.CreationTime.Nanoseconds()}
}

// linkCount is how many names the open file has (0: unknown), asked of the handle: Windows
// file information from a listing does not carry it.
func linkCount(fd *os.File, _ fs.FileInfo) uint64 {
	var info syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(syscall.Handle(fd.Fd()), &info); err != nil {
		return 0
	}
	return uint64(info.NumberOfLinks)
}
