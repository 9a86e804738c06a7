// Package http fetches http: and https: URLs (RFC 9110, RFC 9112) with the
// standard library's net/http. It adds urlget's policy on top: redirects only
// to http and https and at most 20 of them, credentials kept from other hosts,
// statuses of 400 and above as errors of the shared taxonomy (or, asked,
// their pages with the error at the end), resume through Range, bodies
// decoded when asked (--compressed), header fields as curl's -H gives them,
// and the conversation traced line by line for -v.
package http

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// MaxRedirects is how many redirects a fetch follows before it gives up,
// the limit curl's --max-redirs and wget's --max-redirect default to.
// Fetcher.MaxRedirects overrides it.
const MaxRedirects = 20

// NoRedirects is the Fetcher.MaxRedirects that follows no redirect.
const NoRedirects = -1

// sessionCacheSize is how many TLS sessions a Fetcher keeps for resumption:
// one per server a run reaches over TLS, and a run rarely reaches more.
const sessionCacheSize = 32

// maxIdlePerHost is how many idle connections to one host a Fetcher keeps
// for reuse: twice the most transfers a mirror runs to one host at once.
const maxIdlePerHost = 16

// drainLimit bounds how much of an error response's body is read and
// discarded so that its connection can be reused for the next URL.
const drainLimit = 64 << 10

// maxHeaderBytes bounds the status lines and header fields of one response,
// interim (1xx) responses included: a server that never ends its header
// must not take the process past its memory bound. curl allows 300 KB.
const maxHeaderBytes = 1 << 20

// Fetcher retrieves http: and https: URLs. Its zero value is ready to use.
//
// A Fetcher keeps one net/http Transport for its lifetime so that
// connections are reused across the URLs of one run. The Transport is built
// on the first Fetch from that request's Dialer and TLSConfig; later
// requests share it. Close closes the idle connections.
//
// Its settings, as http.Transport's, hold for every URL it fetches; they
// must not be changed once it is in use.
type Fetcher struct {
	// MaxRedirects is how many redirects a fetch follows before it fails:
	// 0 means MaxRedirects (20, curl's and wget's default), and
	// NoRedirects (any negative value) follows none, so that a redirect
	// fails.
	MaxRedirects int

	// UserAgent is the User-Agent field sent (RFC 9110 §10.1.5); empty
	// means "urlget". RemoveHeader sends none.
	UserAgent string

	// Header holds request header fields sent with every request, after
	// the default ones (User-Agent, Accept) and the credentials: a field
	// named here replaces a default one of that name, and a field with
	// an empty value is sent empty (RFC 9110 §5.5). A "Host" entry names
	// the Host field's value (RFC 9112 §3.2). The Authorization and
	// Cookie fields hold the user's credentials: they go only to the
	// origin they were given for (schemes.Request.Foreign, and the
	// redirect rule of schemes.Request.RedirectCredentials).
	Header http.Header

	// RemoveHeader names default header fields not to send at all (curl's
	// -H "Name:"), such as User-Agent or Accept; a field Header names is
	// still sent.
	RemoveHeader []string

	// Referer is sent as the Referer field (RFC 9110 §10.1.3) of the
	// first request. AutoReferer sends, with each redirected request, the
	// URL that redirected it (curl's --referer ";auto").
	Referer     string
	AutoReferer bool

	// Compressed asks for a compressed body (Accept-Encoding: gzip,
	// deflate, br, zstd) and decodes it while it streams (RFC 9110
	// §8.4); Resource.Size is then -1. Without it the body is passed on
	// as the server sent it. A request that resumes (Offset > 0) asks for
	// no encoding, so that the range is one of the plain bytes.
	Compressed bool

	// FailWithBody returns the body of a response whose status is 400 or
	// above instead of failing at once: reading it to its end then
	// returns the status error in place of io.EOF (curl's
	// --fail-with-body).
	FailWithBody bool

	// OnResponse, when not nil, receives the status and header fields of
	// every response of a fetch as they arrive, redirects and error
	// statuses included (curl's -D and -i), as a Resource holding only
	// Proto, StatusCode, Status and Header, the form -I shows. It is
	// called on the goroutine that called Fetch.
	OnResponse func(head *schemes.Resource)

	mu        sync.Mutex
	transport *http.Transport
	pipes     map[string][]*pipeline // pipelined connections, by host:port
	expected  schemes.Expected       // the runs told by Expect (pipeline.go)
}

// Close closes the connections kept open for reuse.
func (f *Fetcher) Close() error {
	f.mu.Lock()
	t := f.transport
	f.mu.Unlock()
	if t != nil {
		t.CloseIdleConnections()
	}
	f.closePipelines()
	f.expected.Reset()
	return nil
}

