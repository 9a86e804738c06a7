package xfer

import (
	"os"
	"syscall"
)

// GrowPipe enlarges the pipe f refers to to PipeSize (F_SETPIPE_SZ,
// fcntl(2)), so that the program at its other end takes large blocks and
// both sides switch less. The standard library grows only the private
// pipes it splices through (internal/poll), never a pipe it is handed as
// stdout. It does nothing, and reports false, when f is not a pipe or the
// size is refused, or while the fast paths are off (FastPathsOff).
func GrowPipe(f *os.File) bool {
	if FastPathsOff() {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	return setPipeSize(rc)
}

// setPipeSize sets the size of the pipe rc refers to to PipeSize and
// reports whether the kernel took it.
func setPipeSize(rc syscall.RawConn) bool {
	var errno syscall.Errno
	err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETPIPE_SZ, PipeSize)
	})
	return err == nil && errno == 0
}
