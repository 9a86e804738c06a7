// Package ftp fetches ftp: and ftps: URLs by the access algorithm of RFC 1738
// §3.2 over RFC 959 control and data connections, with TLS per RFC 4217.
// A Fetcher keeps one logged-in control connection per server and user, so
// that many URLs on one server cost one login.
//
// The client side of RFC 959 is written here on net/textproto, as net/smtp
// is: RFC 1738 needs what github.com/jlaffaye/ftp does not expose (a CWD with
// no argument, the raw LIST bytes, streamed NLST and LIST, reply codes of a
// refused login, a line limit under TLS, a context on data connections).
package ftp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// DefaultAnonymousPassword is the password sent with the user "anonymous"
// when a URL names no user (RFC 1738 §3.2.1, RFC 1635): an e-mail-style
// string, as the convention asks. Fetcher.AnonymousPassword overrides
// it.
const DefaultAnonymousPassword = "urlget@"

// The causes, under a schemes.Error, of failures only FTP options lead
// to; the command exits with curl's codes for them.
var (
	// ErrQuote: a command of Fetcher.Quote, PreQuote or PostQuote was
	// answered with 400 or above (curl's exit 21).
	ErrQuote = errors.New("a quote command failed")
	// ErrTLSRefused: the server refused AUTH TLS where TLS was required
	// (Fetcher.RequireTLS, ControlTLSOnly; curl's exit 64).
	ErrTLSRefused = errors.New("the server refused TLS (AUTH TLS), which is required")
	// ErrPRET: the server refused PRET (Fetcher.PRET; curl's exit 84).
	ErrPRET = errors.New("the server refused PRET")
	// ErrPortFailed: active mode (Fetcher.ActiveAddr) could not be set
	// up: an address that is none, no port free to listen on, or PORT
	// or EPRT refused (curl's exit 30).
	ErrPortFailed = errors.New("active mode (PORT) failed")
	// ErrAccountRefused: the server refused the ACCT Fetcher.Account
	// sent (curl's exit 11); its kind is schemes.ErrLoginFailed.
	ErrAccountRefused = errors.New("the server refused the account (ACCT)")
)

// maxIdlePerKey bounds the idle control connections kept per server and
// user; concurrent fetches beyond it log in anew.
const maxIdlePerKey = 8

// Fetcher fetches ftp: and ftps: URLs. Its zero value is ready to use; it is
// safe for concurrent use, and keeps idle control connections until Close.
//
// Its settings, as http.Transport's, hold for every URL it fetches; they
// must not be changed once it is in use. The zero value is passive mode,
// the RFC 1738 walk, no TLS on ftp: and pipelined commands.
type Fetcher struct {
	// Method is how the file's directory is reached; the zero value is
	// MultiCWD.
	Method Method

	// RequireTLS makes an ftp: URL's connection switch to TLS with AUTH
	// TLS (RFC 4217 §4) and fail when the server refuses. ftps: URLs
	// always use TLS, from the first byte.
	RequireTLS bool

	// ActiveAddr selects active mode (RFC 959 §3.2, PORT and EPRT): the
	// client listens for the data connection at this IP address or at
	// the address of the network interface so named, with an optional
	// ":port" or ":first-last" range of ports, or at the control
	// connection's own address when it is "-". Empty means passive mode
	// (EPSV, then PASV). Active mode cannot go through a proxy
	// (schemes.ErrActiveFTPProxy); failing to set it up is ErrPortFailed.
	ActiveAddr string

	// Sync sends each command only once the reply to the one before has
	// come, as RFC 959 §5.4 describes the exchange, for servers and
	// middleboxes that lose commands sent ahead. By default commands
	// whose order is fixed are sent together.
	Sync bool

	// AnonymousPassword is the password of an anonymous login (RFC 1738
	// §3.2.1); empty means DefaultAnonymousPassword.
	AnonymousPassword string

	// TryTLS makes an ftp: URL's connection ask for TLS with AUTH TLS
	// and go on in the clear when the server refuses (curl's --ssl);
	// RequireTLS, when also set, wins.
	TryTLS bool

	// ControlTLSOnly protects the control connection only: AUTH TLS is
	// required, as with RequireTLS, but data connections stay in the
	// clear (RFC 4217 §9, PROT C), as curl's --ftp-ssl-control. It wins
	// over RequireTLS and TryTLS, as curl's last setting of CURLOPT_USE_SSL
	// does.
	ControlTLSOnly bool

	// CCC ends TLS on the control connection after the login (RFC 4217
	// §12.3, curl's --ftp-ssl-ccc), so that NAT routers can follow the
	// session; data connections keep their protection. The zero value
	// keeps TLS. A server that refuses CCC (5yz) keeps it too, as with
	// curl.
	CCC CCCMode

	// EntryPath asks every connection's login directory (PWD), for
	// Resource.EntryPath, also where no later request needs it (the last
	// one of a run).
	EntryPath bool

	// ListOnly lists a directory with NLST, names only (curl's -l): the
	// listing is a NameLister, as a ;type=d URL's.
	ListOnly bool

	// ASCII fetches files in TYPE A where the URL names no type (curl's
	// -B); ";type=i" still asks for TYPE I.
	ASCII bool

	// NoEPSV asks for passive ports with PASV only (curl's
	// --disable-epsv).
	NoEPSV bool

	// PRET sends "PRET <command>" before each passive port is asked for,
	// for distributed servers (drftpd) that choose the data host by the
	// command to come. It makes every command wait for the reply to the
	// one before (Sync).
	PRET bool

	// Account is sent with ACCT when the server asks for one at login
	// (RFC 959 §4.1.1, reply 332); without it such a login fails.
	Account string

	// AlternativeToUser is a command sent in place of USER when the
	// login with USER and PASS is refused, once (curl's
	// --ftp-alternative-to-user); its reply is taken as USER's.
	AlternativeToUser string

	// Quote, PreQuote and PostQuote are commands sent as they are: Quote
	// after the login, before the walk to the file; PreQuote after the
	// walk, before a file's RETR (or where it would be, for a head
	// request; not before a listing, as curl 7.88 sends none there);
	// PostQuote after a transfer, listing or head request that succeeded
	// (curl's -Q CMD, -Q +CMD and -Q -CMD).
	// A reply of 400 or above fails the request with ErrQuote, unless
	// the command begins with "*", which is not sent and lets the
	// command fail. A request with quote commands gets a control
	// connection of its own, logged out of afterwards: the commands may
	// leave it in any state.
	Quote, PreQuote, PostQuote []string

	once sync.Once
	pool netconn.Pool[connKey, *conn]

	// expected holds the runs of requests told by Expect: only whether
	// one is the last matters here.
	expected schemes.Expected
}

