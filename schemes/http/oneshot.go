package http

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"syscall"

	"github.com/urlget/urlget/schemes"
)

// maxHeaderBytes bounds the status lines and header fields of one response,
// interim (1xx) responses included, on either path: a server that never
// ends its header must not take the process past its memory bound. curl
// allows 300 KB.
const maxHeaderBytes = 1 << 20

// errHeaderTooLarge is the cause of a response whose header ran past
// maxHeaderBytes.
var errHeaderTooLarge = errors.New("server response header exceeded " + strconv.Itoa(maxHeaderBytes) + " bytes")

// oneShot carries the requests of a fetch that is the only one its Fetcher
// will make (schemes.Request.Last, before any connection was pooled) over
// plain http: each is written on a connection of its own with
// Request.Write and its response read with ReadResponse (RFC 9112), on the
// calling goroutine. net/http's Transport would start a goroutine to dial,
// then a reader and a writer goroutine per connection, and pass the request
// and response between them: worth it for a pool the next URL reuses,
// about a millisecond of a process's start-up for a single fetch.
//
// A redirect is followed by the same client. When the previous response
// leaves its connection reusable (read to its end, no "Connection: close",
// RFC 9112 §9.3) and the next hop goes to the same host and port, the
// request goes on that connection, as the Transport would send it; an
// https hop goes to the Transport (next), which offers HTTP/2.
type oneShot struct {
	dialer schemes.Dialer
	next   func() http.RoundTripper // the Transport, built when first asked for

	idle *shotConn // left open by the previous hop, for the next
	done bool      // the final response is out: close, do not keep
}

// shotConn is one connection of a oneShot and its buffers.
type shotConn struct {
	net.Conn
	addr  string
	limit headerLimit
	br    *bufio.Reader
	bw    *bufio.Writer
}

// headerLimit sits under the connection's read buffer and fails a read
// once n bytes have passed while a header is being read (n < 0 turns it
// off for the body).
type headerLimit struct {
	r io.Reader
	n int64
}

func (l *headerLimit) Read(p []byte) (int, error) {
	if l.n == 0 {
		return 0, errHeaderTooLarge
	}
	if l.n > 0 && int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	if l.n > 0 {
		l.n -= int64(n)
	}
	return n, err
}

// RoundTrip sends r and reads its response, interim responses skipped.
func (o *oneShot) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != "http" {
		o.closeIdle()
		return o.next().RoundTrip(r)
	}
	if err := checkHeader(r.Header); err != nil {
		o.closeIdle()
		return nil, err
	}
	port := r.URL.Port()
	if port == "" {
		port = "80"
	}
	addr := net.JoinHostPort(r.URL.Hostname(), port)
	c := o.idle
	o.idle = nil
	if c != nil && c.addr != addr {
		c.Close()
		c = nil
	}
	if c != nil {
		resp, resend, err := o.exchange(r, c, true)
		if !resend {
			return resp, err
		}
		// The server closed the kept connection before it answered
		// (RFC 9112 §9.3.1): the request, a GET or HEAD and so
		// idempotent (RFC 9110 §9.2.2), goes again on a new connection,
		// as the Transport would send it.
	}
	conn, err := o.dialer.DialContext(r.Context(), "tcp", addr)
	if err != nil {
		return nil, err
	}
	c = &shotConn{Conn: conn, addr: addr}
	c.limit.r = conn
	c.br = bufio.NewReaderSize(&c.limit, readBufferSize)
	c.bw = bufio.NewWriterSize(conn, 4<<10)
	resp, _, err := o.exchange(r, c, false)
	return resp, err
}

// exchange writes r on c and reads the response's header. On a reused
// connection that failed before any of a response came, it reports that
// the request may be sent again.
func (o *oneShot) exchange(r *http.Request, c *shotConn, reused bool) (resp *http.Response, resend bool, err error) {
	ctx := r.Context()
	if t := httptrace.ContextClientTrace(ctx); t != nil && t.GotConn != nil {
		t.GotConn(httptrace.GotConnInfo{Conn: c.Conn, Reused: reused})
	}
	// A cancelled or expired context ends the exchange, and the body
	// after it, by closing the connection under any blocked read.
	stop := context.AfterFunc(ctx, func() { c.Close() })
	fail := func(err error, resend bool) (*http.Response, bool, error) {
		stop()
		c.Close()
		if cerr := ctx.Err(); cerr != nil {
			return nil, false, cerr
		}
		idempotent := r.Method == http.MethodGet || r.Method == http.MethodHead
		return nil, resend && reused && idempotent, err
	}
	err = r.Write(c.bw)
	if err == nil {
		err = c.bw.Flush()
	}
	if err != nil {
		return fail(err, true)
	}
	c.limit.n = maxHeaderBytes
	for {
		resp, err = http.ReadResponse(c.br, r)
		if err != nil {
			// Nothing of a response came: the server had closed the
			// kept connection (ReadResponse reports the end as
			// unexpected; a reset is as likely).
			none := c.limit.n == maxHeaderBytes &&
				(errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET))
			return fail(err, none)
		}
		// RFC 9110 §15.2: an interim response precedes the final one;
		// 101 ends the exchange, as net/http's Transport treats it.
		if resp.StatusCode >= 100 && resp.StatusCode <= 199 && resp.StatusCode != http.StatusSwitchingProtocols {
			continue
		}
		c.limit.n = -1
		resp.Body = &shotBody{rc: resp.Body, o: o, c: c, stop: stop, keep: !resp.Close && !r.Close}
		return resp, false, nil
	}
}

