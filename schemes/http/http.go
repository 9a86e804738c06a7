// Package http fetches http: and https: URLs (RFC 9110, RFC 9112). It
// speaks HTTP/1.x itself (wire.go): requests written field by field in the
// order they are built, responses read with their fields in the server's
// order and spelling, every exchange's bytes open to a Recorder; HTTP/2,
// when a server picks it by ALPN, goes through net/http's ClientConn. On
// top it adds urlget's policy: redirects only to http and https and at
// most 20 of them, credentials kept from other hosts, statuses of 400 and
// above as errors of the shared taxonomy (or, asked, their pages with the
// error at the end), resume through Range, bodies decoded when asked
// (--compressed), header fields as curl's -H gives them, and the
// conversation traced line by line for -v.
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
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// MaxRedirects is how many redirects a fetch follows before it gives up,
// the limit wget's --max-redirect defaults to (curl's --max-redirs, 50, is
// the command's for single transfers). Fetcher.MaxRedirects overrides
// it.
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

// redirectDrainLimit is how much of a redirect's body is read so that its
// connection serves the next hop, as net/http's Client reads.
const redirectDrainLimit = 2 << 10

// maxHeaderBytes bounds the status lines and header fields of one response,
// interim (1xx) responses included: a server that never ends its header
// must not take the process past its memory bound. curl allows 300 KB.
const maxHeaderBytes = 1 << 20

