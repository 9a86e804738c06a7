//go:build !linux

package fetch

import "os"

// GrowPipe enlarges the pipe f refers to where the platform allows it; here
// it cannot, and reports false.
func GrowPipe(f *os.File) bool { return false }

// kernelSink has no splice(2) to offer on this platform: every destination
// other than a regular file goes through the copy buffer.
func kernelSink(f *os.File) sink { return nil }