func (f *Fetcher) transportFor(req *schemes.Request) *http.Transport {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.transport == nil {
		tc := &tls.Config{}
		if req.TLSConfig != nil {
			tc = req.TLSConfig.Clone()
		}
		if tc.ClientSessionCache == nil {
			// The connections of a run resume the first one's TLS
			// session (RFC 8446 §2.2, RFC 5077), as curl's do: no
			// certificate to check again, no key exchange.
			tc.ClientSessionCache = tls.NewLRUClientSessionCache(sessionCacheSize)
		}
		first := req.Dialer
		f.transport = &http.Transport{
			// Each request dials through its own Dialer (direct, or
			// through the SOCKS proxy or tunnel its URL was given), and
			// reaches its own HTTP proxy, if any.
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				dialer := first
				if h, ok := ctx.Value(hopKey{}).(*hopDialer); ok {
					dialer = h.get()
				}
				c, err := dialer.DialContext(ctx, network, addr)
				if tc, ok := c.(*net.TCPConn); ok && err == nil {
					return &sockConn{TCPConn: tc}, nil
				}
				return c, err
			},
			TLSClientConfig: tc,
			// Like curl, pass the body as the server sent it: a gzip
			// Content-Encoding is the user's to undo (RFC 9110 §8.4).
			DisableCompression: true,
			// A custom DialContext turns HTTP/2 off unless asked for;
			// curl offers h2 over TLS (ALPN, RFC 9113 §3.2), and so does
			// urlget, for every URL of a run alike: a server is spoken to
			// the same way whether a URL comes alone or among others.
			ForceAttemptHTTP2: true,
			// A parallel run or mirror keeps up to that many transfers
			// to one host at once (a mirror's default is 8): each
			// connection goes back to the pool when its body ends and
			// the next URL takes it, where net/http's default of 2 idle
			// connections per host would close the rest and open new
			// ones, a handshake (TLS too) per file.
			MaxIdleConnsPerHost: maxIdlePerHost,
			IdleConnTimeout:     90 * time.Second,
			// Named, not left to the default, because body.lowWater
			// relies on it: no more of a body than this waits in the
			// Transport's buffer rather than in the socket.
			ReadBufferSize:         readBufferSize,
			MaxResponseHeaderBytes: maxHeaderBytes,
			Proxy:                  proxyFor,
			GetProxyConnectHeader:  traceConnect,
			OnProxyConnectResponse: connectResponse,
		}
	}
	return f.transport
}

// requestKey is the context key of the schemes.Request an http.Request
// serves, for the Transport's hooks.
type requestKey struct{}

// hopKey is the context key of the hopDialer of a fetch.
type hopKey struct{}

// hopDialer is the Dialer of the hop of a redirect chain being sent: the
// request's, then, after each redirect, the one Request.HTTPDialer gives
// for its URL, whose proxy may differ. The hops of a fetch are sent one
// after the other, each after CheckRedirect sets its Dialer.
type hopDialer struct {
	mu sync.Mutex
	d  schemes.Dialer
}

func (h *hopDialer) get() schemes.Dialer {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.d
}

func (h *hopDialer) set(d schemes.Dialer) {
	h.mu.Lock()
	h.d = d
	h.mu.Unlock()
}

// proxyFor is the Transport's Proxy: the request's choice for this hop.
func proxyFor(r *http.Request) (*url.URL, error) {
	p, req, err := requestProxy(r)
	if p != nil {
		// net/http sends Proxy-Authorization from p's userinfo: on the
		// CONNECT for https, on each absolute-form request for http
		// (RFC 9112 §3.2.2). It never reaches the site.
		req.Trace.TraceLine(schemes.Info, "Using proxy "+maskedProxy(p)+" for "+r.URL.Redacted())
	}
	return p, err
}