// Fetcher retrieves http: and https: URLs. Its zero value is ready to use.
//
// A Fetcher keeps the connections it opened for reuse across the URLs of
// one run, keyed by scheme, server and proxy; the TLS settings are taken
// from the first request's TLSConfig. Close closes the idle connections.
//
// Its settings, as http.Transport's, hold for every URL it fetches; they
// must not be changed once it is in use.
type Fetcher struct {
	// MaxRedirects is how many redirects a fetch follows before it fails:
	// 0 means MaxRedirects (20, wget's default), and NoRedirects (any
	// negative value) follows none, so that a redirect fails (curl's -L
	// with --max-redirs 0).
	MaxRedirects int

	// NoFollow makes a redirect the answer: a 3xx response with a
	// Location field is returned as any other, its body as the
	// Resource's Body and the URL it names as Resource.Location, and
	// MaxRedirects does not count (curl without -L). The zero value
	// follows redirects, as net/http's Client does.
	NoFollow bool

	// UserAgent is the User-Agent field sent (RFC 9110 §10.1.5); empty
	// means "urlget". RemoveHeader sends none.
	UserAgent string

	// Header holds request header fields sent with every request, in
	// the order given, after the default ones (User-Agent, Accept, …)
	// and the credentials, as curl's -H sends them: a field named here
	// takes the place of every default one of that name, the name is
	// sent as spelled, and a field with an empty value is sent empty
	// (RFC 9110 §5.5). A "Host" entry names the Host field's value (RFC
	// 9112 §3.2), the first one given as in curl. The Authorization and
	// Cookie fields hold the user's credentials: they go only to the
	// origin they were given for (schemes.Request.Foreign, and the
	// redirect rule of schemes.Request.RedirectCredentials).
	Header []Field

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

	// NoFail returns a response whose status is 400 or above as any
	// other, with no error: its body (the server's error page) reads to
	// io.EOF, Resource.StatusCode tells the status, and
	// Resource.StatusError holds the error the status would have been
	// (curl without -f, which writes the page and exits 0). The zero
	// value fails on such a status, with neither body nor Resource.
	NoFail bool

	// OnResponse, when not nil, receives the status and header fields of
	// every response of a fetch as they arrive, redirects and error
	// statuses included (curl's -D and -i), as a Resource holding only
	// Proto, StatusCode, Status and Header, the form -I shows, the fields
	// in the server's order and spelling. It is called on the goroutine
	// that called Fetch.
	OnResponse func(head *schemes.Resource)

	// Jar, when not nil, keeps cookies (RFC 6265): every request carries
	// the Cookie field the jar gives for its URL (joined, before them,
	// with the values of a Cookie field of Header, into one field as
	// §5.4 wants), and the Set-Cookie fields of every response, a
	// redirect's too, go into it: curl's cookie engine (-b, -c). No
	// request is then pipelined, so that each one carries the cookies of
	// the responses before it. The cookies package's Jar is one.
	Jar CookieJar

	// ConnectResponses makes OnResponse receive an HTTP proxy's 2xx
	// answer to the CONNECT of an https: URL too, before the site's
	// responses, as curl's -i and -D show it (unless
	// --suppress-connect-headers).
	ConnectResponses bool

	// HTTP1Only speaks HTTP/1.1 on every connection: h2 is not offered
	// by ALPN. An archiving client needs it, HTTP/2's frames being no
	// one exchange's bytes.
	HTTP1Only bool

	// RedirectSchemes, when not nil, are the schemes a redirect may go
	// to (curl's --proto-redir), among http and https, the only ones
	// followed: a redirect elsewhere fails with schemes.ErrNotRetrievable.
	RedirectSchemes []string

	// TraceNotesOnly gives a request's Trace the notes (schemes.Info)
	// alone, not the request and response lines: a Recorder that traces
	// the exchanges' bytes (curl's --trace) has them already.
	TraceNotesOnly bool

	// Recorder, when not nil, receives the bytes of every HTTP/1.x
	// exchange as they crossed the connection (see Recorder). It implies
	// HTTP1Only.
	Recorder Recorder

	// HSTS, when not nil, holds the known HSTS hosts (RFC 6797): an
	// http request to one goes over https instead, redirects included,
	// and each https response's Strict-Transport-Security field updates
	// it (curl's --hsts).
	HSTS HSTS

	// The shape of each request, as curl's options give it (shape.go);
	// their zero values are urlget's defaults.

	// Method is the method sent in place of GET (curl's -X): a token.
	// The response is read as a GET's, its body framed as its fields
	// say even for "HEAD", as curl reads it; a Head request is read as
	// HEAD's whatever the method.
	Method string

	// RequestTarget replaces the request target of the request line
	// (curl's --request-target), such as "*" for OPTIONS (RFC 9112
	// §3.2.4); the URL still names the server.
	RequestTarget string

	// PathAsIs sends the URL's path as written. Without it the "." and
	// ".." segments are removed first (RFC 3986 §5.2.4), as curl does.
	PathAsIs bool

	// Version is the HTTP version spoken (curl's -0, --http1.1, --http2,
	// --http2-prior-knowledge); VersionDefault offers h2 by ALPN over
	// TLS and speaks HTTP/1.1 otherwise.
	Version Version

	// HTTP09 takes a response without a status line for an HTTP/0.9
	// one (curl's --http0.9): the whole of what the server sends, to
	// the connection's end, is the body of a 200. Without it such a
	// response is a protocol error, as curl refuses it by default.
	HTTP09 bool

	// Raw passes the body on as it came off the connection: the chunk
	// framing of a chunked body, a transfer coding, a content coding
	// all left in it (curl's --raw).
	Raw bool

	// TransferEncoding asks for a compressed transfer coding ("TE:
	// gzip", RFC 9110 §10.1.4) and undoes it (curl's --tr-encoding).
	TransferEncoding bool

	// IgnoreContentLength reads a body until the connection ends,
	// whatever its Content-Length says (curl's --ignore-content-length);
	// the size is then unknown.
	IgnoreContentLength bool

	// Auth is how the user's credentials go to the server: AuthBasic
	// (the default, sent at once), AuthDigest (RFC 7616, in answer to
	// the server's challenge) or AuthAny (the strongest scheme the
	// challenge offers). ProxyAuth is the same for the proxy's.
	Auth, ProxyAuth AuthScheme

	// Bearer is an OAuth 2.0 token sent as "Authorization: Bearer"
	// (RFC 6750 §2.1, curl's --oauth2-bearer) in place of the user's
	// credentials, under the same rule of which origin receives it.
	Bearer string

	// ProxyHeader holds header fields sent only to an HTTP proxy, in
	// the order given (curl's --proxy-header): on each CONNECT, and on
	// the requests for http: URLs that go through it. Header's fields
	// are not sent on a CONNECT.
	ProxyHeader []Field

	mu      sync.Mutex
	idle    *netconn.Pool[string, *conn] // idle HTTP/1.x connections
	tlsBase *tls.Config
	h2t     *http.Transport
	h2ct    *http.Transport                  // for h2 over cleartext (Version2PriorKnowledge)
	h2      map[string][]*http.ClientConn    // by connKey
	h2tls   map[*http.ClientConn]net.Conn    // the TLS connection each of h2 speaks over
	pipes   *netconn.Pool[string, *pipeline] // pipelined connections, by host:port

	expected schemes.Expected // the runs told by Expect (pipeline.go)
}

