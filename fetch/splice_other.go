//go:build !linux

package fetch

import (
	"io"
	"os"
)

// GrowPipe enlarges the pipe f refers to where the platform allows it; here
// it cannot, and reports false.
func GrowPipe(f *os.File) bool { return false }

// kernelSink has no splice(2) to offer on this platform: every destination
// other than a regular file goes through the copy buffer.
func kernelSink(d destination) sink { return nil }

// isNullDevice is false here, where nothing depends on it.
func isNullDevice(fi os.FileInfo) bool { return false }

// batchReceive has no SO_RCVLOWAT to set on this platform.
func batchReceive(src io.Reader) (undo func(), retry bool) { return nil, false }

// quiet is false here: with no batching to gain, no destination needs
// telling apart.
func (d destination) quiet() bool { return false }
