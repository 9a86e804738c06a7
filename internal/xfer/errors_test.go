package xfer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

// TestClassifyWrite checks the one write-error classifier: a closed
// pipe and a failed write are the output's; a full disk (/dev/full's
// ENOSPC, however wrapped, and EDQUOT and EFBIG) is the output's and
// says so; a source's end, a denied open and nothing are not.
func TestClassifyWrite(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	_, perr := w.Write([]byte("x"))
	w.Close()
	if got := ClassifyWrite(perr); got != WriteFailed {
		t.Errorf("EPIPE %v classified %d, want WriteFailed", perr, got)
	}

	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, ferr := f.Write([]byte("x"))
	if !errors.Is(ferr, syscall.ENOSPC) {
		t.Fatalf("writing /dev/full: %v, want ENOSPC", ferr)
	}
	for _, err := range []error{
		ferr,
		fmt.Errorf("saving h/x: %w", ferr),
		&os.PathError{Op: "write", Path: "x", Err: syscall.EDQUOT},
		&os.PathError{Op: "write", Path: "x", Err: syscall.EFBIG},
	} {
		if got := ClassifyWrite(err); got != DiskFull {
			t.Errorf("ClassifyWrite(%v) = %d, want DiskFull", err, got)
		}
	}
	for _, err := range []error{
		&os.PathError{Op: "write", Path: "x", Err: syscall.EIO},
		&os.PathError{Op: "open", Path: "x", Err: syscall.EROFS},
	} {
		if got := ClassifyWrite(err); got != WriteFailed {
			t.Errorf("ClassifyWrite(%v) = %d, want WriteFailed", err, got)
		}
	}
	for _, err := range []error{nil, io.EOF, io.ErrUnexpectedEOF, fs.ErrPermission, &os.PathError{Op: "open", Path: "x", Err: syscall.EACCES}} {
		if got := ClassifyWrite(err); got != NotWrite {
			t.Errorf("ClassifyWrite(%v) = %d, want NotWrite", err, got)
		}
	}
}
