package http

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// gatewayPeek is how much of an HTML answer is looked at to tell a
// directory listing from a file that happens to be HTML.
const gatewayPeek = 16 << 10

// FetchThroughGateway implements schemes.Gateway: it retrieves an ftp:,
// ftps: or gopher: URL from an HTTP proxy acting as a gateway: the proxy is sent "GET ftp://host/path
// HTTP/1.1" (RFC 9112 §3.2.2, the absolute-form, which a proxy must
// accept; RFC 1738 §3.2 leaves the protocol to the proxy) and fetches the
// URL itself, answering with the file's bytes or, for a directory or a
// gopher menu, an HTML page listing it. The page becomes a Listing whose
// entries carry absolute URLs, or stays as it came with req.Raw.
//
// Credentials the user wrote into the URL stay in it, since the proxy logs
// in to the site with them; a password given apart from the URL (-u,
// .netrc) goes as Authorization, which squid also logs in with. The proxy's
// own credentials, from proxy.URL, go only in Proxy-Authorization.
//
// The request goes over the Fetcher's own HTTP/1.1 layer, on a connection
// of its own: the Fetcher's Recorder sees the exchange as any other.
func (f *Fetcher) FetchThroughGateway(ctx context.Context, req *schemes.Request, proxy *schemes.GatewayProxy) (*schemes.Resource, error) {
	method := http.MethodGet
	if req.Head {
		method = http.MethodHead
	}
	pu := proxy.URL
	target, err := gatewayTarget(req.URL)
	if err != nil {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	op := method + " through proxy " + pu.Addr()
	// The request line carries the target's absolute URI (RFC 9112
	// §3.2.2, Opaque written as it is); the connection goes to the proxy.
	r := &outRequest{method: method, url: &url.URL{Scheme: pu.Scheme(), Host: pu.Addr(), Opaque: target}}
	// RFC 9112 §3.2.2: Host is the target's authority, without userinfo.
	r.host = req.URL.RawHost()
	if port, ok := req.URL.Port(); ok && port != "" {
		r.host += ":" + port
	}
	ua := f.gatewayUserAgent()
	if ua != "" {
		r.fields.add("User-Agent", ua)
	}
	r.fields.add("Accept", "*/*")
	// No Range for a resume (req.Offset): squid 5.7 answers one with a
	// 206 whose body skips the offset twice (REST to the FTP server, then
	// again itself), short of its Content-Length. The whole file comes
	// instead, with Offset 0, and the caller starts over.
	// A password the URL lacks (given with -u, from .netrc) goes as
	// Authorization, with which squid logs in where the URL names no
	// password.
	if _, inURL := req.URL.Password(); !inURL && req.User != nil {
		r.fields.add("Authorization", basicAuth(req.User))
	}
	if user, ok := pu.User(); ok {
		password, _ := pu.Password()
		r.fields.add("Proxy-Authorization", basicAuth(url.UserPassword(user, password)))
	}
	// --proxy-header's fields: the request is the proxy's.
	for _, h := range f.ProxyHeader {
		if err := checkField(h.Name, h.Value); err != nil {
			return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
		}
		r.fields.add(h.Name, h.Value)
	}
	for name, v := range map[string]string{"URL": target, "Host": r.host, "User-Agent": ua} {
		if err := req.CheckArg(name, v); err != nil {
			return nil, err
		}
	}
	// The proxy answers for the server: until its reply, a connect
	// timeout names it.
	answered := func() {}
	if proxy.Waiting != nil {
		answered = proxy.Waiting(ctx)
	}
	resp, err := f.gatewayExchange(ctx, req, proxy, r)
	answered()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, req.NetError(op, err)
	}
	traceResponse(f.lines(req), resp)
	res, err := gatewayResource(req, resp, op)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	return res, nil
}

