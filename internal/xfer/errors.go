package xfer

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// StallError is why the watchdog ended a transfer: no connection, or no
// reply, within the connect bound; no data for the idle bound; or a speed
// below the limit for its time. The caller words it as a timeout.
type StallError struct {
	Reason string // in curl's words: "no data from the server for 300s"
}

// Error returns the reason.
func (e *StallError) Error() string { return e.Reason }

// DeadlineError is a transfer ended by its context's deadline; Err is the
// context's error.
type DeadlineError struct {
	Err error // context.DeadlineExceeded
}

// Error returns the context's error's text.
func (e *DeadlineError) Error() string { return e.Err.Error() }

// Unwrap returns the context's error.
func (e *DeadlineError) Unwrap() error { return e.Err }

// TooLargeError is a body longer than the size limit it was read under.
type TooLargeError struct {
	Limit int64 // the limit, in bytes
}

// Error says what the limit was.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the body exceeds the limit of %d bytes", e.Limit)
}

// WriteFault is what an error says of the output it came from, if it
// came from one (ClassifyWrite).
type WriteFault int

// The faults ClassifyWrite tells apart.
const (
	// NotWrite: the error is not the output's; the source's, the
	// transfer's, or none.
	NotWrite WriteFault = iota
	// WriteFailed: the output refused the bytes: a closed pipe (EPIPE),
	// a read-only file system (EROFS), any failed write of a file.
	WriteFailed
	// DiskFull: the file system ran out of room: no space left
	// (ENOSPC), the user's quota spent (EDQUOT), or a file larger than
	// the file system or the process's limit allows (EFBIG). Every later
	// file would fail the same way, so a run of many stops at the first.
	DiskFull
)

// ClassifyWrite tells whether err came from writing the output rather
// than from the source, and whether the disk is full: the one place that
// decides it for the copy engine, fetch, the mirror and the command.
func ClassifyWrite(err error) WriteFault {
	if err == nil {
		return NotWrite
	}
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG} {
		if errors.Is(err, e) {
			return DiskFull
		}
	}
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.EROFS) {
		return WriteFailed
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Op == "write" {
		return WriteFailed
	}
	return NotWrite
}

// isWriteError reports whether err came from writing the output.
func isWriteError(err error) bool { return ClassifyWrite(err) != NotWrite }