// requestProxy returns the HTTP proxy r goes through, nil for none, and
// the schemes.Request it serves.
func requestProxy(r *http.Request) (*url.URL, *schemes.Request, error) {
	req, ok := r.Context().Value(requestKey{}).(*schemes.Request)
	if !ok || req.HTTPProxy == nil {
		return nil, req, nil
	}
	p, err := req.HTTPProxy(r.URL)
	if err != nil {
		return nil, req, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	return p, req, nil
}

// maskedProxy is a proxy URL with its password masked as urlget masks
// every password ("****", where url.Redacted writes "xxxxx").
func maskedProxy(p *url.URL) string {
	if p.User == nil {
		return p.String()
	}
	q := *p
	q.User = nil
	scheme, rest, _ := strings.Cut(q.String(), "://")
	user := url.User(p.User.Username()).String()
	if _, ok := p.User.Password(); ok {
		user += ":****"
	}
	return scheme + "://" + user + "@" + rest
}

// traceConnect traces the CONNECT request net/http sends to a proxy for an
// https URL (RFC 9110 §9.3.6), credentials masked.
func traceConnect(ctx context.Context, proxy *url.URL, target string) (http.Header, error) {
	if req, ok := ctx.Value(requestKey{}).(*schemes.Request); ok && req.Trace != nil {
		req.Trace.TraceLine(schemes.Sent, "CONNECT "+target+" HTTP/1.1")
		req.Trace.TraceLine(schemes.Sent, "Host: "+target)
		if proxy.User != nil {
			req.Trace.TraceSecret("Proxy-Authorization: Basic ")
		}
	}
	return nil, nil
}

// connectResponse reads the proxy's reply to CONNECT: anything but 2xx
// fails the fetch with the proxy's status (curl's exit 56).
func connectResponse(ctx context.Context, proxy *url.URL, _ *http.Request, resp *http.Response) error {
	req, ok := ctx.Value(requestKey{}).(*schemes.Request)
	if !ok {
		return nil
	}
	req.Trace.TraceLine(schemes.Received, resp.Proto+" "+resp.Status)
	if resp.StatusCode/100 == 2 {
		return nil
	}
	return &schemes.Error{Kind: schemes.ErrProxyTunnel, URL: req.URL.Redacted(), Reply: resp.Status}
}

// Fetch sends a GET (a HEAD when req.Head is set) for req.URL and returns
// the response body as a stream.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	scheme := req.URL.Scheme()
	if scheme != "http" && scheme != "https" {
		return nil, req.Fail(schemes.ErrNotRetrievable, "", 0, "", fmt.Errorf("scheme %q is not http or https", scheme))
	}
	target, err := requestURL(req.URL)
	if err != nil {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	if req.Dialer == nil {
		return nil, req.Fail(schemes.ErrConnect, "", 0, "", errors.New("request has no dialer"))
	}
	maxRedirects := f.MaxRedirects
	switch {
	case maxRedirects == 0:
		maxRedirects = MaxRedirects
	case maxRedirects < 0:
		maxRedirects = 0
	}

	method := http.MethodGet
	if req.Head {
		method = http.MethodHead
	}
	hreq, err := f.newRequest(ctx, req, target, method)
	if err != nil {
		return nil, err
	}
	if res, err, ok := f.pipelined(ctx, req, hreq); ok {
		return res, err
	}
	firstReferer := hreq.Header.Get("Referer")
	auth := hreq.Header.Get("Authorization") // -u's, or -H's in its place
	cookie := hreq.Header.Values("Cookie")   // -H's

	origin := originOf(target)
	hop := &hopDialer{d: req.Dialer}
	client := &http.Client{
		Transport: &tracingTransport{rt: f.transportFor(req), trace: req.Trace, onResponse: f.OnResponse},
		CheckRedirect: func(r *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return req.Fail(schemes.ErrProtocol, method, 0, "",
					fmt.Errorf("stopped after %d redirects: %w", maxRedirects, schemes.ErrTooManyRedirects))
			}
			// Only http and https may follow: a Location of file: or any
			// other scheme would let a server read local files or reach
			// services the user never named.
			if r.URL.Scheme != "http" && r.URL.Scheme != "https" {
				return req.Fail(schemes.ErrAccessDenied, method, 0, "",
					fmt.Errorf("refusing redirect to %s: only http and https redirects are followed", r.URL.Redacted()))
			}
			// A Location naming a host in Unicode is followed to its
			// IDNA A-labels, the form the first request used (RFC 5891
			// §5), so that the origin check below and the final URL
			// compare and show ASCII names.
			if err := asciiHost(r.URL); err != nil {
				return req.Fail(schemes.ErrBadURL, method, 0, "", err)
			}
			// net/http names the page that redirected in a Referer;
			// curl sends none unless asked (--referer ";auto"), and
			// neither does urlget: the next host learns nothing of
			// where the request came from (RFC 9110 §10.1.3) but the
			// Referer the user gave.
			if ref := f.referer(firstReferer, via[len(via)-1], r); ref != "" {
				r.Header.Set("Referer", ref)
			} else {
				r.Header.Del("Referer")
			}
			// Credentials go only to the origin they were given for
			// (scheme, host and port), never to another one a redirect
			// names, as curl does without --location-trusted; an
			// Authorization given with -H is kept as one from -u. A
			// Cookie field given with -H is the first origin's too:
			// net/http copies it to a subdomain or another port, curl
			// drops it there (net/http's own check is by host name
			// only). Another origin may have credentials of its own
			// (its userinfo, its .netrc entry), which the fetch
			// package's rule gives.
			fields := req.LocationTrusted || originOf(r.URL) == origin
			var user *url.Userinfo
			if req.RedirectCredentials != nil {
				if t, err := uri.Parse(r.URL.String()); err == nil {
					var home bool
					user, home = req.RedirectCredentials(t)
					fields = fields && home
				}
			}
			r.Header.Del("Authorization")
			r.Header.Del("Cookie")
			switch {
			case fields && auth != "":
				r.Header.Set("Authorization", auth)
			case user != nil:
				password, _ := user.Password()
				r.SetBasicAuth(user.Username(), password)
			}
			if fields && cookie != nil {
				r.Header["Cookie"] = cookie
			}
			if req.HTTPDialer != nil {
				hop.set(req.HTTPDialer(r.URL))
			}
			return nil
		},
	}
	// The connection of the last request, the one the final response
	// came on (GotConn runs in RoundTrip, on this goroutine for HTTP/1).
	var conn net.Conn
	hreq = hreq.WithContext(httptrace.WithClientTrace(context.WithValue(context.WithValue(hreq.Context(), requestKey{}, req), hopKey{}, hop), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { conn = info.Conn },
	}))
	resp, err := client.Do(hreq)
	if err != nil {
		return nil, doError(ctx, req, method, err)
	}
	res, err := f.resource(ctx, req, resp, conn)
	return res, err
}

