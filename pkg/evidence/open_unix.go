//go:build unix

package evidence

import "syscall"

// openFlags keep an open from blocking on a FIFO put where a file was (it is refused once
// open, as anything that is not a regular file is).
const openFlags = syscall.O_NONBLOCK
