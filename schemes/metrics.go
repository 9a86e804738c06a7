package schemes

import (
	"context"
	"crypto/x509"
	"net"
	"sync"
	"time"
)

// Metrics records what one fetch did on the way to its resource: when each
// of its phases ended, the connections it made and used, and for HTTP the
// redirects it followed and the size of its requests and response heads,
// the facts curl's --write-out variables report (time_namelookup,
// time_connect, num_connects, remote_ip, size_header, …).
//
// A caller that wants them puts a Metrics in the fetch's context
// (WithMetrics, or fetch.Request.Metrics); the dialer, the TLS handshake
// and the fetchers record into the one MetricsFrom finds there. Without
// one nothing is recorded: every method is a no-op on a nil *Metrics, so
// that a fetch that asks for nothing pays one context look-up a phase and
// nothing a byte. Its methods are safe for use by several goroutines.
type Metrics struct {
	mu sync.Mutex

	start time.Time // the fetch's start (NewMetrics)
	step  time.Time // the start of the current request: the fetch's, then each redirect's
	// at holds each phase's time, summed over the requests of the fetch
	// (curl adds each request's time since its own start, so that a
	// fetch that follows redirects reports the sum of its requests);
	// marked tells which phases the current request has marked.
	at     [numPhases]time.Duration
	marked [numPhases]bool

	redirect  time.Duration // the start of the final request, from start
	redirects int
	connects  int
	local     net.Addr
	remote    net.Addr
	connected bool // the current request has its connection recorded

	requestBytes int64
	headerBytes  int64
	method       string
	target       string
	proxyCode    int
	head         *Resource // the last response head: Proto, StatusCode, Status, Header
	entryPath    string
	certs        []*x509.Certificate
}

// Phase names a point of a fetch whose time Metrics records.
type Phase int

// The phases of a fetch, in the order they end, as curl names their times.
const (
	PhaseNameLookup    Phase = iota // the server's (or proxy's) name resolved (time_namelookup)
	PhaseConnect                    // its TCP connection made (time_connect)
	PhaseAppConnect                 // its TLS handshake done (time_appconnect)
	PhasePreTransfer                // the request about to go, logins and set-up done (time_pretransfer)
	PhaseStartTransfer              // the first byte of the answer in (time_starttransfer)
	numPhases
)

// NewMetrics returns a Metrics for a fetch that started at start.
func NewMetrics(start time.Time) *Metrics {
	return &Metrics{start: start, step: start}
}

type metricsKey struct{}

// WithMetrics returns ctx carrying m for the fetch made under it; a nil m
// returns ctx.
func WithMetrics(ctx context.Context, m *Metrics) context.Context {
	if m == nil {
		return ctx
	}
	return context.WithValue(ctx, metricsKey{}, m)
}

// MetricsFrom returns the Metrics ctx carries, nil when none.
func MetricsFrom(ctx context.Context) *Metrics {
	m, _ := ctx.Value(metricsKey{}).(*Metrics)
	return m
}

// Mark records that phase p of the current request ended now. Only its
// first mark a request counts: a second connection of the same request
// (an FTP data connection) leaves the times of the first.
func (m *Metrics) Mark(p Phase) {
	if m == nil {
		return
	}
	now := time.Now()
	m.mu.Lock()
	m.mark(p, now)
	m.mu.Unlock()
}

// mark is Mark with m.mu held. As curl does, a phase takes at least a
// microsecond, so that a phase that happened never reads as zero, the
// value of one that did not.
func (m *Metrics) mark(p Phase, now time.Time) {
	if m.marked[p] {
		return
	}
	m.marked[p] = true
	d := now.Sub(m.step)
	if d < time.Microsecond {
		d = time.Microsecond
	}
	m.at[p] += d
}