// Close closes the connections kept open for reuse.
func (f *Fetcher) Close() error {
	f.closeConns()
	f.closePipelines()
	f.expected.Reset()
	return nil
}

// Fetch sends a GET (a HEAD when req.Head is set) for req.URL and returns
// the response body as a stream.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	scheme := req.URL.Scheme()
	if scheme != "http" && scheme != "https" {
		return nil, req.Fail(schemes.ErrNotRetrievable, "", 0, "", fmt.Errorf("scheme %q is not http or https", scheme))
	}
	target, err := f.requestURL(req.URL)
	if err != nil {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	if req.Dialer == nil {
		return nil, req.Fail(schemes.ErrConnect, "", 0, "", errors.New("request has no dialer"))
	}
	method := http.MethodGet
	if req.Head {
		method = http.MethodHead
	}
	r, err := f.newRequest(req, target, method)
	if err != nil {
		return nil, err
	}
	if res, err, ok := f.pipelined(ctx, req, r); ok {
		return res, err
	}
	resp, err := f.follow(ctx, req, r, nil)
	if err != nil {
		return nil, doError(ctx, req, method, err)
	}
	return f.resource(ctx, req, resp)
}

// isRedirect reports whether a status sends the client on to Location
// (RFC 9110 §15.4): 301, 302, 303, 307 and 308. A 304 is the answer.
func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// follow sends r and the requests of the redirects its responses give,
// and returns the final response. Each hop reports its response to the
// Fetcher's OnResponse and the request's Trace. first, when not nil, is
// r's response already read (on a pipeline): the first hop starts from
// it rather than asking again.
func (f *Fetcher) follow(ctx context.Context, req *schemes.Request, r *outRequest, first *response) (*response, error) {
	maxRedirects := f.MaxRedirects
	switch {
	case maxRedirects == 0:
		maxRedirects = MaxRedirects
	case maxRedirects < 0:
		maxRedirects = 0
	}
	if first == nil {
		f.upgradeHSTS(req, r)
	}
	firstReq := r.clone()
	dialer := req.Dialer
	for hops := 0; ; hops++ {
		var resp *response
		if hops == 0 && first != nil {
			resp = first
		} else {
			if hops > 0 {
				f.upgradeHSTS(req, r)
			}
			d, p, err := hopRoute(req, r.url)
			if err != nil {
				return nil, err
			}
			if hops > 0 {
				// The first hop's Dialer is the request's own; a
				// redirect may lead to a server whose proxy differs.
				dialer = d
			}
			r.proxy = p
			if p != nil {
				// Proxy-Authorization goes from p's userinfo on the
				// CONNECT for https and on each absolute-form request
				// for http (RFC 9112 §3.2.2); it never reaches the
				// site.
				req.Trace.TraceLine(schemes.Info, "Using proxy "+maskedProxy(p)+" for "+r.url.Redacted())
			}
			resp, err = f.authRoundTrip(ctx, req, dialer, f.withCookies(r))
			if err != nil {
				return nil, err
			}
		}
		f.keepCookies(r, resp)
		traceResponse(f.lines(req), resp)
		f.observeHSTS(r, resp)
		if f.OnResponse != nil && resp.ProtoMajor > 0 {
			// An HTTP/0.9 response has no head to show (-i, -D).
			f.OnResponse(responseHead(resp))
		}
		if m := schemes.MetricsFrom(ctx); m != nil {
			m.Response(responseHead(resp), headSize(resp))
		}
		loc := resp.Header.Get("Location")
		if !isRedirect(resp.StatusCode) || loc == "" || f.NoFollow {
			return resp, nil
		}
		next, err := r.url.Parse(loc)
		if err != nil {
			resp.Body.Close()
			return nil, fmt.Errorf("failed to parse Location header %q: %w", loc, err)
		}
		io.CopyN(io.Discard, resp.Body, redirectDrainLimit)
		resp.Body.Close()
		if hops+1 > maxRedirects {
			return nil, req.Fail(schemes.ErrProtocol, r.method, 0, "",
				fmt.Errorf("stopped after %d redirects: %w", maxRedirects, schemes.ErrTooManyRedirects))
		}
		nr, err := f.redirect(req, firstReq, r, next, loc)
		if err != nil {
			return nil, err
		}
		schemes.MetricsFrom(ctx).Redirected()
		r = nr
	}
}

