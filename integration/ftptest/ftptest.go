// Package ftptest provides an FTP server (RFC 959, with ACCT, EPSV, MLSD,
// SIZE, MDTM, REST, AUTH TLS, CCC and drftpd's PRET) for tests, in the shape of net/http/httptest.
// It serves an fs.FS read-only on 127.0.0.1, records every command it
// receives, and can be told to misbehave in the ways real servers do.
package ftptest

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urlget/urlget/integration/internal/testnet"
)

// Server is an FTP server listening on 127.0.0.1. Set its fields between
// NewUnstartedServer and Start; they must not change afterwards.
type Server struct {
	// URL is "ftp://127.0.0.1:port" (or "ftps://…" for implicit TLS),
	// Addr is "127.0.0.1:port". Both are set by Start.
	URL  string
	Addr string

	// FS is the tree served; "/" is its root. A file whose mode has no
	// read bit is listed but cannot be retrieved (550).
	FS fs.FS

	// Users maps user names to passwords. Anonymous lets "anonymous" and
	// "ftp" in with any password.
	Users     map[string]string
	Anonymous bool

	// Home maps a user to the directory they log in to; "/" by default.
	Home map[string]string

	// Accounts maps users to the account (RFC 959 §4.1.1 ACCT) their
	// login needs: their PASS is answered 332, and only ACCT with that
	// account logs them in.
	Accounts map[string]string

	// NoPassword logs every user in at USER, with 230 (RFC 959 §4.1.1
	// allows it), and answers a PASS after that with 503.
	NoPassword bool

	// AcceptBareCWD makes "CWD" with no argument go to the home directory,
	// as pure-ftpd does; by default it is refused with 550, as vsftpd does.
	AcceptBareCWD bool

	// MLSD advertises MLST in FEAT and answers MLSD (RFC 3659).
	MLSD bool

	// NoEPSV answers EPSV with 500, as servers without RFC 2428 do.
	NoEPSV bool

	// ClosePortOnRefusal makes a refused RETR, LIST, NLST or MLSD (550)
	// close the passive port before the reply goes out, as proftpd does.
	// The reply to EPSV or PASV is held back, when the next command has
	// arrived with it (a client that sends the transfer command before
	// reading the port's reply), until that command is refused or waits
	// for its data connection: the client reads the port only once it is
	// closed, and a connection to it is refused.
	ClosePortOnRefusal bool

	// BareCWDReply is the reply to a CWD with no argument when
	// AcceptBareCWD is not set: "550 Failed to change directory." (as
	// vsftpd) by default; proftpd answers "501 Invalid number of
	// parameters".
	BareCWDReply string

	// PASVHost is the address the PASV reply names, "127,0,0,1" by
	// default; a client must ignore it and use the control connection's
	// peer.
	PASVHost string

	// ListFormat is "unix" (default), "dos" or "eplf"; ListPrefix lines
	// are sent before the entries of every LIST ("total 12").
	ListFormat string
	ListPrefix []string

	// ListExtra adds lines, as given, to a listing: the key is the verb
	// and the directory ("MLSD /pub", "LIST /", "NLST /pub"). A hostile
	// server's entries ("..", "../../etc", "a/../../b") are made so.
	ListExtra map[string][]string

	// Reply replaces the server's answer to a command verb with the given
	// reply line (or lines joined by "\r\n"), without acting on it.
	Reply map[string]string

	// Stall makes the server answer nothing after the given verbs, until
	// the connection closes.
	Stall map[string]bool

	// Garbage makes the server answer the given verbs with that many bytes
	// without a line end, generated as they are sent, then hang up.
	Garbage map[string]int64

	// TruncateAt, when Truncate is set, cuts every RETR of a file longer
	// than that after that many bytes: the data connection closes, then TruncateReply is sent ("426
	// …", or a lying "226 …"); with no TruncateReply the control
	// connection closes instead.
	Truncate      bool
	TruncateAt    int64
	TruncateReply string

	// EmptyList answers a listing of the directories named (absolute
	// paths, "/pub/sub") with no data and a 226, as vsftpd answers for a
	// directory it cannot open.
	EmptyList map[string]bool

	// CutList, when not 0, ends every listing after that many lines: the
	// data connection closes, then CutListReply is sent ("426 …", or a
	// lying "226 …"); with no CutListReply the control connection closes.
	CutList      int
	CutListReply string

	// HoldTransferEnd makes the server wait, after closing a RETR's data
	// connection, until the client's next command has arrived (at most
	// this long) before it sends 226; EarlyCommands counts the times it
	// came first. A client that waits for 226 before its next command
	// costs the whole wait.
	HoldTransferEnd time.Duration
	early           atomic.Int64

	// Hold makes the server wait, before it answers a command with one
	// of these verbs, until the client's next command has arrived (at
	// most that long); Early counts, per verb, the times it came first.
	// A client that waits for the reply before its next command costs
	// the whole wait.
	Hold     map[string]time.Duration
	earlyMu  sync.Mutex
	earlyFor map[string]int

	// TLS, set by StartTLS, enables AUTH TLS (or implicit TLS).
	TLS      *tls.Config
	implicit bool
	certDER  []byte

	l    *testnet.Listener // control connections
	cmds testnet.Recorder[string]
	mu   sync.Mutex        // guards once, data and closed
	once map[string]string // ReplyOnce's replies not yet used
	// data holds the passive listeners and data connections open now,
	// so that Close, DropConns and ExpirePassive reach them too.
	data   map[io.Closer]bool
	closed bool
	done   chan struct{}
}

