//go:build !unix

package evidence

// openFlags: no FIFO can block an open here.
const openFlags = 0
