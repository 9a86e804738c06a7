// Package xfertest holds what the tests of the copy engine and of its
// callers share: a TCP server on the loopback address, and the shapes a
// protocol's body reaches the engine in (a body that checks its own end,
// as FTP's does, and one of a known length on a connection that outlives
// it, as HTTP's does).
package xfertest

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// ServeTCP listens on 127.0.0.1 and runs serve on every connection, then
// closes it; the listener ends with the test.
func ServeTCP(t testing.TB, serve func(net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln
}

// ErrShortBody is what CheckedBody and LengthBody report when their
// connection ended early.
var ErrShortBody = errors.New("the connection ended before the announced length")

// CheckedBody is a body that must see its own end, as FTP's does (the 226
// reply, the byte count): it hides its connection's descriptor but offers
// the connection to the destination's ReadFrom in its WriteTo.
type CheckedBody struct {
	c    *net.TCPConn
	n    int64
	want int64
}

// NewCheckedBody returns the body of want bytes that c carries.
func NewCheckedBody(c *net.TCPConn, want int64) *CheckedBody {
	return &CheckedBody{c: c, want: want}
}

// Read reads from the connection.
func (b *CheckedBody) Read(p []byte) (int, error) {
	n, err := b.c.Read(p)
	b.n += int64(n)
	if err == io.EOF && b.n < b.want {
		err = ErrShortBody
	}
	return n, err
}

// WriteTo hands the connection to w's ReadFrom, and checks the count.
func (b *CheckedBody) WriteTo(w io.Writer) (int64, error) {
	var n int64
	var err error
	if rf, ok := w.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(b.c)
	} else {
		n, err = io.Copy(w, b.c)
	}
	b.n += n
	if err == nil && b.n < b.want {
		err = ErrShortBody
	}
	return n, err
}

// Close closes the connection.
func (b *CheckedBody) Close() error { return b.c.Close() }

// LengthBody is a body that ends before its connection does, as an HTTP
// body of known length on a kept-alive connection: its WriteTo offers the
// connection as an *io.LimitedReader of the body's bytes.
type LengthBody struct {
	c      *net.TCPConn
	remain int64
}

// NewLengthBody returns the body of the next n bytes of c.
func NewLengthBody(c *net.TCPConn, n int64) *LengthBody {
	return &LengthBody{c: c, remain: n}
}

// Read reads up to the body's end.
func (b *LengthBody) Read(p []byte) (int, error) {
	if b.remain <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.remain {
		p = p[:b.remain]
	}
	n, err := b.c.Read(p)
	b.remain -= int64(n)
	if err == io.EOF && b.remain > 0 {
		err = ErrShortBody
	}
	return n, err
}

// WriteTo hands w's ReadFrom the connection, limited to the body.
func (b *LengthBody) WriteTo(w io.Writer) (int64, error) {
	rf, ok := w.(io.ReaderFrom)
	if !ok {
		return io.Copy(w, struct{ io.Reader }{b})
	}
	lr := &io.LimitedReader{R: b.c, N: b.remain}
	n, err := rf.ReadFrom(lr)
	b.remain = lr.N
	if err == nil && b.remain > 0 {
		err = ErrShortBody
	}
	return n, err
}

// Close closes the connection.
func (b *LengthBody) Close() error { return b.c.Close() }

// CopyToFile copies r into a new file in a temporary directory, with
// io.Copy (so through the file's ReadFrom and the body's WriteTo).
func CopyToFile(t testing.TB, r io.Reader) (path string, n int64, err error) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "dst")
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	n, err = io.Copy(dst, r)
	return path, n, err
}

// Recorder is a destination over a regular file that records whether a
// copy handed its ReadFrom a descriptor to read (an *os.File or a
// *net.TCPConn, bare or under an *io.LimitedReader): the fast path, which
// (*os.File).ReadFrom turns into splice(2) or copy_file_range(2).
type Recorder struct {
	*os.File
	Kernel bool // ReadFrom was handed a descriptor
}

// NewRecorder creates a file in a temporary directory to record into; it
// is closed with the test.
func NewRecorder(t testing.TB) *Recorder {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "recorded"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &Recorder{File: f}
}

// ReadFrom notes what src is and lets the file read it.
func (r *Recorder) ReadFrom(src io.Reader) (int64, error) {
	s := src
	if lr, ok := s.(*io.LimitedReader); ok {
		s = lr.R
	}
	switch s.(type) {
	case *os.File, *net.TCPConn:
		r.Kernel = true
	}
	return r.File.ReadFrom(src)
}

// Bytes returns what the file holds.
func (r *Recorder) Bytes(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(r.Name())
	if err != nil {
		t.Fatal(err)
	}
	return b
}