// Connected records a connection the fetch made: one more connect, and,
// when the current request has none yet, its addresses and the time its
// connection was made (PhaseConnect). Through a proxy the addresses are
// the proxy's, as curl reports them.
func (m *Metrics) Connected(c net.Conn) {
	if m == nil {
		return
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.connects++
	m.use(c, now)
}

// Reused records that the current request goes over c, a connection kept
// from an earlier fetch: its addresses, and the name look-up, connect and,
// for TLS, the handshake done at once.
func (m *Metrics) Reused(c net.Conn, tls bool) {
	if m == nil {
		return
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.use(c, now)
	if tls {
		m.mark(PhaseAppConnect, now)
	}
}

// use takes c's addresses for the current request's, when it has none,
// with m.mu held.
func (m *Metrics) use(c net.Conn, now time.Time) {
	m.mark(PhaseNameLookup, now)
	m.mark(PhaseConnect, now)
	if m.connected || c == nil {
		return
	}
	m.connected = true
	m.local, m.remote = c.LocalAddr(), c.RemoteAddr()
}

// Redirected records that the fetch follows a redirect: the request that
// follows starts now (curl's time_redirect), and its phases are added
// anew.
func (m *Metrics) Redirected() {
	if m == nil {
		return
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.redirects++
	m.redirect = now.Sub(m.start)
	m.step = now
	m.marked = [numPhases]bool{}
	m.connected = false
}

// Request records a request about to be sent for target (a URL), n
// bytes of it (its head): its method and target, and the time
// (PhasePreTransfer).
func (m *Metrics) Request(method, target string, n int64) {
	if m == nil {
		return
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.method = method
	m.target = target
	m.requestBytes += n
	m.mark(PhasePreTransfer, now)
}

// Response records the head of a response that came: its status and
// header fields (Proto, StatusCode, Status and Header, as a Resource holds
// them), n bytes of it on the wire, and the time its first byte came
// (PhaseStartTransfer), which is when it was read whole for a head that
// fits one read.
func (m *Metrics) Response(head *Resource, n int64) {
	if m == nil {
		return
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.head = head
	m.headerBytes += n
	m.mark(PhaseStartTransfer, now)
}

// HeadBytes records n bytes a server sent that are neither a body nor an
// HTTP head: FTP's replies on the control connection, which curl counts
// in size_header.
func (m *Metrics) HeadBytes(n int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.headerBytes += n
	m.mu.Unlock()
}

// Handshake records a TLS handshake that ended now (PhaseAppConnect)
// and the certificates the peer sent in it: the server's, the last
// handshake of a connection through a TLS proxy being the server's.
func (m *Metrics) Handshake(certs []*x509.Certificate) {
	if m == nil {
		return
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mark(PhaseAppConnect, now)
	m.certs = certs
}

// Sent records n bytes of a request that is not the fetch's own: an
// HTTP proxy's CONNECT, which curl counts in size_request.
func (m *Metrics) Sent(n int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.requestBytes += n
	m.mu.Unlock()
}

// ProxyConnect records the status code an HTTP proxy answered a CONNECT
// with (curl's http_connect), and the n bytes of its answer's head,
// which curl counts in size_header.
func (m *Metrics) ProxyConnect(code int, n int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.proxyCode = code
	m.headerBytes += n
	m.mu.Unlock()
}

// EntryPath records the directory an FTP login started in, as the server
// named it in its reply to PWD (curl's ftp_entry_path).
func (m *Metrics) EntryPath(p string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.entryPath = p
	m.mu.Unlock()
}

// MetricsReport is what a Metrics recorded, as Report gives it.
type MetricsReport struct {
	// Times holds each phase's time, indexed by Phase: the time from the
	// start of each request of the fetch to the phase's end, summed over
	// its requests; 0 for a phase that never ended (no TLS, no
	// connection).
	Times [numPhases]time.Duration
	// Redirect is the time from the start to the final request, 0 when
	// no redirect was followed; Redirects is how many were.
	Redirect  time.Duration
	Redirects int

	Connects      int      // the connections made (not reused)
	Local, Remote net.Addr // the addresses of the final request's connection, nil when none

	RequestBytes int64  // the bytes of every request's head
	HeaderBytes  int64  // the bytes of every response's head
	Method       string // the last request's method, "" when none was sent
	Target       string // the last request's URL, as the fetcher gave it (its password too), "" when none was sent
	ProxyCode    int    // the proxy's answer to the last CONNECT, 0 when none

	// Head is the last response's head (Proto, StatusCode, Status and
	// Header), nil when none came.
	Head *Resource

	EntryPath string // FTP's login directory, "" when not known

	// Certificates are those the server sent in the fetch's last TLS
	// handshake, the leaf first; nil without one.
	Certificates []*x509.Certificate
}

// Report returns what m recorded so far; the zero report when m is nil.
func (m *Metrics) Report() MetricsReport {
	if m == nil {
		return MetricsReport{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return MetricsReport{
		Times:        m.at,
		Redirect:     m.redirect,
		Redirects:    m.redirects,
		Connects:     m.connects,
		Local:        m.local,
		Remote:       m.remote,
		RequestBytes: m.requestBytes,
		HeaderBytes:  m.headerBytes,
		Method:       m.method,
		Target:       m.target,
		ProxyCode:    m.proxyCode,
		Head:         m.head,
		EntryPath:    m.entryPath,
		Certificates: m.certs,
	}
}
