package news

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
)

// maxCapabilities bounds the lines of a CAPABILITIES answer.
const maxCapabilities = 512

// overMode is how a session reads a group's overview.
type overMode int

const (
	overUnknown overMode = iota
	overOVER             // RFC 3977 §8.3
	overXOVER            // RFC 2980 §2.8, the command OVER grew from
	overHEAD             // neither: HEAD per article (RFC 3977 §6.2.2)
)

// session is one NNTP connection: its textproto conversation, what the
// server said about itself, and the fetch currently using it.
type session struct {
	key  poolKey
	pool *Fetcher
	nc   net.Conn
	raw  syscall.RawConn // the TCP socket under nc, nil when the dialer's conn has none
	line *lineBound
	tp   *textproto.Conn

	ready    bool
	greeting string
	caps     map[string][]string // nil when the server has no CAPABILITIES
	over     overMode
	authed   bool

	// The fetch using the session now.
	ctx     context.Context
	req     *schemes.Request
	bind    netconn.Binding
	replies int  // status lines read during this fetch
	broken  bool // the connection can no longer be trusted
	closing bool // the server answered 400: it is closing the connection

	// pending holds the commands sent ahead of their fetch (pipelined,
	// RFC 3977 §3.5) whose replies are still unread, oldest first.
	pending []string

	// opening keeps the conversation of the fetch that opened the
	// session, for the archive of each later one (nil when that fetch
	// archived nothing).
	opening *schemes.Opening
}

// dial opens a connection to the target's server, over TLS for nntps and
// snews (RFC 8143: TLS from the first byte on port 563).
func dial(ctx context.Context, req *schemes.Request, key poolKey, t target) (*session, error) {
	var cfg *tls.Config
	if t.tls {
		cfg = req.TLSClientConfig(t.host)
	}
	tcp, nc, err := netconn.Dial(ctx, req, t.addr, cfg)
	if err != nil {
		return nil, err
	}
	var raw syscall.RawConn
	if sc, ok := tcp.(syscall.Conn); ok {
		raw, _ = sc.SyscallConn()
	}
	line := newLineBound(nc)
	tp := &textproto.Conn{
		// A large article's body is read through this buffer: 64 KiB
		// takes it in a sixteenth of the reads bufio's default would.
		Reader: *textproto.NewReader(bufio.NewReaderSize(line, 64<<10)),
		Writer: *textproto.NewWriter(bufio.NewWriter(nc)),
		// textproto's Pipeline is unused: the session keeps the order of
		// commands sent ahead and their replies itself (pending).
	}
	return &session{key: key, nc: nc, raw: raw, line: line, tp: tp, opening: schemes.NewOpening(req)}, nil
}

// begin binds the session to one fetch: cancelling ctx, or its deadline
// passing, interrupts whatever the session is reading or writing.
func (s *session) begin(ctx context.Context, req *schemes.Request) {
	s.ctx, s.req = ctx, req
	if s.opening.Keeping() {
		// The fetch that opened the session: its lines are the
		// opening later fetches' archives are told of.
		r := *req
		r.Trace = s.opening.Tee(req.Trace)
		s.req = &r
	}
	s.replies = 0
	s.bind = netconn.Bind(ctx, s.nc, nil)
}

// end unbinds the session from its fetch and reports whether it is fit to
// serve another.
func (s *session) end() bool {
	if !s.bind.Stop() {
		s.broken = true
	}
	s.bind = netconn.Binding{}
	s.opening.End()
	s.ctx, s.req = nil, nil
	return !s.broken
}

// release ends the fetch, giving the session back to its pool (or closing it).
func (s *session) release() {
	if s.pool != nil {
		s.pool.put(s)
		return
	}
	s.end()
	s.close()
}

func (s *session) close() {
	_ = s.nc.Close()
}

// quit ends the session politely (RFC 3977 §5.4) and closes it.
func (s *session) quit() error {
	_ = s.nc.SetDeadline(time.Now().Add(2 * time.Second))
	err := s.tp.PrintfLine("QUIT")
	// The 205 comes after the replies to any commands sent ahead; it is
	// waited for only when it is next.
	if err == nil && len(s.pending) == 0 {
		_, _, _ = s.tp.ReadCodeLine(0)
	}
	cerr := s.nc.Close()
	if err != nil {
		return err
	}
	return cerr
}

// ioErr classifies a failure to read or write the connection and marks the
// session broken. A cancelled fetch reports the context's error.
func (s *session) ioErr(op string, err error) error {
	s.broken = true
	var e *schemes.Error
	if errors.As(err, &e) {
		return err
	}
	if s.ctx != nil {
		err = netconn.Cause(s.ctx, err)
	}
	var pe textproto.ProtocolError
	if errors.As(err, &pe) {
		return s.req.Fail(schemes.ErrProtocol, op, 0, "", err)
	}
	return s.req.NetError(op, err)
}

