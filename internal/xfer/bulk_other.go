//go:build !linux

package xfer

import (
	"os"
	"syscall"
)

// GrowPipe does nothing on this platform, and reports false: it has no
// call to resize a pipe.
func GrowPipe(f *os.File) bool { return false }

// setPipeSize does nothing on this platform, and reports false.
func setPipeSize(rc syscall.RawConn) bool { return false }
