package xfer

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
)

// copyBufferSize is the buffer Body.WriteTo reads into when the kernel
// cannot move the bytes itself: large enough that one read drains what a
// fast connection has queued and one write fills most of a grown pipe, so
// the copy costs a few hundred system calls per gigabyte instead of 32 KiB
// read/write pairs. A copy starts with a buffer of smallBufferSize and
// takes the large one only once a read fills the small one, so that small
// bodies and slow sources never touch the memory of the large one.
const (
	copyBufferSize  = 1 << 20
	smallBufferSize = 64 << 10
)

// copyBuffers and smallBuffers hold the buffers of finished copies, so that
// a run of many bodies reuses one buffer instead of allocating one per URL.
var (
	copyBuffers  = sync.Pool{New: func() any { b := make([]byte, copyBufferSize); return &b }}
	smallBuffers = sync.Pool{New: func() any { b := make([]byte, smallBufferSize); return &b }}
)

// sink is one destination of Body.WriteTo, with the fastest way the
// destination allows to move a chunk of the body there.
type sink interface {
	// copyN moves up to n bytes from r. It returns io.EOF when r ended
	// first. werr tells whether err came from the destination.
	copyN(r io.Reader, n int64) (written int64, werr bool, err error)
	// release gives back what the sink holds (buffers, pipes).
	release()
}

// destination is what a body is written into, told apart once per body
// with one fstat(2): newSink picks the copy by it.
type destination struct {
	file    *os.File // w itself, when it is one
	regular bool     // a regular file: w, or a writer over one that can Stat itself
	pipe    bool
	null    bool // the null device
}

// describe stats w when it can (an *os.File, or a wrapper with a Stat
// method such as the command's temporary output file).
func describe(w io.Writer) destination {
	var d destination
	d.file, _ = w.(*os.File)
	st, ok := w.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return d
	}
	fi, err := st.Stat()
	if err != nil {
		return d
	}
	m := fi.Mode()
	d.regular = m.IsRegular()
	d.pipe = m&os.ModeNamedPipe != 0
	d.null = m&os.ModeCharDevice != 0 && isNullDevice(fi)
	return d
}

// newSink chooses how to copy into w, described by d. A regular file, a
// pipe or /dev/null that can read from a source (an *os.File, or a writer
// over one that passes ReadFrom on) gets a fileSink, which lets the kernel
// move the bytes where it can; anything else goes through one large
// buffer.
func newSink(w io.Writer, d destination) sink {
	rf, ok := w.(io.ReaderFrom)
	if !ok || !(d.regular || d.pipe || d.null) {
		return &bufferSink{w: w}
	}
	return &fileSink{rf: rf, d: d, fallback: bufferSink{w: w, discard: d.null}, splice: fileSplicer(d)}
}

// hasDescriptor reports whether r is a Source: a file or a connection
// whose descriptor the copy may hand to the kernel.
func hasDescriptor(r io.Reader) bool {
	_, ok := r.(Source)
	return ok
}

// fileSink copies into a file, choosing for each chunk by its source:
//
//   - a socket into a pipe: splice (fileSplicer), where ReadFrom would
//     spin on a full pipe it cannot poll (see spliceSink);
//   - a socket into a regular file or /dev/null: the destination's
//     ReadFrom, which (*os.File).ReadFrom turns into splice(2) on Linux
//     (os/zero_copy_linux.go, internal/poll/splice_linux.go);
//   - a regular file into a regular file: ReadFrom again, which uses
//     copy_file_range(2);
//   - a regular file into a pipe or /dev/null: splice (fileSplicer), which
//     ReadFrom does not reach: it splices only from sockets, and
//     copy_file_range wants regular files at both ends;
//   - a source that offers its socket only once the bytes it read ahead
//     are out (see Source): one buffered read, then the above;
//   - anything else: the buffer.
type fileSink struct {
	rf       io.ReaderFrom
	d        destination
	fallback bufferSink
	splice   sink // nil where the platform has no splice for a file source
}

// sourceKind tells what the kernel can do with a copy's source.
type sourceKind int

const (
	sourceOther  sourceKind = iota // no descriptor: read into the buffer
	sourceLater                    // a descriptor, but not yet (see Source)
	sourceFile                     // a regular file
	sourceSocket                   // a stream socket
)