// conns returns the pool of idle control connections, set up on first use
// so that the zero Fetcher is ready. A connection the pool will not keep
// is logged out of (QUIT) and closed.
func (f *Fetcher) conns() *netconn.Pool[connKey, *conn] {
	f.once.Do(func() {
		f.pool.MaxIdle = maxIdlePerKey
		f.pool.Drop = func(c *conn) error {
			c.close(true)
			return nil
		}
	})
	return &f.pool
}

// ProxyWays implements schemes.ProxyAware: an HTTP proxy can fetch ftp:
// and ftps: URLs as a gateway (squid's ftp gateway), and every
// connection, data connections too, can go through the Dialer. Active
// mode (Fetcher.ActiveAddr) cannot go through a proxy: the server
// could not connect back through it (RFC 959 §3.2).
func (f *Fetcher) ProxyWays(req *schemes.Request) (schemes.ProxyWays, error) {
	if f.ActiveAddr != "" {
		return 0, fmt.Errorf("%w; use passive mode", schemes.ErrActiveFTPProxy)
	}
	// A proxy that tunnels but fetches no ftp: URLs (tinyproxy answers
	// 400) is passed over for a CONNECT tunnel.
	return schemes.ViaGateway | schemes.GatewayFallback | schemes.ViaDialer, nil
}

// Expect implements schemes.Expecter. FTP sends nothing ahead for
// requests to come, but readies a connection for another request after
// each (a PWD after login, an EPSV after a transfer, RFC 2428 §3); the
// last request of a run told to end sends neither.
func (f *Fetcher) Expect(reqs []*schemes.Request, end bool) {
	f.expected.Add(reqs, end)
}

// CCCMode is how the control connection's TLS ends after CCC (curl's
// --ftp-ssl-ccc-mode).
type CCCMode int

// The CCC modes.
const (
	// NoCCC keeps TLS on the control connection.
	NoCCC CCCMode = iota
	// CCCPassive waits for the server to end TLS (its close_notify) and
	// sends none back: curl's default mode.
	CCCPassive
	// CCCActive ends TLS itself (close_notify) and waits for the
	// server's.
	CCCActive
)

// Method is how an FTP fetch reaches the directory of the file it
// retrieves (RFC 1738 §3.2.2).
type Method int

// The FTP methods. The zero value is the one RFC 1738 prescribes.
const (
	// MultiCWD sends one CWD per directory of the path, as RFC 1738
	// §3.2.2 prescribes, then RETR or LIST the last segment.
	MultiCWD Method = iota
	// SingleCWD sends a single CWD with the whole directory path, for
	// servers that take a path there, then RETR the file name.
	SingleCWD
	// NoCWD sends no CWD and gives RETR or LIST the whole path.
	NoCWD
)

var methodNames = [...]string{"multicwd", "singlecwd", "nocwd"}

// String returns the method's name: multicwd, singlecwd or nocwd.
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return "Method(" + strconv.Itoa(int(m)) + ")"
}

// connKey identifies control connections that may serve each other's URLs:
// the same server, the same login and the same protection.
type connKey struct {
	scheme, host, port string
	user, pass         string
	hasPass            bool
	tls                tlsMode
	tlsConf            *tls.Config
	// sync: every command waits for the reply to the one before
	// (Fetcher.Sync).
	sync bool
	// active is Fetcher.ActiveAddr: where data connections are
	// listened for, "" in passive mode.
	active string
	// tryTLS: a refused AUTH TLS leaves the connection in the clear
	// (Fetcher.TryTLS); clearData: data connections stay in the clear
	// (PROT C, Fetcher.ControlTLSOnly).
	tryTLS, clearData bool
	// account and altUser are Fetcher.Account and AlternativeToUser,
	// which change how the login goes.
	account, altUser string
	noEPSV, pret     bool
	ccc              CCCMode
}

// Close logs out of and closes every idle control connection. The Fetcher
// stays usable; later fetches connect again.
func (f *Fetcher) Close() error {
	f.expected.Reset()
	return f.conns().CloseIdle()
}

// get returns an idle connection for key, bound to ctx, or dials one.
func (f *Fetcher) get(ctx context.Context, req *schemes.Request, key connKey, lg login, fresh bool) (*conn, error) {
	if !fresh {
		if c, ok := f.conns().Take(key); ok {
			c.reused = true
			c.bind(ctx, req)
			if req.Capture != nil {
				// Dialled for an earlier fetch: this one's archive
				// learns the server here, and how the session was
				// opened (the greeting, the login, AUTH, PBSZ, PROT),
				// so that its record says it read on its own.
				req.Capture.Connected(c.raw.RemoteAddr())
				c.opening.Replay(req.Capture)
				c.captureState(req.Capture)
			}
			c.trace.TraceLine(schemes.Info, "reusing the connection to "+c.raw.RemoteAddr().String())
			schemes.MetricsFrom(ctx).Reused(c.raw, c.nc != c.raw)
			return c, nil
		}
	}
	return dial(ctx, req, key, lg)
}

