//go:build !linux

package prefault

// Text reports no executable segment where the program headers are not
// read.
func Text() (lo, hi, page uintptr, ok bool) { return 0, 0, 0, false }

// ReadOnly reports no read-only data segment where the program headers
// are not read.
func ReadOnly() (lo, hi, page uintptr, ok bool) { return 0, 0, 0, false }
