package xfer

import (
	"errors"
	"io"
	"os"
	"syscall"
)

const (
	spliceMove     = 0x1 // SPLICE_F_MOVE
	spliceNonblock = 0x2 // SPLICE_F_NONBLOCK
)

// The file types kindOf tells apart.
const (
	fileRegular = syscall.S_IFREG
	fileSocket  = syscall.S_IFSOCK
)

// fileType returns the type bits of the file rc refers to (fstat(2)), or
// 0 when it cannot be had.
func fileType(rc syscall.RawConn) uint32 {
	var st syscall.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstat(int(fd), &st) }); err != nil || serr != nil {
		return 0
	}
	return st.Mode & syscall.S_IFMT
}

// fileSplicer returns a spliceSink when d is a pipe or /dev/null that is
// an *os.File, and nil otherwise.
func fileSplicer(d destination) sink {
	if d.file == nil || !(d.pipe || d.null) {
		return nil
	}
	return &spliceSink{dst: d.file, fallback: bufferSink{w: d.file, discard: d.null}}
}

// isNullDevice reports whether fi, a character device, is /dev/null: the
// device 1:3 (devices.txt).
func isNullDevice(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Rdev == 1<<8|3
}

// spliceSink moves bytes with splice(2) in the two cases the standard
// library does not cover:
//
//   - a regular file (a file: URL) into a pipe or /dev/null:
//     (*os.File).ReadFrom splices only from sockets, and
//     copy_file_range(2) wants a regular file at both ends;
//   - a socket into a pipe the runtime cannot poll, such as the
//     program's stdout in the blocking mode a shell gives it:
//     internal/poll.Splice writes to it with SPLICE_F_NONBLOCK and, with
//     no poller to wait in, calls splice again at once while the pipe is
//     full. Into `| cat` that was some 5,000 failed calls per 512 MiB
//     and 75 % more CPU; here the write blocks in the kernel until the
//     reader has made room.
//
// `urlget URL | cmd` then costs no copy through user space. The bytes go
// through a private 1 MiB pipe, since splice needs a pipe at one end of
// every call and /dev/null is none; it also keeps the two waits apart (an
// empty socket, a full destination), so each end blocks only on its own
// condition. A file system or socket that cannot splice goes through the
// fallback buffer instead.
type spliceSink struct {
	dst      *os.File
	fallback bufferSink
	pr, pw   int // the private pipe, while open
	open     bool
	broken   bool // splice refused this source or destination
	clean    bool // the private pipe was drained by the last copy
}

// idlePipe keeps the private pipe of a finished copy, empty, for the next
// one: a run of many small files then opens and grows one pipe, not one
// per URL. At most one pipe (two descriptors) is kept.
var idlePipe = make(chan [2]int, 1)

// copyN moves up to n bytes of r, a regular file or a stream socket.
func (s *spliceSink) copyN(r io.Reader, n int64) (int64, bool, error) {
	if s.broken {
		return s.fallback.copyN(r, n)
	}
	rc, err := r.(Source).SyscallConn()
	if err != nil {
		return s.fallback.copyN(r, n)
	}
	if !s.open {
		if !s.openPipe() {
			s.broken = true
			return s.fallback.copyN(r, n)
		}
	}
	s.clean = false
	var written int64
	for written < n {
		want := min(n-written, PipeSize)
		var moved int64
		var serr error
		// The private pipe is empty here, so EAGAIN means a socket
		// has nothing yet: wait for it in the runtime's poller (and
		// under the connection's deadline). A regular file never
		// answers EAGAIN.
		err := rc.Read(func(fd uintptr) bool {
			for {
				moved, serr = syscall.Splice(int(fd), nil, s.pw, nil, int(want), spliceMove|spliceNonblock)
				if serr != syscall.EINTR {
					break
				}
			}
			return serr != syscall.EAGAIN
		})
		if err == nil {
			err = serr
		}
		if err != nil {
			if written == 0 && (errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS)) {
				// This file system or socket type cannot splice;
				// nothing moved yet, so read the ordinary way.
				s.broken = true
				return s.fallback.copyN(r, n)
			}
			return written, false, os.NewSyscallError("splice", err)
		}
		if moved == 0 {
			s.clean = true
			return written, false, io.EOF
		}
		if err := s.drain(moved); err != nil {
			return written, true, err
		}
		written += moved
	}
	s.clean = true
	return written, false, nil
}

// openPipe takes the idle private pipe, or opens and grows a new one.
func (s *spliceSink) openPipe() bool {
	select {
	case p := <-idlePipe:
		s.pr, s.pw = p[0], p[1]
	default:
		p := make([]int, 2)
		if err := syscall.Pipe2(p, syscall.O_CLOEXEC); err != nil {
			return false
		}
		s.pr, s.pw = p[0], p[1]
		syscall.Syscall(syscall.SYS_FCNTL, uintptr(s.pw), syscall.F_SETPIPE_SZ, PipeSize)
	}
	s.open = true
	return true
}

// drain moves n bytes from the private pipe to the destination.
func (s *spliceSink) drain(n int64) error {
	rc, err := s.dst.SyscallConn()
	if err != nil {
		return err
	}
	for n > 0 {
		var moved int64
		var serr error
		// A blocking destination blocks in splice; a non-blocking one
		// answers EAGAIN when full and is waited for in the poller.
		err := rc.Write(func(fd uintptr) bool {
			for {
				moved, serr = syscall.Splice(s.pr, nil, int(fd), nil, int(n), spliceMove)
				if serr != syscall.EINTR {
					break
				}
			}
			return serr != syscall.EAGAIN
		})
		if err == nil {
			err = serr
		}
		if errors.Is(err, syscall.EPIPE) {
			// Hand the failing write to os.File.Write with the next
			// byte, so that a closed pipe ends the program as any
			// write to it would (for stdout, Go's SIGPIPE exit).
			var b [1]byte
			if m, rerr := syscall.Read(s.pr, b[:]); rerr == nil && m == 1 {
				if _, err = s.dst.Write(b[:]); err == nil {
					n--
					continue
				}
				return err
			}
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: s.dst.Name(), Err: err}
		}
		n -= moved
	}
	return nil
}

func (s *spliceSink) release() {
	s.fallback.release()
	if !s.open {
		return
	}
	s.open = false
	if s.clean {
		select {
		case idlePipe <- [2]int{s.pr, s.pw}:
			return
		default:
		}
	}
	syscall.Close(s.pr)
	syscall.Close(s.pw)
}