// captureState tells cp what earlier fetches on c left set that this one
// relies on without sending it again: the transfer type (RFC 959 §4.1.2,
// TYPE) and the working directory, when known.
func (c *conn) captureState(cp schemes.Capture) {
	if c.typ != "" {
		cp.Line(schemes.Info, "the transfer type is "+c.typ+", set earlier on this session")
	}
	switch abs, known := c.absDir[c.dirKey]; {
	case c.dirKey == "" && c.haveLogin:
		cp.Line(schemes.Info, "the working directory is the login directory, "+strconv.Quote(c.loginDir))
	case c.dirKey == "":
		cp.Line(schemes.Info, "the working directory is the login directory")
	case known:
		cp.Line(schemes.Info, "the working directory is "+strconv.Quote(abs)+", reached earlier on this session")
	case c.dirKey != unknownDir:
		cmds := make([]string, len(c.cwds))
		for i, d := range c.cwds {
			cmds[i] = strings.TrimSpace("CWD " + d)
		}
		cp.Line(schemes.Info, "the working directory is where "+strings.Join(cmds, ", ")+" led from the login directory, earlier on this session")
	}
}

// put ends c's request and keeps it for the next URL if it is still sound.
// A connection that served quote commands is logged out of (QUIT).
func (f *Fetcher) put(c *conn) {
	if !c.unbind() {
		c.close(false)
		return
	}
	if c.single {
		c.close(true)
		return
	}
	f.conns().Put(c.key, c)
}

// plan is what RFC 1738 §3.2.2 makes of one URL: the CWDs to send from the
// login directory and the argument of the final command.
type plan struct {
	ftp    uri.FTP
	cwds   []string // CWD arguments in order; "" is a CWD with no argument
	dirKey string   // identifies the directory cwds lead to; "" = login directory
	arg    string   // the argument for RETR, SIZE, MDTM, NLST; "" for none
	listAt string   // LIST/MLSD argument (nocwd), else ""
	base   string   // URL of the directory names in a listing are relative to
	nbase  string   // the same for NLST names
}

func makePlan(req *schemes.Request, method Method) (*plan, error) {
	v, err := req.URL.FTP()
	if err != nil {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	for _, d := range v.Dirs {
		if err := checkArg(req, "path segment", d); err != nil {
			return nil, err
		}
	}
	if err := checkArg(req, "file name", v.Name); err != nil {
		return nil, err
	}
	p := &plan{ftp: v}
	dirURL := directoryURL(req.URL, v.Dirs)
	p.base, p.nbase = dirURL, dirURL
	switch method {
	case MultiCWD:
		p.cwds = v.Dirs
		p.arg = v.Name
	case SingleCWD:
		if len(v.Dirs) > 0 {
			d := strings.Join(v.Dirs, "/")
			if d == "" {
				d = "/"
			}
			p.cwds = []string{d}
		}
		p.arg = v.Name
	case NoCWD:
		if len(v.Dirs) > 0 {
			d := strings.Join(v.Dirs, "/")
			if d == "" {
				d = "/"
			}
			p.listAt = d
			if v.Name != "" {
				p.arg = strings.TrimSuffix(d, "/") + "/" + v.Name
			} else {
				p.arg = d
			}
		} else {
			p.arg = v.Name
		}
		p.nbase = directoryURL(req.URL, nil)
	default:
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("unknown FTP method "+method.String()))
	}
	if len(p.cwds) > 0 {
		var b strings.Builder
		b.WriteString(method.String())
		for _, d := range p.cwds {
			b.WriteByte(' ')
			b.WriteString(strconv.Itoa(len(d)))
			b.WriteByte(':')
			b.WriteString(d)
		}
		p.dirKey = b.String()
	}
	return p, nil
}

// directoryURL builds the URL of the directory dirs name on u's server, to
// which listed names are appended. The password is left out: listings are
// printed.
func directoryURL(u uri.URL, dirs []string) string {
	var b strings.Builder
	b.WriteString(schemes.ServerURL(u))
	for _, d := range dirs {
		b.WriteString(uri.EscapeSegment(d))
		b.WriteByte('/')
	}
	return b.String()
}

// keyAndLogin works out which connection req needs and how to log in
// (RFC 1738 §3.2.1: no user means anonymous).
func (f *Fetcher) keyAndLogin(req *schemes.Request) (connKey, login, error) {
	var key connKey
	key.scheme = req.URL.Scheme()
	key.host = req.URL.Hostname()
	if key.host == "" {
		return key, login{}, req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("no host"))
	}
	key.port, _ = req.URL.Port()
	if key.port == "" {
		key.port = uri.DefaultPort(key.scheme)
	}
	switch {
	case key.scheme == "ftps":
		// Its port, when the URL names none, is the scheme table's:
		// 990, which RFC 4217 §7 names for implicit FTPS.
		key.tls = tlsImplicit
	case f.ControlTLSOnly:
		// curl sets CURLOPT_USE_SSL for --ssl, --ssl-reqd and
		// --ftp-ssl-control in that order: the last one given wins.
		key.tls, key.clearData = tlsExplicit, true
	case f.RequireTLS:
		key.tls = tlsExplicit
	case f.TryTLS:
		key.tls, key.tryTLS = tlsExplicit, true
	}
	if key.port == "" {
		key.port = "21"
	}
	if key.tls != tlsNone {
		key.tlsConf = req.TLSConfig
	}
	// PRET must precede each EPSV or PASV, and the quote commands must
	// each be judged before the next goes out: neither has commands sent
	// ahead.
	key.sync = f.Sync || f.PRET || f.hasQuotes()
	key.active = f.ActiveAddr
	key.account, key.altUser = f.Account, f.AlternativeToUser
	key.noEPSV, key.pret = f.NoEPSV, f.PRET
	if key.tls != tlsNone {
		key.ccc = f.CCC
	}
	anonPass := f.AnonymousPassword
	if anonPass == "" {
		anonPass = DefaultAnonymousPassword
	}
	lg := login{user: "anonymous", pass: anonPass, havePass: true, public: true}
	if req.User != nil {
		pass, havePass := req.User.Password()
		lg = login{user: req.User.Username(), pass: pass, havePass: havePass}
	}
	if err := checkArg(req, "user name", lg.user); err != nil {
		return key, lg, err
	}
	if err := checkArg(req, "password", lg.pass); err != nil {
		return key, lg, err
	}
	key.user, key.pass, key.hasPass = lg.user, lg.pass, lg.havePass
	return key, lg, nil
}