// gatewayExchange sends r to the gateway proxy on a connection of its
// own, which ends with the response: the gateway logs in to the site for
// each request anyway, and nothing is left open behind. The exchange is
// traced and recorded as any other.
func (f *Fetcher) gatewayExchange(ctx context.Context, req *schemes.Request, proxy *schemes.GatewayProxy, r *outRequest) (*response, error) {
	pu := proxy.URL
	raw, err := proxy.Dialer.DialContext(ctx, "tcp", pu.Addr())
	if err != nil {
		return nil, err
	}
	nc := raw
	if pu.Scheme() == "https" {
		tc := &tls.Config{}
		if proxy.TLSConfig != nil {
			tc = proxy.TLSConfig.Clone()
		}
		if tc.ServerName == "" {
			tc.ServerName = pu.Hostname()
		}
		tc.NextProtos = []string{"http/1.1"}
		t, err := netconn.Handshake(ctx, raw, tc)
		if err != nil {
			raw.Close()
			return nil, req.TLSError("TLS handshake with proxy "+pu.Hostname(), err)
		}
		nc = t
	}
	resp, _, err := f.exchange(ctx, req, newConn("", raw, nc, f.Recorder), r)
	return resp, err
}

// ProxyWays implements schemes.ProxyAware: the Fetcher speaks to an HTTP
// proxy itself, through its own wire layer (the absolute form for http:,
// RFC 9112 §3.2.2; a CONNECT tunnel for https:, RFC 9110 §9.3.6), and
// goes through the Dialer for SOCKS and -p's tunnels.
func (f *Fetcher) ProxyWays(*schemes.Request) (schemes.ProxyWays, error) {
	return schemes.ViaHTTPProxy | schemes.ViaDialer, nil
}

// gatewayTarget is the URL as the proxy is to see it: as written, without
// the fragment (RFC 9110 §4.2.4: never sent). An ftp: file named without
// a typecode gets ";type=i" (RFC 1738 §3.2.2), so that the gateway sends
// its bytes as they are, as a direct fetch does: left to choose, squid
// fetches text/* files in ASCII type, which changes their line ends.
func gatewayTarget(u uri.URL) (string, error) {
	s := u.String()
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	if strings.ContainsAny(s, " \r\n\x00") {
		return "", errors.New("URL holds a space or control byte")
	}
	p := u.Path()
	last := p[strings.LastIndexByte(p, '/')+1:]
	if _, hasQuery := u.Query(); (u.Scheme() == "ftp" || u.Scheme() == "ftps") && !hasQuery &&
		last != "" && !strings.Contains(strings.ToLower(last), ";type=") {
		s += ";type=i"
	}
	return s, nil
}

// gatewayResource turns the proxy's answer into a Resource or an error.
func gatewayResource(req *schemes.Request, resp *response, op string) (*schemes.Resource, error) {
	if resp.StatusCode >= 300 {
		return nil, gatewayError(req, resp.Response, op)
	}
	res := &schemes.Resource{
		ContentType: resp.Header.Get("Content-Type"),
		Size:        -1,
		Name:        lastSegment(req.URL),
		Proto:       resp.Proto,
		StatusCode:  resp.StatusCode,
		Status:      resp.Status,
		Header:      resp.fields,
	}
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		res.ModTime = t
	}
	if resp.ContentLength >= 0 {
		res.Size = resp.ContentLength
	}
	if req.Head {
		resp.Body.Close()
		return res, nil
	}
	if req.Raw || !strings.HasPrefix(strings.ToLower(res.ContentType), "text/html") {
		// A file other than HTML goes to the caller as the wire layer
		// frames it, without a buffer of ours in between.
		res.Body = resp.Body
		return res, nil
	}
	body := bufio.NewReaderSize(resp.Body, gatewayPeek)
	rc := readCloser{Reader: body, Closer: resp.Body}
	if !isGatewayListing(req.URL, body) {
		res.Body = rc
		return res, nil
	}
	res.Listing = newGatewayListing(req.URL, rc)
	res.Size, res.ContentType, res.Name = -1, "", ""
	return res, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// gatewayError builds the error for a status of 300 or above: the
