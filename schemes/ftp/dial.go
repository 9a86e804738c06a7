package ftp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
)

// tlsMode says how a control connection is protected.
type tlsMode byte

const (
	tlsNone     tlsMode = iota
	tlsImplicit         // ftps://: TLS from the first byte
	tlsExplicit         // AUTH TLS after the greeting (RFC 4217 §4)
)

// login holds who to log in as (RFC 1738 §3.2.1).
type login struct {
	user, pass string
	havePass   bool
	// public is set for the anonymous login a URL without a user gets
	// (RFC 1738 §3.2.1): its password is no secret.
	public bool
}

// dial opens a control connection for req and logs in, or leaves the login
// to go out with the first request's commands (deferredLogin).
func dial(ctx context.Context, req *schemes.Request, key connKey, lg login) (*conn, error) {
	var cfg *tls.Config
	if key.tls != tlsNone {
		cfg = req.TLSClientConfig(key.host)
		// One session cache per control connection: data connections
		// resume the control connection's session (vsftpd's
		// require_ssl_reuse).
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	}
	var implicit *tls.Config
	if key.tls == tlsImplicit {
		implicit = cfg
	}
	raw, nc, err := netconn.Dial(ctx, req, net.JoinHostPort(key.host, key.port), implicit)
	if err != nil {
		return nil, err
	}
	c := &conn{key: key, raw: raw, absDir: map[string]string{}, noEPSV: key.noEPSV}
	c.onCancel = c.closeData
	c.peer = key.host
	if a, ok := raw.RemoteAddr().(*net.TCPAddr); ok && req.Proxy == "" {
		// RFC 2577 §3 (FTP bounce): data connections go to the host the
		// control connection reached, never to an address a reply names.
		// Through a proxy, the connection's peer is the proxy: they go
		// to the URL's host, through the proxy, as the control one did.
		c.peer = a.IP.String()
	}
	c.bind(ctx, req)
	c.opening = schemes.NewOpening(req)
	c.trace = c.opening.Tee(c.trace)
	ok := false
	defer func() {
		if !ok {
			c.unbind()
			c.close(false)
		}
	}()
	c.setStream(nc)
	// RFC 959 §5.4: 120 precedes 220 when the server is not ready yet.
	for {
		r, err := c.readReply("greeting")
		if err != nil {
			return nil, err
		}
		if r.code == 120 {
			continue
		}
		if r.code != 220 {
			return nil, c.replyErr("greeting", r)
		}
		break
	}
	if key.tls == tlsExplicit {
		r, err := c.cmd("AUTH TLS")
		if err != nil {
			return nil, err
		}
		switch {
		case r.code == 234:
			if err := c.startTLS(ctx, cfg); err != nil {
				return nil, err
			}
		case key.tryTLS && r.code != 421:
			// curl's --ssl: go on in the clear, data connections too.
			cfg = nil
		default:
			e := c.replyErr("AUTH TLS", r)
			e.Kind = schemes.ErrConnect
			e.Temporary = false
			if r.code != 421 {
				// Refused, not a server going away.
				e.Err = ErrTLSRefused
			}
			return nil, e
		}
	}
	// cfg is set when the control connection is in TLS now; data
	// connections are protected as well unless key.clearData (PROT C).
	d := &deferredLogin{lg: lg, tls: cfg != nil, clearData: key.clearData, tlsConf: cfg}
	if key.account != "" || key.altUser != "" || key.ccc != NoCCC && cfg != nil {
		// A login that may need ACCT or another command in USER's
		// place goes one command at a time, as one that CCC follows.
		if err := c.loginStepwise(d); err != nil {
			return nil, err
		}
		if key.ccc != NoCCC && cfg != nil {
			if err := c.clearControl(key.ccc); err != nil {
				return nil, err
			}
		}
		ok = true
		return c, nil
	}
	if key.sync || !(lg.havePass && (lg.public || cfg != nil)) {
		// USER first, and PASS only if the server asks for it.
		var err error
		if d, err = c.login(d); err != nil {
			return nil, err
		}
	}
	switch {
	case key.sync:
		if err := c.finishLogin(d); err != nil {
			return nil, err
		}
	case len(d.lines()) > 0:
		// What is left of the login goes out with the request's first
		// commands.
		c.deferred = d
	}
	ok = true
	return c, nil
}