// errReconnect says a connection could not return to its login directory.
var errReconnect = errors.New("could not return to the login directory")

// Fetch retrieves the file or directory listing req.URL names.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	switch s := req.URL.Scheme(); s {
	case "ftp", "ftps":
	default:
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("not an ftp URL: scheme "+strconv.Quote(s)))
	}
	p, err := makePlan(req, f.Method)
	if err != nil {
		return nil, err
	}
	key, lg, err := f.keyAndLogin(req)
	if err != nil {
		return nil, err
	}
	_, last := f.expected.Take(req)
	// Quote commands may leave a connection anywhere: they get one of
	// their own, and no other request gets it after them.
	fresh := f.hasQuotes()
	for {
		c, err := f.get(ctx, req, key, lg, fresh)
		if err != nil {
			return nil, err
		}
		c.last = last
		c.single = c.single || f.hasQuotes()
		c.wantPWD = f.EntryPath
		wasReused := c.reused
		attempt := *p // run may rewrite the argument for this connection
		res, err := f.run(ctx, c, req, &attempt)
		if err == nil {
			return res, nil
		}
		f.put(c)
		if wasReused && !fresh && (errors.Is(err, errStale) || errors.Is(err, errReconnect)) {
			fresh = true
			continue
		}
		var se *schemes.Error
		if errors.Is(err, errStale) && errors.As(err, &se) {
			return nil, se
		}
		if errors.Is(err, errReconnect) {
			return nil, req.Fail(schemes.ErrProtocol, "CWD", 0, "", err)
		}
		return nil, err
	}
}

// run performs RFC 1738 §3.2.2 and §3.2.3 on a logged-in connection. On
// success the returned resource owns c; on error the caller releases it.
func (f *Fetcher) run(ctx context.Context, c *conn, req *schemes.Request, p *plan) (*schemes.Resource, error) {
	v := p.ftp
	if err := c.quote(f.Quote); err != nil {
		return nil, err
	}
	// -l lists a directory with NLST, names only, as ;type=d does.
	nlst := v.Type == "d" || f.ListOnly && v.Name == ""
	fileOp := !nlst && v.Name != ""
	abs, short := c.shortcut(p, fileOp)
	if short {
		p.arg = abs
	}
	// What the command after the walk needs goes out with the walk's last
	// CWD: a file's TYPE (and for -I its SIZE and MDTM, for a resumed
	// fetch its SIZE, and its MDTM when the resume is conditional), a
	// listing's FEAT, and the EPSV of the transfer that
	// follows (none does for -I).
	var tail []step
	fi := fileInfo{size: -1}
	if fileOp || req.Head && v.Name != "" {
		if t := f.transferType(p, req.Head); c.typ != t {
			tail = append(tail, c.typeStep(t))
		}
		if req.Head || req.Offset > 0 || req.Range != "" {
			tail = append(tail, c.sizeStep(p.arg, &fi.size))
		}
		if req.Head || req.Offset > 0 && req.IfRange != "" {
			tail = append(tail, step{line: "MDTM " + p.arg, check: func(r reply) error {
				fi.mdtm = r
				return nil
			}})
		}
	} else if !nlst && !req.Raw && !req.Head && c.feat == nil {
		tail = append(tail, c.featStep())
	}
	if c.wantPWD && !c.haveLogin && c.dirKey == "" && p.dirKey == "" {
		// No walk to send the PWD with (navigate): it goes first in
		// the tail.
		c.haveLogin = true
		tail = append([]step{c.pwdStep(func(d string) { c.loginDir = d })}, tail...)
	}
	epsv := c.key.active == "" && !c.noEPSV && !req.Head && !c.key.sync
	if short {
		if err := c.sendTail(tail, epsv); err != nil {
			return nil, err
		}
	} else if err := c.navigate(p, tail, epsv); err != nil {
		return nil, err
	}
	res := &schemes.Resource{URL: req.URL.Redacted(), Size: -1, Name: v.Name, EntryPath: c.loginDir}
	switch {
	case req.Head:
		if err := c.head(p, res, fi); err != nil {
			return nil, err
		}
		// curl sends -Q +CMD for a file's -I too, where its transfer
		// would be; -Q -CMD once the request succeeded.
		if err := c.quote(f.PreQuote); err != nil {
			return nil, err
		}
		if err := c.quote(f.PostQuote); err != nil {
			return nil, err
		}
		// curl's %{response_code}: the last reply of the request.
		res.StatusCode = c.lastCode
		f.put(c)
		return res, nil
	case nlst:
		// RFC 1738 §3.2.3: ;type=d asks for NLST.
		cmd := "NLST"
		if p.arg != "" {
			cmd += " " + p.arg
		}
		t, err := f.startTransfer(ctx, c, cmd, 0)
		if err != nil {
			return nil, err
		}
		t.report(res)
		res.ContentType = "text/plain"
		if req.Raw {
			res.Body = t
		} else {
			// Shown as the names alone (schemes.NameLister).
			res.Listing = newListing(t.transfer, p.nbase, true, false)
		}
		return res, nil
	case v.Name == "":
		return f.list(ctx, c, req, p, res)
	}
	return f.retr(ctx, c, req, p, res, fi)
}

// list sends MLSD where the server offers it (RFC 3659 §7), else LIST; --raw-listing
// always asks for LIST, whose bytes are returned as the server sent them.
func (f *Fetcher) list(ctx context.Context, c *conn, req *schemes.Request, p *plan, res *schemes.Resource) (*schemes.Resource, error) {
	mlsd := !req.Raw && c.features()["MLST"]
	cmd := "LIST"
	if mlsd {
		cmd = "MLSD"
	}
	if p.listAt != "" {
		cmd += " " + p.listAt
	}
	t, err := f.startTransfer(ctx, c, cmd, 0)
	if err != nil {
		return nil, err
	}
	t.report(res)
	res.Name = ""
	if req.Raw {
		res.Body = t
		res.ContentType = "text/plain"
		return res, nil
	}
	res.Listing = newListing(t.transfer, p.base, false, mlsd)
	return res, nil
}