// redirect builds the request that follows a redirect from r to next
// (Location loc), under urlget's rules for where a redirect may go and
// what goes with it. first is the fetch's first request.
func (f *Fetcher) redirect(req *schemes.Request, first, r *outRequest, next *url.URL, loc string) (*outRequest, error) {
	// Only http and https may follow: a Location of file: or any other
	// scheme would let a server read local files or reach services the
	// user never named.
	if next.Scheme != "http" && next.Scheme != "https" {
		return nil, req.Fail(schemes.ErrAccessDenied, first.method, 0, "",
			fmt.Errorf("refusing redirect to %s: only http and https redirects are followed", next.Redacted()))
	}
	if f.RedirectSchemes != nil && !slices.Contains(f.RedirectSchemes, next.Scheme) {
		return nil, req.Fail(schemes.ErrNotRetrievable, first.method, 0, "",
			fmt.Errorf("refusing redirect to %s: protocol %q disabled for redirects", next.Redacted(), next.Scheme))
	}
	// A Location naming a host in Unicode is followed to its IDNA
	// A-labels, the form the first request used (RFC 5891 §5), so that
	// the origin check below and the final URL compare and show ASCII
	// names.
	if err := asciiHost(next); err != nil {
		return nil, req.Fail(schemes.ErrBadURL, first.method, 0, "", err)
	}
	if next.Host == "" {
		// A Location without a host is the server's mistake.
		return nil, req.Fail(schemes.ErrProtocol, first.method, 0, "", fmt.Errorf("redirect to %s names no host", next.Redacted()))
	}
	nr := r.clone()
	// --request-target names the first URL's resource only.
	nr.rawTarget = ""
	// The request goes again with the same fields (the conditions,
	// Range, the -H ones) to the new URL; userinfo is never sent.
	nr.url = &url.URL{Scheme: next.Scheme, Host: next.Host, Path: next.Path, RawPath: next.RawPath, RawQuery: next.RawQuery, ForceQuery: next.ForceQuery}
	nr.host = nr.url.Host
	if first.host != first.url.Host {
		// A Host given with -H stays for a redirect on the same server
		// (a relative Location), as net/http's Client keeps it.
		if u, err := url.Parse(loc); err == nil && !u.IsAbs() {
			nr.host = first.host
		}
	}
	// curl sends no Referer on a redirect unless asked (--referer
	// ";auto"), and neither does urlget: the next host learns nothing
	// of where the request came from (RFC 9110 §10.1.3) but the Referer
	// the user gave.
	if ref := f.referer(first.fields.get("Referer"), r.url, nr.url); ref != "" {
		nr.fields.set("Referer", ref)
	} else {
		nr.fields.del("Referer")
	}
	// Credentials go only to the origin they were given for (scheme,
	// host and port), never to another one a redirect names, as curl
	// does without --location-trusted; an Authorization given with -H
	// is kept as one from -u. A Cookie field given with -H is the first
	// origin's too. Another origin may have credentials of its own (its
	// userinfo, its .netrc entry), which the fetch package's rule gives.
	fields := req.LocationTrusted || originOf(nr.url) == originOf(first.url)
	var user *url.Userinfo
	if req.RedirectCredentials != nil {
		if t, err := uri.Parse(next.String()); err == nil {
			var home bool
			user, home = req.RedirectCredentials(t)
			fields = fields && home
		}
	}
	auth, cookie := first.fields.get("Authorization"), first.fields.values("Cookie")
	nr.fields.del("Cookie")
	switch {
	case fields && auth != "":
		// Kept where it was, unless a challenge's answer replaced it.
		if nr.fields.get("Authorization") != auth {
			nr.fields.front("Authorization", auth)
		}
	case user != nil && f.Auth == AuthBasic:
		nr.fields.front("Authorization", basicAuth(user))
	default:
		nr.fields.del("Authorization")
	}
	// The credentials a challenge of the next hop is answered with
	// (--digest, --anyauth), under the same rule.
	switch {
	case user != nil:
		nr.user = user
	case fields:
		nr.user = first.user
	default:
		nr.user = nil
	}
	if fields {
		for _, c := range cookie {
			nr.fields.add("Cookie", c)
		}
	}
	return nr, nil
}