// proxy's status line, and squid's X-Squid-Error naming its cause.
func gatewayError(req *schemes.Request, resp *http.Response, op string) error {
	io.CopyN(io.Discard, resp.Body, 64<<10)
	resp.Body.Close()
	kind, temp := schemes.ErrProtocol, false
	var cause error
	switch code := resp.StatusCode; {
	case code == http.StatusNotFound, code == http.StatusGone:
		kind = schemes.ErrNotFound
	case code == http.StatusUnauthorized:
		kind = schemes.ErrLoginFailed
	case code == http.StatusForbidden:
		kind = schemes.ErrAccessDenied
	case code == http.StatusProxyAuthRequired:
		kind = schemes.ErrLoginFailed
		cause = errors.New("the proxy requires credentials")
		if resp.Request.Header.Get("Proxy-Authorization") != "" {
			cause = errors.New("the proxy refused its credentials")
		}
	case code == http.StatusNotImplemented:
		// RFC 9110 §15.6.2: the proxy does not gateway this scheme
		// (squid 5 gateways ftp: but no longer gopher:).
		kind = schemes.ErrNotRetrievable
		cause = fmt.Errorf("the proxy does not gateway %s: URLs; a CONNECT tunnel reaches them", req.URL.Scheme())
	case code >= 500:
		kind, temp = schemes.ErrServer, true
	}
	if why := resp.Header.Get("X-Squid-Error"); why != "" {
		if cause != nil {
			cause = fmt.Errorf("%w (%s)", cause, why)
		} else {
			cause = errors.New("the proxy says " + why)
		}
	}
	e := req.Fail(kind, op, resp.StatusCode, resp.Status, cause)
	e.Temporary = temp
	return e
}

// lastSegment is the URL's last path segment, decoded, as a local name.
func lastSegment(u uri.URL) string {
	p := u.Path()
	if i := strings.IndexByte(p, ';'); i >= 0 {
		p = p[:i]
	}
	name, err := uri.Unescape(p[strings.LastIndexByte(p, '/')+1:])
	if err != nil || strings.Contains(name, "/") {
		return ""
	}
	return name
}

// isGatewayListing tells whether an HTML answer is the gateway's listing
// of a directory or menu rather than a file: HTML for a URL that names a
// directory (a path ending in '/' or ";type=d", RFC 1738 §3.2.2; a gopher
// menu or search, §3.4), or HTML whose title says it lists a directory, as
// squid's does for a directory named without its '/'.
func isGatewayListing(u uri.URL, body *bufio.Reader) bool {
	if u.Scheme() == "gopher" {
		g, err := u.Gopher()
		return err == nil && (g.Type == '1' || g.Type == '7')
	}
	p := u.Path()
	if strings.HasSuffix(p, "/") || strings.HasSuffix(strings.ToLower(p), ";type=d") {
		return true
	}
	head, _ := body.Peek(gatewayPeek)
	i := bytes.Index(bytes.ToLower(head), []byte("<title>"))
	if i < 0 {
		return false
	}
	title := head[i+len("<title>"):]
	if j := bytes.IndexByte(title, '<'); j >= 0 {
		title = title[:j]
	}
	return bytes.Contains(title, []byte("Directory: "+u.Scheme()+"://"))
}

// gatewayListing reads the entries of a gateway's HTML listing as they
// arrive, with html.Tokenizer: each table row (or each link outside a
// table) naming something below the listed directory is one entry. An
// entry's URL is the link resolved against the directory's URL; links to
// the same item with a ";type=" of their own (squid's [VIEW] and
// [DOWNLOAD]) are the same item and left out.
type gatewayListing struct {
	z      *html.Tokenizer
	rc     io.Closer
	base   string // the URL links resolve against, password left out
	below  string // what an entry's URL starts with (ftp: the directory)
	gopher bool
	seen   map[string]bool
	done   bool
}

func newGatewayListing(u uri.URL, rc io.ReadCloser) *gatewayListing {
	base := schemes.ServerURL(u) + strings.TrimPrefix(u.Path(), "/")
	if q, ok := u.Query(); ok {
		base += "?" + q
	}
	l := &gatewayListing{z: html.NewTokenizer(rc), rc: rc, base: base, seen: map[string]bool{}}
	if u.Scheme() == "gopher" {
		l.gopher = true
		l.below = "gopher://"
	} else {
		dir := schemes.ServerURL(u) + strings.TrimPrefix(u.Path(), "/")
		if i := strings.IndexByte(dir[len(u.Scheme())+3:], ';'); i >= 0 {
			dir = dir[:len(u.Scheme())+3+i]
		}
		if !strings.HasSuffix(dir, "/") {
			dir += "/"
		}
		l.below = dir
	}
	return l
}

// row is what one table row (or lone link) of a listing says.
type row struct {
	url, name, date, size string
}

