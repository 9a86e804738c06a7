// Package fetch retrieves whatever an RFC 1738 URL names, streaming, with one
// policy for every scheme: timeouts, credentials, retries, size limits,
// progress, tracing and connection reuse. Fetch(ctx, url) uses a default
// Client that knows every scheme urlget implements.
package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urlget/urlget/internal/xfer"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// Client fetches URLs. Its zero value is ready to use and knows every scheme
// of the default registry; set Fetchers to choose another set. A Client keeps
// connections open between calls (one FTP or NNTP session per server and
// user, HTTP keep-alive), so fetching many URLs on one server logs in once;
// Close releases them.
//
// A Client holds the policy every scheme shares (timeouts, credentials,
// proxies, retries, limits); each protocol's own options are fields of its
// fetcher (ftp.Fetcher's Method, http.Fetcher's Header, …), set where the
// registry is built, as http.Transport holds its own settings.
//
// Fields must not be changed once the Client is in use.
type Client struct {
	// Fetchers maps a lower-case scheme name to its Fetcher. Nil means the
	// default registry, built on first use (see DefaultFetchers).
	Fetchers map[string]schemes.Fetcher

	// Dialer opens connections. Nil means a net.Dialer whose attempts
	// ConnectTimeout bounds (30 seconds each when it is 0). Resolve and
	// Network apply over it, and host names reach it in ASCII form.
	Dialer schemes.Dialer

	// Proxy chooses the proxy of each URL, nil for a direct connection
	// (see ProxyURL and NoProxy). Nil means ProxyFromEnvironment. Through
	// a proxy, every connection a fetch makes goes through it.
	Proxy func(u uri.URL) (*Proxy, error)

	// PreProxy, when not nil, is a SOCKS proxy every connection to an
	// http or https proxy goes through (curl's --preproxy).
	PreProxy *Proxy

	// ProxyUser holds the proxy's credentials (curl's --proxy-user) in
	// place of the proxy URL's; nil when none were given. They go to the
	// proxy only, never to a site.
	ProxyUser *url.Userinfo

	// Resolve pins host names and ports to addresses, as curl's
	// --resolve: a connection to an entry's host and port goes to its
	// addresses without a look-up (see ParseResolve). Later entries win.
	Resolve []ResolveEntry

	// Network is the network every connection is made on, as net.Dial
	// names it: "tcp4" keeps to IPv4 addresses and "tcp6" to IPv6 ones,
	// as curl's -4 and -6; "tcp" (or "") allows both.
	Network string

	// ConnectTimeout bounds everything before the resource's first byte
	// (curl's --connect-timeout, and more): connecting, the TLS handshake,
	// the server's greeting and the login, and the wait for the reply to
	// the request (an HTTP response header, an FTP 150 or the first data
	// byte, a gopher or WAIS reply). A server that accepts and then says
	// nothing ends the transfer with schemes.ErrTimeout. 0 means
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration

	// LowSpeedLimit and LowSpeedTime are curl's --speed-limit and
	// --speed-time: a transfer that receives fewer than LowSpeedLimit
	// bytes a second for LowSpeedTime ends with schemes.ErrTimeout. As in
	// curl, LowSpeedTime alone means a limit of 1 byte a second, and
	// LowSpeedLimit alone means over 30 seconds. The count starts with
	// the attempt, as curl's does: the bytes of a greeting, a login and a
	// reply's head count, and a server that says nothing is below any
	// limit. A listing counts the bytes of its entries as they arrive.
	LowSpeedLimit int64
	LowSpeedTime  time.Duration

	// IdleTimeout ends a transfer that receives nothing for this long,
	// so that no transfer waits forever on a silent server; 0 means
	// DefaultIdleTimeout, a negative value no bound. Only the time the
	// caller spends waiting for the body or listing counts.
	IdleTimeout time.Duration

	// Timeout bounds each URL's whole transfer, body included (curl's
	// --max-time); 0 means no limit. A body's WriteTo has written every
	// byte that arrived before it when it returns the timeout.
	Timeout time.Duration

	// TLSConfig is the base TLS configuration; nil means the system roots.
	TLSConfig *tls.Config

	// ProxyTLSConfig is the TLS configuration of the connections to an
	// https proxy (curl's --proxy-cacert, --proxy-insecure, …), apart
	// from the sites'; nil means TLSConfig.
	ProxyTLSConfig *tls.Config

	// User holds the credentials used when the URL names none (curl's
	// -u), nil when none were given; a user without a password (Password
	// reports false) is asked for one where a server wants it and Prompt
	// is set.
	User *url.Userinfo

	// Netrc is the .netrc data consulted for credentials the URL and User
	// do not give; nil means none is consulted (curl reads ~/.netrc only
	// when asked with --netrc). Its machine entries serve every URL of
	// their host; its default entry only a start URL's origin.
	Netrc *Netrc

	// LocationTrusted sends the credentials given for a start URL (User,
	// the start URL's userinfo, a .netrc default entry, and the
	// Authorization and Cookie header fields an http fetcher was
	// configured with) to every
	// origin its redirects and recursion reach, as curl's
	// --location-trusted. Without it they go only to the start URL's
	// scheme, host and port (see Request.Start).
	LocationTrusted bool

	// Prompt asks for a password without echo; nil when there is no
	// terminal to ask at.
	Prompt func(prompt string) (string, error)

	// Trace receives every protocol line, passwords masked (curl's -v).
	Trace schemes.Tracer

	// Progress, when not nil, is called as body bytes arrive.
	Progress func(p Progress)

	// MaxSize is the largest body accepted in bytes (curl's
	// --max-filesize); 0 means no limit.
	MaxSize int64

	// LimitRate bounds the rate the Client's bodies are read at, all of
	// them together, in bytes a second (curl's --limit-rate); 0 means no
	// bound. It is read at the Client's first use. See limiter.
	LimitRate int64

	// PlainCopy turns the kernel's copy paths off for the Client's
	// bodies: no splice, copy_file_range or sendfile, no body handing
	// its connection to the destination; every byte goes through a
	// buffer in user space, read with the body's Read and written with
	// the destination's Write. An archiving or tracing client needs every
	// byte through user space; it also tells whether a problem lies in a
	// fast path. The environment variable URLGET_NO_FASTPATH=1 does the
	// same for every Client of the process.
	PlainCopy bool

	// Retries is how many times a transient failure is retried (curl's
	// --retry), in curl's classes (see retryReason): a timeout or a name
	// that did not resolve, an HTTP 408, 429, 500, 502, 503 or 504
	// (whether it came as an error or as a Resource), an FTP 4xx reply.
	// RetryDelay is the wait between tries; 0 means exponential backoff
	// from one second, doubling up to ten minutes, or the wait an HTTP
	// server asks for with Retry-After. Retries are made while less than
	// RetryMaxTime has passed since the first attempt; 0 means no bound.
	Retries      int
	RetryDelay   time.Duration
	RetryMaxTime time.Duration

	// RetryConnRefused retries a refused connection too (curl's
	// --retry-connrefused); RetryAllErrors retries every failure (curl's
	// --retry-all-errors).
	RetryConnRefused bool
	RetryAllErrors   bool

	// OnRetry, when not nil, is told of each retry before its wait
	// (curl's "Will retry in N seconds" warning).
	OnRetry func(Retry)

	// Search holds search terms given apart from the URL (--search), for
	// gopher type-7 items and WAIS databases; nil when none were given.
	Search *string

	// Archive, when not nil, receives what each attempt of a fetch
	// exchanged with its servers, for an archive (see Archive): HTTP's
	// exchanges byte for byte, the other protocols' conversations and
	// listings, every body as the caller reads it. While it archives,
	// HTTP speaks HTTP/1.1 only and the caller reads each body through
	// Read. Nil archives nothing and costs nothing.
	Archive Archive

	// ArchiveCredentials keeps the credentials of HTTP requests in what
	// the Archive gets: without it the values of their Authorization,
	// Proxy-Authorization and Cookie fields are masked ("Basic ****",
	// "name=****"), as the archiving tools mask them in request records.
	// The URLs an Archive gets never hold a password.
	ArchiveCredentials bool

	once     sync.Once
	registry map[string]schemes.Fetcher
	dialer   schemes.Dialer
	tls      *tls.Config
	proxyTLS *tls.Config // ProxyTLSConfig, else tls
	proxy    func(u uri.URL) (*Proxy, error)
	rate     *xfer.Bucket // LimitRate's, shared by every body
	ahead    aheads       // the captures of requests Expect told of

	// noGateway holds the proxies (their URLs, redacted) that answered
	// 501 to a gopher: URL as a gateway: the run's later ones go by
	// CONNECT at once.
	noGateway sync.Map
}