// clearControl sends CCC and ends TLS on the control connection (RFC
// 4217 §12.3), which goes on in the clear over the same TCP connection:
// in CCCActive mode it sends its close_notify first, in either mode it
// reads up to the server's. Nothing may come inside TLS after CCC's
// reply but that close_notify; the server reads the next command only
// once it is out, so nothing is read ahead of it. A refusal (5yz) keeps
// TLS, as curl does.
func (c *conn) clearControl(mode CCCMode) error {
	tc, isTLS := c.nc.(*tls.Conn)
	if !isTLS {
		return nil
	}
	r, err := c.cmd("CCC")
	if err != nil {
		return err
	}
	switch {
	case r.code/100 == 5:
		c.trace.TraceLine(schemes.Info, "CCC refused: the control connection stays in TLS")
		return nil
	case r.code/100 != 2:
		return c.replyErr("CCC", r)
	case c.r.R.Buffered() > 0:
		c.broken = true
		return c.req.Fail(schemes.ErrProtocol, "CCC", r.code, r.last(), errors.New("the server sent more after its reply to CCC"))
	}
	if mode == CCCActive {
		err := tc.CloseWrite()
		// CloseWrite leaves a past write deadline on the TCP
		// connection: the request's own bound holds again.
		if c.ctx.Err() == nil {
			d, _ := c.ctx.Deadline()
			c.raw.SetWriteDeadline(d)
		}
		if err != nil {
			return c.netErr("CCC", err)
		}
	}
	var buf [512]byte
	for {
		n, err := tc.Read(buf[:])
		if n > 0 {
			c.broken = true
			return c.req.Fail(schemes.ErrProtocol, "CCC", 0, "", errors.New("the server sent data after CCC instead of ending TLS"))
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return c.netErr("CCC", err)
		}
	}
	c.setStream(c.raw)
	c.trace.TraceLine(schemes.Info, "TLS ended on the control connection (CCC); it goes on in the clear")
	return nil
}

// startTLS wraps the control connection in TLS once the server agreed to
// AUTH TLS (RFC 4217 §4), and completes the handshake.
func (c *conn) startTLS(ctx context.Context, cfg *tls.Config) error {
	tc, err := netconn.StartTLS(ctx, c.req, c.raw, cfg)
	if err != nil {
		c.broken = true
		return err
	}
	c.setStream(tc)
	return nil
}

// login sends USER (RFC 959 §4.1.1) and returns what is left to send: the
// PASS the server asked for with 331, prompting for a password the request
// lacks, or nothing but the data protection commands if the server let
// the user in at USER.
func (c *conn) login(d *deferredLogin) (*deferredLogin, error) {
	lg := d.lg
	r, err := c.cmd("USER " + lg.user)
	if err != nil {
		return nil, err
	}
	switch r.code {
	case 230:
		d.loggedIn = true
		return d, nil
	case 331:
	default:
		// 332 too: an account the URL cannot carry.
		return nil, c.loginErr("USER "+lg.user, r)
	}
	if err := c.askPassword(d, r); err != nil {
		return nil, err
	}
	d.userSent = true
	return d, nil
}

// askPassword prompts for the password of d's login when it has none,
// after the server's 331 reply r asked for one.
func (c *conn) askPassword(d *deferredLogin, r reply) error {
	if d.lg.havePass {
		return nil
	}
	if c.req.Prompt == nil {
		return c.req.Fail(schemes.ErrLoginFailed, "PASS", 331, r.last(),
			fmt.Errorf("%w (a password, and there is no terminal to ask for it on)", schemes.ErrNoCredentials))
	}
	p, err := c.req.Prompt("Enter FTP password for user '" + d.lg.user + "' on " + c.key.host + ": ")
	if err != nil {
		return c.req.Fail(schemes.ErrLoginFailed, "PASS", 0, "", err)
	}
	if err := checkArg(c.req, "password", p); err != nil {
		return err
	}
	d.lg.pass, d.lg.havePass = p, true
	return nil
}

