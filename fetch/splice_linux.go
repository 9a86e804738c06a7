package fetch

import (
	"errors"
	"io"
	"os"
	"syscall"
)

const (
	// fSetPipeSize is F_SETPIPE_SZ (fcntl(2)), missing from package syscall.
	fSetPipeSize = 0x407
	// pipeSize is what the splice pipe is grown to: 1 MiB, the default
	// /proc/sys/fs/pipe-max-size, so that one splice moves 256 pages.
	pipeSize = 1 << 20

	spliceMove     = 0x1 // SPLICE_F_MOVE
	spliceNonblock = 0x2 // SPLICE_F_NONBLOCK
)

// GrowPipe enlarges the pipe f refers to to 1 MiB (F_SETPIPE_SZ), so that a
// reader and a writer exchange large blocks and switch less often. It does
// nothing, and reports false, when f is not a pipe or the size is refused.
func GrowPipe(f *os.File) bool {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return false
	}
	_, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), fSetPipeSize, pipeSize)
	return errno == 0
}

// kernelSink returns a spliceSink when d is a pipe or /dev/null, the two
// destinations *os.File.ReadFrom has no kernel path to from a regular file
// (copy_file_range wants a regular file on both ends), and nil otherwise.
func kernelSink(d destination) sink {
	switch {
	case d.pipe:
		return &spliceSink{dst: d.file, fallback: bufferSink{w: d.file}}
	case d.null:
		return &spliceSink{dst: d.file, fallback: bufferSink{w: d.file, discard: true}}
	}
	return nil
}

// isNullDevice reports whether fi, a character device, is /dev/null: the
// device 1:3 (devices.txt).
func isNullDevice(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Rdev == 1<<8|3
}

// spliceSink moves bytes with splice(2): from the source's descriptor into
// a private 1 MiB pipe, then from that pipe to the destination. splice
// needs a pipe on one end of every call; the private pipe keeps the two
// waits apart (an empty socket, a full destination), so each end blocks
// only on its own condition. The bytes stay in the kernel's pages. A source
// with no descriptor (a decoded or TLS stream) goes through the fallback
// buffer instead.
type spliceSink struct {
	dst      *os.File
	fallback bufferSink
	pr, pw   int // the private pipe, -1 until first used
	open     bool
	broken   bool // splice refused this source or destination
	clean    bool // the private pipe was drained by the last copy
}

// idlePipe keeps the private pipe of a finished copy, empty, for the next
// one: a run of many small bodies then opens and grows one pipe, not one
// per URL. At most one pipe (two descriptors) is kept.
var idlePipe = make(chan [2]int, 1)

func (s *spliceSink) copyN(r io.Reader, n int64) (int64, bool, error) {
	rc := s.rawSource(r)
	if rc == nil {
		if _, ok := r.(syscall.Conn); ok && !s.broken {
			// The body may offer its descriptor once the bytes it has
			// buffered are out (a reply's start read ahead with its
			// header): move those with one read, then try again.
			return s.fallback.copyOnce(r, n)
		}
		return s.fallback.copyN(r, n)
	}
	if !s.open {
		select {
		case p := <-idlePipe:
			s.pr, s.pw = p[0], p[1]
		default:
			p := make([]int, 2)
			if err := syscall.Pipe2(p, syscall.O_CLOEXEC); err != nil {
				s.broken = true
				return s.fallback.copyN(r, n)
			}
			s.pr, s.pw = p[0], p[1]
			syscall.Syscall(syscall.SYS_FCNTL, uintptr(s.pw), fSetPipeSize, pipeSize)
		}
		s.open = true
	}
	s.clean = false
	var written int64
	for written < n {
		want := n - written
		if want > pipeSize {
			want = pipeSize
		}
		var moved int64
		var serr error
		// The source is non-blocking and the private pipe is empty
		// here, so EAGAIN means the source has nothing yet: wait for it
		// in the runtime's poller (and under the connection's deadline).
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

// rawSource returns the descriptor of r when splice can read it: a regular
// file, or a stream socket the body exposes while nothing of it is
// buffered in user space.
func (s *spliceSink) rawSource(r io.Reader) syscall.RawConn {
	if s.broken {
		return nil
	}
	sc, ok := r.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	var st syscall.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstat(int(fd), &st) }); err != nil || serr != nil {
		return nil
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG, syscall.S_IFSOCK:
		return rc
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