// newRequest builds the request of a fetch of target: the header fields
// every request carries (credentials, Range, User-Agent, Accept, TE,
// Accept-Encoding, Referer, the conditions and the Fetcher's Header), in
// that order, curl's.
func (f *Fetcher) newRequest(req *schemes.Request, target *url.URL, method string) (*outRequest, error) {
	r := &outRequest{method: method, url: target, host: target.Host, rawTarget: f.RequestTarget, version: f.Version}
	if f.Method != "" {
		// curl's -X: the method is the user's, the framing of the
		// response GET's (or HEAD's for -I).
		if err := CheckMethod(f.Method); err != nil {
			return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
		}
		r.method, r.frame = f.Method, method
	}
	if r.rawTarget != "" {
		if err := CheckRequestTarget(r.rawTarget); err != nil {
			return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
		}
	}
	// Authorization comes first, right after Host, where curl writes it.
	user, password, hasAuth, err := credentials(req)
	if err != nil {
		return nil, err
	}
	switch {
	case f.Bearer != "" && !req.Foreign:
		// --oauth2-bearer takes the place of -u's credentials, as
		// curl's picked scheme is then Bearer alone.
		if err := req.CheckArg("Bearer token", f.Bearer); err != nil {
			return nil, err
		}
		r.fields.add("Authorization", "Bearer "+f.Bearer)
	case hasAuth:
		if err := req.CheckArg("user", user); err != nil {
			return nil, err
		}
		if err := req.CheckArg("password", password); err != nil {
			return nil, err
		}
		r.user = url.UserPassword(user, password)
		if f.Auth == AuthBasic {
			r.fields.add("Authorization", basicAuth(r.user))
		}
	}
	r.proxyAuth, r.proxyFields = f.ProxyAuth, f.ProxyHeader
	for _, h := range f.ProxyHeader {
		if err := checkField(h.Name, h.Value); err != nil {
			return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
		}
	}
	if req.Offset > 0 {
		// RFC 9110 §14.1.2: an open-ended byte range from the resume
		// point, before User-Agent, where curl writes it.
		r.fields.add("Range", "bytes="+strconv.FormatInt(req.Offset, 10)+"-")
		if req.IfRange != "" {
			// RFC 9110 §13.1.5: the range only of the representation
			// the part came from; a changed one is sent whole (200).
			if err := req.CheckArg("If-Range header", req.IfRange); err != nil {
				return nil, err
			}
			r.fields.add("If-Range", req.IfRange)
		}
	} else if req.Range != "" {
		// curl's -r: the ranges as given (RFC 9110 §14.1.2), several
		// of them answered as multipart/byteranges (§14.6) and written
		// as they come, as curl writes them. Like a resume, a part is
		// of the plain bytes: no content coding is asked for.
		if err := req.CheckArg("Range header", req.Range); err != nil {
			return nil, err
		}
		r.fields.add("Range", "bytes="+req.Range)
	}
	ua := f.UserAgent
	if ua == "" {
		ua = "urlget"
	}
	if err := req.CheckArg("User-Agent header", ua); err != nil {
		return nil, err
	}
	r.fields.add("User-Agent", ua)
	r.fields.add("Accept", "*/*")
	if f.TransferEncoding {
		// --tr-encoding: a compressed transfer coding asked for
		// (RFC 9110 §10.1.4), TE named in Connection as §7.6.1 wants
		// it, where curl writes them.
		r.fields.add("Connection", "TE")
		r.fields.add("TE", "gzip")
	}
	if req.Offset == 0 && req.Range == "" && f.Compressed {
		// Only a request from byte 0 asks for an encoding: a range
		// applies to the encoded bytes (RFC 9110 §14.1.2), which a
		// resumed file of plain bytes cannot continue.
		r.fields.add("Accept-Encoding", acceptEncoding)
	}
	if f.Referer != "" {
		if err := req.CheckArg("Referer header", f.Referer); err != nil {
			return nil, err
		}
		r.fields.add("Referer", f.Referer)
	}
	if err := conditions(req, &r.fields); err != nil {
		return nil, err
	}
	if err := f.applyHeaders(req, r); err != nil {
		return nil, err
	}
	return r, nil
}

