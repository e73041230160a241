//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package statusline

import "os"

// echoOff does nothing where terminal modes are not set through termios.
func echoOff(*os.File) func() { return nil }