// finish is called once the final response is out (or the fetch failed):
// a connection the last hop left open is closed, and so will be the final
// response's when its body is closed.
func (o *oneShot) finish() {
	o.done = true
	o.closeIdle()
}

func (o *oneShot) closeIdle() {
	if o.idle != nil {
		o.idle.Close()
		o.idle = nil
	}
}

// shotBody is a response body on a oneShot connection.
type shotBody struct {
	rc   io.ReadCloser
	o    *oneShot
	c    *shotConn
	stop func() bool
	keep bool // the response lets the connection carry another request
	eof  bool
}

func (b *shotBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// Close closes the connection, or keeps it for a redirect's next hop when
// the body was read to its end and nothing beyond it arrived. A body left
// unread is not drained (net/http's own Close would read it to the end):
// the connection is closed under it.
func (b *shotBody) Close() error {
	if b.c == nil {
		return nil
	}
	c := b.c
	b.c = nil
	b.stop()
	if b.eof && b.keep && !b.o.done && c.br.Buffered() == 0 {
		b.rc.Close()
		b.o.idle = c
		return nil
	}
	return c.Close()
}

// checkHeader refuses a header field that Request.Write would send as it
// is: a name that is not a token, or a value holding CR, LF or NUL, which
// would end the field early or smuggle another in (RFC 9110 §5.1, §5.5).
// The Transport refuses the same.
func checkHeader(h http.Header) error {
	for k, vs := range h {
		valid := k != ""
		for i := 0; i < len(k) && valid; i++ {
			valid = tokenByte(k[i])
		}
		if !valid {
			return errors.New("invalid header field name " + strconv.Quote(k))
		}
		for _, v := range vs {
			if strings.ContainsAny(v, "\r\n\x00") {
				return errors.New("invalid header field value for " + strconv.Quote(k))
			}
		}
	}
	return nil
}

// tokenByte reports whether c may appear in a token (RFC 9110 §5.6.2).
func tokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// shotRest is a body of known length (Content-Length, no transfer coding)
// that came on a oneShot connection, which closes once the body is out. Its
// WriteTo hands the copy the rest of the body as the socket itself, limited
// to the bytes still to come, so that the copy can splice them into a pipe,
// /dev/null or a file (fetch's chunkWriter) instead of reading them through
// net/http's body reader: 1 GiB from a local nginx into /dev/null took
// 135 ms of CPU and 367 ms through the reader, 83 ms and 241 ms this way
// (medians of 15 runs); into a pipe, with cat's share, 386 and 232 ms of
// CPU. A pooled connection keeps going through the Transport's reader,
// which reads ahead of the body and owns the connection's next response.
type shotRest struct {
	*body
	shot *shotBody
	conn net.Conn // a syscall.Conn: body.raw is its socket
}

// WriteTo writes the body to w: first what the connection's read buffer
// holds of it, then, when w can read from a source (io.ReaderFrom), the
// rest from the socket as an *io.LimitedReader of the bytes the body still
// has. While a low-water mark is set (BatchReceive), the last mark's worth
// of bytes go in a copy of their own with the mark back at one byte, so
// that they never wait for bytes that will not come: the server keeps the
// connection open after the body (RFC 9112 §9.3). Any other w gets the body
// through Read.
func (b *shotRest) WriteTo(w io.Writer) (int64, error) {
	rf, ok := w.(io.ReaderFrom)
	c := b.shot.c
	if !ok || c == nil {
		return io.Copy(w, readerOnly{b.body})
	}
	var written int64
	if n := int64(c.br.Buffered()); n > 0 && b.remain > 0 {
		p, _ := c.br.Peek(int(min(n, b.remain)))
		m, err := w.Write(p)
		c.br.Discard(m)
		written += int64(m)
		b.remain -= int64(m)
		if err != nil {
			return written, err
		}
	}
	// From here on the socket is read past net/http's body reader, which
	// is left behind: this is the final response, whose connection
	// shotBody.Close closes, never drains.
	if b.lowat > 1 {
		if head := b.remain - int64(b.lowat); head > 0 {
			m, err := b.copyRest(rf, head)
			written += m
			if err != nil {
				return written, err
			}
		}
		b.batch = 0
		b.lowWater()
	}
	m, err := b.copyRest(rf, b.remain)
	return written + m, err
}

// copyRest hands rf the next n bytes of the body as the socket limited to
// them. A connection that ends before them is a truncated transfer.
func (b *shotRest) copyRest(rf io.ReaderFrom, n int64) (int64, error) {
	if n <= 0 {
		return 0, nil
	}
	lr := &io.LimitedReader{R: b.conn, N: n}
	m, err := rf.ReadFrom(lr)
	b.remain -= m
	if err == nil && lr.N > 0 {
		// The server closed the connection before the length its header
		// gave.
		err = b.classify(io.ErrUnexpectedEOF)
	}
	return m, err
}

// readerOnly hides every method of a reader but Read, so that io.Copy does
// not call the WriteTo it wraps again.
type readerOnly struct{ io.Reader }
