package gopher

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
)

// readBufferSize is the connection's read buffer: it holds the longest menu
// line (schemes.MaxLineLength) and the short replies Fetch inspects whole
// before deciding that an item is an error message.
const readBufferSize = 16 << 10

// session is one gopher connection: RFC 1436 §2 gives every request its own
// connection, which the server closes after the reply.
type session struct {
	ctx   context.Context
	req   *schemes.Request
	conn  net.Conn
	tcp   *net.TCPConn // the plain TCP connection, nil over TLS
	br    *bufio.Reader
	bind  netconn.Binding
	once  sync.Once
	cerr  error
	trace schemes.Tracer
}

// Close ends the session; it is safe to call more than once.
func (s *session) Close() error {
	s.once.Do(func() {
		s.bind.Stop()
		s.cerr = s.conn.Close()
	})
	return s.cerr
}

// fail classifies a network error. A context that ended explains the error
// better than what it did to the connection (a deadline in the past).
func (s *session) fail(op string, err error) error {
	return s.req.NetError(op, netconn.Cause(s.ctx, err))
}

// readError classifies an error met while reading a body: io.EOF passes
// through as the end of the stream.
func (s *session) readError(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return s.fail("read", err)
}

// truncated is the error for a Gopher+ item that ends before the byte count
// its header announced.
func (s *session) truncated(got, want int64) error {
	return s.req.Fail(schemes.ErrTruncated, "read", 0, "",
		fmt.Errorf("server closed the connection after %d of the %d bytes its Gopher+ header announced", got, want))
}

// rawBody streams an item's bytes untouched: binary items, and menus asked
// for with --raw-listing. When the length is known it checks the stream has it all.
type rawBody struct {
	s      *session
	remain int64 // bytes still to come, -1 when the item runs until close
	length int64 // the announced length, -1 when none
}

// errNoRawConn says a body cannot hand its socket to the kernel right now.
var errNoRawConn = errors.New("gopher: body is not a bare socket")

// Read reads the item's next bytes.
func (b *rawBody) Read(p []byte) (int, error) {
	if b.remain == 0 {
		return 0, io.EOF
	}
	if b.remain > 0 && int64(len(p)) > b.remain {
		p = p[:b.remain]
	}
	n, err := b.s.br.Read(p)
	return n, b.account(int64(n), err)
}

// account updates the count of bytes still to come and turns the end of
// the stream before the announced length into a truncation error.
func (b *rawBody) account(n int64, err error) error {
	if b.remain > 0 {
		b.remain -= n
		if err == io.EOF && b.remain > 0 {
			return b.s.truncated(b.length-b.remain, b.length)
		}
		if b.remain == 0 && err == nil {
			return nil
		}
	}
	return b.s.readError(err)
}

// WriteTo copies the item to w. The bytes already buffered go first; the
// rest comes straight from the socket through io.Copy, so that an *os.File
// destination (a file, a pipe, /dev/null) receives it by splice(2) without
// passing through user space.
func (b *rawBody) WriteTo(w io.Writer) (int64, error) {
	var written int64
	if n := b.s.br.Buffered(); n > 0 && b.remain != 0 {
		if b.remain > 0 && int64(n) > b.remain {
			n = int(b.remain)
		}
		buf, _ := b.s.br.Peek(n)
		m, err := w.Write(buf)
		_, _ = b.s.br.Discard(m)
		written += int64(m)
		if b.remain > 0 {
			b.remain -= int64(m)
		}
		if err != nil {
			return written, err
		}
	}
	if b.remain == 0 {
		return written, nil
	}
	var src io.Reader = b.s.conn
	if b.s.tcp != nil {
		src = b.s.tcp
	}
	if b.remain > 0 {
		src = &io.LimitedReader{R: src, N: b.remain}
	}
	n, err := io.Copy(w, src)
	written += n
	if b.remain > 0 {
		b.remain -= n
		if err == nil && b.remain > 0 {
			return written, b.s.truncated(b.length-b.remain, b.length)
		}
	}
	if err != nil && isReadError(err) {
		err = b.s.fail("read", err)
	}
	return written, err
}

// isReadError tells a failure of the connection from one of the writer
// io.Copy wrote to; only the former is the transfer's fault.
func isReadError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Op == "read"
	}
	return errors.Is(err, net.ErrClosed)
}

// SyscallConn exposes the socket while the body is nothing but the rest of
// the connection (no buffered bytes, no length to count, no TLS), so that
// os.File.ReadFrom can splice from it even through wrappers that only see
// an io.Reader. Otherwise it fails and the copy goes through Read. This is
// the rule of the copy engine's Source (internal/xfer).
func (b *rawBody) SyscallConn() (syscall.RawConn, error) {
	if b.s.tcp == nil || b.remain >= 0 || b.s.br.Buffered() > 0 {
		return nil, errNoRawConn
	}
	return b.s.tcp.SyscallConn()
}

// Close closes the connection.
func (b *rawBody) Close() error { return b.s.Close() }

// exactReader reads exactly n bytes from r: the length a Gopher+ header
// announced. An end of stream before them is a truncated transfer.
type exactReader struct {
	s      *session
	r      io.Reader
	remain int64
	length int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.remain <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.remain {
		p = p[:e.remain]
	}
	n, err := e.r.Read(p)
	e.remain -= int64(n)
	if err == io.EOF && e.remain > 0 {
		return n, e.s.truncated(e.length-e.remain, e.length)
	}
	if e.remain == 0 && err == io.EOF {
		err = nil
	}
	return n, e.s.readError(err)
}

// errReader classifies the errors of the reader under it.
type errReader struct {
	s *session
	r io.Reader
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	return n, e.s.readError(err)
}

// textBody is a decoded text item over its connection.
type textBody struct {
	*textReader
	s *session
}

// Close closes the connection.
func (b *textBody) Close() error { return b.s.Close() }