// send writes one command line (RFC 3977 §3.1). The caller has checked
// every argument for CR, LF and NUL.
func (s *session) send(op, line string) error {
	if err := s.write(op, line); err != nil {
		return err
	}
	if err := s.tp.W.Flush(); err != nil {
		return s.ioErr(op, err)
	}
	return nil
}

// write puts one command line in the write buffer without sending it.
func (s *session) write(op, line string) error {
	// RFC 3977 §3.1: a command line is at most 512 octets with its CRLF.
	if len(line) > 510 {
		return s.req.Fail(schemes.ErrBadURL, op, 0, "", errors.New("command longer than 512 octets"))
	}
	s.req.Trace.TraceLine(schemes.Sent, line)
	if _, err := s.tp.W.WriteString(line + "\r\n"); err != nil {
		return s.ioErr(op, err)
	}
	return nil
}

// status reads one status line (RFC 3977 §3.2): a three-digit code and text.
func (s *session) status(op string) (int, string, error) {
	ackNow(s.raw)
	code, msg, err := s.tp.ReadCodeLine(0)
	if err != nil {
		return 0, "", s.ioErr(op, err)
	}
	s.replies++
	s.req.Trace.TraceLine(schemes.Received, strconv.Itoa(code)+" "+msg)
	return code, msg, nil
}

// exchange sends a command and reads its status line, after the replies to
// any commands sent ahead.
func (s *session) exchange(op, line string) (int, string, error) {
	if err := s.drain(op); err != nil {
		return 0, "", err
	}
	if err := s.send(op, line); err != nil {
		return 0, "", err
	}
	return s.status(op)
}

// cmd sends a command and reads its status line; when the server answers
// 480 it authenticates (RFC 4643 §2.3) and sends the command again.
func (s *session) cmd(op, line string) (int, string, error) {
	code, msg, err := s.exchange(op, line)
	if err != nil || code != 480 {
		return code, msg, err
	}
	if err := s.authenticate(op, code, msg); err != nil {
		return 0, "", err
	}
	return s.exchange(op, line)
}

// maxPipelined bounds the commands in flight on a session. At ~45 bytes a
// command, they always fit the server's socket buffer, so writing them
// never waits on a server that is itself waiting for its replies to be read
// (the deadlock RFC 3977 §3.5 warns of).
const maxPipelined = 32

// pipelined sends op, unless it went ahead already, followed by the
// commands of the next fetches that are not on their way yet, and reads
// op's status line. ahead(skip, n) gives the commands of the next fetches
// after the first skip, at most n of them; it is a hint, and a later fetch
// whose command is not the oldest pending one first reads and drops the
// replies sent ahead (drain).
//
// Only commands that neither depend on nor change the session's state may
// be sent ahead: ARTICLE and HEAD by message-id (RFC 3977 §6.2.1.2: the
// selected group and article are unchanged).
func (s *session) pipelined(op string, ahead func(skip, n int) []string) (int, string, error) {
	if len(s.pending) > 0 && s.pending[0] != op {
		if err := s.drain(op); err != nil {
			return 0, "", err
		}
	}
	if len(s.pending) == 0 {
		if err := s.write(op, op); err != nil {
			return 0, "", err
		}
		s.pending = append(s.pending, op)
	} else {
		// op went out in an earlier fetch's turn, whose trace shows it:
		// this fetch's trace (and the metadata record an archive makes
		// of it, WARC 1.1 §6.6) names the command its reply answers.
		s.req.Trace.TraceLine(schemes.Info, op+" was sent ahead, pipelined (RFC 3977 §3.5)")
	}
	// The commands behind op were sent for the fetches that follow it,
	// in order: what goes now comes after them.
	if room := maxPipelined - len(s.pending); room > 0 && ahead != nil {
		for _, a := range ahead(len(s.pending)-1, room) {
			if err := s.write(op, a); err != nil {
				return 0, "", err
			}
			s.pending = append(s.pending, a)
		}
	}
	if err := s.tp.W.Flush(); err != nil {
		return 0, "", s.ioErr(op, err)
	}
	s.pending = s.pending[1:]
	code, msg, err := s.status(op)
	if err != nil || code != 480 {
		return code, msg, err
	}
	// Authentication wanted: the commands behind op had the same answer
	// or will be refused. AUTHINFO, which must not be pipelined (RFC 4643
	// §2.3), goes through exchange, which reads their replies first; then
	// op is asked again.
	if err := s.authenticate(op, code, msg); err != nil {
		return 0, "", err
	}
	return s.exchange(op, op)
}