// retr retrieves a file (RFC 959 §4.1.3 RETR), resuming with REST (RFC 3659
// §5) when asked, in TYPE A for ;type=a and TYPE I otherwise.
// fi is what SIZE (and MDTM) said, for a resumed fetch (size -1 if SIZE
// said nothing).
func (f *Fetcher) retr(ctx context.Context, c *conn, req *schemes.Request, p *plan, res *schemes.Resource, fi fileInfo) (*schemes.Resource, error) {
	typ := f.transferType(p, false)
	ascii := typ == "A"
	if err := c.setType(typ); err != nil {
		return nil, err
	}
	// curl's -Q +CMD: after the walk, before RETR (or before finding
	// that a resume has nothing left to fetch). curl 7.88 sends none
	// before a listing, and neither does this.
	if err := c.quote(f.PreQuote); err != nil {
		return nil, err
	}
	size := fi.size
	offset := req.Offset
	part := int64(-1) // with a Range, how many bytes from offset
	if offset == 0 && req.Range != "" {
		// curl's -r: REST to the first range's start, and no more than
		// its length (a "-suffix" counts back from SIZE's answer).
		r, err := schemes.ParseRange(schemes.FirstRange(req.Range))
		if err != nil {
			return nil, req.Fail(schemes.ErrBadURL, "RETR "+p.arg, 0, "", err)
		}
		offset, part, err = r.Bounds(size)
		if err != nil {
			return nil, req.Fail(schemes.RangeErrorKind(err), "REST", 0, "", err)
		}
		if part == 0 {
			f.put(c)
			res.Offset, res.Size = offset, offset
			res.Body = io.NopCloser(strings.NewReader(""))
			return res, nil
		}
	}
	if offset > 0 && req.IfRange != "" {
		// A conditional resume: the file must still be the one the part
		// came from, by its exact size and time (RFC 3659 §4, §3). In
		// ASCII the size counts the server's bytes, not the ones
		// received, and nothing compares: the whole file again.
		var v string
		t, ok := parseMDTM(fi.mdtm.last())
		if ok && fi.mdtm.code == 213 && !ascii {
			v = schemes.FileValidator(size, t)
		}
		res.Validator = v
		if v == "" || !schemes.SameFile(req.IfRange, size, t) {
			offset = 0
		}
	}
	if offset > 0 {
		res.Size = size
		if size >= 0 && offset >= size {
			if offset > size {
				return nil, req.Fail(schemes.ErrNotRetrievable, "REST", 0, "", fmt.Errorf("resume offset %d is %w of the %d-byte file", offset, schemes.ErrPastEnd, size))
			}
			if err := c.quote(f.PostQuote); err != nil {
				return nil, err
			}
			res.StatusCode = c.lastCode
			f.put(c)
			res.Offset = offset
			res.Body = io.NopCloser(strings.NewReader(""))
			return res, nil
		}
	}
	t, err := f.startTransfer(ctx, c, "RETR "+p.arg, offset)
	if err != nil {
		return nil, err
	}
	t.report(res)
	res.Offset = t.offset
	if part >= 0 || req.Range != "" && offset > 0 {
		if t.offset != offset {
			// RFC 3659 §5.3: no 350 to REST; curl fails (its exit 31)
			// rather than pass the file's start for the range.
			t.Close()
			return nil, req.Fail(schemes.ErrNotRetrievable, "REST", 0, "", fmt.Errorf("%w: the server refused REST %d", schemes.ErrBadRange, offset))
		}
		if part >= 0 && (size < 0 || offset+part < size) {
			res.Size = offset + part
			res.Body = &partBody{rc: t, left: part}
			return res, nil
		}
	}
	if offset == 0 && size >= 0 && !ascii {
		res.Size = size
	}
	if res.Size < 0 && t.offset == 0 {
		res.Size = parseSize150(t.start)
	}
	if !ascii && res.Size >= 0 {
		t.expect = res.Size - t.offset
	}
	if req.MaxSize > 0 && res.Size > req.MaxSize {
		t.Close()
		return nil, req.Fail(schemes.ErrTooLarge, "RETR "+p.arg, 0, "", errors.New("the file has "+strconv.FormatInt(res.Size, 10)+" bytes, more than the limit of "+strconv.FormatInt(req.MaxSize, 10)))
	}
	if ascii {
		res.Body = newCRLFReader(t)
	} else {
		res.Body = t
	}
	return res, nil
}

// transferType is the TYPE a file of p is fetched in (RFC 1738 §3.2.3):
// A for ;type=a, or with no type when f.ASCII is set (curl's -B, which
// the URL's ";type=i" overrides, as in curl), I otherwise, and I for -I,
// whose SIZE counts bytes.
func (f *Fetcher) transferType(p *plan, head bool) string {
	if !head && (p.ftp.Type == "a" || p.ftp.Type == "" && f.ASCII) {
		return "A"
	}
	return "I"
}

// hasQuotes reports whether any quote command is to be sent.
func (f *Fetcher) hasQuotes() bool {
	return len(f.Quote)+len(f.PreQuote)+len(f.PostQuote) > 0
}

// quote sends cmds one at a time, each after the reply to the one before
// (curl's -Q): a reply of 400 or above fails with ErrQuote, unless the
// command was given with a leading "*", which is not sent (curl 7.88's
// "ignore failure" mark).
func (c *conn) quote(cmds []string) error {
	for _, q := range cmds {
		line, mayFail := strings.CutPrefix(q, "*")
		r, err := c.cmd(line)
		if err != nil {
			return err
		}
		if r.code >= 400 && !mayFail {
			e := c.replyErr(line, r)
			e.Err = ErrQuote
			return e
		}
	}
	return nil
}