// resource turns a response into a Resource or an error.
func (f *Fetcher) resource(ctx context.Context, req *schemes.Request, resp *response) (*schemes.Resource, error) {
	method := resp.Request.Method
	res := &schemes.Resource{
		URL:         resp.Request.URL.Redacted(),
		ContentType: resp.Header.Get("Content-Type"),
		Size:        -1,
		Name:        fileName(resp.Response),
		Header:      resp.fields,
		ETag:        resp.Header.Get("ETag"),
	}
	res.Proto, res.StatusCode, res.Status = status(resp.Response)
	var cs []string
	if f.Compressed && !f.Raw {
		cs = codings(resp.Header.Get("Content-Encoding"))
	}
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		res.ModTime = t
	}
	res.Validator = strongValidator(resp.Header)
	if isRedirect(resp.StatusCode) {
		// Only a redirect not followed (NoFollow) gets here.
		res.Location = location(resp.Response)
	}

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
		serr := statusError(req, resp.Response)
		switch {
		case f.NoFail:
			// The error page is the body, as any other (curl
			// without -f).
			res.StatusError = serr
		case f.FailWithBody && !req.Head:
			// The error page goes where the body would, and the
			// status error ends it (curl's --fail-with-body).
			res.StatusError = serr
			if len(cs) == 0 && resp.ContentLength >= 0 {
				res.Size = resp.ContentLength
			}
			if err := undecodable(req, resp.Response, cs); err != nil {
				return nil, err
			}
			res.Body = wrapBody(req, &body{rc: resp.Body, ctx: ctx, req: req}, cs, serr)
			return res, nil
		default:
			discard(resp.Body)
			return nil, serr
		}
	}

	if resp.StatusCode == http.StatusNotModified && conditional(req) {
		return notModified(resp.Response, res), nil
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
	case resp.StatusCode == http.StatusPartialContent && req.Range != "":
		if err := checkPart(req, resp, res); err != nil {
			discard(resp.Body)
			return nil, err
		}
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
		if err := undecodable(req, resp.Response, cs); err != nil {
			return nil, err
		}
		res.Body = wrapBody(req, b, cs, nil)
		return res, nil
	}
	if cb, ok := resp.Body.(*connBody); ok {
		// A body on a connection of ours, which WriteTo may hand to
		// the copy when its length is known.
		b.wire = cb
	}
	res.Body = b
	if resp.StatusCode == http.StatusPartialContent && req.Range != "" && resp.ContentLength < 0 && res.Size > 0 {
		// A part of no Content-Length (chunked) is held to the length
		// its Content-Range gives.
		res.Body = &partBody{rc: b, req: req, left: res.Size - res.Offset}
	}
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