// newRequest builds the request of a fetch of target: the header fields
// every request carries (User-Agent, Accept, Range or Accept-Encoding,
// Referer, the conditions, credentials and -H's).
func (f *Fetcher) newRequest(ctx context.Context, req *schemes.Request, target *url.URL, method string) (*http.Request, error) {
	hreq, err := http.NewRequestWithContext(ctx, method, "http://placeholder/", nil)
	if err != nil {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	hreq.URL = target
	hreq.Host = target.Host
	ua := f.UserAgent
	if ua == "" {
		ua = "urlget"
	}
	if err := req.CheckArg("User-Agent header", ua); err != nil {
		return nil, err
	}
	hreq.Header.Set("User-Agent", ua)
	hreq.Header.Set("Accept", "*/*")
	if req.Offset > 0 {
		// RFC 9110 §14.1.2: an open-ended byte range from the resume point.
		hreq.Header.Set("Range", "bytes="+strconv.FormatInt(req.Offset, 10)+"-")
		if req.IfRange != "" {
			// RFC 9110 §13.1.5: the range only of the representation
			// the part came from; a changed one is sent whole (200).
			if err := req.CheckArg("If-Range header", req.IfRange); err != nil {
				return nil, err
			}
			hreq.Header.Set("If-Range", req.IfRange)
		}
	} else if f.Compressed {
		// Only a request from byte 0 asks for an encoding: a range
		// applies to the encoded bytes (RFC 9110 §14.1.2), which a
		// resumed file of plain bytes cannot continue.
		hreq.Header.Set("Accept-Encoding", acceptEncoding)
	}
	if f.Referer != "" {
		hreq.Header.Set("Referer", f.Referer)
	}
	if err := conditions(req, hreq.Header); err != nil {
		return nil, err
	}
	user, password, hasAuth, err := credentials(req)
	if err != nil {
		return nil, err
	}
	if hasAuth {
		if err := req.CheckArg("user", user); err != nil {
			return nil, err
		}
		if err := req.CheckArg("password", password); err != nil {
			return nil, err
		}
		hreq.SetBasicAuth(user, password)
	}
	if err := f.applyHeaders(req, hreq); err != nil {
		return nil, err
	}
	return hreq, nil
}

// resource turns a response into a Resource or an error.
func (f *Fetcher) resource(ctx context.Context, req *schemes.Request, resp *http.Response, conn net.Conn) (*schemes.Resource, error) {
	method := resp.Request.Method
	res := &schemes.Resource{
		URL:         resp.Request.URL.Redacted(),
		ContentType: resp.Header.Get("Content-Type"),
		Size:        -1,
		Name:        fileName(resp),
		Header:      HeaderPairs(fields(resp)),
		ETag:        resp.Header.Get("ETag"),
	}
	res.Proto, res.StatusCode, res.Status = status(resp)
	var cs []string
	if f.Compressed {
		cs = codings(resp.Header.Get("Content-Encoding"))
	}
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		res.ModTime = t
	}
	res.Validator = strongValidator(resp.Header)

	if resp.StatusCode < 200 {
		// Only a 101 gets here (interim responses are skipped), and
		// urlget never asks to switch protocols (RFC 9110 §15.2.2).
		resp.Body.Close()
		return nil, req.Fail(schemes.ErrProtocol, method, resp.StatusCode, resp.Status,
			errors.New("switching protocols, which the request did not ask for"))
	}
	if resp.StatusCode >= 400 {
		// RFC 9110 §15.5.17: a 416 to a resume whose offset is exactly the
		// current length means the file is already complete.
		if resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && req.Offset > 0 {
			if total, ok := unsatisfiedLength(resp.Header.Get("Content-Range")); ok && total == req.Offset {
				discard(resp.Body)
				res.Size = total
				res.Offset = total
				if !req.Head {
					res.Body = http.NoBody
				}
				return res, nil
			}
		}
		serr := statusError(req, resp)
		if f.FailWithBody && !req.Head {
			// The error page goes where the body would, and the
			// status error ends it (curl's --fail-with-body).
			if len(cs) == 0 && resp.ContentLength >= 0 {
				res.Size = resp.ContentLength
			}
			if err := undecodable(req, resp, cs); err != nil {
				return nil, err
			}
			res.Body = wrapBody(req, &body{rc: resp.Body, ctx: ctx, req: req}, cs, serr)
			return res, nil
		}
		discard(resp.Body)
		return nil, serr
	}

	if resp.StatusCode == http.StatusNotModified && conditional(req) {
		return notModified(resp, res), nil
	}

	switch {
	case resp.StatusCode == http.StatusPartialContent && req.Offset > 0:
		start, total, ok := contentRange(resp.Header.Get("Content-Range"))
		if !ok {
			discard(resp.Body)
			return nil, req.Fail(schemes.ErrProtocol, method, resp.StatusCode, resp.Status,
				fmt.Errorf("206 response with unusable Content-Range %q", resp.Header.Get("Content-Range")))
		}
		if req.IfRange != "" && !sameRepresentation(req.IfRange, resp.Header) {
			// A 206 for a representation other than the one If-Range
			// names (RFC 9110 §13.1.5 forbids it; a server that ignores
			// If-Range sends it): its bytes are not the rest of the part,
			// so the whole of the new one is asked for instead.
			discard(resp.Body)
			whole := *req
			whole.Offset, whole.IfRange = 0, ""
			return f.Fetch(ctx, &whole)
		}
		res.Offset = start
		res.Size = total
	case len(cs) > 0:
		// The decoded size is known only once the body is read.
	case resp.ContentLength >= 0:
		// A 200 to a Range request is the whole resource from byte 0.
		res.Size = resp.ContentLength
	}
	if req.MaxSize > 0 && res.Size > req.MaxSize {
		discard(resp.Body)
		return nil, req.Fail(schemes.ErrTooLarge, method, 0, "",
			fmt.Errorf("Content-Length %d exceeds the limit of %d", res.Size, req.MaxSize))
	}
	if req.Head {
		resp.Body.Close()
		return res, nil
	}
	b := &body{rc: resp.Body, ctx: ctx, req: req}
	if len(cs) > 0 {
		if err := undecodable(req, resp, cs); err != nil {
			return nil, err
		}
		res.Body = wrapBody(req, b, cs, nil)
		return res, nil
	}
	if resp.ProtoMajor == 1 && resp.ContentLength > 0 && len(resp.TransferEncoding) == 0 {
		// A body of known length alone on a plain TCP connection: the
		// socket carries the body's bytes and nothing else until its
		// end, which WriteTo can then take from the socket itself.
		if sc, ok := conn.(*sockConn); ok {
			b.remain, b.sock = resp.ContentLength, sc
		}
	}
	res.Body = b
	return res, nil
}