// report makes res carry the transfer's reply codes (curl's
// %{response_code}): the 1yz now, the final reply once it comes.
func (t *startedTransfer) report(res *schemes.Resource) {
	res.StatusCode = t.code
	t.res = res
}

// startedTransfer is a transfer with what the server said when it began.
type startedTransfer struct {
	*transfer
	start  string // the 1yz reply
	code   int    // its code
	offset int64  // the REST offset the server accepted
}

// startTransfer opens a data connection, sends REST when offset > 0, then
// cmd, and waits for the server's 1yz reply (RFC 959 §5.4).
func (f *Fetcher) startTransfer(ctx context.Context, c *conn, cmd string, offset int64) (*startedTransfer, error) {
	if c.key.pret && c.key.active == "" {
		// PRET names the transfer before the port is asked for (drftpd's
		// extension; curl's --ftp-pret). It implies Sync, so the port
		// is asked for below, after its reply.
		r, err := c.cmd("PRET " + cmd)
		if err != nil {
			return nil, err
		}
		if r.code/100 != 2 {
			e := c.replyErr("PRET "+cmd, r)
			e.Err = ErrPRET
			return nil, e
		}
	}
	if c.key.active == "" && !c.noEPSV && !c.key.sync {
		if c.epsvAhead && time.Now().Before(c.aheadUntil) {
			st, fallback, err := f.startPipelined(ctx, c, cmd, offset, true)
			if !fallback {
				return st, err
			}
		}
		if !c.noEPSV {
			st, fallback, err := f.startPipelined(ctx, c, cmd, offset, false)
			if !fallback {
				return st, err
			}
		}
	}
	pd, err := c.openData(ctx)
	if err != nil {
		return nil, err
	}
	st := &startedTransfer{}
	if offset > 0 {
		r, err := c.cmd("REST " + strconv.FormatInt(offset, 10))
		if err != nil {
			c.abort(pd)
			return nil, err
		}
		if r.code == 350 {
			st.offset = offset
		}
	}
	r, err := c.cmd(cmd)
	if err != nil {
		c.abort(pd)
		return nil, err
	}
	return f.began(c, pd, st, cmd, r)
}

// startPipelined sends EPSV, REST and the transfer command in one write
// and reads their replies in order; with ahead, the EPSV is the one sent
// at the end of the previous transfer (sendAhead), whose reply is still
// unread, so that the server set the port up while the caller was busy.
// RFC 959 §5.4 would have the client wait for EPSV's reply first; servers
// read their commands one at a time and answer each in turn, so sending
// ahead only matters when EPSV is refused, which is handled here. The
// transfer command reaches the server before the data connection is made,
// so that the server prepares the file while the client connects.
//
// fallback is true when the caller must start over: the server refused
// EPSV (its other replies have been read; the caller uses PASV), or, for
// an EPSV sent ahead, answered the transfer command with 425, the port
// having expired (nothing was transferred; the caller sends a new EPSV). A
// port sent ahead that refuses the connection belongs to a server that
// gave up the session, or holds it with the command pending: the
// connection is dropped as stale, and the caller dials anew. Before that,
// a data connection that fails gives the server replyWait to answer the
// transfer command: its refusal (550) is the error, its 425 to a port sent
// ahead a reason to ask for a new one.
func (f *Fetcher) startPipelined(ctx context.Context, c *conn, cmd string, offset int64, ahead bool) (st *startedTransfer, fallback bool, err error) {
	var lines []string
	if !ahead {
		lines = append(lines, "EPSV")
	}
	rest := "REST " + strconv.FormatInt(offset, 10)
	if offset > 0 {
		lines = append(lines, rest)
	}
	lines = append(lines, cmd)
	var r reply
	if ahead {
		if err := c.write(lines...); err != nil {
			return nil, false, err
		}
		r, err = c.readAhead()
	} else {
		if err := c.send(lines...); err != nil {
			return nil, false, err
		}
		r, err = c.readReply("EPSV")
	}
	if err != nil {
		return nil, false, err
	}
	if r.code != 229 {
		// The server answers the commands sent after EPSV as well: a
		// transfer command without a data connection is refused (425).
		for _, l := range lines {
			if l == "EPSV" {
				continue
			}
			lr, err := c.readReply(l)
			if err != nil {
				return nil, false, err
			}
			if lr.code/100 == 1 {
				c.broken = true
				return nil, false, c.req.Fail(schemes.ErrProtocol, l, lr.code, lr.last(), errors.New("transfer began without a data connection"))
			}
		}
		if r.code == 421 || r.code == 530 {
			return nil, false, c.replyErr("EPSV", r)
		}
		if !ahead || r.code/100 == 5 {
			// Refused outright, ahead or not (500, 502: no RFC 2428
			// here; 522: not for this network protocol): PASV from
			// now on.
			c.noEPSV = true
		}
		return nil, true, nil
	}
	port, ok := parseEPSV(r.last())
	if !ok {
		// The commands sent after it are pending: the connection
		// cannot be reused.
		c.broken = true
		return nil, false, c.req.Fail(schemes.ErrProtocol, "EPSV", r.code, r.last(), errors.New("malformed EPSV reply"))
	}
	pd, err := c.dialData(ctx, port)
	if err != nil {
		c.broken = true
		if ctx.Err() != nil {
			return nil, false, err
		}
		pending := lines // the commands after EPSV, whose replies are unread
		if !ahead {
			pending = lines[1:]
		}
		if r, ok := c.replyAfterDataFailure(pending); ok {
			if ahead && r.code == 425 {
				// The port expired, as below.
				return nil, true, nil
			}
			return nil, false, c.replyErr(cmd, r)
		}
		if ahead && c.reused {
			err = fmt.Errorf("%w: %w", errStale, err)
		}
		return nil, false, err
	}
	st = &startedTransfer{}
	if offset > 0 {
		r, err := c.readReply(rest)
		if err != nil {
			c.abort(pd)
			return nil, false, err
		}
		if r.code == 350 {
			st.offset = offset
		}
	}
	r, err = c.readReply(cmd)
	if err != nil {
		c.abort(pd)
		return nil, false, err
	}
	if ahead && r.code == 425 {
		// RFC 959 §4.2: 425 is "can't open data connection": the port
		// expired. Nothing was transferred; ask for a new one.
		c.abort(pd)
		return nil, true, nil
	}
	st, err = f.began(c, pd, st, cmd, r)
	return st, false, err
}