// Next returns the next entry, or io.EOF after the last.
func (l *gatewayListing) Next() (schemes.Entry, error) {
	var r row
	inRow, inLink := false, false
	cell := ""
	for !l.done {
		switch l.z.Next() {
		case html.ErrorToken:
			l.done = true
			if err := l.z.Err(); err != io.EOF {
				return schemes.Entry{}, err
			}
		case html.StartTagToken:
			name, hasAttr := l.z.TagName()
			switch string(name) {
			case "tr":
				inRow, r, cell = true, row{}, ""
			case "td":
				cell = attr(l.z, hasAttr, "class")
			case "base":
				if href := attr(l.z, hasAttr, "href"); href != "" {
					l.base = href
				}
			case "a":
				href := attr(l.z, hasAttr, "href")
				link, ok := l.entryURL(href)
				inLink = ok && (r.url == "" || r.url == link)
				if inLink {
					r.url = link
				}
			}
		case html.EndTagToken:
			name, _ := l.z.TagName()
			switch string(name) {
			case "a":
				inLink = false
				if !inRow && r.url != "" {
					if e, ok := l.entry(r); ok {
						return e, nil
					}
					r = row{}
				}
			case "td":
				cell = ""
			case "tr":
				inRow = false
				if e, ok := l.entry(r); ok {
					return e, nil
				}
				r = row{}
			}
		case html.TextToken:
			text := strings.TrimSpace(string(l.z.Text()))
			switch {
			case inLink && r.name == "":
				r.name = text
			case inRow && cell == "date":
				r.date += text
			case inRow && cell == "size":
				r.size += text
			}
		}
	}
	return schemes.Entry{}, io.EOF
}

// entryURL resolves a link; ok is false for one that names no entry of
// the listing (the parent, the root, an icon, a [VIEW] variant).
func (l *gatewayListing) entryURL(href string) (string, bool) {
	if href == "" {
		return "", false
	}
	if t, err := uri.FromText(href); err == nil {
		href = t
	}
	abs, err := uri.Resolve(l.base, href)
	if err != nil || !strings.HasPrefix(abs, l.below) || len(abs) == len(l.below) {
		return "", false
	}
	if i := strings.LastIndexByte(abs, ';'); i > strings.LastIndexByte(abs, '/') && strings.HasPrefix(abs[i:], ";type=") {
		return "", false
	}
	return abs, true
}

// entry makes an Entry of a row, once per URL.
func (l *gatewayListing) entry(r row) (schemes.Entry, bool) {
	if r.url == "" || l.seen[r.url] {
		return schemes.Entry{}, false
	}
	l.seen[r.url] = true
	e := schemes.Entry{URL: r.url, Name: r.name, Kind: schemes.KindFile, Size: -1}
	if u, err := uri.Parse(r.url); err == nil {
		if e.Name == "" {
			e.Name = lastSegment(u)
		}
		if l.gopher {
			if g, err := u.Gopher(); err == nil && (g.Type == '1' || g.Type == '7') {
				e.Kind = schemes.KindDirectory
			}
		}
	}
	if !l.gopher && strings.HasSuffix(r.url, "/") {
		e.Kind = schemes.KindDirectory
		if e.Name == "" {
			dir := strings.TrimSuffix(r.url, "/")
			e.Name, _ = uri.Unescape(dir[strings.LastIndexByte(dir, '/')+1:])
		}
	}
	if r.date != "" || r.size != "" {
		// The gateway's own rendering, for showing, not for computing:
		// squid rounds sizes to kilobytes and leaves out the year.
		e.Fields = map[string]string{}
		if r.date != "" {
			e.Fields["date"] = r.date
		}
		if r.size != "" {
			e.Fields["size"] = r.size
		}
	}
	return e, true
}

// attr returns the value of the current tag's attribute key.
func attr(z *html.Tokenizer, more bool, key string) string {
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if string(k) == key {
			return string(v)
		}
	}
	return ""
}

// Close closes the answer's connection.
func (l *gatewayListing) Close() error { return l.rc.Close() }

// gatewayUserAgent is the User-Agent a gateway request sends: the one
// f sends to http servers (UserAgent, unless RemoveHeader drops it), ""
// for none.
func (f *Fetcher) gatewayUserAgent() string {
	for _, name := range f.RemoveHeader {
		if strings.EqualFold(name, "User-Agent") {
			return ""
		}
	}
	if f.UserAgent == "" {
		return "urlget"
	}
	return f.UserAgent
}