// NewServer starts a server for fsys with anonymous login allowed.
func NewServer(fsys fs.FS) *Server {
	s := NewUnstartedServer(fsys)
	s.Start()
	return s
}

// NewUnstartedServer returns a server for fsys, with anonymous login
// allowed, that the caller configures and then starts.
func NewUnstartedServer(fsys fs.FS) *Server {
	return &Server{FS: fsys, Anonymous: true, data: map[io.Closer]bool{}, done: make(chan struct{})}
}

// Start listens on 127.0.0.1:0 and serves.
func (s *Server) Start() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("ftptest: listen: " + err.Error())
	}
	s.Addr = ln.Addr().String()
	scheme := "ftp"
	if s.implicit {
		scheme = "ftps"
	}
	s.URL = scheme + "://" + s.Addr
	s.l = testnet.Serve(ln, func(c net.Conn, _ int) {
		ss := &session{s: s, raw: c, cwd: "/", typ: 'A'}
		ss.run()
	})
}

// StartTLS starts the server with a fresh self-signed certificate for
// 127.0.0.1: implicit TLS (ftps://) when implicit is set, else AUTH TLS
// (RFC 4217). ClientTLSConfig returns a configuration that trusts it.
func (s *Server) StartTLS(implicit bool) {
	cert, leaf := testnet.SelfSigned("ftptest")
	s.certDER = leaf.Raw
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	s.implicit = implicit
	s.Start()
}

// ClientTLSConfig returns a TLS configuration that trusts the server's
// certificate.
func (s *Server) ClientTLSConfig() *tls.Config {
	pool := x509.NewCertPool()
	if s.certDER != nil {
		c, err := x509.ParseCertificate(s.certDER)
		if err == nil {
			pool.AddCert(c)
		}
	}
	return &tls.Config{RootCAs: pool}
}

// Close stops the server and closes every connection.
func (s *Server) Close() {
	close(s.done)
	s.mu.Lock()
	s.closed = true
	s.closeData()
	s.mu.Unlock()
	s.l.Close()
}

// closeData closes every passive listener and data connection; s.mu is
// held.
func (s *Server) closeData() {
	for c := range s.data {
		c.Close()
	}
}

// DropConns closes every open connection, as a server restarting or
// timing out idle clients does; the server keeps listening.
func (s *Server) DropConns() {
	s.mu.Lock()
	s.closeData()
	s.mu.Unlock()
	s.l.DropConns()
}