// replyWait bounds the wait for the transfer command's reply after its
// data connection failed. A server that refuses the command answers at
// once, and its reply arrives about with the refusal of the connection;
// one that says nothing in that time holds the command for a data
// connection that will not come.
const replyWait = 2 * time.Second

// replyAfterDataFailure reads the replies to pending, the commands sent
// after EPSV (REST, then the transfer command), once the data connection
// to the port EPSV named has failed. A server that refuses the transfer
// closes its passive port as it answers (proftpd's 550 for a missing
// file), and the connection, made once EPSV's reply is read, may come
// after that: the reply says what went wrong, and the refused connection
// only follows from it (RFC 959 §5.4 has the transfer command's reply
// decide). ok is false when no refusal of the transfer command came within
// replyWait: the data connection's failure is the error then. After a
// refusal the control connection is in step and serves the next request.
func (c *conn) replyAfterDataFailure(pending []string) (r reply, ok bool) {
	// The connection is dropped if no reply comes in time (it is marked
	// broken already): closing it ends the wait, whatever deadline the
	// reads run under.
	t := time.AfterFunc(replyWait, func() { c.raw.Close() })
	for _, l := range pending {
		var err error
		if r, err = c.readReply(l); err != nil {
			t.Stop()
			return reply{}, false
		}
	}
	if !t.Stop() || r.code/100 == 1 || r.code/100 == 2 {
		// Accepted without a data connection, or answered too late
		// to keep the connection: the data connection's error stands.
		return reply{}, false
	}
	c.broken = false
	return r, true
}

// began checks the transfer command's reply and completes the transfer's
// set-up.
func (f *Fetcher) began(c *conn, pd *pending, st *startedTransfer, cmd string, r reply) (*startedTransfer, error) {
	if r.code/100 != 1 {
		c.abort(pd)
		if r.code/100 == 2 {
			c.broken = true
			return nil, c.req.Fail(schemes.ErrProtocol, cmd, r.code, r.last(), errors.New("transfer finished before it began"))
		}
		return nil, c.replyErr(cmd, r)
	}
	d, err := c.establish(pd)
	if err != nil {
		return nil, err
	}
	st.start = r.last()
	st.code = r.code
	st.transfer = &transfer{f: f, c: c, d: d, op: cmd, expect: -1, ahead: pd.ln == nil && !c.last}
	return st, nil
}

// fileInfo is what SIZE and MDTM said of a file (RFC 3659 §4, §3), asked
// with the walk to it: size is -1 when SIZE gave none.
type fileInfo struct {
	size int64
	mdtm reply
}

// head answers -I from SIZE and MDTM.
func (c *conn) head(p *plan, res *schemes.Resource, fi fileInfo) error {
	if p.ftp.Name == "" {
		return nil
	}
	if fi.size >= 0 {
		res.Size = fi.size
		res.Header = append(res.Header, [2]string{"Content-Length", strconv.FormatInt(fi.size, 10)})
	}
	if fi.mdtm.code == 213 {
		if t, ok := parseMDTM(fi.mdtm.last()); ok {
			res.ModTime = t
			res.Header = append(res.Header, [2]string{"Last-Modified", t.Format("Mon, 02 Jan 2006 15:04:05 GMT")})
		}
	} else if fi.mdtm.code == 550 && fi.size < 0 {
		return c.replyErr("MDTM "+p.arg, fi.mdtm)
	}
	if fi.size >= 0 {
		res.Header = append(res.Header, [2]string{"Accept-Ranges", "bytes"})
	}
	return nil
}

// sizeStep is SIZE for exchange: *size gets the file's size, or -1 when
// the server does not say; only 421 and 530 fail it. A 550 fails only
// the caller that needs the size.
func (c *conn) sizeStep(arg string, size *int64) step {
	cmd := "SIZE " + arg
	return step{line: cmd, check: func(r reply) error {
		*size = -1
		if r.code == 213 {
			if n, ok := parseSize(r.last()); ok {
				*size = n
			}
		}
		if r.code == 421 || r.code == 530 {
			return c.replyErr(cmd, r)
		}
		return nil
	}}
}

// setType sends TYPE when the connection is not in that type yet (RFC 959
// §3.1.1).
func (c *conn) setType(t string) error {
	if c.typ == t {
		return nil
	}
	return firstErr(c.exchange([]step{c.typeStep(t)}, false))
}

// sendTail sends tail, and the EPSV ahead when epsv is set, where no CWD
// is to go before them; with no tail nothing goes out, and the transfer
// command takes its EPSV along (startPipelined).
func (c *conn) sendTail(tail []step, epsv bool) error {
	if len(tail) == 0 {
		return nil
	}
	return firstErr(c.exchange(tail, epsv))
}

// typeStep is TYPE t for exchange: a refusal fails it.
func (c *conn) typeStep(t string) step {
	cmd := "TYPE " + t
	return step{line: cmd, check: func(r reply) error {
		if r.code/100 != 2 {
			return c.replyErr(cmd, r)
		}
		c.typ = t
		return nil
	}}
}

// features asks FEAT once per connection (RFC 2389).
func (c *conn) features() map[string]bool {
	if c.feat == nil {
		c.exchange([]step{c.featStep()}, false)
		if c.feat == nil {
			// The connection failed; the command after this says so.
			c.feat = map[string]bool{}
		}
	}
	return c.feat
}

