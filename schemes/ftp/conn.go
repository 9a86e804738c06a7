package ftp

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
)

// Bounds on what a server may send on the control connection: one line is
// capped by schemes.MaxLineLength (through schemes.LineLimitReader), one
// multi-line reply by these.
const (
	maxReplyLines = 1000
	maxReplyBytes = 256 << 10
)

// reply is one RFC 959 §4.2 reply: its code and its text, the lines of a
// multi-line reply joined by "\n", each line still holding its code.
type reply struct {
	code int
	text string
}

// last returns the final line of the reply, where servers put the text that
// matters ("150 ... (1024 bytes)", "227 Entering Passive Mode (...)").
func (r reply) last() string {
	if i := strings.LastIndexByte(r.text, '\n'); i >= 0 {
		return r.text[i+1:]
	}
	return r.text
}

// conn is one control connection (RFC 959 §3.1), logged in and possibly
// moved away from its login directory by earlier URLs. It is used by one
// request at a time.
type conn struct {
	key  connKey
	raw  net.Conn // the TCP connection
	nc   net.Conn // raw, or the TLS connection over it
	r    *textproto.Reader
	w    *bufio.Writer
	peer string // the control connection's peer address, for data connections

	// tlsConf is set when data connections are protected (RFC 4217 §9,
	// PROT P); it carries the control connection's session cache so that
	// data connections resume its session, as vsftpd requires.
	tlsConf *tls.Config

	trace schemes.Tracer
	req   *schemes.Request
	// metrics is the request's (-w's counts), nil when it has none.
	metrics *schemes.Metrics
	// last: no request follows req on the Fetcher (schemes.Expecter's
	// end), so the connection need not be readied for another.
	last bool

	// Directory state (RFC 1738 §3.2.2 is relative to the login directory).
	loginDir   string
	haveLogin  bool
	dirKey     string            // which CWD sequence led here; "" = login directory
	cwds       []string          // the CWD arguments of dirKey, for an archive's record (captureState)
	absDir     map[string]string // CWD sequence → absolute directory the server named in PWD
	typ        string            // current TYPE, "" until one is sent
	feat       map[string]bool   // FEAT keywords, nil until asked
	noEPSV     bool              // the server refused EPSV once: use PASV
	epsvAhead  bool              // an EPSV went out ahead of need; its reply is unread
	aheadUntil time.Time         // until when the port it names is used
	reused     bool              // the connection served an earlier request
	// single: the connection serves one request and is logged out of
	// after it (quote commands, Fetcher.Quote).
	single bool
	// wantPWD: the login directory is asked even for a last request
	// (Fetcher.EntryPath).
	wantPWD bool
	// lastCode is the code of the last reply read, curl's
	// %{response_code} for FTP.
	lastCode int

	ctx      context.Context // the current request's context
	answered bool            // the server replied during the current request

	// opening keeps the conversation of the fetch that opened the
	// connection, for the archive of each later one (nil when that
	// fetch archived nothing).
	opening *schemes.Opening

	// deferred is a login not sent yet: it goes out with the first
	// commands of the first request (send), a round trip less.
	deferred *deferredLogin

	mu   sync.Mutex
	data io.Closer // the open data connection or listener, closed when ctx ends
	// onCancel is closeData, made once per connection rather than once
	// per request.
	onCancel func()
	binding  netconn.Binding
	broken   bool
}

// unknownDir marks a connection whose working directory is not known (a CWD
// sequence failed half way): the next request returns to the login
// directory first.
const unknownDir = "\x00?"

// errStale marks a failure on a reused connection before the server
// answered anything: the server dropped it while idle, so dial again.
var errStale = errors.New("idle connection closed by the server")

// bind ties the connection to ctx for one request: when ctx ends, every
// blocked read and write of the control connection returns at once, and
// the data connection or listener is closed.
func (c *conn) bind(ctx context.Context, req *schemes.Request) {
	c.req = req
	c.ctx = ctx
	c.trace = req.Trace
	c.metrics = schemes.MetricsFrom(ctx)
	c.answered = false
	c.binding = netconn.Bind(ctx, c.raw, c.onCancel)
}