// ExpireConns sends "421 Timeout." on every open control connection and
// closes it, as vsftpd does when a client stays idle too long.
func (s *Server) ExpireConns() {
	s.mu.Lock()
	s.closeData()
	s.mu.Unlock()
	for _, c := range s.l.Conns() {
		c.SetWriteDeadline(time.Now().Add(time.Second))
		c.Write([]byte("421 Timeout.\r\n"))
		c.Close()
	}
}

// ExpirePassive closes every passive port a client asked for and has not
// used yet, as servers do when a port stays unused too long: a client
// that connects to it is refused. It returns how many it closed.
func (s *Server) ExpirePassive() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.data {
		if _, ok := c.(net.Listener); ok {
			c.Close()
			delete(s.data, c)
			n++
		}
	}
	return n
}

// ReplyOnce makes the server answer the next command with the given verb,
// on any connection, with line instead of acting on it, as Reply does for
// every such command.
func (s *Server) ReplyOnce(verb, line string) {
	s.mu.Lock()
	if s.once == nil {
		s.once = map[string]string{}
	}
	s.once[verb] = line
	s.mu.Unlock()
}

// Commands returns every command line received so far, on every
// connection, in order, without line ends.
func (s *Server) Commands() []string {
	return s.cmds.All()
}

// ResetCommands forgets the commands recorded so far.
func (s *Server) ResetCommands() {
	s.cmds.Reset()
}

// Conns returns how many control connections the server has accepted.
func (s *Server) Conns() int {
	return s.l.Accepted()
}

// track registers a data connection or listener so that Close ends it;
// the returned function closes it and forgets it.
func (s *Server) track(c io.Closer) func() {
	s.mu.Lock()
	if s.closed {
		c.Close()
	} else {
		s.data[c] = true
	}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.data, c)
		s.mu.Unlock()
		c.Close()
	}
}

// session is one control connection.
type session struct {
	s        *Server
	raw      net.Conn
	c        net.Conn
	r        *bufio.Reader
	w        *bufio.Writer
	user     string
	loggedIn bool
	// acctWanted: PASS was right and answered 332; ACCT comes next.
	acctWanted bool
	// plain is the connection without TLS, read through a buffer.
	plain   *bufConn
	cwd     string
	typ     byte
	rest    int64
	pasv    net.Listener
	closePV func()
	active  string
	prot    bool
}

func (ss *session) setConn(c net.Conn) {
	ss.c = c
	ss.r = bufio.NewReaderSize(c, 4096)
	ss.w = bufio.NewWriter(c)
}

func (ss *session) reply(format string, args ...any) {
	fmt.Fprintf(ss.w, format+"\r\n", args...)
	ss.w.Flush()
}

// readLine reads one command line, refusing lines over 4 KiB.
func (ss *session) readLine() (string, error) {
	var b []byte
	for {
		chunk, isPrefix, err := ss.r.ReadLine()
		if err != nil {
			return "", err
		}
		b = append(b, chunk...)
		if len(b) > 4096 {
			return "", errors.New("line too long")
		}
		if !isPrefix {
			return string(b), nil
		}
	}
}

func (ss *session) run() {
	// TLS runs over a buffered reader of the connection, so that after
	// CCC the first byte can be looked at: the client's close_notify, or
	// its next command in the clear.
	ss.plain = &bufConn{Conn: ss.raw, r: bufio.NewReader(ss.raw)}
	ss.setConn(ss.plain)
	if ss.s.implicit {
		tc := tls.Server(ss.plain, ss.s.TLS)
		if err := tc.Handshake(); err != nil {
			return
		}
		ss.setConn(tc)
	}
	defer func() {
		if ss.closePV != nil {
			ss.closePV()
		}
	}()
	ss.reply("220 ftptest ready")
	for {
		line, err := ss.readLine()
		if err != nil {
			return
		}
		ss.s.cmds.Record(line)
		verb, arg, hasArg := strings.Cut(line, " ")
		verb = strings.ToUpper(verb)
		if ss.s.Stall[verb] {
			io.Copy(io.Discard, ss.c)
			return
		}
		if n := ss.s.Garbage[verb]; n > 0 {
			ss.garbage(n)
			return
		}
		if d := ss.s.Hold[verb]; d > 0 && ss.nextArrives(d) {
			ss.s.earlyMu.Lock()
			if ss.s.earlyFor == nil {
				ss.s.earlyFor = map[string]int{}
			}
			ss.s.earlyFor[verb]++
			ss.s.earlyMu.Unlock()
		}
		if rep, ok := ss.s.Reply[verb]; ok {
			ss.reply("%s", rep)
			continue
		}
		ss.s.mu.Lock()
		rep, ok := ss.s.once[verb]
		delete(ss.s.once, verb)
		ss.s.mu.Unlock()
		if ok {
			ss.reply("%s", rep)
			continue
		}
		if !ss.handle(verb, arg, hasArg) {
			return
		}
	}
}

