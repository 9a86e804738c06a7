package http

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// The HTTP/1.x wire layer: requests written and responses read by this
// package, byte for byte, on connections of its own (RFC 9112). net/http
// keeps header fields in a map, writes requests its own way and decides a
// message's framing itself; here the fields go out in the order they were
// built, come back in the order and spelling the server sent them, and the
// bytes of each exchange can be seen as they crossed the connection
// (Recorder), for tracing and archiving.

// Recorder receives the bytes of each HTTP/1.x exchange of a Fetcher
// exactly as they crossed the connection, after TLS and inside any CONNECT
// tunnel: the request line and fields as written, the status line, fields,
// chunk framing and content coding as the server sent them. The CONNECT
// exchange with a proxy is recorded too, as an exchange of its own on the
// connection to the proxy. It serves tracing (curl's --trace) and
// archiving (WARC request and response records) alike.
//
// A Fetcher with a Recorder speaks HTTP/1.1 only (HTTP/2's frames belong
// to no one exchange) and reads every body through its buffer, never by
// the kernel's splice, so that no byte goes unrecorded.
type Recorder interface {
	// Exchange starts the record of one request and its response, sent
	// to target (the request URL, or host:port for a CONNECT) on a
	// connection to remote (the proxy's address, for a tunnel). It may be
	// called from several goroutines at once, one per connection; the
	// Exchange's methods are called on one goroutine at a time, in the
	// order of the bytes.
	Exchange(target string, remote net.Addr) Exchange
}

// Exchange receives the bytes of one request and its response (Recorder).
// It is the contract's, so that a request's schemes.Capture, which records
// the same exchanges for an archive, is a Recorder too.
type Exchange = schemes.Exchange

// maxFieldLines bounds how many field lines one response may carry, apart
// from maxHeaderBytes: a megabyte of the shortest lines would be a third
// of a million fields.
const maxFieldLines = 10000

// max1xx is how many interim responses may come before the final one.
const max1xx = 5

// errHeaderTooLarge ends a response whose header passes maxHeaderBytes.
var errHeaderTooLarge = fmt.Errorf("response header exceeded %d bytes", maxHeaderBytes)

// conn is one HTTP/1.x client connection: the socket, TLS over it when the
// scheme or a proxy asks for it, and the reader the responses are parsed
// from.
type conn struct {
	// key names the connections that may serve each other's requests
	// (connKey); "" is one that serves a single request and is never
	// kept (a gateway's).
	key    string
	raw    net.Conn     // the connection dialled
	nc     net.Conn     // the connection HTTP is spoken on: raw, or TLS over it
	tcp    *net.TCPConn // raw when nc is raw and a TCP socket, for body.WriteTo
	br     *bufio.Reader
	remote net.Addr
	rec    Recorder
	rx     Exchange // the exchange whose response is being read
	reused bool
	nread  int64 // bytes consumed from br so far

	// The framing the Fetcher asks for of the response being read
	// (shape.go): rawBody leaves the transfer coding in the body (--raw),
	// ignoreLength reads it to the connection's end
	// (--ignore-content-length). tap, when set, receives the bytes
	// consumed, for a raw chunked body.
	rawBody, ignoreLength bool
	tap                   *bytes.Buffer

	// buffered makes reads take only what the reader holds already,
	// failing with errNotBuffered where they would wait for the
	// socket: a body closed by its caller finishes its framing so
	// (framed.complete) without waiting on the server.
	buffered bool
}

// errNotBuffered is a read that would have waited for the socket while
// conn.buffered was set.
var errNotBuffered = errors.New("the rest of the message is not in the buffer")

func newConn(key string, raw, nc net.Conn, rec Recorder) *conn {
	c := &conn{key: key, raw: raw, nc: nc, br: bufio.NewReaderSize(nc, readBufferSize), remote: raw.RemoteAddr(), rec: rec}
	if tc, ok := nc.(*net.TCPConn); ok {
		c.tcp = tc
	}
	return c
}

// Close closes the connection.
func (c *conn) Close() error { return c.raw.Close() }