// featStep is FEAT for exchange: it records the features the reply lists,
// none if the server refuses it.
func (c *conn) featStep() step {
	return step{line: "FEAT", check: func(r reply) error {
		c.feat = map[string]bool{}
		if r.code != 211 {
			return nil
		}
		for _, l := range strings.Split(r.text, "\n") {
			if len(l) > 1 && l[0] == ' ' {
				w, _, _ := strings.Cut(strings.TrimSpace(l), " ")
				c.feat[strings.ToUpper(w)] = true
			}
		}
		return nil
	}}
}

// pwdStep is PWD (RFC 959 §4.1.3) for exchange: found gets the directory
// a 257 reply names; any other reply is left at that.
func (c *conn) pwdStep(found func(dir string)) step {
	return step{line: "PWD", check: func(r reply) error {
		if r.code == 257 {
			if d, ok := parsePWD(r.last()); ok {
				found(d)
			}
		}
		return nil
	}}
}

// shortcut returns the absolute path of the file p names when the
// connection has been in p's directory before and the server named it
// then in PWD, so that a file elsewhere costs no CWD: "RETR /pub/d3/f"
// reaches what "CWD pub", "CWD d3", "RETR f" reaches from the login
// directory (RFC 1738 §3.2.2), on a server whose PWD paths are rooted at
// "/" (RFC 959 appendix II's Unix convention). Names that begin with "/"
// are left to the full walk.
func (c *conn) shortcut(p *plan, fileOp bool) (string, bool) {
	if !fileOp || c.dirKey == p.dirKey || p.arg == "" || strings.HasPrefix(p.arg, "/") {
		return "", false
	}
	var abs string
	if p.dirKey == "" {
		abs = c.loginDir
	} else {
		abs = c.absDir[p.dirKey]
	}
	if !strings.HasPrefix(abs, "/") {
		return "", false
	}
	if !strings.HasSuffix(abs, "/") {
		abs += "/"
	}
	return abs + p.arg, true
}

// maxAbsDirs bounds the directories a connection remembers.
const maxAbsDirs = 1024

// navigate walks from wherever the connection is to the directory p names,
// relative to the login directory (RFC 1738 §3.2.2). A connection already
// there stays; one elsewhere goes back to its login directory first, or
// straight to the absolute directory PWD named for p's CWD sequence when
// it has been there before. The PWDs serve later URLs only: the last
// request of a run (schemes.Expecter's end) sends none.
//
// Each CWD waits for the reply of the one before, so that none runs from
// the wrong directory after one fails. What needs no such wait rides
// along (exchange): the PWDs go out with the first CWD (the server answers
// PWD before it moves), tail's commands and the EPSV ahead (epsv) with the
// last; on a connection already there, tail and the EPSV go out alone,
// when there is a tail.
func (c *conn) navigate(p *plan, tail []step, epsv bool) error {
	if c.dirKey == p.dirKey {
		return c.sendTail(tail, epsv)
	}
	var pwds []step
	if c.dirKey == "" && !c.haveLogin {
		// Without the login directory the connection cannot serve
		// another URL after this one; with no other to come (c.last), it
		// is not asked for.
		c.loginDir, c.haveLogin = "", true
		if !c.last || c.wantPWD {
			pwds = append(pwds, c.pwdStep(func(d string) { c.loginDir = d; c.metrics.EntryPath(d) }))
		}
	}
	if c.dirKey != "" && c.dirKey != unknownDir && !c.last && len(c.absDir) < maxAbsDirs {
		if _, ok := c.absDir[c.dirKey]; !ok {
			key := c.dirKey
			pwds = append(pwds, c.pwdStep(func(d string) { c.absDir[key] = d }))
		}
	}
	// cwd sends one CWD, with the PWDs not sent yet before it and, when
	// last, tail and the EPSV after it, and returns the CWD's reply; a
	// refusal of tail's commands is returned as failed.
	cwd := func(cmd string, last bool) (r reply, failed, err error) {
		steps := append(pwds, step{line: cmd, check: func(x reply) error {
			r = x
			return nil
		}})
		pwds = nil
		if last {
			steps = append(steps, tail...)
		}
		failed, err = c.exchange(steps, last && epsv)
		return r, failed, err
	}
	if abs, known := c.absDir[p.dirKey]; known && p.dirKey != "" {
		r, failed, err := cwd("CWD "+abs, true)
		if err != nil {
			return err
		}
		if r.code/100 == 2 {
			c.dirKey, c.cwds = p.dirKey, p.cwds
			return failed
		}
		// The walk below sends tail again: what failed here may have
		// failed for want of the directory.
		delete(c.absDir, p.dirKey)
	}
	if c.dirKey != "" {
		if c.loginDir == "" {
			return errReconnect
		}
		last := len(p.cwds) == 0
		r, failed, err := cwd("CWD "+c.loginDir, last)
		if err != nil {
			return err
		}
		if r.code/100 != 2 {
			c.broken = true
			return errReconnect
		}
		c.dirKey = ""
		if last {
			return failed
		}
	}
	for i, d := range p.cwds {
		cmd := "CWD " + d
		if d == "" {
			// RFC 1738 §3.2.2: an empty segment is a CWD with no
			// argument, exactly.
			cmd = "CWD"
		}
		r, failed, err := cwd(cmd, i == len(p.cwds)-1)
		if err != nil {
			return err
		}
		if r.code/100 != 2 {
			c.dirKey = unknownDir
			e := c.replyErr(cmd, r)
			if d == "" {
				if r.code/100 == 5 {
					// vsftpd refuses it with 550, proftpd
					// with 501 (no argument): either way the
					// directory the URL names is not there.
					e.Kind = schemes.ErrNotFound
				}
				e.Err = errors.New("RFC 1738 §3.2.2: an empty path segment is a CWD with no argument, which this server refuses; to name an absolute path write %2F, as in ftp://host/%2Fetc/motd")
			}
			return e
		}
		if failed != nil {
			// In the directory, but what rode along was refused.
			c.dirKey, c.cwds = p.dirKey, p.cwds
			return failed
		}
	}
	c.dirKey, c.cwds = p.dirKey, p.cwds
	return nil
}