// Request is one URL with the per-URL choices a caller can make.
type Request struct {
	URL uri.URL // the URL, absolute (see ParseURL)

	// Start is the URL the user gave that URL was reached from, by a link
	// of a recursion; the zero value means URL is one the user gave. The
	// credentials given for a start URL belong to its origin (scheme, host
	// and port, uri.URL.Origin): a URL of another origin is fetched with
	// only its own userinfo and its host's .netrc machine entry, unless
	// the Client's LocationTrusted says otherwise. Redirects are held to
	// the same rule by the fetchers that follow them.
	Start uri.URL

	Offset int64 // resume from this byte (curl's -C)
	// IfRange resumes only the representation this validator names; see
	// schemes.Request.IfRange.
	IfRange string
	Head    bool // metadata only (curl's -I)
	Raw     bool // a listing as the server's own bytes (--raw-listing)

	// IfModifiedSince and IfNoneMatch make the request conditional (--timestamping):
	// an http(s) server that finds the resource unchanged answers with a
	// Resource whose NotModified is set and that has neither Body nor
	// Listing. The zero values send no condition; other schemes ignore
	// them. See schemes.Request.IfModifiedSince.
	IfModifiedSince time.Time
	IfNoneMatch     string

	// IfUnmodifiedSince and Range are curl's -z with a leading '-' and
	// -r; see schemes.Request.IfUnmodifiedSince and Range.
	IfUnmodifiedSince time.Time
	Range             string

	// Metrics, when not nil, records the fetch's phases, connections and
	// HTTP exchanges as they happen (curl's -w times and counts; see
	// schemes.Metrics); nil records nothing.
	Metrics *schemes.Metrics
}

