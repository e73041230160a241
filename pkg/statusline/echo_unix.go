//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package statusline

import (
	"os"

	"golang.org/x/sys/unix"
)

// echoOff stops the terminal from echoing what is typed on f, and returns what turns it back
// on; nil when f is not a terminal or echo is off already. The keys stay in the terminal's
// input, unread, for the line editor to take when it next reads: typed ahead, not lost.
func echoOff(f *os.File) func() {
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil || t.Lflag&unix.ECHO == 0 {
		return nil
	}
	quiet := *t
	quiet.Lflag &^= unix.ECHO | unix.ECHONL
	// TCSETS, not TCSETSF: flushing would drop what was typed.
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &quiet); err != nil {
		return nil
	}
	return func() {
		// Only ECHO is given back: the line editor may have changed the other modes since.
		if now, err := unix.IoctlGetTermios(fd, ioctlGetTermios); err == nil {
			now.Lflag |= t.Lflag & (unix.ECHO | unix.ECHONL)
			_ = unix.IoctlSetTermios(fd, ioctlSetTermios, now)
		}
	}
}