// strongValidator returns what a later resume of the representation may
// send as If-Range (RFC 9110 §13.1.5): its entity tag when that is strong;
// without any entity tag, its Last-Modified when that is a strong
// validator, at least one second before the response's Date (§8.8.2.2);
// else "". A weak entity tag rules the date out: a client that has an
// entity tag must not send a date in If-Range.
func strongValidator(h http.Header) string {
	if etag := h.Get("ETag"); etag != "" {
		if strings.HasPrefix(etag, "W/") || !strings.HasPrefix(etag, `"`) {
			return ""
		}
		return etag
	}
	lm := h.Get("Last-Modified")
	mod, err := http.ParseTime(lm)
	if err != nil {
		return ""
	}
	date, err := http.ParseTime(h.Get("Date"))
	if err != nil || date.Sub(mod) < time.Second {
		return ""
	}
	return lm
}

// sameRepresentation reports whether a 206 response with header h can be
// of the representation ifRange names: its entity tag, or for a date its
// Last-Modified, is the same when it gives one (RFC 9110 §13.1.5, the
// strong comparison of §8.8.3.2).
func sameRepresentation(ifRange string, h http.Header) bool {
	if strings.HasPrefix(ifRange, `"`) {
		etag := h.Get("ETag")
		return etag == "" || etag == ifRange
	}
	lm := h.Get("Last-Modified")
	if lm == "" {
		return h.Get("ETag") == ""
	}
	a, err1 := http.ParseTime(lm)
	b, err2 := http.ParseTime(ifRange)
	return err1 == nil && err2 == nil && a.Equal(b)
}

// conditional reports whether req asks for the resource only if changed.
func conditional(req *schemes.Request) bool {
	return !req.IfModifiedSince.IsZero() || req.IfNoneMatch != ""
}

// conditions sets the fields of a conditional request (-N): If-None-Match
// as given (RFC 9110 §13.1.2), If-Modified-Since as an IMF-fixdate (§13.1.3,
// §5.6.7). A server that honours If-None-Match ignores If-Modified-Since
// (§13.2.2), so sending both costs nothing. net/http's Client copies both
// to each redirected request, so the conditions hold for the final URL.
func conditions(req *schemes.Request, h http.Header) error {
	if req.IfNoneMatch != "" {
		if err := req.CheckArg("If-None-Match header", req.IfNoneMatch); err != nil {
			return err
		}
		h.Set("If-None-Match", req.IfNoneMatch)
	}
	if !req.IfModifiedSince.IsZero() {
		h.Set("If-Modified-Since", req.IfModifiedSince.UTC().Format(http.TimeFormat))
	}
	return nil
}

// notModified completes the Resource of a 304 answer to a conditional
// request: no body (RFC 9110 §15.4.5), and the size only when the server
// sent the Content-Length a 200 would have carried (§8.6); net/http
// reports a 304's ContentLength as 0 whatever the field says.
func notModified(resp *http.Response, res *schemes.Resource) *schemes.Resource {
	resp.Body.Close()
	res.NotModified = true
	if n, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
		res.Size = n
	}
	return res
}