// bufConn is a connection read through a buffer.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// garbage sends n bytes with no line end, generated on the fly.
func (ss *session) garbage(n int64) {
	buf := make([]byte, 32<<10)
	for i := range buf {
		buf[i] = 'x'
	}
	ss.w.Flush()
	for n > 0 {
		k := int64(len(buf))
		if n < k {
			k = n
		}
		if _, err := ss.c.Write(buf[:k]); err != nil {
			return
		}
		n -= k
	}
}

// handle answers one command; false ends the session.
func (ss *session) handle(verb, arg string, hasArg bool) bool {
	switch verb {
	case "USER":
		ss.user, ss.loggedIn, ss.acctWanted = arg, false, false
		if ss.s.NoPassword {
			ss.loggedIn = true
			ss.cwd = ss.home()
			ss.reply("230 Logged in, no password needed.")
			return true
		}
		ss.reply("331 Please specify the password.")
		return true
	case "PASS":
		if ss.s.NoPassword && ss.loggedIn {
			ss.reply("503 Already logged in.")
			return true
		}
		anon := ss.s.Anonymous && (ss.user == "anonymous" || ss.user == "ftp")
		if pw, ok := ss.s.Users[ss.user]; ok && pw == arg && ss.s.Accounts[ss.user] != "" {
			ss.acctWanted = true
			ss.reply("332 Need account for login.")
		} else if (ok && pw == arg) || anon {
			ss.loggedIn = true
			ss.cwd = ss.home()
			ss.reply("230 Login successful.")
		} else {
			ss.reply("530 Login incorrect.")
		}
		return true
	case "QUIT":
		ss.reply("221 Goodbye.")
		return false
	case "ACCT":
		if !ss.acctWanted || arg != ss.s.Accounts[ss.user] {
			ss.reply("530 Login incorrect.")
			return true
		}
		ss.acctWanted, ss.loggedIn = false, true
		ss.cwd = ss.home()
		ss.reply("230 Login successful.")
		return true
	case "AUTH":
		if ss.s.TLS == nil || !strings.EqualFold(arg, "TLS") {
			ss.reply("504 Unknown AUTH type.")
			return true
		}
		ss.reply("234 Proceed with negotiation.")
		tc := tls.Server(ss.plain, ss.s.TLS)
		if err := tc.Handshake(); err != nil {
			return false
		}
		ss.setConn(tc)
		return true
	case "PBSZ":
		ss.reply("200 PBSZ set to 0.")
		return true
	case "PROT":
		ss.prot = strings.EqualFold(arg, "P")
		ss.reply("200 PROT now %s.", map[bool]string{true: "Private", false: "Clear"}[ss.prot])
		return true
	case "FEAT":
		ss.w.WriteString("211-Features:\r\n EPSV\r\n MDTM\r\n PASV\r\n REST STREAM\r\n SIZE\r\n")
		if ss.s.MLSD {
			ss.w.WriteString(" MLST type*;size*;modify*;\r\n")
		}
		if ss.s.TLS != nil {
			ss.w.WriteString(" AUTH TLS\r\n PBSZ\r\n PROT\r\n")
		}
		ss.reply("211 End")
		return true
	case "SYST":
		ss.reply("215 UNIX Type: L8")
		return true
	case "NOOP":
		ss.reply("200 NOOP ok.")
		return true
	}
	if !ss.loggedIn {
		ss.reply("530 Please login with USER and PASS.")
		return true
	}
	switch verb {
	case "PWD", "XPWD":
		ss.reply("257 \"%s\" is the current directory", strings.ReplaceAll(ss.cwd, `"`, `""`))
	case "CWD":
		if !hasArg {
			switch {
			case ss.s.AcceptBareCWD:
				ss.cwd = ss.home()
				ss.reply("250 Directory successfully changed.")
			case ss.s.BareCWDReply != "":
				ss.reply("%s", ss.s.BareCWDReply)
			default:
				ss.reply("550 Failed to change directory.")
			}
			return true
		}
		p := ss.resolve(arg)
		if fi, err := fs.Stat(ss.s.FS, fsPath(p)); err == nil && fi.IsDir() {
			ss.cwd = p
			ss.reply("250 Directory successfully changed.")
		} else {
			ss.reply("550 Failed to change directory.")
		}
	case "CDUP":
		ss.cwd = path.Dir(ss.cwd)
		ss.reply("250 Directory successfully changed.")
	case "TYPE":
		switch strings.ToUpper(arg) {
		case "A", "A N":
			ss.typ = 'A'
			ss.reply("200 Switching to ASCII mode.")
		case "I", "L 8":
			ss.typ = 'I'
			ss.reply("200 Switching to Binary mode.")
		default:
			ss.reply("504 Bad TYPE command.")
		}
	case "SIZE":
		if fi, err := fs.Stat(ss.s.FS, fsPath(ss.resolve(arg))); err == nil && fi.Mode().IsRegular() {
			ss.reply("213 %d", fi.Size())
		} else {
			ss.reply("550 Could not get file size.")
		}
	case "MDTM":
		if fi, err := fs.Stat(ss.s.FS, fsPath(ss.resolve(arg))); err == nil && fi.Mode().IsRegular() {
			ss.reply("213 %s", fi.ModTime().UTC().Format("20060102150405"))
		} else {
			ss.reply("550 Could not get file modification time.")
		}
	case "REST":
		n, err := strconv.ParseInt(arg, 10, 64)
		if err != nil || n < 0 {
			ss.reply("501 Bad REST.")
			return true
		}
		ss.rest = n
		ss.reply("350 Restart position accepted (%d).", n)
	case "EPSV", "PASV":
		if verb == "EPSV" && ss.s.NoEPSV {
			ss.reply("500 Unknown command.")
			return true
		}
		if ss.closePV != nil {
			ss.closePV()
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			ss.reply("425 Cannot listen.")
			return true
		}
		ss.pasv, ss.closePV, ss.active = ln, ss.s.track(ln), ""
		port := ln.Addr().(*net.TCPAddr).Port
		var line string
		if verb == "EPSV" {
			line = fmt.Sprintf("229 Entering Extended Passive Mode (|||%d|)", port)
		} else {
			h := ss.s.PASVHost
			if h == "" {
				h = "127,0,0,1"
			}
			line = fmt.Sprintf("227 Entering Passive Mode (%s,%d,%d).", h, port>>8, port&0xff)
		}
		if ss.s.ClosePortOnRefusal && (ss.r.Buffered() > 0 || ss.nextArrives(200*time.Millisecond)) {
			// Out with the next reply, unflushed till then.
			ss.w.WriteString(line + "\r\n")
			return true
		}
		ss.reply("%s", line)
	case "PORT", "EPRT":
		addr, ok := parseActive(verb, arg)
		if !ok {
			ss.reply("501 Illegal %s command.", verb)
			return true
		}
		if ss.closePV != nil {
			ss.closePV()
			ss.closePV, ss.pasv = nil, nil
		}
		ss.active = addr
		ss.reply("200 %s command successful. Consider using PASV.", verb)
	case "CCC":
		// RFC 4217 §12.3: TLS ends on the control connection, which
		// goes on in the clear; data connections keep their PROT.
		tc, ok := ss.c.(*tls.Conn)
		if !ok {
			ss.reply("533 Command channel is not protected.")
			return true
		}
		ss.reply("200 Clearing the control connection.")
		tc.CloseWrite()
		ss.raw.SetWriteDeadline(time.Time{})
		// A client that ends TLS itself (curl's active mode) sends its
		// close_notify, one TLS record, which is skipped whole, and not
		// read through tc, which would read the command after it into
		// its own buffer; a passive one goes on with a command, which
		// begins with a letter.
		if h, err := ss.plain.r.Peek(5); err == nil && h[0] < 0x20 {
			n := 5 + (int(h[3])<<8 | int(h[4]))
			ss.plain.r.Discard(n)
		}
		ss.setConn(ss.plain)
	case "PRET":
		// drftpd's PRET names the transfer to come; one server has
		// nothing to choose.
		ss.reply("200 OK, will use this slave for the transfer.")
	case "RETR":
		ss.retr(arg)
	case "LIST", "NLST", "MLSD":
		if verb == "MLSD" && !ss.s.MLSD {
			ss.reply("500 Unknown command.")
			return true
		}
		return ss.list(verb, arg, hasArg)
	default:
		ss.reply("500 Unknown command.")
	}
	return true
}