// loginStepwise logs in one command at a time, as curl does: USER, PASS
// when the server answers 331, ACCT with Fetcher.Account when it answers
// 332 (RFC 959 §4.1.1), and, once, Fetcher.AlternativeToUser in USER's
// place when USER or PASS is refused, its reply taken as USER's. The data
// protection commands follow.
func (c *conn) loginStepwise(d *deferredLogin) error {
	cmd, op := "USER "+d.lg.user, "USER "+d.lg.user
	triedAlt, sentAcct := false, false
	for {
		if err := c.write(cmd); err != nil {
			return err
		}
		r, err := c.readReply(op)
		if err != nil {
			return err
		}
		switch {
		case r.code/100 == 2:
			d.loggedIn = true
			return c.finishLogin(d)
		case sentAcct:
			// curl: "ACCT rejected by server", its exit 11.
			e := c.loginErr(op, r)
			e.Err = ErrAccountRefused
			return e
		case r.code == 331 && !strings.HasPrefix(cmd, "PASS "):
			if err := c.askPassword(d, r); err != nil {
				return err
			}
			cmd, op = "PASS "+d.lg.pass, "PASS"
		case r.code == 332 && c.key.account != "":
			cmd, op, sentAcct = "ACCT "+c.key.account, "ACCT", true
		case r.code == 332:
			// An account the request cannot give: no alternative helps.
			return c.loginErr(op, r)
		case c.key.altUser != "" && !triedAlt && r.code != 421:
			cmd, op, triedAlt = c.key.altUser, c.key.altUser, true
		default:
			return c.loginErr(op, r)
		}
	}
}

// dataProtection is what RFC 4217 §9 sends after the login inside TLS:
// PROT P protects data connections as well, PROT C (curl's
// --ftp-ssl-control) leaves them in the clear.
var (
	dataProtection = []string{"PBSZ 0", "PROT P"}
	clearData      = []string{"PBSZ 0", "PROT C"}
)

// deferredLogin is what is left of a login, sent in one write with the
// first commands of the connection's first request: a round trip less
// than waiting for PASS's 230 (and, for PBSZ and PROT, their replies)
// before the request's first command. RFC 959 §5.4 has the server answer
// commands in order; it reads the commands after PASS once the login is
// done. Should the login fail, they are refused (530) and the connection
// is dropped.
//
// For the anonymous login, or any login inside TLS, USER goes out in the
// same write, and PASS with it unasked: another round trip less than
// waiting for USER's 331 (a server reads PASS, when it reads it, in the
// same pre-login state as USER). Only there does a password sent unasked
// give nothing away; elsewhere a server that refuses USER (vsftpd's "530
// Non-anonymous sessions must use encryption") would get a password in
// clear that a client waiting for 331 never sends.
type deferredLogin struct {
	lg       login
	userSent bool // USER went out and was answered 331: PASS is left
	loggedIn bool // USER was answered 230: no PASS
	// tls: the control connection is in TLS, and the data protection
	// commands follow the login: PROT P, or PROT C with clearData.
	tls, clearData bool
	// tlsConf protects data connections after PROT P.
	tlsConf *tls.Config
	// user is the reply to a USER sent with PASS, judged with PASS's.
	user reply
}

// lines returns the commands left.
func (d *deferredLogin) lines() []string {
	var l []string
	switch {
	case d.loggedIn:
	case d.userSent:
		l = append(l, "PASS "+d.lg.pass)
	default:
		l = append(l, "USER "+d.lg.user, "PASS "+d.lg.pass)
	}
	switch {
	case d.tls && d.clearData:
		l = append(l, clearData...)
	case d.tls:
		l = append(l, dataProtection...)
	}
	return l
}

// sendLogin sends the deferred login and lines in one write, and reads the
// login's replies; the caller reads those of lines.
func (c *conn) sendLogin(lines []string) error {
	d := c.deferred
	c.deferred = nil
	if err := c.write(append(d.lines(), lines...)...); err != nil {
		return err
	}
	if err := c.loginReplies(d); err != nil {
		c.broken = true
		return err
	}
	return nil
}

// finishLogin sends what is left of a login one command at a time (the
// option ftp-sync).
func (c *conn) finishLogin(d *deferredLogin) error {
	for _, l := range d.lines() {
		if err := c.write(l); err != nil {
			return err
		}
		if err := c.loginReply(d, l); err != nil {
			return err
		}
	}
	return nil
}

// loginReplies reads the replies to a deferred login's commands.
func (c *conn) loginReplies(d *deferredLogin) error {
	for _, l := range d.lines() {
		if err := c.loginReply(d, l); err != nil {
			return err
		}
	}
	return nil
}