// undecodable fails a response whose body is in a content coding urlget
// cannot undo (curl's exit 61 is a protocol error here), closing it.
func undecodable(req *schemes.Request, resp *http.Response, cs []string) error {
	for _, c := range cs {
		if !decodable[c] {
			resp.Body.Close()
			return req.Fail(schemes.ErrProtocol, resp.Request.Method, resp.StatusCode, resp.Status,
				fmt.Errorf("content coding %q, which urlget cannot decode", c))
		}
	}
	return nil
}

// credentials returns the user and password to send, asking for the
// password when a user was named without one and a terminal is there.
func credentials(req *schemes.Request) (user, password string, ok bool, err error) {
	if req.User == nil {
		return "", "", false, nil
	}
	user = req.User.Username()
	password, hasPassword := req.User.Password()
	if !hasPassword && req.Prompt != nil {
		password, err = req.Prompt(fmt.Sprintf("Enter host password for user '%s':", user))
		if err != nil {
			return "", "", false, req.Fail(schemes.ErrLoginFailed, "", 0, "", err)
		}
	}
	return user, password, true, nil
}

// requestURL converts the parsed URL into net/http's form without changing
// a byte of the path or query as written (RFC 9112 §3.2.1: origin-form is
// the path and query of the target URI). The fragment and any userinfo are
// left out: neither is ever sent (RFC 9110 §4.2.4, §7.1).
func requestURL(u uri.URL) (*url.URL, error) {
	if u.Hostname() == "" {
		return nil, errors.New("http URL has no host")
	}
	host := u.RawHost()
	if p, ok := u.Port(); ok && p != "" {
		host += ":" + p
	}
	raw := u.Path()
	if raw == "" {
		raw = "/"
	}
	dec, err := uri.Unescape(raw)
	if err != nil {
		return nil, err
	}
	t := &url.URL{Scheme: u.Scheme(), Host: host, Path: dec, RawPath: raw}
	if q, ok := u.Query(); ok {
		t.RawQuery = q
		t.ForceQuery = q == ""
	}
	for _, s := range []string{host, raw, t.RawQuery} {
		if strings.ContainsAny(s, "\r\n\x00 ") {
			return nil, errors.New("URL holds a space or control byte")
		}
	}
	return t, nil
}

// asciiHost converts u's host to its IDNA A-labels when it holds non-ASCII
// characters (uri.HostASCII).
func asciiHost(u *url.URL) error {
	h := u.Hostname()
	a, err := uri.HostASCII(h)
	if err != nil || a == h {
		return err
	}
	if p := u.Port(); p != "" {
		a = net.JoinHostPort(a, p)
	}
	u.Host = a
	return nil
}

// originOf names a URL's origin (RFC 6454 §4): scheme, host and port, with
// the default port filled in.
func originOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = uri.DefaultPort(u.Scheme)
	}
	return u.Scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// doError converts an error from http.Client.Do into the taxonomy.