// exchange starts the record of one exchange of a request whose capture
// is cp (schemes.Request.Capture): the Recorder's and the capture's, nil
// when there is neither. A connection kept between requests records each
// exchange into the capture of the request it serves.
func (c *conn) exchange(cp schemes.Capture, target string) Exchange {
	var x, y Exchange
	if c.rec != nil {
		x = c.rec.Exchange(target, c.remote)
	}
	if cp != nil {
		y = cp.Exchange(target, c.remote)
	}
	switch {
	case x == nil:
		return y
	case y == nil:
		return x
	}
	return bothExchanges{x, y}
}

// records reports whether an exchange of a request whose capture is cp
// is recorded, so that a pipeline names its target only then.
func (c *conn) records(cp schemes.Capture) bool { return c.rec != nil || cp != nil }

// bothExchanges records one exchange twice: for a trace (the Fetcher's
// Recorder) and for an archive (the request's Capture).
type bothExchanges [2]Exchange

func (b bothExchanges) Request(p []byte)  { b[0].Request(p); b[1].Request(p) }
func (b bothExchanges) Response(p []byte) { b[0].Response(p); b[1].Response(p) }
func (b bothExchanges) End(err error)     { b[0].End(err); b[1].End(err) }

// write writes one request's bytes in one piece, recording them.
func (c *conn) write(x Exchange, p []byte) error {
	if x != nil {
		x.Request(p)
	}
	_, err := c.nc.Write(p)
	return err
}

// consumed records bytes the reader consumed for the current exchange.
func (c *conn) consumed(p []byte) {
	c.nread += int64(len(p))
	if c.rx != nil && len(p) > 0 {
		c.rx.Response(p)
	}
	if c.tap != nil {
		c.tap.Write(p)
	}
}

// Read reads from the connection's buffer, recording what it took.
func (c *conn) Read(p []byte) (int, error) {
	if c.buffered && c.br.Buffered() == 0 {
		return 0, errNotBuffered
	}
	n, err := c.br.Read(p)
	c.consumed(p[:n])
	return n, err
}