// parseActive reads "h1,h2,h3,h4,p1,p2" or "|1|ip|port|"; only loopback
// addresses are accepted, so tests never reach another host.
func parseActive(verb, arg string) (string, bool) {
	var ip net.IP
	var port int
	if verb == "PORT" {
		f := strings.Split(arg, ",")
		if len(f) != 6 {
			return "", false
		}
		var n [6]int
		for i, x := range f {
			v, err := strconv.Atoi(x)
			if err != nil || v < 0 || v > 255 {
				return "", false
			}
			n[i] = v
		}
		ip = net.IPv4(byte(n[0]), byte(n[1]), byte(n[2]), byte(n[3]))
		port = n[4]<<8 | n[5]
	} else {
		if len(arg) < 2 {
			return "", false
		}
		f := strings.Split(arg[1:len(arg)-1], arg[:1])
		if len(f) != 3 {
			return "", false
		}
		ip = net.ParseIP(f[1])
		port, _ = strconv.Atoi(f[2])
	}
	if ip == nil || !ip.IsLoopback() || port <= 0 || port > 65535 {
		return "", false
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(port)), true
}

func (ss *session) home() string {
	if h, ok := ss.s.Home[ss.user]; ok {
		return h
	}
	return "/"
}

func (ss *session) resolve(arg string) string {
	if strings.HasPrefix(arg, "/") {
		return path.Clean(arg)
	}
	return path.Clean(path.Join(ss.cwd, arg))
}

