//go:build !linux

package prefault

// Text reports no executable segment where the program headers are not
// read.
func Text() (lo, hi, page uintptr, ok bool) { return 0, 0, 0, false }