// line reads one line and returns it without its line ending (RFC 9112
// §2.2: CRLF, or a bare LF, which a recipient may take as one), counting
// its bytes against *budget. A connection that ends within a line is a
// truncated response; one that ends before it starts returns io.EOF.
func (c *conn) line(budget *int) (string, error) {
	var full []byte
	if c.buffered {
		if held, _ := c.br.Peek(c.br.Buffered()); bytes.IndexByte(held, '\n') < 0 {
			return "", errNotBuffered
		}
	}
	for {
		frag, err := c.br.ReadSlice('\n')
		c.consumed(frag)
		*budget -= len(frag)
		if *budget < 0 {
			return "", errHeaderTooLarge
		}
		full = append(full, frag...)
		if err == nil {
			break
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(full) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return "", err
	}
	full = full[:len(full)-1]
	full = bytes.TrimSuffix(full, []byte{'\r'})
	// RFC 9112 §2.2: a bare CR is invalid; NUL has no place in a field.
	if bytes.IndexByte(full, '\r') >= 0 || bytes.IndexByte(full, 0) >= 0 {
		return "", errors.New("response line holds a bare CR or a NUL byte")
	}
	return string(full), nil
}

// outRequest is a request as this package writes it: the fields in the
// order they were built (RFC 9112 §3, §5).
type outRequest struct {
	method string
	// frame is the method whose rules frame the response (RFC 9112
	// §6.3): method, or GET or HEAD for a method of the user's.
	frame string
	// rawTarget replaces the request target when not "" (curl's
	// --request-target).
	rawTarget string
	version   Version
	url       *url.URL
	host      string // the Host field (RFC 9112 §3.2)
	fields    fieldList
	proxy     *url.URL // the HTTP proxy an http: request goes through, nil for none

	// user is the credentials a challenge is answered with (--digest,
	// --anyauth), nil for none.
	user *url.Userinfo
	// proxyAuth is how the proxy's credentials go; proxyFields are the
	// fields only a proxy receives (--proxy-header).
	proxyAuth   AuthScheme
	proxyFields []Field
	// connectAuth is the Proxy-Authorization a CONNECT sends again on
	// a new connection, answering the challenge of a proxy that closed
	// the last one.
	connectAuth string
}

// target is the request target (RFC 9112 §3.2): the origin form, or the
// absolute form to a proxy (§3.2.2).
func (r *outRequest) target() string {
	if r.rawTarget != "" {
		return r.rawTarget
	}
	if r.proxy != nil && r.url.Scheme == "http" {
		u := *r.url
		u.User, u.Fragment, u.RawFragment = nil, "", ""
		return u.String()
	}
	return r.url.RequestURI()
}

// recordedAs is the URL a Recorder is told an exchange of r is for
// (Recorder.Exchange): the request's URL without userinfo, or the target
// a gateway's request names, its password masked.
func (r *outRequest) recordedAs() string {
	if r.url.Opaque != "" {
		return uri.RedactText(r.url.Opaque)
	}
	u := *r.url
	u.User = nil
	return u.String()
}

// header is the request's fields as a map, for net/http's HTTP/2.
func (r *outRequest) header() http.Header {
	h := http.Header{}
	for _, kv := range r.fields {
		k := textproto.CanonicalMIMEHeaderKey(kv[0])
		h[k] = append(h[k], kv[1])
	}
	return h
}

// clone copies r, so that a redirect's request can change its own fields.
func (r *outRequest) clone() *outRequest {
	c := *r
	c.fields = append(fieldList(nil), r.fields...)
	return &c
}

// bytes renders the request: the request line, Host first as RFC 9112
// §3.2 asks, then the fields in their order, then the empty line.
func (r *outRequest) bytes() []byte {
	var b bytes.Buffer
	b.WriteString(r.method + " " + r.target() + " " + r.proto() + "\r\nHost: " + r.host + "\r\n")
	if r.sendsProxyBasic() {
		// Right after Host, where curl writes it.
		b.WriteString("Proxy-Authorization: " + basicAuth(r.proxy.User) + "\r\n")
	}
	for _, kv := range r.fields {
		writeField(&b, kv[0], kv[1])
	}
	if r.proxy != nil && r.url.Scheme == "http" {
		for _, h := range r.proxyFields {
			writeField(&b, h.Name, h.Value)
		}
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// sendsProxyBasic reports whether the request carries the proxy's
// credentials by Basic: an http: request through a proxy that has them,
// unless another scheme was asked for (--proxy-digest, --proxy-anyauth)
// or a Proxy-Authorization is there already.
func (r *outRequest) sendsProxyBasic() bool {
	return r.proxy != nil && r.url.Scheme == "http" && r.proxy.User != nil &&
		r.proxyAuth == AuthBasic && r.fields.get("Proxy-Authorization") == ""
}

// writeField writes one field line; an empty value goes as "Name:",
// without the space, as curl writes it.
func writeField(b *bytes.Buffer, name, value string) {
	b.WriteString(name)
	if value == "" {
		b.WriteString(":\r\n")
		return
	}
	b.WriteString(": " + value + "\r\n")
}

// framing is the method whose rules frame the response.
func (r *outRequest) framing() string {
	if r.frame != "" {
		return r.frame
	}
	return r.method
}

// proto is the version of the request line: HTTP/1.0 for -0, else
// HTTP/1.1.
func (r *outRequest) proto() string {
	if r.version == Version10 {
		return "HTTP/1.0"
	}
	return "HTTP/1.1"
}

// basicAuth is the Basic credentials of u (RFC 7617 §2): the user and
// password joined by a colon, in base64.
func basicAuth(u *url.Userinfo) string {
	p, _ := u.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+p))
}

// fieldList is header fields in order, names as given.
type fieldList [][2]string

func (l *fieldList) add(k, v string) { *l = append(*l, [2]string{k, v}) }

func (l *fieldList) set(k, v string) {
	l.del(k)
	l.add(k, v)
}

// front sets k to v as the first field, where curl writes the
// credentials, right after Host.
func (l *fieldList) front(k, v string) {
	l.del(k)
	*l = append(fieldList{{k, v}}, *l...)
}

func (l *fieldList) del(k string) {
	*l = slicesDelete(*l, func(kv [2]string) bool { return strings.EqualFold(kv[0], k) })
}

func (l fieldList) get(k string) string {
	for _, kv := range l {
		if strings.EqualFold(kv[0], k) {
			return kv[1]
		}
	}
	return ""
}

func (l fieldList) values(k string) []string {
	var vs []string
	for _, kv := range l {
		if strings.EqualFold(kv[0], k) {
			vs = append(vs, kv[1])
		}
	}
	return vs
}

// slicesDelete keeps the fields del does not pick, in order.
func slicesDelete(l fieldList, del func([2]string) bool) fieldList {
	out := l[:0]
	for _, kv := range l {
		if !del(kv) {
			out = append(out, kv)
		}
	}
	return out
}

// response is a response read off the wire: net/http's form for the
// policy that reads it, and the fields as the server sent them.
type response struct {
	*http.Response
	fields [][2]string // in the server's order and spelling
	req    *outRequest
	// keep tells whether the connection may serve another request once
	// the body is read to its end.
	keep bool
	// headBytes is how many bytes the heads of the response took on the
	// wire, its interim (1xx) ones included: curl's size_header.
	headBytes int64
}

// readResponse reads a response to a request of method from c: interim
// (1xx) responses are read past (RFC 9110 §15.2), then the status line
// and fields of the final one, whose body is framed as RFC 9112 §6.3
// says. A connection that ends before the first byte returns io.EOF.
func readResponse(c *conn, method string) (*response, error) {
	budget := maxHeaderBytes
	for n1xx := 0; ; n1xx++ {
		r, err := readHead(c, &budget)
		if err != nil {
			if n1xx > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if r.StatusCode >= 200 || r.StatusCode == http.StatusSwitchingProtocols {
			r.headBytes = int64(maxHeaderBytes - budget)
			return r, frame(c, r, method)
		}
		if n1xx >= max1xx {
			return nil, errors.New("too many interim (1xx) responses")
		}
	}
}

// readHead reads one status line and its fields (RFC 9112 §4, §5).
func readHead(c *conn, budget *int) (*response, error) {
	line, err := c.line(budget)
	if err != nil {
		return nil, err
	}
	resp := &http.Response{Header: http.Header{}}
	r := &response{Response: resp}
	// status-line = HTTP-version SP status-code SP [ reason-phrase ]
	proto, status, ok := strings.Cut(line, " ")
	major, minor, vok := http.ParseHTTPVersion(proto)
	if !ok || !vok || major != 1 {
		return nil, fmt.Errorf("malformed status line %q", line)
	}
	code, _, _ := strings.Cut(strings.TrimLeft(status, " "), " ")
	n, err := strconv.Atoi(code)
	if len(code) != 3 || err != nil || n < 100 {
		return nil, fmt.Errorf("malformed status code in %q", line)
	}
	resp.Proto, resp.ProtoMajor, resp.ProtoMinor = proto, major, minor
	resp.StatusCode = n
	// The status as sent: no reason phrase when the server gave none.
	resp.Status = strings.TrimLeft(status, " ")
	for {
		line, err := c.line(budget)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, err
		}
		if line == "" {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			// obs-fold (RFC 9112 §5.2): a user agent replaces it with
			// a space, continuing the field before.
			if len(r.fields) == 0 {
				return nil, fmt.Errorf("continuation line %q before any field", line)
			}
			last := &r.fields[len(r.fields)-1]
			cont := strings.Trim(line, " \t")
			if last[1] == "" {
				last[1] = cont
			} else if cont != "" {
				last[1] += " " + cont
			}
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		// RFC 9112 §5.1: no white space between the name and the colon.
		if !ok || !isToken(name) {
			return nil, fmt.Errorf("malformed header line %q", line)
		}
		if len(r.fields) >= maxFieldLines {
			return nil, fmt.Errorf("response header exceeded %d fields", maxFieldLines)
		}
		r.fields = append(r.fields, [2]string{name, strings.Trim(value, " \t")})
	}
	for _, kv := range r.fields {
		k := textproto.CanonicalMIMEHeaderKey(kv[0])
		resp.Header[k] = append(resp.Header[k], kv[1])
	}
	return r, nil
}

// frame decides how r's body is delimited (RFC 9112 §6.3) and sets its
// Body, ContentLength, TransferEncoding and Close.
func frame(c *conn, r *response, method string) error {
	h := r.Header
	r.ContentLength = -1
	// After a 101 the connection speaks another protocol (RFC 9110
	// §15.2.2): it never serves another request of ours.
	r.Close = closing(r.Response) || r.StatusCode == http.StatusSwitchingProtocols
	cl, err := contentLength(h["Content-Length"])
	if err != nil {
		// §6.3 item 5: invalid framing; the connection is not reused.
		return err
	}
	// §6.3 item 2: a 2xx to CONNECT turns the connection into a tunnel
	// right after the header.
	if method == http.MethodConnect && r.StatusCode/100 == 2 {
		r.Body = http.NoBody
		return nil
	}
	// §6.3 item 1: no content after a HEAD or a 1xx, 204 or 304 status,
	// whatever the fields say; a HEAD's Content-Length is the GET's.
	if method == http.MethodHead || r.StatusCode < 200 || r.StatusCode == http.StatusNoContent || r.StatusCode == http.StatusNotModified {
		if method == http.MethodHead {
			r.ContentLength = cl
		} else {
			r.ContentLength = 0
		}
		r.Body = http.NoBody
		r.keep = !r.Close
		return nil
	}
	tes := transferCodings(h["Transfer-Encoding"])
	switch {
	case tes != nil && r.ProtoMinor == 0:
		// §6.1: Transfer-Encoding in an HTTP/1.0 message is faulty
		// framing; the body ends with the connection.
		r.Close = true
		r.Body = &closeBody{c: c}
	case tes != nil:
		// §6.3 item 3: Transfer-Encoding overrides Content-Length; a
		// message with both may be an attempt at smuggling, so its
		// connection serves nothing more.
		if cl >= 0 {
			r.Close = true
		}
		r.TransferEncoding = tes
		var body framed
		if tes[len(tes)-1] == "chunked" {
			body = &chunkedBody{c: c}
			if c.rawBody {
				// --raw: the chunk framing and every coding are
				// the body, as curl writes them.
				r.Body = &rawChunkedBody{chunked: body.(*chunkedBody)}
				break
			}
			tes = tes[:len(tes)-1]
		} else {
			// §6.3 item 4: chunked not last: read until close.
			r.Close = true
			body = &closeBody{c: c}
		}
		if len(tes) == 0 || c.rawBody {
			r.Body = body
			break
		}
		dec, err := transferDecoder(tes, body)
		if err != nil {
			return err
		}
		r.Body = dec
	case cl >= 0 && c.ignoreLength:
		// --ignore-content-length: the body ends with the connection,
		// which serves nothing more.
		r.Close = true
		r.Body = &closeBody{c: c}
	case cl >= 0:
		r.ContentLength = cl
		r.Body = &lengthBody{c: c, n: cl}
	default:
		// §6.3 item 8: the body ends with the connection.
		r.Close = true
		r.Body = &closeBody{c: c}
	}
	r.keep = !r.Close
	return nil
}

// closing reports whether the server ends the connection after this
// response (RFC 9112 §9.3, §9.6): "close" in Connection, or HTTP/1.0
// without "keep-alive".
func closing(r *http.Response) bool {
	keepAlive := false
	for _, v := range r.Header["Connection"] {
		for _, o := range strings.Split(v, ",") {
			switch strings.ToLower(strings.TrimSpace(o)) {
			case "close":
				return true
			case "keep-alive":
				keepAlive = true
			}
		}
	}
	return r.ProtoMinor == 0 && !keepAlive
}

// contentLength parses the Content-Length fields: -1 when there is none;
// an error for a value that is not a non-negative decimal, or for values
// that differ (RFC 9110 §8.6 lets a recipient take a list of one value
// repeated as that value).
func contentLength(vs []string) (int64, error) {
	n := int64(-1)
	for _, v := range vs {
		for _, s := range strings.Split(v, ",") {
			s = strings.TrimSpace(s)
			m, err := strconv.ParseInt(s, 10, 64)
			if err != nil || m < 0 || s[0] == '+' {
				return 0, fmt.Errorf("invalid Content-Length %q", v)
			}
			if n >= 0 && m != n {
				return 0, fmt.Errorf("conflicting Content-Length values %q", strings.Join(vs, ", "))
			}
			n = m
		}
	}
	return n, nil
}

// transferCodings lists the Transfer-Encoding codings in the order
// applied, lower case (RFC 9112 §6.1); nil when there is none.
func transferCodings(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, s := range strings.Split(v, ",") {
			if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// transferDecoder undoes the transfer codings other than chunked (RFC 9112
// §7), the last applied first: gzip and deflate, which Go reads; any other
// fails the response. The decoders are built on the first read, so that
// reading the header waits for no byte of the body.
func transferDecoder(cs []string, r framed) (io.ReadCloser, error) {
	for _, c := range cs {
		switch c {
		case "gzip", "x-gzip", "deflate":
		default:
			return nil, fmt.Errorf("transfer coding %q, which urlget cannot decode", c)
		}
	}
	return &decodedBody{r: r, framing: r, pending: cs}, nil
}

// framed is a body whose framing tells where its message ends (RFC 9112
// §6.3).
type framed interface {
	io.ReadCloser
	// complete reports whether every byte of the message has been
	// taken from the connection, finishing the framing from what the
	// connection's reader holds already (a chunked body's last chunk
	// and trailer section, §7.1), never waiting for the server.
	complete() bool
}

// decodedBody is a body read through its transfer decoders.
type decodedBody struct {
	r       io.Reader
	framing framed // the body under the decoders
	pending []string
	closers []io.Closer
}

// complete is the framing's: the message is on the wire whole once the
// body under the decoders is, whatever of it the caller read decoded.
func (d *decodedBody) complete() bool { return d.framing.complete() }

func (d *decodedBody) Read(p []byte) (int, error) {
	if d.pending != nil {
		cs := d.pending
		d.pending = nil
		br := bufio.NewReader(d.r)
		d.r = br
		if _, err := br.Peek(1); err == io.EOF {
			return 0, io.EOF
		}
		for i := len(cs) - 1; i >= 0; i-- {
			r, c, err := decoder(cs[i], d.r)
			if err != nil {
				return 0, fmt.Errorf("the %s transfer coding does not decode: %w", cs[i], err)
			}
			d.r = r
			if c != nil {
				d.closers = append(d.closers, c)
			}
		}
	}
	return d.r.Read(p)
}

func (d *decodedBody) Close() error {
	for _, c := range d.closers {
		c.Close()
	}
	return nil
}

// lengthBody is a body of Content-Length bytes (RFC 9112 §6.2).
type lengthBody struct {
	c *conn
	n int64
}

func (b *lengthBody) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.c.Read(p)
	b.n -= int64(n)
	if err == io.EOF && b.n > 0 {
		err = io.ErrUnexpectedEOF
	}
	if err == nil && b.n == 0 {
		err = io.EOF
	}
	return n, err
}

func (b *lengthBody) Close() error { return nil }

// complete reports whether Content-Length bytes were read.
func (b *lengthBody) complete() bool { return b.n <= 0 }

// closeBody is a body that ends with the connection (RFC 9112 §6.3).
type closeBody struct {
	c   *conn
	eof bool // the connection ended: the body is whole
}

func (b *closeBody) Read(p []byte) (int, error) {
	n, err := b.c.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *closeBody) Close() error { return nil }

// complete reports whether the connection's end was read: until then,
// more of the body may come.
func (b *closeBody) complete() bool { return b.eof }

// maxChunkLine bounds a chunk-size line with its extensions.
const maxChunkLine = 4 << 10

// chunkedBody reads the chunked transfer coding (RFC 9112 §7.1): each
// chunk's size line, its data and CRLF, and after the last chunk the
// trailer section, whose fields are kept (§7.1.2).
type chunkedBody struct {
	c       *conn
	left    int64 // bytes of the current chunk not yet read
	inChunk bool
	done    bool
	err     error // the framing failed: every later read fails alike
	trailer [][2]string
}

func (b *chunkedBody) Read(p []byte) (int, error) {
	n, err := b.read(p)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

func (b *chunkedBody) read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.done {
		return 0, io.EOF
	}
	if !b.inChunk {
		if err := b.next(); err != nil {
			return 0, err
		}
		if b.done {
			return 0, io.EOF
		}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.c.Read(p)
	b.left -= int64(n)
	if err == io.EOF {
		return n, io.ErrUnexpectedEOF
	}
	if err != nil {
		return n, err
	}
	if b.left == 0 {
		budget := 2
		if l, err := b.c.line(&budget); err != nil || l != "" {
			return n, chunkError(err, "chunk data not followed by CRLF")
		}
		b.inChunk = false
	}
	return n, nil
}

// next reads a chunk-size line, and the trailer after the last chunk.
func (b *chunkedBody) next() error {
	budget := maxChunkLine
	line, err := b.c.line(&budget)
	if err != nil {
		return chunkError(err, "chunk size line too long")
	}
	size, _, _ := strings.Cut(line, ";") // chunk extensions are ignored (§7.1.1)
	size = strings.TrimRight(size, " \t")
	n, perr := strconv.ParseUint(size, 16, 63)
	if perr != nil || size == "" {
		return fmt.Errorf("malformed chunk size %q", line)
	}
	if n > 0 {
		b.left, b.inChunk = int64(n), true
		return nil
	}
	budget = maxHeaderBytes
	for {
		line, err := b.c.line(&budget)
		if err != nil {
			return chunkError(err, "trailer section too large")
		}
		if line == "" {
			b.done = true
			return nil
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !isToken(name) {
			return fmt.Errorf("malformed trailer line %q", line)
		}
		b.trailer = append(b.trailer, [2]string{name, strings.Trim(value, " \t")})
	}
}

// chunkError is a read error within the chunked framing: the connection's
// end there is a truncated body.
func chunkError(err error, tooLarge string) error {
	switch {
	case err == nil:
		return errors.New(tooLarge)
	case err == io.EOF:
		return io.ErrUnexpectedEOF
	case err == errHeaderTooLarge:
		return errors.New(tooLarge)
	}
	return err
}

func (b *chunkedBody) Close() error { return nil }

// complete reports whether the last chunk and the trailer section were
// read (RFC 9112 §7.1). After the data of a chunk, the caller may have
// read every byte of the body but the zero-size last chunk: it is read
// now if the connection's reader holds it.
func (b *chunkedBody) complete() bool {
	if b.done || b.err != nil || b.inChunk {
		return b.done
	}
	b.c.buffered = true
	err := b.next()
	b.c.buffered = false
	if err != nil {
		b.err = err
	}
	return b.done
}

// rawChunkedBody is a chunked body passed on with its framing (curl's
// --raw): the chunk-size lines, the data, the CRLFs, the last chunk and
// the trailer section, byte for byte as they came. The chunked reader
// under it finds where the message ends, so that a kept connection
// serves the next request.
type rawChunkedBody struct {
	chunked *chunkedBody
	buf     bytes.Buffer
	scratch []byte
	err     error
}

func (b *rawChunkedBody) Read(p []byte) (int, error) {
	for b.buf.Len() == 0 && b.err == nil {
		if b.scratch == nil {
			b.scratch = make([]byte, readBufferSize)
		}
		c := b.chunked.c
		c.tap = &b.buf
		_, b.err = b.chunked.Read(b.scratch)
		c.tap = nil
	}
	if b.buf.Len() > 0 {
		return b.buf.Read(p)
	}
	return 0, b.err
}

func (b *rawChunkedBody) Close() error { return nil }

// complete is the chunked framing's: the bytes of it not yet read by the
// caller are off the wire already.
func (b *rawChunkedBody) complete() bool { return b.chunked.complete() }

// idleTimeout is how long a connection waits in the pool for its next
// request; a server closes an idle one in about as long.
const idleTimeout = 90 * time.Second

// newPool is the pool of idle HTTP/1.x connections, by connKey (scheme,
// host:port and proxy): at most maxIdlePerHost to each.
func newPool() *netconn.Pool[string, *conn] {
	return &netconn.Pool[string, *conn]{MaxIdle: maxIdlePerHost, IdleTimeout: idleTimeout, Drop: (*conn).Close}
}

// closeAll closes every connection of a keyed pool taken out of it.
func closeAll[T any, E any](m map[string][]T, close func(T) E) {
	for _, vs := range m {
		for _, v := range vs {
			close(v)
		}
	}
}