// drain reads and drops the replies to the commands sent ahead, data
// blocks included.
func (s *session) drain(op string) error {
	if len(s.pending) == 0 {
		return nil
	}
	// Those replies are not the fetch's own: a server that closes the
	// connection after them leaves a stale session, as Fetch counts it.
	defer func() { s.replies = 0 }()
	for len(s.pending) > 0 {
		ahead := s.pending[0]
		s.pending = s.pending[1:]
		code, msg, err := s.status(op)
		if err != nil {
			return err
		}
		switch {
		case code == 400:
			return s.replyErr(op, code, msg)
		case code/10 == 22:
			// 220, 221, 222: a multi-line data block follows.
			s.line.bound(false)
			_, err := io.Copy(io.Discard, newDotReader(s.tp.R))
			s.line.bound(true)
			if err != nil {
				return s.ioErr(ahead, err)
			}
		}
	}
	return nil
}

// setup reads the greeting and learns what the server offers, switching it
// to reader mode where RFC 3977 §5.3 asks for it.
func (s *session) setup() error {
	code, msg, err := s.status("greeting")
	if err != nil {
		return err
	}
	s.greeting = strconv.Itoa(code) + " " + msg
	switch code {
	case 200, 201: // RFC 3977 §5.1.1: posting allowed or not; reading is.
	case 400, 502:
		return s.replyErr("greeting", code, msg)
	default:
		s.broken = true
		return s.req.Fail(schemes.ErrProtocol, "greeting", code, msg, nil)
	}
	if err := s.capabilities(); err != nil {
		return err
	}
	// RFC 3977 §5.3: MODE READER when the server advertises MODE-READER,
	// and, harmlessly, when it predates CAPABILITIES and may be a mode-
	// switching server; a READER server needs none.
	if s.caps == nil || s.has("MODE-READER") {
		code, msg, err := s.cmd("MODE READER", "MODE READER")
		if err != nil {
			return err
		}
		switch code {
		case 200, 201:
			// RFC 3977 §5.3.2: capabilities change with the mode.
			if s.caps != nil {
				if err := s.capabilities(); err != nil {
					return err
				}
			}
		case 500, 501:
			// An old server that does not know the command is a reader.
		default:
			return s.replyErr("MODE READER", code, msg)
		}
	}
	// Credentials given in full are used at once where the server offers
	// AUTHINFO USER (RFC 4643 §2.1: the capability's USER argument), rather
	// than after a command is refused with 480: a session then never
	// spends a round trip on the refusal, nor sees a pipeline of commands
	// all refused. A password still to be asked for waits for the 480, so
	// that nobody is prompted for a server that lets anyone read.
	if _, hasPW := s.req.User.Password(); hasPW && !s.authed && hasArg(s.caps["AUTHINFO"], "USER") {
		if err := s.authenticate("AUTHINFO", 0, ""); err != nil {
			return err
		}
	}
	s.ready = true
	return nil
}

// hasArg reports whether a capability's arguments include arg.
func hasArg(args []string, arg string) bool {
	for _, a := range args {
		if strings.EqualFold(a, arg) {
			return true
		}
	}
	return false
}

// capabilities asks for the capability list (RFC 3977 §5.2). A server that
// does not know the command (500) leaves caps nil: anything may work.
func (s *session) capabilities() error {
	code, msg, err := s.cmd("CAPABILITIES", "CAPABILITIES")
	if err != nil {
		return err
	}
	if code != 101 {
		if code == 500 || code == 501 {
			s.caps = nil
			return nil
		}
		return s.replyErr("CAPABILITIES", code, msg)
	}
	caps := make(map[string][]string)
	r := textproto.NewReader(bufio.NewReader(newDotReader(s.tp.R)))
	for n := 0; ; n++ {
		line, err := r.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s.ioErr("CAPABILITIES", err)
		}
		if n >= maxCapabilities {
			s.broken = true
			return s.req.Fail(schemes.ErrProtocol, "CAPABILITIES", code, msg, errors.New("more than "+strconv.Itoa(maxCapabilities)+" capability lines"))
		}
		s.req.Trace.TraceLine(schemes.Received, line)
		label, args := parseCapability(line)
		if label != "" {
			caps[label] = args
		}
	}
	s.caps = caps
	s.over = overUnknown
	return nil
}

// has reports whether the server advertised a capability label.
func (s *session) has(label string) bool {
	_, ok := s.caps[label]
	return ok
}

