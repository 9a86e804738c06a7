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

func (e *StallError) Error() string { return e.Reason }

// DeadlineError is a transfer ended by its context's deadline; Err is the
// context's error.
type DeadlineError struct {
	Err error
}

func (e *DeadlineError) Error() string { return e.Err.Error() }

// Unwrap returns the context's error.
func (e *DeadlineError) Unwrap() error { return e.Err }

// TooLargeError is a body longer than the size limit it was read under.
type TooLargeError struct {
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the body exceeds the limit of %d bytes", e.Limit)
}

// IsWriteError reports whether err came from writing the output (a full
// disk, a closed pipe, a read-only file system) rather than from the source.
func IsWriteError(err error) bool {
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG, syscall.EPIPE, syscall.EROFS} {
		if errors.Is(err, e) {
			return true
		}
	}
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Op == "write"
}