// loginReply reads the reply to one command l of a login and says what
// it means. A USER sent with PASS is judged with PASS's reply, so that
// both are read: a refused USER (or 332, an account the URL cannot carry)
// is the error, whatever became of PASS; a USER answered 230 needs no
// PASS, whose reply (202, 230 or 503) then says nothing more.
func (c *conn) loginReply(d *deferredLogin, l string) error {
	verb, _, _ := strings.Cut(l, " ")
	op := verb
	if verb != "PASS" {
		op = l
	}
	r, err := c.readReply(op)
	if err != nil {
		return err
	}
	switch verb {
	case "USER":
		d.user = r
	case "PASS":
		if !d.userSent {
			switch d.user.code {
			case 230:
				return nil
			case 331:
			default:
				return c.loginErr("USER "+d.lg.user, d.user)
			}
		}
		if r.code != 230 && r.code != 202 {
			return c.loginErr("PASS", r)
		}
	default:
		if r.code/100 != 2 {
			return c.replyErr(l, r)
		}
		if l == "PROT P" {
			c.tlsConf = d.tlsConf
		}
	}
	return nil
}

// loginErr maps a refused login: RFC 959 §4.2 530 and 332 (an account the
// URL cannot carry) are login failures, 421 stays temporary.
func (c *conn) loginErr(op string, r reply) *schemes.Error {
	e := c.replyErr(op, r)
	if r.code/100 == 5 || r.code == 332 || r.code == 331 {
		e.Kind = schemes.ErrLoginFailed
	}
	return e
}

// pending is a data connection being set up (RFC 959 §3.2): dialed already
// in passive mode, or a listener waiting for the server in active mode.
type pending struct {
	conn net.Conn
	ln   net.Listener
}

// openData prepares a data connection before the transfer command.
func (c *conn) openData(ctx context.Context) (*pending, error) {
	if addr := c.key.active; addr != "" {
		return c.active(addr)
	}
	port, err := c.passive()
	if err != nil {
		return nil, err
	}
	return c.dialData(ctx, port)
}

// dialData connects to a passive data port on the control connection's
// peer.
func (c *conn) dialData(ctx context.Context, port int) (*pending, error) {
	d, err := c.req.Dialer.DialContext(ctx, "tcp", net.JoinHostPort(c.peer, strconv.Itoa(port)))
	if err != nil {
		return nil, c.netErrData("data connection", err)
	}
	if c.tlsConf != nil {
		// The handshake starts at the first read, after the server's 150:
		// servers begin their side only then.
		d = tls.Client(d, c.tlsConf)
	}
	c.setData(d)
	return &pending{conn: d}, nil
}

// passive asks for a port with EPSV (RFC 2428 §3), falling back to PASV
// (RFC 959 §4.1.2) once a server refuses EPSV. The address a PASV reply
// names is ignored: the data connection goes to the control connection's
// peer (RFC 2577 §3).
func (c *conn) passive() (int, error) {
	if !c.noEPSV {
		r, err := c.cmd("EPSV")
		if err != nil {
			return 0, err
		}
		if r.code == 229 {
			port, ok := parseEPSV(r.last())
			if !ok {
				c.broken = true
				return 0, c.req.Fail(schemes.ErrProtocol, "EPSV", r.code, r.last(), errors.New("malformed EPSV reply"))
			}
			return port, nil
		}
		if r.code == 421 || r.code == 530 {
			return 0, c.replyErr("EPSV", r)
		}
		c.noEPSV = true
	}
	r, err := c.cmd("PASV")
	if err != nil {
		return 0, err
	}
	if r.code != 227 {
		return 0, c.replyErr("PASV", r)
	}
	port, ok := parsePASV(r.last())
	if !ok {
		c.broken = true
		return 0, c.req.Fail(schemes.ErrProtocol, "PASV", r.code, r.last(), errors.New("malformed PASV reply"))
	}
	return port, nil
}