// unbind ends the request's hold; it reports whether the connection is still
// usable for the next one. A connection whose request's context ended is
// not: unbind marks it broken, to be closed.
func (c *conn) unbind() bool {
	if !c.binding.Stop() {
		c.broken = true
	}
	c.binding = netconn.Binding{}
	c.opening.End()
	c.ctx = nil
	c.req = nil
	c.last = false
	c.trace = nil
	return !c.broken
}

func (c *conn) setData(d io.Closer) {
	c.mu.Lock()
	c.data = d
	c.mu.Unlock()
}

// closeData closes the data connection, if any.
func (c *conn) closeData() {
	c.mu.Lock()
	d := c.data
	c.data = nil
	c.mu.Unlock()
	if d != nil {
		d.Close()
	}
}

// close ends the control connection; quit sends QUIT first (RFC 959 §4.1.1).
func (c *conn) close(quit bool) {
	c.closeData()
	if quit && !c.broken {
		c.raw.SetDeadline(time.Now().Add(time.Second))
		c.w.WriteString("QUIT\r\n")
		c.w.Flush()
	}
	c.broken = true
	c.raw.Close()
}

// setStream (re)builds the reader and writer over nc; every line the server
// sends is bounded before textproto sees it.
func (c *conn) setStream(nc net.Conn) {
	c.nc = nc
	c.r = textproto.NewReader(bufio.NewReaderSize(schemes.LineLimitReader(nc, schemes.MaxLineLength), 4096))
	c.w = bufio.NewWriterSize(nc, 512)
}

// checkArg refuses what cannot travel in a command: CR and LF end it, NUL
// ends it on many servers, and 0xFF is the Telnet IAC byte that RFC 959
// §4.1 control connections interpret.
func checkArg(req *schemes.Request, what, v string) error {
	if err := req.CheckArg(what, v); err != nil {
		return err
	}
	if strings.IndexByte(v, 0xFF) >= 0 {
		return req.Fail(schemes.ErrBadURL, "", 0, "", errors.New(what+" contains a 0xFF byte (Telnet IAC), which cannot be sent in a command"))
	}
	return nil
}

// send writes commands without waiting for replies; arguments were
// validated before (checkArg), and are checked again here so that no path
// can put a line end into a command.
func (c *conn) send(lines ...string) error {
	if err := c.settle(); err != nil {
		return err
	}
	if c.deferred != nil {
		return c.sendLogin(lines)
	}
	return c.write(lines...)
}

// step is one command of a pipelined write and what to make of its reply:
// check returns the error the reply means, if any.
type step struct {
	line  string
	check func(r reply) error
}

// exchange sends the steps' commands in one write, followed, when epsv is
// set, by an EPSV whose reply is left unread (as sendAhead's), and reads
// the steps' replies in order (RFC 959 §5.4: a server answers its commands
// in the order they came). Every reply is read even after a check has
// failed, so that the connection stays in step with the server: failed is
// the first check's error, err a failure of the connection itself.
//
// With the option ftp-sync, each command waits for the reply to the one
// before and no EPSV goes out ahead.
func (c *conn) exchange(steps []step, epsv bool) (failed, err error) {
	batch := !c.key.sync
	if batch {
		lines := make([]string, 0, len(steps)+1)
		for _, s := range steps {
			lines = append(lines, s.line)
		}
		if epsv {
			lines = append(lines, "EPSV")
		}
		if err := c.send(lines...); err != nil {
			return nil, err
		}
		if epsv {
			c.epsvAhead = true
			c.aheadUntil = time.Now().Add(aheadFor)
		}
	}
	for _, s := range steps {
		if !batch {
			if err := c.send(s.line); err != nil {
				return nil, err
			}
		}
		r, err := c.readReply(s.line)
		if err != nil {
			return nil, err
		}
		if e := s.check(r); e != nil && failed == nil {
			failed = e
		}
	}
	return failed, nil
}