// Progress reports a body's transfer so far.
type Progress struct {
	URL   string // the URL, password masked
	Done  int64  // bytes received so far, counting from Offset
	Total int64  // the body's total length from Offset, -1 when unknown
	Final bool   // the transfer ended (successfully or not)
}

// DefaultClient is the Client used by Fetch.
var DefaultClient = &Client{}

// Fetch retrieves url with DefaultClient. The caller closes the returned
// Resource's Body or Listing.
func Fetch(ctx context.Context, url string) (*schemes.Resource, error) {
	return DefaultClient.Fetch(ctx, url)
}

// Fetch retrieves url, given as ParseURL takes it. The caller closes the
// returned Resource's Body or Listing.
func (c *Client) Fetch(ctx context.Context, url string) (*schemes.Resource, error) {
	u, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	return c.Do(ctx, Request{URL: u})
}

// ParseURL parses an absolute URL as a person typed or pasted it: white
// space around it, a "<URL:…>" wrapper and line breaks inside are dropped,
// and non-ASCII characters are %-encoded (uri.FromText, then uri.Parse). Its
// error wraps schemes.ErrBadURL and names the text, password masked.
func ParseURL(text string) (uri.URL, error) {
	t, err := uri.FromText(text)
	if err != nil {
		return uri.URL{}, badURL(text, err)
	}
	u, err := uri.Parse(t)
	if err != nil {
		return uri.URL{}, badURL(t, err)
	}
	return u, nil
}

func (c *Client) init() {
	c.once.Do(func() {
		c.registry = c.Fetchers
		if c.registry == nil {
			c.registry = DefaultFetchers()
		}
		d := c.Dialer
		if d == nil {
			t := c.ConnectTimeout
			if t <= 0 {
				t = dialTimeout
			}
			d = &net.Dialer{Timeout: t, KeepAlive: 30 * time.Second}
		}
		base := newBaseDialer(d, c.Resolve, c.Network)
		base.trace = c.Trace
		c.dialer = watchedDialer{base}
		c.tls = c.TLSConfig
		if c.tls == nil {
			c.tls = &tls.Config{}
		}
		c.proxyTLS = c.ProxyTLSConfig
		if c.proxyTLS == nil {
			c.proxyTLS = c.tls
		}
		c.proxy = c.Proxy
		if c.proxy == nil {
			c.proxy = ProxyFromEnvironment()
		}
		c.rate = xfer.NewBucket(c.LimitRate)
	})
}