func doError(ctx context.Context, req *schemes.Request, method string, err error) error {
	var se *schemes.Error
	if errors.As(err, &se) {
		return se
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "proxyconnect" && ctx.Err() == nil {
		// net/http could not reach the proxy: its name not resolving
		// is curl's exit 5, apart from a site's.
		e := req.NetError("connect to proxy", op.Err)
		if errors.As(e, &se) && se.Kind == schemes.ErrResolve {
			se.Kind = schemes.ErrProxyResolve
		}
		return e
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &schemes.Error{Kind: schemes.ErrTimeout, URL: req.URL.Redacted(), Op: method, Err: ctx.Err(), Temporary: true}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return req.NetError(method, err)
}

// statusError builds the error for a response status of 400 or above.
// Code carries the status so the command can exit 22 for any of them.
func statusError(req *schemes.Request, resp *http.Response) error {
	kind := schemes.ErrProtocol
	temp := false
	switch code := resp.StatusCode; {
	case code == http.StatusNotFound, code == http.StatusGone:
		kind = schemes.ErrNotFound
	case code == http.StatusUnauthorized:
		kind = schemes.ErrAccessDenied
		if resp.Request.Header.Get("Authorization") != "" {
			kind = schemes.ErrLoginFailed
		}
	case code == http.StatusForbidden:
		kind = schemes.ErrAccessDenied
	case code >= 500:
		// RFC 9110 §15.6: the server failed a request it took as valid.
		kind, temp = schemes.ErrServer, true
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests:
		temp = true
	}
	e := req.Fail(kind, resp.Request.Method, resp.StatusCode, resp.Status, nil)
	if u := resp.Request.URL.Redacted(); u != e.URL {
		e.Err = fmt.Errorf("after redirect to %s", u)
	}
	e.Temporary = temp
	return e
}

// discard reads and drops at most drainLimit bytes of a body we do not
// want, so that a short error page leaves its connection reusable, then
// closes it.
func discard(rc io.ReadCloser) {
	io.CopyN(io.Discard, rc, drainLimit)
	rc.Close()
}

// contentRange parses "bytes first-last/complete" (RFC 9110 §14.4); total
// is -1 when the complete length is "*".
func contentRange(v string) (start, total int64, ok bool) {
	rest, found := strings.CutPrefix(v, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, length, found := strings.Cut(strings.TrimSpace(rest), "/")
	if !found {
		return 0, 0, false
	}
	first, last, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, false
	}
	start, err1 := strconv.ParseInt(first, 10, 64)
	end, err2 := strconv.ParseInt(last, 10, 64)
	if err1 != nil || err2 != nil || start < 0 || end < start {
		return 0, 0, false
	}
	if length == "*" {
		return start, -1, true
	}
	total, err := strconv.ParseInt(length, 10, 64)
	if err != nil || total <= end {
		return 0, 0, false
	}
	return start, total, true
}

// unsatisfiedLength parses the "bytes */complete" form a 416 carries.
func unsatisfiedLength(v string) (int64, bool) {
	rest, found := strings.CutPrefix(v, "bytes */")
	if !found {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
	return n, err == nil && n >= 0
}

// fileName suggests a local name: the Content-Disposition filename
// (DispositionName) without any directory part, else the final URL's last
// path segment, decoded.
func fileName(resp *http.Response) string {
	if name := DispositionName(resp.Header.Get("Content-Disposition")); name != "" && name != "." && name != ".." {
		return name
	}
	p := resp.Request.URL.EscapedPath()
	seg := p[strings.LastIndexByte(p, '/')+1:]
	name, err := uri.Unescape(seg)
	if err != nil || strings.Contains(name, "/") {
		return ""
	}
	return name
}

// status is a response's status in the form of schemes.Resource's Proto,
// StatusCode and Status, whose status line is Proto + " " + Status.
func status(resp *http.Response) (proto string, code int, status string) {
	if resp.ProtoMajor == 2 {
		// HTTP/2 has no reason phrase (RFC 9113 §8.3.2) and names
		// itself "HTTP/2" in curl's output, which -i and -I follow.
		return "HTTP/2", resp.StatusCode, strconv.Itoa(resp.StatusCode)
	}
	return resp.Proto, resp.StatusCode, resp.Status
}

// responseHead is a response's status and header fields, as
// Fetcher.OnResponse receives them.
func responseHead(resp *http.Response) *schemes.Resource {
	res := &schemes.Resource{Header: HeaderPairs(fields(resp))}
	res.Proto, res.StatusCode, res.Status = status(resp)
	return res
}

// fields is a response's header fields as received: net/http moves
// Transfer-Encoding out of the header map (RFC 9112 §6.1), and -i, -D and
// -v show it, as curl does.
func fields(resp *http.Response) http.Header {
	if len(resp.TransferEncoding) == 0 {
		return resp.Header
	}
	h := resp.Header.Clone()
	h["Transfer-Encoding"] = []string{strings.Join(resp.TransferEncoding, ", ")}
	return h
}

// HeaderPairs lists header fields as a Resource's Header holds them (for
// -I, -i and -v). net/http keeps fields in a map, so the server's order is
// lost; they come sorted by name, each field's values in the order
// received.
func HeaderPairs(h http.Header) [][2]string {
	var pairs [][2]string
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			pairs = append(pairs, [2]string{k, v})
		}
	}
	return pairs
}

// body is a response body whose read errors are classified: a connection
// closed before Content-Length bytes is a truncated transfer, a deadline is
// a timeout. It adds no buffer of its own.
type body struct {
	rc  io.ReadCloser
	ctx context.Context
	req *schemes.Request

	// The bytes of the body not yet read, when its length is known on a
	// plain connection (sock).
	remain int64

	// sock is the plain connection the body came on, for WriteTo.
	sock *sockConn
}

// sockConn is a plain TCP connection of the Transport's. It tells a body
// when a read went straight from the socket into the body's own buffer,
// that is, when the Transport's read buffer held nothing of the body:
// bufio.Reader reads from the connection only when its buffer is empty,
// and into the caller's slice when that is at least as large as its
// buffer. From then on the socket holds the rest of the body and nothing
// more (the Transport sends no request before a response is read), and
// body.WriteTo may take it from the socket itself.
type sockConn struct {
	*net.TCPConn
	last  *byte // where the last read put its first byte
	taken bool  // a body was read past the Transport: the connection ends
}

// errTaken ends the Transport's use of a connection whose body was read
// from the socket directly; the body's early close discards it.
var errTaken = errors.New("connection handed to a body")

func (c *sockConn) Read(p []byte) (int, error) {
	if c.taken {
		return 0, errTaken
	}
	if len(p) > 0 {
		c.last = &p[0]
	}
	return c.TCPConn.Read(p)
}

// spliceAfter is the least a body must still have for WriteTo to take it
// from the socket: below it, reading through the Transport costs less
// than setting the copy up.
const spliceAfter = 1 << 20

// WriteTo writes the body to w. When w can read from a source
// (io.ReaderFrom) and the body is large, on a plain connection: it reads
// through the Transport until one read comes straight from the socket
// (sockConn), then hands w the socket itself as an *io.LimitedReader of
// the bytes still to come, which the copy can splice into a pipe, a file
// or /dev/null without passing them through user space. The Transport
// then sees the body closed early and closes the connection.
func (b *body) WriteTo(w io.Writer) (int64, error) {
	rf, ok := w.(io.ReaderFrom)
	if !ok || b.sock == nil || b.remain < spliceAfter {
		return io.Copy(w, readerOnly{b})
	}
	buf := make([]byte, 2*readBufferSize)
	var written int64
	for {
		b.sock.last = nil
		n, err := b.Read(buf)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			written += int64(m)
			if werr != nil {
				return written, werr
			}
		}
		if err == io.EOF {
			return written, nil
		}
		if err != nil {
			return written, err
		}
		if b.sock.last == &buf[0] || b.remain < spliceAfter {
			break
		}
	}
	if b.sock.last != &buf[0] {
		m, err := io.Copy(w, readerOnly{b})
		return written + m, err
	}
	b.sock.taken = true
	m, err := b.copyRest(rf, b.remain)
	return written + m, err
}