func fsPath(p string) string {
	p = strings.TrimPrefix(path.Clean(p), "/")
	if p == "" {
		return "."
	}
	return p
}

// dataConn returns the data connection for a transfer: the one the client
// made to the passive port, or one to the active address.
func (ss *session) dataConn() (net.Conn, error) {
	// A passive reply held back (ClosePortOnRefusal) goes out now.
	ss.w.Flush()
	var c net.Conn
	var err error
	switch {
	case ss.pasv != nil:
		if tl, ok := ss.pasv.(*net.TCPListener); ok {
			tl.SetDeadline(time.Now().Add(10 * time.Second))
		}
		c, err = ss.pasv.Accept()
		ss.closePV()
		ss.pasv, ss.closePV = nil, nil
	case ss.active != "":
		c, err = net.DialTimeout("tcp", ss.active, 10*time.Second)
		ss.active = ""
	default:
		return nil, errors.New("no data connection")
	}
	if err != nil {
		return nil, err
	}
	if ss.prot {
		c = tls.Server(c, ss.s.TLS)
	}
	return c, nil
}

func (ss *session) retr(arg string) {
	p := fsPath(ss.resolve(arg))
	rest := ss.rest
	ss.rest = 0
	fi, err := fs.Stat(ss.s.FS, p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o444 == 0 {
		ss.refuse("550 Failed to open file.")
		return
	}
	f, err := ss.s.FS.Open(p)
	if err != nil {
		ss.refuse("550 Failed to open file.")
		return
	}
	defer f.Close()
	dc, err := ss.dataConn()
	if err != nil {
		ss.reply("425 Use PORT or PASV first.")
		return
	}
	done := ss.s.track(dc)
	defer done()
	mode := "BINARY"
	if ss.typ == 'A' {
		mode = "ASCII"
	}
	ss.reply("150 Opening %s mode data connection for %s (%d bytes).", mode, path.Base(p), fi.Size())
	var src io.Reader = f
	if rest > 0 {
		if sk, ok := f.(io.Seeker); ok {
			sk.Seek(rest, io.SeekStart)
		} else {
			io.CopyN(io.Discard, f, rest)
		}
	}
	truncate := ss.s.Truncate && fi.Size() > ss.s.TruncateAt
	if truncate {
		src = io.LimitReader(src, ss.s.TruncateAt)
	}
	var w io.Writer = dc
	if ss.typ == 'A' {
		w = &toCRLF{w: dc}
	}
	_, err = io.Copy(w, src)
	done()
	if truncate {
		if ss.s.TruncateReply == "" {
			ss.raw.Close()
			return
		}
		ss.reply("%s", ss.s.TruncateReply)
		return
	}
	if err != nil {
		ss.reply("426 Failure writing network stream.")
		return
	}
	if ss.s.HoldTransferEnd > 0 && ss.nextArrives(ss.s.HoldTransferEnd) {
		ss.s.early.Add(1)
	}
	ss.reply("226 Transfer complete.")
}

// refuse answers a transfer command that will not run, closing the
// passive port first when ClosePortOnRefusal is set.
func (ss *session) refuse(line string) {
	if ss.s.ClosePortOnRefusal && ss.closePV != nil {
		ss.closePV()
		ss.pasv, ss.closePV = nil, nil
	}
	ss.reply("%s", line)
}

// nextArrives waits at most d for the client's next command and reports
// whether it arrived (plain connections only: a TLS connection that timed
// out stays broken).
func (ss *session) nextArrives(d time.Duration) bool {
	ss.c.SetReadDeadline(time.Now().Add(d))
	_, err := ss.r.Peek(1)
	ss.c.SetReadDeadline(time.Time{})
	return err == nil
}

// EarlyCommands returns how many times, with HoldTransferEnd set, the
// client's next command arrived before the 226 of a RETR.
func (s *Server) EarlyCommands() int {
	return int(s.early.Load())
}

// Early returns how many times, with Hold set for verb, the client's next
// command arrived before the reply to a command with that verb.
func (s *Server) Early(verb string) int {
	s.earlyMu.Lock()
	defer s.earlyMu.Unlock()
	return s.earlyFor[verb]
}

// toCRLF turns LF into CRLF unless a CR precedes it (RFC 959 §3.1.1.1
// ASCII type on the wire, as vsftpd's ascii_download_enable does).
type toCRLF struct {
	w  io.Writer
	cr bool
}

func (t *toCRLF) Write(p []byte) (int, error) {
	out := make([]byte, 0, len(p)+len(p)/16)
	for _, b := range p {
		if b == '\n' && !t.cr {
			out = append(out, '\r')
		}
		t.cr = b == '\r'
		out = append(out, b)
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (ss *session) list(verb, arg string, hasArg bool) bool {
	if hasArg && strings.HasPrefix(arg, "-") && verb == "LIST" {
		arg, hasArg = "", false
	}
	dir := ss.cwd
	if hasArg {
		dir = ss.resolve(arg)
	}
	fi, err := fs.Stat(ss.s.FS, fsPath(dir))
	if err != nil {
		ss.refuse("550 No such file or directory.")
		return true
	}
	var lines []string
	if !fi.IsDir() {
		switch verb {
		case "NLST":
			lines = []string{arg}
		default:
			lines = []string{ss.s.listLine(verb, fi, "")}
		}
	} else {
		entries, err := fs.ReadDir(ss.s.FS, fsPath(dir))
		if err != nil {
			ss.refuse("550 Cannot read directory.")
			return true
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		if verb == "LIST" {
			lines = append(lines, ss.s.ListPrefix...)
		}
		if verb == "MLSD" {
			lines = append(lines, "type=cdir;modify=20200101000000; .", "type=pdir;modify=20200101000000; ..")
		}
		for _, e := range entries {
			efi, err := e.Info()
			if err != nil {
				continue
			}
			if verb == "NLST" {
				name := e.Name()
				if hasArg {
					name = strings.TrimSuffix(arg, "/") + "/" + name
				}
				lines = append(lines, name)
				continue
			}
			target := ""
			if e.Type()&fs.ModeSymlink != 0 {
				// Listed as the link, as ls -l and vsftpd list one.
				target, _ = fs.ReadLink(ss.s.FS, path.Join(fsPath(dir), e.Name()))
			}
			lines = append(lines, ss.s.listLine(verb, efi, target))
		}
	}
	lines = append(lines, ss.s.ListExtra[verb+" "+path.Clean("/"+dir)]...)
	dc, err := ss.dataConn()
	if err != nil {
		ss.reply("425 Use PORT or PASV first.")
		return true
	}
	done := ss.s.track(dc)
	defer done()
	ss.reply("150 Here comes the directory listing.")
	if ss.s.EmptyList[dir] {
		lines = nil
	}
	cut := ss.s.CutList > 0 && len(lines) > ss.s.CutList
	if cut {
		lines = lines[:ss.s.CutList]
	}
	bw := bufio.NewWriter(dc)
	for _, l := range lines {
		bw.WriteString(l)
		bw.WriteString("\r\n")
	}
	err = bw.Flush()
	done()
	if cut {
		if ss.s.CutListReply == "" {
			return false
		}
		ss.reply("%s", ss.s.CutListReply)
		return true
	}
	if err != nil {
		ss.reply("426 Failure writing network stream.")
		return true
	}
	ss.reply("226 Directory send OK.")
	return true
}

// listLine formats one entry for LIST (in ListFormat) or MLSD; target is
// a symbolic link's, "" for anything else.
func (s *Server) listLine(verb string, fi fs.FileInfo, target string) string {
	mt := fi.ModTime().UTC()
	if verb == "MLSD" {
		typ := "file"
		switch {
		case target != "":
			typ = "OS.unix=slink:" + target
		case fi.IsDir():
			typ = "dir"
		}
		return fmt.Sprintf("type=%s;size=%d;modify=%s; %s", typ, fi.Size(), mt.Format("20060102150405"), fi.Name())
	}
	switch s.ListFormat {
	case "dos":
		size := fmt.Sprintf("%14d", fi.Size())
		if fi.IsDir() {
			size = "<DIR>         "
		}
		return fmt.Sprintf("%s  %s       %s %s", mt.Format("01-02-06"), mt.Format("03:04PM"), size, fi.Name())
	case "eplf":
		kind := "r"
		if fi.IsDir() {
			kind = "/"
		}
		return fmt.Sprintf("+%s,s%d,m%d,\t%s", kind, fi.Size(), mt.Unix(), fi.Name())
	}
	mode := fi.Mode().String()
	name := fi.Name()
	switch {
	case target != "":
		mode = "l" + fi.Mode().Perm().String()[1:]
		name += " -> " + target
	case fi.IsDir():
		mode = "d" + mode[1:]
	}
	when := mt.Format("Jan 02  2006")
	if time.Since(mt) < 180*24*time.Hour && mt.Before(time.Now().Add(time.Hour)) {
		when = mt.Format("Jan 02 15:04")
	}
	return fmt.Sprintf("%s    1 0        0        %8d %s %s", mode, fi.Size(), when, name)
}