// firstErr returns what went wrong in an exchange: the connection's
// failure, else the first refusal.
func firstErr(failed, err error) error {
	if err != nil {
		return err
	}
	return failed
}

// write is send without settling an EPSV sent ahead: for the transfer
// command that uses its port.
func (c *conn) write(lines ...string) error {
	for _, l := range lines {
		if strings.ContainsAny(l, "\r\n\x00") || strings.IndexByte(l, 0xFF) >= 0 {
			return c.req.Fail(schemes.ErrBadURL, l, 0, "", errors.New("command holds a forbidden byte"))
		}
		if strings.HasPrefix(l, "PASS ") {
			c.trace.TraceSecret("PASS ")
		} else {
			c.trace.TraceLine(schemes.Sent, l)
		}
		c.w.WriteString(l)
		c.w.WriteString("\r\n")
	}
	if err := c.w.Flush(); err != nil {
		return c.netErr(lines[0], err)
	}
	return nil
}

// sendAhead sends EPSV for the connection's next transfer as soon as the
// current one's data connection has ended with all its bytes, before the
// 226 that completes it is read (the server reads commands in order, so
// EPSV is taken up once 226 is out), and without waiting for EPSV's own
// reply: the server sets the passive port up (RFC 2428 §3) while the
// caller is still busy with the bytes it received. The next transfer
// command goes out with that reply still unread (startPipelined); any
// other command reads it first (settle). A failed write leaves the
// connection broken, and the next request dials anew.
func (c *conn) sendAhead() {
	if c.broken || c.noEPSV || c.epsvAhead || c.key.sync {
		return
	}
	if err := c.send("EPSV"); err == nil {
		c.epsvAhead = true
		c.aheadUntil = time.Now().Add(aheadFor)
	}
}

// aheadFor is how long the port of an EPSV sent ahead is used. A
// connection left idle longer asks for a new port: the longer a port waits,
// the likelier the server gave it up and another session took the number.
const aheadFor = 5 * time.Second

// settle reads the reply to an EPSV sent ahead when another command must
// go out before a transfer: the port it named is left unused, and the
// server replaces it at the next EPSV (RFC 2428 §3).
func (c *conn) settle() error {
	if !c.epsvAhead {
		return nil
	}
	_, err := c.readAhead()
	return err
}

// readAhead reads the reply to the EPSV sent ahead. That reply may have
// arrived before the current request began, so it does not show that the
// server still holds the connection: a failure after it on a reused
// connection is still a stale connection, to be replaced (errStale).
func (c *conn) readAhead() (reply, error) {
	c.epsvAhead = false
	answered := c.answered
	r, err := c.readReply("EPSV")
	c.answered = answered
	return r, err
}

// readReply reads one reply, single- or multi-line (RFC 959 §4.2), bounded
// in lines and bytes.
func (c *conn) readReply(op string) (reply, error) {
	line, err := c.r.ReadLine()
	if err != nil {
		return reply{}, c.netErr(op, err)
	}
	c.trace.TraceLine(schemes.Received, line)
	c.metrics.HeadBytes(int64(len(line)) + 2)
	first := !c.answered
	c.answered = true
	code, multi, ok := replyCode(line)
	if !ok {
		c.broken = true
		return reply{}, c.req.Fail(schemes.ErrProtocol, op, 0, trimReply(line), errors.New("malformed reply"))
	}
	if code == 421 && first && c.reused {
		// RFC 959 §4.2: 421 is what a server that timed out an idle
		// client sends (vsftpd's "421 Timeout.") before it closes.
		c.broken = true
		return reply{}, fmt.Errorf("%w: %w", errStale, c.replyErr(op, reply{code: code, text: line}))
	}
	if !multi {
		c.lastCode = code
		return reply{code: code, text: line}, nil
	}
	var b strings.Builder
	b.WriteString(line)
	end := line[:3] + " "
	for n := 1; ; n++ {
		line, err = c.r.ReadLine()
		if err != nil {
			return reply{}, c.netErr(op, err)
		}
		c.trace.TraceLine(schemes.Received, line)
		c.metrics.HeadBytes(int64(len(line)) + 2)
		if n >= maxReplyLines || b.Len()+len(line) > maxReplyBytes {
			c.broken = true
			return reply{}, c.req.Fail(schemes.ErrProtocol, op, code, "", errors.New("multi-line reply too long"))
		}
		b.WriteByte('\n')
		b.WriteString(line)
		if strings.HasPrefix(line, end) || line == end[:3] {
			c.lastCode = code
			return reply{code: code, text: b.String()}, nil
		}
	}
}

