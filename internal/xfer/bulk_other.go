//go:build !linux

package xfer

import "os"

// GrowPipe does nothing on this platform, and reports false: it has no
// call to resize a pipe.
func GrowPipe(f *os.File) bool { return false }