// conditions sets the fields of a conditional request (--timestamping): If-None-Match
// as given (RFC 9110 §13.1.2), If-Modified-Since as an IMF-fixdate (§13.1.3,
// §5.6.7). A server that honours If-None-Match ignores If-Modified-Since
// (§13.2.2), so sending both costs nothing. A redirected request carries
// both again, so the conditions hold for the final URL.
func conditions(req *schemes.Request, h *fieldList) error {
	if req.IfNoneMatch != "" {
		if err := req.CheckArg("If-None-Match header", req.IfNoneMatch); err != nil {
			return err
		}
		h.add("If-None-Match", req.IfNoneMatch)
	}
	if !req.IfModifiedSince.IsZero() {
		h.add("If-Modified-Since", req.IfModifiedSince.UTC().Format(http.TimeFormat))
	}
	if !req.IfUnmodifiedSince.IsZero() {
		// §13.1.4: a server whose resource changed since answers 412.
		h.add("If-Unmodified-Since", req.IfUnmodifiedSince.UTC().Format(http.TimeFormat))
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

// doError converts an error of a fetch's exchanges into the taxonomy.
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
		// The proxy could not be reached: its name not resolving
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
	e.RetryAfter = schemes.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	return e
}

// location is the URL a redirect response's Location field names,
// resolved against the request's URL (RFC 9110 §10.2.2: a relative
// reference), password masked; "" when there is none or it does not
// parse. It is what curl's -w %{redirect_url} shows.
func location(resp *http.Response) string {
	loc := resp.Header.Get("Location")
	if loc == "" || resp.Request == nil || resp.Request.URL == nil {
		return ""
	}
	u, err := resp.Request.URL.Parse(loc)
	if err != nil {
		return ""
	}
	return u.Redacted()
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

// responseHead is a response's status and header fields, the latter in
// the server's order and spelling, as Fetcher.OnResponse receives them.
func responseHead(resp *response) *schemes.Resource {
	res := &schemes.Resource{Header: resp.fields}
	res.Proto, res.StatusCode, res.Status = status(resp.Response)
	return res
}

// headSize is the bytes resp's head took on the wire: counted as they
// were read on an HTTP/1.x connection, and for an HTTP/2 response, whose
// head came compressed in frames, the size of its status line and fields
// written out as curl writes them ("HTTP/2 200 \r\n" and a line a
// field), as curl counts it.
func headSize(resp *response) int64 {
	if resp.headBytes > 0 {
		return resp.headBytes
	}
	n := len("HTTP/2 200 \r\n") + 2
	for _, kv := range resp.fields {
		n += len(kv[0]) + 2 + len(kv[1]) + 2
	}
	return int64(n)
}

// fields is a response's header fields as net/http gives them: it moves
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

// HeaderPairs lists header fields of a map as a Resource's Header holds
// them, for responses read by net/http (HTTP/2, FetchThroughGateway),
// whose order is lost: they come sorted by name, each field's values in
// the order received. HTTP/1.x responses keep the server's
// order without it.
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

	// wire is the HTTP/1.x body of known length on a plain TCP
	// connection, for WriteTo; nil otherwise.
	wire *connBody
}

// spliceAfter is the least a body must still have for WriteTo to hand the
// socket to the destination: below it, reading through the buffer costs
// less than setting the copy up.
const spliceAfter = 1 << 20

// WriteTo writes the body to w. When w can read from a source
// (io.ReaderFrom) and the body is a large one of known length on a plain
// TCP connection, it writes what the connection's reader holds already,
// then hands w the socket itself as an *io.LimitedReader of the bytes
// still to come, which the copy can splice into a pipe, a file or
// /dev/null without passing them through user space. The connection is
// this package's own, so it knows where the body ends: read to its end,
// the connection goes back to the pool.
func (b *body) WriteTo(w io.Writer) (int64, error) {
	rf, ok := w.(io.ReaderFrom)
	lb := b.lengthBody()
	if !ok || lb == nil || lb.n < spliceAfter {
		return io.Copy(w, readerOnly{b})
	}
	var written int64
	c := lb.c
	if n := min(int64(c.br.Buffered()), lb.n); n > 0 {
		p, _ := c.br.Peek(int(n))
		m, err := w.Write(p)
		c.br.Discard(m)
		lb.n -= int64(m)
		written += int64(m)
		if err != nil {
			return written, err
		}
	}
	lr := &io.LimitedReader{R: c.tcp, N: lb.n}
	m, err := rf.ReadFrom(lr)
	written += m
	lb.n -= m
	if err == nil && lb.n > 0 {
		// The server closed the connection before the length its header
		// gave.
		err = b.classify(io.ErrUnexpectedEOF)
	}
	if err == nil {
		b.wire.release()
	}
	return written, err
}

// lengthBody returns the body's Content-Length framing when the socket
// under it may be handed to a copy: a plain TCP connection whose bytes no
// Recorder needs to see.
func (b *body) lengthBody() *lengthBody {
	if b.wire == nil || b.wire.c.tcp == nil || b.wire.c.rec != nil || b.req.Capture != nil || b.wire.done {
		return nil
	}
	lb, _ := b.wire.rc.(*lengthBody)
	return lb
}

// readerOnly hides every method of a reader but Read, so that io.Copy does
// not call the WriteTo it wraps again.
type readerOnly struct{ io.Reader }

// readBufferSize is a connection's read buffer: at most this much of a
// body is read from the socket ahead of the body's reader.
const readBufferSize = 4 << 10

// Read reads from the response body.
func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		err = b.classify(err)
	}
	return n, err
}

func (b *body) classify(err error) error { return readError(b.ctx, b.req, err) }

// Close closes the response body, returning its connection for reuse when
// the body was read to the end.
func (b *body) Close() error {
	return b.rc.Close()
}