// trimReply keeps a bad reply short enough to show in an error.
func trimReply(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// replyCode parses "xyz text" or "xyz-text".
func replyCode(line string) (code int, multi, ok bool) {
	if len(line) < 3 {
		return 0, false, false
	}
	for i := 0; i < 3; i++ {
		if line[i] < '0' || line[i] > '9' {
			return 0, false, false
		}
	}
	if line[0] < '1' || line[0] > '5' {
		return 0, false, false
	}
	code = int(line[0]-'0')*100 + int(line[1]-'0')*10 + int(line[2]-'0')
	if len(line) == 3 {
		return code, false, true
	}
	switch line[3] {
	case ' ':
		return code, false, true
	case '-':
		return code, true, true
	}
	return 0, false, false
}

// cmd sends one command and reads its final reply, skipping preliminary
// 1yz replies only where the caller expects none.
func (c *conn) cmd(line string) (reply, error) {
	if err := c.send(line); err != nil {
		return reply{}, err
	}
	return c.readReply(line)
}

// netErr classifies a control connection failure, preferring the request's
// own context error when that is why the connection closed.
func (c *conn) netErr(op string, err error) error {
	c.broken = true
	err = c.cause(err)
	if errors.Is(err, schemes.ErrLineTooLong) {
		return c.req.Fail(schemes.ErrProtocol, op, 0, "", err)
	}
	if c.reused && !c.answered {
		return fmt.Errorf("%w: %w", errStale, c.req.NetError(op, err))
	}
	return c.req.NetError(stripPass(op), err)
}

func stripPass(op string) string {
	if strings.HasPrefix(op, "PASS ") {
		return "PASS ****"
	}
	return op
}

// replyErr turns an unwanted reply into the error taxonomy (RFC 959 §4.2.1:
// 4yz transient, 5yz permanent).
func (c *conn) replyErr(op string, r reply) *schemes.Error {
	kind := schemes.ErrNotRetrievable
	temp := false
	switch {
	case r.code == 530 || r.code == 532 || r.code == 331 || r.code == 332:
		kind = schemes.ErrLoginFailed
	case r.code == 550 || r.code == 450:
		kind = schemes.ErrNotFound
	case r.code == 421:
		kind, temp = schemes.ErrConnect, true
	case r.code == 425:
		kind, temp = schemes.ErrConnect, true
	case r.code == 426 || r.code == 451:
		kind, temp = schemes.ErrTruncated, true
	case r.code >= 400 && r.code < 500:
		temp = true
	case r.code < 400:
		kind = schemes.ErrProtocol
	}
	if r.code == 421 {
		c.broken = true
	}
	e := c.req.Fail(kind, stripPass(op), r.code, r.last(), nil)
	e.Temporary = temp
	return e
}

// cause returns why an operation of the current request failed with err:
// the request's context error once it ended (netconn.Cause), else err.
func (c *conn) cause(err error) error {
	if c.ctx == nil {
		return err
	}
	return netconn.Cause(c.ctx, err)
}