// kindOf looks at r's descriptor, with one fstat(2).
func kindOf(r io.Reader) sourceKind {
	sc, ok := r.(Source)
	if !ok {
		return sourceOther
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return sourceLater
	}
	switch fileType(rc) {
	case fileRegular:
		return sourceFile
	case fileSocket:
		return sourceSocket
	}
	return sourceOther
}

func (s *fileSink) copyN(r io.Reader, n int64) (int64, bool, error) {
	switch kindOf(r) {
	case sourceSocket:
		if s.d.pipe && s.splice != nil {
			return s.splice.copyN(r, n)
		}
		return s.readFrom(r, n)
	case sourceFile:
		if s.d.regular {
			return s.readFrom(r, n)
		}
		if s.splice != nil {
			return s.splice.copyN(r, n)
		}
	case sourceLater:
		return s.fallback.copyOnce(r, n)
	}
	return s.fallback.copyN(r, n)
}

// readFrom has the destination's ReadFrom move up to n bytes of r.
func (s *fileSink) readFrom(r io.Reader, n int64) (int64, bool, error) {
	written, err := s.rf.ReadFrom(&io.LimitedReader{R: r, N: n})
	switch {
	case err == nil && written < n:
		return written, false, io.EOF
	case err == nil:
		return written, false, nil
	case errors.Is(err, syscall.EPIPE) && s.d.file != nil:
		// (*os.File).ReadFrom returns a closed pipe's EPIPE as it is,
		// where Write ends the program on it for stdout, as any program
		// writing to a closed pipe ends (epipecheck in package os). Hand
		// Write the body's next byte, so that both paths end alike.
		m, werr, rerr := s.fallback.copyOnce(r, 1)
		if werr {
			err = rerr
		}
		return written + m, true, err
	}
	var pe *os.PathError
	if errors.As(err, &pe) && (!isWriteError(err) || sourceError(pe.Err)) {
		// ReadFrom names the destination in every error, "write" as the
		// operation, but this one is the source's (a reset, a timeout).
		err = pe.Err
	}
	return written, isWriteError(err), err
}

// sourceError reports whether err, from a kernel copy into a file, can only
// have come from a socket it read: a connection closed, reset or aborted,
// or its read deadline passed (a regular file or /dev/null has none; a
// pipe's deadline is the command's, which tells that case apart itself).
func sourceError(err error) bool {
	for _, e := range []error{net.ErrClosed, os.ErrDeadlineExceeded, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.ETIMEDOUT} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func (s *fileSink) release() {
	s.fallback.release()
	if s.splice != nil {
		s.splice.release()
	}
}

// bufferSink copies through one pooled buffer of copyBufferSize bytes. With
// discard set the bytes are read and dropped: writing to /dev/null would
// only cost a system call.
type bufferSink struct {
	w       io.Writer
	discard bool
	buf     *[]byte
	large   bool // buf is from copyBuffers
}

func (s *bufferSink) copyN(r io.Reader, n int64) (int64, bool, error) {
	var written int64
	for written < n {
		nw, werr, err := s.copyOnce(r, n-written)
		written += nw
		if err != nil {
			return written, werr, err
		}
	}
	return written, false, nil
}

// copyOnce makes one Read of at most n bytes and writes what it got.
func (s *bufferSink) copyOnce(r io.Reader, n int64) (int64, bool, error) {
	if s.buf == nil {
		s.buf = smallBuffers.Get().(*[]byte)
	}
	p := *s.buf
	if n < int64(len(p)) {
		p = p[:n]
	}
	nr, rerr := r.Read(p)
	if nr > 0 && !s.discard {
		nw, werr := s.w.Write(p[:nr])
		if werr != nil {
			return int64(nw), true, werr
		}
		if nw < nr {
			return int64(nw), true, io.ErrShortWrite
		}
	}
	if nr == smallBufferSize && !s.large {
		// The source keeps up with a full buffer: take the large one.
		smallBuffers.Put(s.buf)
		s.buf, s.large = copyBuffers.Get().(*[]byte), true
	}
	return int64(nr), false, rerr
}

func (s *bufferSink) release() {
	switch {
	case s.buf == nil:
	case s.large:
		copyBuffers.Put(s.buf)
	default:
		smallBuffers.Put(s.buf)
	}
	s.buf, s.large = nil, false
}