// authenticate logs in with AUTHINFO USER and PASS (RFC 4643 §2.3) after
// the server answered 480 to op.
func (s *session) authenticate(op string, code int, msg string) error {
	req := s.req
	if s.authed {
		return s.replyErr(op, code, msg)
	}
	if req.User == nil {
		return req.Fail(schemes.ErrLoginFailed, op, code, msg, fmt.Errorf("%w (a user name)", schemes.ErrNoCredentials))
	}
	user := req.User.Username()
	if err := req.CheckArg("user name", user); err != nil {
		return err
	}
	c, m, err := s.exchange("AUTHINFO USER", "AUTHINFO USER "+user)
	if err != nil {
		return err
	}
	if c == 381 {
		// RFC 4643 §2.3.1: 381 asks for the password.
		pass, err := s.password()
		if err != nil {
			return err
		}
		if err := s.sendSecret("AUTHINFO PASS", "AUTHINFO PASS ", pass); err != nil {
			return err
		}
		if c, m, err = s.status("AUTHINFO PASS"); err != nil {
			return err
		}
	}
	if c != 281 {
		return s.replyErr("AUTHINFO", c, m)
	}
	s.authed = true
	// RFC 4643 §2.2: capabilities change once authenticated.
	if s.caps != nil {
		return s.capabilities()
	}
	return nil
}

// password is the password to send: the one resolved for the request, or
// one asked of the person at the terminal.
func (s *session) password() (string, error) {
	req := s.req
	pass, hasPW := req.User.Password()
	if !hasPW {
		if req.Prompt == nil {
			return "", req.Fail(schemes.ErrLoginFailed, "AUTHINFO PASS", 381, "", errors.New("the server asks for a password and none was given"))
		}
		p, err := req.Prompt(fmt.Sprintf("NNTP password for %s@%s: ", req.User.Username(), s.key.addr))
		if err != nil {
			return "", req.Fail(schemes.ErrLoginFailed, "AUTHINFO PASS", 381, "", err)
		}
		pass = p
	}
	if err := req.CheckArg("password", pass); err != nil {
		return "", err
	}
	return pass, nil
}

// sendSecret sends a command whose argument is a secret, tracing a mask.
func (s *session) sendSecret(op, command, secret string) error {
	if len(command)+len(secret) > 510 {
		return s.req.Fail(schemes.ErrLoginFailed, op, 0, "", errors.New("password longer than a command allows"))
	}
	s.req.Trace.TraceSecret(command)
	if err := s.tp.PrintfLine("%s%s", command, secret); err != nil {
		return s.ioErr(op, err)
	}
	return nil
}

// replyErr maps a status code the command did not expect into the error
// taxonomy (RFC 3977 §3.2.1, RFC 4643 §2.3).
func (s *session) replyErr(op string, code int, msg string) error {
	kind, temp := replyKind(code)
	if kind == schemes.ErrProtocol {
		s.broken = true
	}
	if code == 400 {
		// RFC 3977 §3.2.1: after 400 the server closes the connection.
		s.broken, s.closing = true, true
	}
	e := s.req.Fail(kind, op, code, msg, nil)
	e.Temporary = temp
	return e
}

// replyKind is the taxonomy kind of an NNTP status code, and whether a
// retry may succeed.
func replyKind(code int) (error, bool) {
	switch code {
	case 411, 412, 420, 421, 422, 423, 430:
		// No such group, no group selected, no such article (by
		// number, by message-id): RFC 3977 §6.1.1, §6.2.1.
		return schemes.ErrNotFound, false
	case 480, 481, 482:
		// Authentication required, rejected, out of sequence (RFC 4643).
		return schemes.ErrLoginFailed, false
	case 483, 502:
		// Privacy required; permission denied (RFC 3977 §3.2.1).
		return schemes.ErrAccessDenied, false
	case 400, 403:
		// Service temporarily unavailable; internal fault.
		return schemes.ErrNotRetrievable, true
	case 500, 503:
		// Unknown command; feature not supported.
		return schemes.ErrNotRetrievable, false
	case 501:
		// Syntax error in an argument taken from the URL.
		return schemes.ErrBadURL, false
	}
	return schemes.ErrProtocol, false
}

// lineBound bounds the length of the lines the session reads (status lines,
// overview and LIST lines, headers) while letting an article's body, whose
// lines RFC 3977 does not bound, stream through.
type lineBound struct {
	conn    io.Reader
	limited io.Reader // nil while unbounded
}

func newLineBound(conn io.Reader) *lineBound {
	return &lineBound{conn: conn, limited: schemes.LineLimitReader(conn, schemes.MaxLineLength)}
}

func (b *lineBound) Read(p []byte) (int, error) {
	if b.limited == nil {
		return b.conn.Read(p)
	}
	return b.limited.Read(p)
}

// bound switches the limit on or off; switching on starts counting afresh
// at a line boundary (no bytes follow a data block's final line before the
// next command, RFC 3977 §3.1.1).
func (b *lineBound) bound(on bool) {
	switch {
	case on && b.limited == nil:
		b.limited = schemes.LineLimitReader(b.conn, schemes.MaxLineLength)
	case !on:
		b.limited = nil
	}
}