// copyRest hands rf the next n bytes of the body as the socket limited to
// them. A connection that ends before them is a truncated transfer.
func (b *body) copyRest(rf io.ReaderFrom, n int64) (int64, error) {
	if n <= 0 {
		return 0, nil
	}
	lr := &io.LimitedReader{R: b.sock.TCPConn, N: n}
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

// readBufferSize is the Transport's read buffer: at most this much of a
// body is read from the socket ahead of the body's reader.
const readBufferSize = 4 << 10

// Read reads from the response body.
func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.remain -= int64(n)
	if err != nil && err != io.EOF {
		err = b.classify(err)
	}
	return n, err
}

func (b *body) classify(err error) error {
	if cerr := b.ctx.Err(); cerr != nil {
		if errors.Is(cerr, context.DeadlineExceeded) {
			return &schemes.Error{Kind: schemes.ErrTimeout, URL: b.req.URL.Redacted(), Op: "read body", Err: cerr, Temporary: true}
		}
		return cerr
	}
	return b.req.NetError("read body", err)
}

// Close closes the response body, returning its connection for reuse when
// the body was read to the end.
func (b *body) Close() error {
	return b.rc.Close()
}

// tracingTransport reports each request and response of a fetch, redirects
// included, to the request's Tracer.
type tracingTransport struct {
	rt         http.RoundTripper
	trace      schemes.Tracer
	onResponse func(head *schemes.Resource) // Fetcher.OnResponse
}

// RoundTrip sends r, tracing the request line and the header fields as they
// are written and the status line and header fields received.
func (t *tracingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.trace == nil {
		resp, err := t.rt.RoundTrip(r)
		if err == nil && t.onResponse != nil {
			t.onResponse(responseHead(resp))
		}
		return resp, err
	}
	tr := t.trace
	var once sync.Once
	requestLine := r.Method + " " + r.URL.RequestURI()
	if p, _, _ := requestProxy(r); p != nil && r.URL.Scheme == "http" {
		// To an HTTP proxy, the absolute form (RFC 9112 §3.2.2).
		requestLine = r.Method + " " + r.URL.String()
	}
	ct := &httptrace.ClientTrace{
		ConnectStart: func(network, addr string) {
			tr.TraceLine(schemes.Info, "Trying "+addr+"...")
		},
		ConnectDone: func(network, addr string, err error) {
			if err == nil {
				tr.TraceLine(schemes.Info, "Connected to "+r.URL.Host+" ("+addr+")")
			}
		},
		TLSHandshakeDone: func(cs tls.ConnectionState, err error) {
			if err == nil {
				line := "TLS " + tls.VersionName(cs.Version) + " " + tls.CipherSuiteName(cs.CipherSuite) + " ALPN " + strconv.Quote(cs.NegotiatedProtocol)
				if cs.DidResume {
					line += ", session resumed"
				}
				tr.TraceLine(schemes.Info, line)
			}
		},
		GotConn: func(info httptrace.GotConnInfo) {
			if info.Reused {
				tr.TraceLine(schemes.Info, "Re-using connection to "+r.URL.Host)
			}
		},
		WroteHeaderField: func(key string, value []string) {
			once.Do(func() {
				// HTTP/2 writes pseudo-header fields first (RFC 9113 §8.3).
				proto := " HTTP/1.1"
				if strings.HasPrefix(key, ":") {
					proto = " HTTP/2"
				}
				tr.TraceLine(schemes.Sent, requestLine+proto)
			})
			if strings.HasPrefix(key, ":") {
				return
			}
			for _, v := range value {
				if k := textproto.CanonicalMIMEHeaderKey(key); k == "Authorization" || k == "Proxy-Authorization" {
					scheme, _, _ := strings.Cut(v, " ")
					v = scheme + " ****"
				}
				tr.TraceLine(schemes.Sent, key+": "+v)
			}
		},
	}
	resp, err := t.rt.RoundTrip(r.WithContext(httptrace.WithClientTrace(r.Context(), ct)))
	if err != nil {
		return nil, err
	}
	tr.TraceLine(schemes.Received, resp.Proto+" "+resp.Status)
	for _, kv := range HeaderPairs(fields(resp)) {
		tr.TraceLine(schemes.Received, kv[0]+": "+kv[1])
	}
	if t.onResponse != nil {
		t.onResponse(responseHead(resp))
	}
	return resp, nil
}