// Schemes lists the schemes the client can fetch, sorted.
func (c *Client) Schemes() []string {
	c.init()
	names := make([]string, 0, len(c.registry))
	for k := range c.registry {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Close releases the connections the client's fetchers keep open.
func (c *Client) Close() error {
	c.init()
	c.ahead.reset()
	seen := map[schemes.Fetcher]bool{}
	var errs []error
	for _, f := range c.registry {
		if seen[f] {
			continue
		}
		seen[f] = true
		if cl, ok := f.(io.Closer); ok {
			if err := cl.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// notRetrievable names the schemes RFC 1738 defines that name no resource to
// fetch (a session, a mailbox, a directory service).
var notRetrievable = map[string]string{
	"telnet":   "a telnet: URL names an interactive session, not a resource",
	"mailto":   "a mailto: URL names a mailbox, not a resource",
	"prospero": "prospero: is a directory service urlget does not speak",
	"urn":      "a URN names a resource but not where to get it; resolve it to a URL first",
}

// Do retrieves one URL. On success exactly one of the Resource's Body and
// Listing is set (neither with Head, nor when NotModified answers a
// conditional request); the caller closes it. A transfer
// bounded by Timeout or by ctx stops when either ends, body included.
func (c *Client) Do(ctx context.Context, r Request) (*schemes.Resource, error) {
	c.init()
	u := r.URL
	if !u.IsAbs() {
		return nil, &schemes.Error{Kind: schemes.ErrBadURL, URL: u.Redacted(), Err: errNotAbsolute}
	}
	scheme := u.Scheme()
	f, ok := c.registry[scheme]
	if !ok {
		msg := notRetrievable[scheme]
		if msg == "" {
			msg = fmt.Sprintf("no fetcher for the %s: scheme", scheme)
		}
		return nil, &schemes.Error{Kind: schemes.ErrNotRetrievable, URL: u.Redacted(), Err: errors.New(msg)}
	}
	// A host name with non-ASCII characters goes on the wire, to name
	// resolution, in TLS server names and Host headers, listings and
	// messages as its IDNA A-labels (RFC 5891 §5): every fetcher gets the
	// URL in that form.
	u, err := u.ASCII()
	if err != nil {
		return nil, &schemes.Error{Kind: schemes.ErrBadURL, URL: r.URL.Redacted(), Err: err}
	}
	req := c.request(u, r)
	f, err = c.route(req, f)
	if err != nil {
		return nil, err
	}
	ctx = schemes.WithMetrics(ctx, r.Metrics)

	start := time.Now()
	sleep := c.RetryDelay
	if sleep <= 0 {
		sleep = time.Second
	}
	for left := c.Retries; ; left-- {
		res, err := c.attempt(ctx, f, req)
		if left <= 0 || ctx.Err() != nil {
			return res, err
		}
		reason := c.retryReason(scheme, res, err)
		// curl's --retry-max-time: retries are made while the time since
		// the first attempt is below it, however long the wait.
		if reason == "" || c.RetryMaxTime > 0 && time.Since(start) >= c.RetryMaxTime {
			return res, err
		}
		wait := sleep
		if reason == RetryHTTP {
			// curl honours the server's Retry-After for these statuses,
			// cut to what --retry-max-time leaves.
			if ra := retryAfterOf(res, err, time.Now()); ra > 0 {
				wait = ra
				if c.RetryMaxTime > 0 {
					wait = min(ra, max(0, c.RetryMaxTime-time.Since(start)))
				}
			}
		}
		if res != nil {
			closeResource(res)
		}
		c.Trace.TraceLine(schemes.Info, fmt.Sprintf("transient failure, retrying in %s (%d left): %v", wait, left-1, retryCause(res, err)))
		if c.OnRetry != nil {
			c.OnRetry(Retry{URL: req.URL.Redacted(), Reason: reason, Err: err, Wait: wait, Left: left})
		}
		// Without a fixed delay the wait doubles each time, up to ten
		// minutes (curl's RETRY_SLEEP_MAX).
		if c.RetryDelay <= 0 {
			sleep = min(sleep*2, 10*time.Minute)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			if err == nil {
				err = ctx.Err()
			}
			return nil, err
		case <-t.C:
		}
	}
}

// retryCause says what an attempt about to be retried met: its error, or
// the HTTP status of the Resource it brought.
func retryCause(res *schemes.Resource, err error) string {
	if err != nil {
		return err.Error()
	}
	return res.Proto + " " + res.Status
}

// attempt makes one attempt (once1), captured for the Archive when there
// is one: its exchanges as they happen, then what the fetcher returned,
// then the body or listing as the caller reads it, to its end.
func (c *Client) attempt(ctx context.Context, f schemes.Fetcher, req *schemes.Request) (*schemes.Resource, error) {
	if c.Archive == nil {
		return c.once1(ctx, f, req)
	}
	cp := c.Archive.Begin(archivedURL(req.URL))
	if cp == nil {
		return c.once1(ctx, f, req)
	}
	if !c.ArchiveCredentials {
		cp = maskingCapture{cp}
	}
	if a := c.ahead.take(req.URL.String()); a != nil {
		// Expect told of this request: what was sent of it ahead
		// belongs to this attempt.
		s := &serialCapture{cp: cp}
		a.attach(s)
		cp = s
	}
	res, err := c.once1(ctx, f, captured(req, cp))
	cp.Fetched(res, err)
	end := &captureEnd{cp: cp}
	switch {
	case err != nil:
		end.end(err)
	case res.Body != nil:
		res.Body = &capturedBody{rc: res.Body, cp: cp, end: end}
	case res.Listing != nil:
		res.Listing = &capturedListing{Listing: res.Listing, end: end}
	default:
		end.end(nil)
	}
	return res, err
}

// once1 makes one attempt: the fetcher's call under the transfer's
// deadline and the watchdog (see watchdog), with the body wrapped so that
// the deadline, the watchdog, the size limit and progress hold while it is
// read.
func (c *Client) once1(ctx context.Context, f schemes.Fetcher, req *schemes.Request) (*schemes.Resource, error) {
	tctx, cancelTime := ctx, context.CancelFunc(func() {})
	took := &tookTooLong{limit: c.Timeout}
	if c.Timeout > 0 {
		tctx, cancelTime = context.WithTimeoutCause(ctx, c.Timeout, &schemes.Error{
			Kind: schemes.ErrTimeout, URL: req.URL.Redacted(), Temporary: true, Err: took,
		})
	}
	wctx, cancelWatch := context.WithCancelCause(tctx)
	w := xfer.NewWatchdog(c.watchBounds(), cancelWatch)
	took.w.Store(w)
	cancel := func() {
		w.Stop()
		cancelWatch(nil)
		cancelTime()
	}
	mapErr := transferError(tctx, req)
	res, err := f.Fetch(w.Context(wctx), req)
	if err != nil {
		cancel()
		if werr := w.Fired(); werr != nil {
			return nil, mapErr(werr)
		}
		return nil, timeoutError(tctx, req, err)
	}
	if res.URL == "" {
		res.URL = req.URL.Redacted()
	}
	if m := schemes.MetricsFrom(ctx); m != nil {
		// A fetcher that marks no phases of its own (file:, gopher:,
		// wais:) is about to hand its first byte over: the times
		// before it are those of this moment. Marked phases keep
		// theirs.
		m.Mark(schemes.PhaseNameLookup)
		m.Mark(schemes.PhasePreTransfer)
		m.Mark(schemes.PhaseStartTransfer)
	}
	// A 304 brings no body: the size it may give is of the copy the
	// caller already holds.
	if c.MaxSize > 0 && !res.NotModified && res.Size > 0 && res.Size > c.MaxSize {
		closeResource(res)
		cancel()
		return nil, req.Fail(schemes.ErrTooLarge, "", 0, "", fmt.Errorf("%d bytes exceeds the limit of %d", res.Size, c.MaxSize))
	}
	switch {
	case res.Body != nil:
		total := int64(-1)
		if res.Size >= 0 {
			total = res.Size - res.Offset
		}
		w.Fetched()
		res.Body = xfer.New(tctx, res.Body, xfer.Config{
			Watch:    w,
			Cancel:   cancel,
			Max:      c.MaxSize,
			Progress: c.bodyProgress(req, total),
			Rate:     c.rate,
			Plain:    c.PlainCopy || req.Capture != nil,
			MapError: mapErr,
		})
	case res.Listing != nil:
		w.Fetched()
		res.Listing = &listing{Listing: res.Listing, ctx: tctx, cancel: cancel, watch: w, mapErr: mapErr, req: req}
	default:
		cancel()
	}
	return res, nil
}

// bodyProgress returns the progress callback of a body of req, total
// bytes long (-1 when unknown), calling the Client's Progress; nil when
// there is none.
func (c *Client) bodyProgress(req *schemes.Request, total int64) func(done int64, final bool) {
	if c.Progress == nil {
		return nil
	}
	url := req.URL.Redacted()
	return func(done int64, final bool) {
		c.Progress(Progress{URL: url, Done: done, Total: total, Final: final})
	}
}

// tookTooLong is the cause of a transfer that the Client's Timeout (curl's
// -m) ended, in curl's words, with the bytes of the body or listing that
// had arrived by then: read once the transfer has stopped, when the count
// no longer moves.
type tookTooLong struct {
	limit time.Duration
	w     atomic.Pointer[xfer.Watchdog]
}

func (e *tookTooLong) Error() string {
	var n int64
	if w := e.w.Load(); w != nil {
		n = w.Received()
	}
	return fmt.Sprintf("operation timed out after %d milliseconds with %d bytes received", e.limit.Milliseconds(), n)
}

func closeResource(res *schemes.Resource) {
	if res.Body != nil {
		res.Body.Close()
	}
	if res.Listing != nil {
		res.Listing.Close()
	}
}

// timeoutError reports a failure caused by the transfer's deadline as a
// timeout, whatever error the fetcher saw as the connection was closed:
// the Client's Timeout says how long the transfer was allowed; a deadline
// of the caller's own context wraps what the fetcher saw.
func timeoutError(ctx context.Context, req *schemes.Request, err error) error {
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	var se *schemes.Error
	if cause := context.Cause(ctx); errors.As(cause, &se) {
		return cause
	}
	if errors.Is(err, schemes.ErrTimeout) {
		return err
	}
	return &schemes.Error{Kind: schemes.ErrTimeout, URL: req.URL.Redacted(), Err: err, Temporary: true}
}

// errNotAbsolute is the cause when a Request's URL is not absolute.
var errNotAbsolute = errors.New("missing scheme (an absolute URL starts with a scheme and ':')")

func badURL(text string, err error) error {
	return &schemes.Error{Kind: schemes.ErrBadURL, URL: uri.RedactText(text), Err: err}
}

// request builds the schemes.Request: credentials resolved from the URL,
// then the client's User, then .netrc (RFC 1738 §3.1 userinfo first).
func (c *Client) request(u uri.URL, r Request) *schemes.Request {
	req := &schemes.Request{
		URL:             u,
		Offset:          r.Offset,
		IfRange:         r.IfRange,
		Head:            r.Head,
		Raw:             r.Raw,
		Search:          c.Search,
		Dialer:          c.dialer,
		TLSConfig:       c.tls,
		ProxyTLSConfig:  c.proxyTLS,
		Trace:           c.Trace,
		MaxSize:         c.MaxSize,
		Prompt:          c.Prompt,
		LocationTrusted: c.LocationTrusted,

		IfModifiedSince: r.IfModifiedSince,
		IfNoneMatch:     r.IfNoneMatch,

		IfUnmodifiedSince: r.IfUnmodifiedSince,
		Range:             r.Range,
	}
	start := u
	if r.Start.IsAbs() {
		start = r.Start
	}
	var home bool
	req.User, home = c.credentials(u, start)
	if !home {
		// The fetcher's own credential fields (HTTP's Authorization
		// and Cookie) stay off this URL too.
		req.Foreign = true
		// A link naming a user but no password is the server's
		// choice: the person at the terminal is not asked for a
		// password for a host they did not name.
		req.Prompt = nil
	}
	// A redirect is held to the same rule, from the same start.
	req.RedirectCredentials = func(target uri.URL) (user *url.Userinfo, fields bool) {
		if a, err := target.ASCII(); err == nil {
			target = a
		}
		return c.credentials(target, start)
	}
	return req
}

// credentials resolves the credentials of u, reached from the start URL
// start (u itself when the user gave it): u's own userinfo, then, on
// start's origin, -u (User) or start's userinfo, then .netrc, whose
// default entry counts on start's origin only. home tells whether u is on
// start's origin, or LocationTrusted makes every origin count as one:
// what the user gave for start (-H Authorization and Cookie too) goes to
// home URLs only, as curl's rule has it.
func (c *Client) credentials(u, start uri.URL) (userinfo *url.Userinfo, home bool) {
	home = c.LocationTrusted || start.Origin() == u.Origin()
	var given, givenPW string
	var hasGiven, hasGivenPW bool
	if c.User != nil {
		given, hasGiven = c.User.Username(), true
		givenPW, hasGivenPW = c.User.Password()
	}
	if su, ok := start.User(); ok {
		// A start URL's userinfo, like -u, is the user's credentials
		// for its origin (or, trusted, for all of the walk).
		pw, hasPW := start.Password()
		if !hasPW && hasGiven && hasGivenPW && given == su {
			pw, hasPW = givenPW, true
		}
		given, givenPW, hasGiven, hasGivenPW = su, pw, true, hasPW
	}
	var user, password string
	var hasUser, hasPassword bool
	if uu, ok := u.User(); ok {
		user, hasUser = uu, true
		if pw, ok := u.Password(); ok {
			password, hasPassword = pw, true
		} else if home && hasGiven && hasGivenPW && given == uu {
			// The URL names the user and -u (or the start URL) gives
			// the same user's password.
			password, hasPassword = givenPW, true
		}
	} else if home && hasGiven {
		user, hasUser = given, true
		password, hasPassword = givenPW, hasGivenPW
	}
	if !hasPassword && c.Netrc != nil {
		var named *url.Userinfo
		if hasUser {
			named = url.User(user)
		}
		if m, ok := c.Netrc.Lookup(u, named, home); ok {
			if !hasUser {
				user, hasUser = m.User.Username(), true
			}
			if pw, ok := m.User.Password(); ok {
				password, hasPassword = pw, true
			}
		}
	}
	switch {
	case !hasUser:
		return nil, home
	case hasPassword:
		return url.UserPassword(user, password), home
	}
	return url.User(user), home
}

// SendsAhead reports whether r's fetcher, told of r by Expect, would send
// its request ahead of its own Do (schemes.AheadSender: HTTP's pipelined
// GETs). Such a request is to be made in its turn, after the one before
// it is read: started early on another goroutine it finds its answer out
// of reach and is asked for twice. It does no I/O.
func (c *Client) SendsAhead(r Request) bool {
	c.init()
	if !r.URL.IsAbs() {
		return false
	}
	f, ok := c.registry[r.URL.Scheme()]
	if !ok {
		return false
	}
	x, ok := f.(schemes.AheadSender)
	if !ok {
		return false
	}
	u, err := r.URL.ASCII()
	if err != nil {
		return false
	}
	req := c.request(u, r)
	if rf, err := c.route(req, f); err != nil || rf != f {
		return false
	}
	return x.SendsAhead(req)
}

// Expect tells the client that the caller will make reqs next through Do,
// in this order, so that the fetchers that can (schemes.Expecter) ready
// themselves: HTTP sends the GET requests of a server's URLs ahead on one
// connection, NNTP pipelines articles by message-id. end tells that the
// caller makes no request after the last of reqs: FTP then leaves its
// connection unready for another. The caller's end of work is Close.
//
// Each request is built as Do would build it, with its own credentials
// (never another URL's), its own conditions and its host in ASCII form,
// and told to the fetcher of its scheme, which is handed only its own.
// A request Do would refuse, or would send through a gateway proxy, is
// left out. Expect does no I/O.
func (c *Client) Expect(reqs []Request, end bool) {
	c.init()
	type told struct {
		x    schemes.Expecter
		reqs []*schemes.Request
	}
	var runs []told
	for _, r := range reqs {
		if !r.URL.IsAbs() {
			continue
		}
		f, ok := c.registry[r.URL.Scheme()]
		if !ok {
			continue
		}
		x, ok := f.(schemes.Expecter)
		if !ok {
			continue
		}
		u, err := r.URL.ASCII()
		if err != nil {
			continue
		}
		req := c.request(u, r)
		if rf, err := c.route(req, f); err != nil || rf != f {
			continue
		}
		if c.Archive != nil {
			// What the fetcher sends of req ahead of its fetch is
			// kept for the fetch's capture.
			a := &aheadCapture{}
			req.Capture = a
			c.ahead.add(req.URL.String(), a)
		}
		i := 0
		for i < len(runs) && runs[i].x != x {
			i++
		}
		if i == len(runs) {
			runs = append(runs, told{x: x})
		}
		runs[i].reqs = append(runs[i].reqs, req)
	}
	for _, t := range runs {
		t.x.Expect(t.reqs, end)
	}
}