// active listens for the server's data connection (RFC 959 §3.2, curl's
// -P): addr is "-" for the control connection's local address, an IP
// address or the name of a network interface (its address of the control
// connection's family), optionally followed by ":PORT" or
// ":FIRST-LAST", a range of ports to listen on, as curl takes it.
func (c *conn) active(addr string) (*pending, error) {
	host, port := addr, "0"
	if h, p, err := net.SplitHostPort(addr); err == nil {
		host, port = h, p
	}
	local, _ := c.raw.LocalAddr().(*net.TCPAddr)
	var ip net.IP
	switch {
	case host == "-" && local != nil:
		ip = local.IP
	case net.ParseIP(host) != nil:
		ip = net.ParseIP(host)
	default:
		ip = interfaceIP(host, local)
	}
	first, last, ok := portRange(port)
	if ip == nil || !ok {
		return nil, c.req.Fail(schemes.ErrBadURL, "PORT", 0, "", fmt.Errorf("%w: the active-mode address %q is not \"-\", an IP address or an interface's name, with an optional :PORT or :FIRST-LAST", ErrPortFailed, addr))
	}
	var ln net.Listener
	var err error
	for p := first; p <= last; p++ {
		if ln, err = net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(p))); err == nil {
			break
		}
	}
	if err != nil {
		e := c.req.NetError("listen", err)
		if se, ok := e.(*schemes.Error); ok {
			se.Err = fmt.Errorf("%w: %w", ErrPortFailed, se.Err)
		}
		return nil, e
	}
	p := ln.Addr().(*net.TCPAddr).Port
	var cmd string
	if ip4 := ip.To4(); ip4 != nil {
		cmd = "PORT " + strings.Join([]string{
			strconv.Itoa(int(ip4[0])), strconv.Itoa(int(ip4[1])), strconv.Itoa(int(ip4[2])), strconv.Itoa(int(ip4[3])),
			strconv.Itoa(p >> 8), strconv.Itoa(p & 0xff)}, ",")
	} else {
		// RFC 2428 §2: EPRT carries IPv6 addresses.
		cmd = "EPRT |2|" + ip.String() + "|" + strconv.Itoa(p) + "|"
	}
	r, err := c.cmd(cmd)
	if err != nil {
		ln.Close()
		return nil, err
	}
	if r.code/100 != 2 {
		ln.Close()
		e := c.replyErr(cmd, r)
		e.Err = ErrPortFailed
		return nil, e
	}
	c.setData(ln)
	return &pending{ln: ln}, nil
}

// interfaceIP returns the address of the network interface named name
// of local's family (IPv4 or IPv6), nil if there is none. Host names are
// not looked up: only an interface's own addresses are taken.
func interfaceIP(name string, local *net.TCPAddr) net.IP {
	ifc, err := net.InterfaceByName(name)
	if err != nil {
		return nil
	}
	addrs, err := ifc.Addrs()
	if err != nil {
		return nil
	}
	want4 := local == nil || local.IP.To4() != nil
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && (n.IP.To4() != nil) == want4 {
			return n.IP
		}
	}
	return nil
}

// portRange reads -P's port part: "0" (any), "PORT" or "FIRST-LAST".
func portRange(s string) (first, last int, ok bool) {
	lo, hi, isRange := strings.Cut(s, "-")
	if !isRange {
		hi = lo
	}
	a, err1 := strconv.Atoi(lo)
	b, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil || a < 0 || b > 65535 || a > b || isRange && a == 0 {
		return 0, 0, false
	}
	return a, b, true
}

// establish returns the data connection once the server accepted the
// transfer command: in active mode, it accepts the server's connection, and
// only from the control connection's peer (RFC 2577 §3).
func (c *conn) establish(p *pending) (net.Conn, error) {
	if p.ln == nil {
		return p.conn, nil
	}
	defer p.ln.Close()
	for {
		d, err := p.ln.Accept()
		if err != nil {
			return nil, c.netErrData("accept", err)
		}
		if a, ok := d.RemoteAddr().(*net.TCPAddr); ok && a.IP.String() != c.peer {
			d.Close()
			continue
		}
		if c.tlsConf != nil {
			d = tls.Client(d, c.tlsConf)
		}
		c.setData(d)
		return d, nil
	}
}

// abort drops a data connection that will not be used.
func (c *conn) abort(p *pending) {
	if p.ln != nil {
		p.ln.Close()
	}
	c.closeData()
}

// netErrData classifies a data connection failure.
func (c *conn) netErrData(op string, err error) error {
	c.broken = true
	return c.req.NetError(op, c.cause(err))
}
