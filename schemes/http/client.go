package http

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// The client side of one hop of a fetch: a connection from the pool or a
// new one (through the hop's Dialer, an HTTP proxy, a CONNECT tunnel and
// TLS as the hop needs), the request written, the response's head read.

// hopRoute is the way to target, a URL this fetch reaches (the request's
// Route): the Dialer of its connections, and the HTTP proxy this Fetcher
// speaks to on the way, nil for none. A request without a Route goes
// through its Dialer alone.
func hopRoute(req *schemes.Request, target *url.URL) (schemes.Dialer, *url.URL, error) {
	if req.Route == nil {
		return req.Dialer, nil, nil
	}
	u, err := uri.Parse(target.String())
	if err != nil {
		return nil, nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	rt, err := req.Route(u)
	if err != nil {
		return nil, nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	d := rt.Dialer
	if d == nil {
		d = req.Dialer
	}
	if rt.HTTPProxy == nil {
		return d, nil, nil
	}
	return d, proxyURL(*rt.HTTPProxy), nil
}

// proxyURL is an HTTP proxy's URL in the form the wire layer keys and
// dials by: scheme, host and port (the default one filled in), and the
// credentials for Proxy-Authorization (RFC 9110 §11.7.2).
func proxyURL(p uri.URL) *url.URL {
	u := &url.URL{Scheme: p.Scheme(), Host: p.Addr()}
	if user, ok := p.User(); ok {
		password, _ := p.Password()
		u.User = url.UserPassword(user, password)
	}
	return u
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

// hostPort is host:port of u, the scheme's default port filled in.
func hostPort(u *url.URL) string {
	p := u.Port()
	if p == "" {
		p = uri.DefaultPort(u.Scheme)
	}
	return net.JoinHostPort(u.Hostname(), p)
}

// connKey names the connections a request may reuse: same scheme, server
// and HTTP proxy.
func connKey(r *outRequest) string {
	k := r.url.Scheme + "://" + hostPort(r.url)
	if r.proxy != nil {
		k += " via " + r.proxy.String()
	}
	return k
}

// tlsConfig is the Fetcher's base TLS configuration, built from the first
// request's: the connections of a run resume the first one's TLS session
// (RFC 8446 §2.2, RFC 5077), as curl's do.
func (f *Fetcher) tlsConfig(req *schemes.Request) *tls.Config {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tlsBase == nil {
		tc := &tls.Config{}
		if req.TLSConfig != nil {
			tc = req.TLSConfig.Clone()
		}
		if tc.ClientSessionCache == nil {
			tc.ClientSessionCache = tls.NewLRUClientSessionCache(sessionCacheSize)
		}
		f.tlsBase = tc
	}
	return f.tlsBase
}

// http1Only reports whether the Fetcher offers HTTP/1.1 alone for req: a
// request captured for an archive speaks it too, as HTTP/2's frames belong
// to no one exchange and WARC records HTTP/1.x messages (WARC 1.1 §6.3.2, §6.5.2).
func (f *Fetcher) http1Only(req *schemes.Request) bool {
	return f.HTTP1Only || f.Recorder != nil || req.Capture != nil || f.Version == Version10 || f.Version == Version11
}

// handshake runs TLS over c with the server host, tracing the outcome.
// alpn offers h2 besides http/1.1 (RFC 9113 §3.2, RFC 7301).
func (f *Fetcher) handshake(ctx context.Context, req *schemes.Request, c net.Conn, host string, alpn bool) (*tls.Conn, error) {
	cfg := f.tlsConfig(req).Clone()
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	cfg.NextProtos = []string{"http/1.1"}
	if alpn {
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	tc, err := netconn.Handshake(ctx, c, cfg)
	if err != nil {
		return nil, req.TLSError("TLS handshake with "+host, err)
	}
	req.Trace.TraceLine(schemes.Info, netconn.Describe(tc.ConnectionState()))
	return tc, nil
}

// proxyHandshake runs TLS over c with the https proxy host, with the
// request's proxy TLS configuration (curl's --proxy-cacert and its
// siblings), tracing the outcome.
func proxyHandshake(ctx context.Context, req *schemes.Request, c net.Conn, host string) (*tls.Conn, error) {
	base := req.ProxyTLSConfig
	if base == nil {
		base = req.TLSConfig
	}
	cfg := &tls.Config{}
	if base != nil {
		cfg = base.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	cfg.NextProtos = []string{"http/1.1"}
	tc, err := netconn.Handshake(ctx, c, cfg)
	if err != nil {
		return nil, req.TLSError("TLS handshake with proxy "+host, err)
	}
	req.Trace.TraceLine(schemes.Info, netconn.Describe(tc.ConnectionState()))
	return tc, nil
}

// roundTrip sends r and reads the head of its response, on a kept
// connection or a new one. A kept connection the server closed before any
// byte of the answer came is given up and the request sent once more on a
// new one, as RFC 9112 §9.3.1 allows for GET and HEAD.
func (f *Fetcher) roundTrip(ctx context.Context, req *schemes.Request, dialer schemes.Dialer, r *outRequest) (*response, error) {
	key := connKey(r)
	retried := false // an HTTP/2 connection that failed was replaced
	for {
		if cc, tc := f.h2conn(key); cc != nil && req.Capture == nil {
			req.Trace.TraceLine(schemes.Info, "Re-using connection to "+r.url.Host)
			_, overTLS := tc.(*tls.Conn)
			schemes.MetricsFrom(ctx).Reused(tc, overTLS)
			resp, err := f.h2RoundTrip(ctx, req, cc, r)
			if err != nil && ctx.Err() == nil && cc.Err() != nil && !retried {
				// The server ended the kept connection (a GOAWAY, a
				// timeout of its own): a new one is dialled.
				f.dropH2(key, cc)
				retried = true
				continue
			}
			return resp, err
		}
		c, ok := f.pool().Take(key)
		if ok {
			c.reused = true
		} else {
			nc, cc, err := f.dial(ctx, req, dialer, r, key)
			if err != nil {
				return nil, err
			}
			if cc != nil {
				return f.h2RoundTrip(ctx, req, cc, r)
			}
			c = nc
		}
		if c.reused {
			req.Trace.TraceLine(schemes.Info, "Re-using connection to "+r.url.Host)
			schemes.MetricsFrom(ctx).Reused(c.raw, c.nc != c.raw)
		}
		resp, nothing, err := f.exchange(ctx, req, c, r)
		if err != nil && nothing && c.reused && ctx.Err() == nil {
			// Each kept connection is tried once; a new one ends it.
			continue
		}
		return resp, err
	}
}

// dial opens a connection for r: to the server, or to its HTTP proxy, with
// a CONNECT tunnel through the proxy for https (RFC 9110 §9.3.6), then TLS
// for https. When the server picks h2 by ALPN, the connection is an
// HTTP/2 one (cc).
//
// The TCP dial is not netconn.Dial's: it goes through the hop's Dialer
// rather than the request's, traces curl's lines, and marks a proxy that
// could not be reached apart from a server (doError); the TLS handshake
// and the binding to ctx are netconn's.
func (f *Fetcher) dial(ctx context.Context, req *schemes.Request, dialer schemes.Dialer, r *outRequest, key string) (*conn, *http.ClientConn, error) {
	addr := hostPort(r.url)
	if r.proxy != nil {
		addr = hostPort(r.proxy)
	}
	req.Trace.TraceLine(schemes.Info, "Trying "+addr+"...")
	raw, err := dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		if r.proxy != nil {
			err = &net.OpError{Op: "proxyconnect", Net: "tcp", Err: err}
		}
		return nil, nil, err
	}
	req.Trace.TraceLine(schemes.Info, "Connected to "+r.url.Host+" ("+addr+")")
	// Until the connection is handed on, ctx ends every wait on it.
	defer netconn.Bind(ctx, raw, nil).Stop()
	nc := raw
	fail := func(err error) (*conn, *http.ClientConn, error) {
		raw.Close()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, err
	}
	if r.proxy != nil && r.proxy.Scheme == "https" {
		if nc, err = proxyHandshake(ctx, req, nc, r.proxy.Hostname()); err != nil {
			return fail(&net.OpError{Op: "proxyconnect", Net: "tcp", Err: err})
		}
	}
	if r.url.Scheme == "http" && r.proxy == nil && f.Version == Version2PriorKnowledge && f.Recorder == nil && req.Capture == nil {
		// --http2-prior-knowledge: h2 from the connection preface on
		// (RFC 9113 §3.3).
		cc, err := f.newH2C(ctx, raw, addr)
		if err != nil {
			return fail(err)
		}
		f.putH2(key, cc, raw)
		return nil, cc, nil
	}
	if r.url.Scheme != "https" {
		return newConn(key, raw, nc, f.Recorder), nil, nil
	}
	if r.proxy != nil {
		err := f.connect(ctx, req, newConn(key, raw, nc, f.Recorder), r)
		if again, ok := err.(*connectAgain); ok {
			// The proxy closed the connection after its challenge:
			// the answer goes on a new one, as curl sends it.
			raw.Close()
			ra := *r
			ra.connectAuth = again.auth
			return f.dial(ctx, req, dialer, &ra, key)
		}
		if err != nil {
			return fail(err)
		}
	}
	tc, err := f.handshake(ctx, req, nc, r.url.Hostname(), !f.http1Only(req))
	if err != nil {
		return fail(err)
	}
	if tc.ConnectionState().NegotiatedProtocol == "h2" {
		cc, err := f.newH2(ctx, tc, hostPort(r.url))
		if err != nil {
			return fail(err)
		}
		f.putH2(key, cc, tc)
		return nil, cc, nil
	}
	return newConn(key, raw, tc, f.Recorder), nil, nil
}

// connect asks the proxy on c for a tunnel to r's server (RFC 9110
// §9.3.6), with the proxy's credentials, tracing it as it goes; anything
// but a 2xx answer fails the fetch with the proxy's status (curl's exit
// 56).
func (f *Fetcher) connect(ctx context.Context, req *schemes.Request, c *conn, r *outRequest) error {
	target := hostPort(r.url)
	auth := r.connectAuth
	if auth == "" && r.proxy.User != nil && f.ProxyAuth == AuthBasic {
		auth = basicAuth(r.proxy.User)
	}
	m := schemes.MetricsFrom(ctx)
	for try := 0; ; try++ {
		msg := "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n"
		f.lines(req).TraceLine(schemes.Sent, "CONNECT "+target+" HTTP/1.1")
		f.lines(req).TraceLine(schemes.Sent, "Host: "+target)
		if auth != "" {
			msg += "Proxy-Authorization: " + auth + "\r\n"
			scheme, _, _ := strings.Cut(auth, " ")
			f.lines(req).TraceSecret("Proxy-Authorization: " + scheme + " ")
		}
		// --proxy-header's fields go on the CONNECT; -H's do not, as
		// curl keeps them apart.
		var b bytes.Buffer
		for _, h := range f.ProxyHeader {
			writeField(&b, h.Name, h.Value)
			f.lines(req).TraceLine(schemes.Sent, h.Name+": "+h.Value)
		}
		msg += b.String()
		x := c.exchange(req.Capture, target)
		m.Sent(int64(len(msg) + 2))
		if err := c.write(x, []byte(msg+"\r\n")); err != nil {
			return endExchange(x, err)
		}
		c.rx = x
		resp, err := readResponse(c, http.MethodConnect)
		if err != nil {
			return endExchange(x, err)
		}
		f.lines(req).TraceLine(schemes.Received, resp.Proto+" "+resp.Status)
		m.ProxyConnect(resp.StatusCode, resp.headBytes)
		if resp.StatusCode == http.StatusProxyAuthRequired && try == 0 && r.connectAuth == "" && r.proxy.User != nil && f.ProxyAuth != AuthBasic {
			// --proxy-digest, --proxy-anyauth: the challenge is
			// answered on the same connection, its body read past,
			// or on a new one when the proxy closes this one.
			if ch, ok := pickChallenge(parseChallenges(resp.Header["Proxy-Authenticate"]), f.ProxyAuth); ok {
				auth = answer(ch, r.proxy.User, http.MethodConnect, target)
				if !resp.keep {
					return endExchange(x, &connectAgain{auth: auth})
				}
				if _, err := io.CopyN(io.Discard, resp.Body, drainLimit); err == io.EOF {
					endExchange(x, nil)
					continue
				}
			}
		}
		if resp.StatusCode/100 != 2 {
			return endExchange(x, &schemes.Error{Kind: schemes.ErrProxyTunnel, URL: req.URL.Redacted(), Reply: resp.Status})
		}
		if f.ConnectResponses && f.OnResponse != nil {
			f.OnResponse(responseHead(resp))
		}
		if c.br.Buffered() > 0 {
			// The server's first TLS bytes never come before the client's:
			// bytes here were sent before the tunnel was open.
			return endExchange(x, errors.New("proxy sent data before the tunnel opened"))
		}
		endExchange(x, nil)
		return nil
	}
}

// connectAgain is what connect returns when the proxy closed the
// connection after a challenge it can answer: auth, to send on a new one.
type connectAgain struct{ auth string }

func (e *connectAgain) Error() string { return "the proxy closed the connection after its challenge" }

// endExchange ends x's record, when there is one, and returns err.
func endExchange(x Exchange, err error) error {
	if x != nil {
		x.End(err)
	}
	return err
}

// exchange writes r on c and reads the head of the response. nothing
// tells that the connection failed before any byte of an answer came.
func (f *Fetcher) exchange(ctx context.Context, req *schemes.Request, c *conn, r *outRequest) (resp *response, nothing bool, err error) {
	// The connection is bound to ctx until the response is read to its
	// end: cancelling closes it, which ends any read or write at once and
	// tells the server.
	bind := netconn.BindClose(ctx, c.raw)
	x := c.exchange(req.Capture, r.recordedAs())
	traceRequest(f.lines(req), r, " "+r.proto())
	out := r.bytes()
	if m := schemes.MetricsFrom(ctx); m != nil {
		m.Request(r.method, r.url.String(), int64(len(out)))
	}
	if err := c.write(x, out); err != nil {
		bind.Stop()
		c.Close()
		return nil, true, endExchange(x, netconn.Cause(ctx, err))
	}
	start := c.nread
	c.rx = x
	c.rawBody, c.ignoreLength = f.Raw, f.IgnoreContentLength
	if f.HTTP09 && http09(c) {
		resp = http09Response(c)
	} else {
		resp, err = readResponse(c, r.framing())
	}
	if err != nil {
		bind.Stop()
		c.Close()
		return nil, c.nread == start, endExchange(x, netconn.Cause(ctx, err))
	}
	resp.req = r
	resp.Request = &http.Request{Method: r.method, URL: r.url, Header: r.header(), Host: r.host}
	cb := &connBody{rc: resp.Body, f: f, c: c, x: x, bind: bind, keep: resp.keep, ctx: ctx, req: req}
	if resp.Body == http.NoBody {
		cb.release()
	} else {
		resp.Body = cb
	}
	return resp, false, nil
}

// lines is the Tracer of req's protocol lines: req's, but none with
// TraceNotesOnly; the notes (schemes.Info) go to req's always.
func (f *Fetcher) lines(req *schemes.Request) schemes.Tracer {
	if f.TraceNotesOnly {
		return nil
	}
	return req.Trace
}

// traceRequest traces the request line and fields as they are written,
// credentials masked.
func traceRequest(tr schemes.Tracer, r *outRequest, proto string) {
	if tr == nil {
		return
	}
	target := r.target()
	if r.url.Opaque != "" {
		// A gateway's target is the URL as written, its password
		// masked here.
		target = uri.RedactText(target)
	}
	tr.TraceLine(schemes.Sent, r.method+" "+target+proto)
	tr.TraceLine(schemes.Sent, "Host: "+r.host)
	if r.sendsProxyBasic() {
		tr.TraceSecret("Proxy-Authorization: Basic ")
	}
	for _, kv := range r.fields {
		v := kv[1]
		if strings.EqualFold(kv[0], "Authorization") || strings.EqualFold(kv[0], "Proxy-Authorization") {
			scheme, _, _ := strings.Cut(v, " ")
			v = scheme + " ****"
		}
		tr.TraceLine(schemes.Sent, kv[0]+": "+v)
	}
	if r.proxy != nil && r.url.Scheme == "http" {
		for _, h := range r.proxyFields {
			tr.TraceLine(schemes.Sent, h.Name+": "+h.Value)
		}
	}
}

// traceResponse traces a response's status line and fields as received.
func traceResponse(tr schemes.Tracer, resp *response) {
	if tr == nil {
		return
	}
	tr.TraceLine(schemes.Received, resp.Proto+" "+resp.Status)
	for _, kv := range resp.fields {
		tr.TraceLine(schemes.Received, kv[0]+": "+kv[1])
	}
}

// connBody is the framed body of a response on a connection of ours. Read
// to its end, it gives the connection back to the pool when the server
// keeps it open; closed before, it closes it.
//
// Its exchange ends with the response: at the body's last byte, with no
// error; at a read that failed, with that failure; at Close, with no error
// when the caller had read every byte of the body (the framing after it
// finished from what the connection's reader holds), else with one of
// schemes.ErrTruncated's kind, the body closed before its end.
type connBody struct {
	rc   io.ReadCloser
	f    *Fetcher
	c    *conn
	x    Exchange
	bind netconn.Binding
	keep bool
	done bool
	// failed is set once a read failed: the exchange has ended, and
	// Close closes the connection.
	failed bool

	ctx context.Context
	req *schemes.Request
}

func (b *connBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.release()
	case err != nil && !b.failed:
		b.failed = true
		endExchange(b.exchange(), readError(b.ctx, b.req, err))
	}
	return n, err
}

// exchange returns the exchange still to end, nil once ended.
func (b *connBody) exchange() Exchange {
	x := b.x
	b.x = nil
	return x
}

// release ends the exchange after the last byte of its response: the
// connection goes back to the pool or is closed.
func (b *connBody) release() {
	if b.done {
		return
	}
	b.done = true
	b.rc.Close()
	endExchange(b.exchange(), nil)
	if b.bind.Stop() && b.keep && b.c.key != "" {
		b.c.rx = nil
		b.f.pool().Put(b.c.key, b.c)
		return
	}
	b.c.Close()
}

// Close closes the body. A body whose every byte was read is released as
// at its end; the connection of one that was not is closed with it.
func (b *connBody) Close() error {
	if b.done {
		return nil
	}
	if fr, ok := b.rc.(framed); ok && !b.failed && fr.complete() {
		b.release()
		return nil
	}
	b.done = true
	b.rc.Close()
	b.bind.Stop()
	b.c.Close()
	endExchange(b.exchange(), errClosedEarly)
	return nil
}

// errClosedEarly ends the record of a response whose body the caller
// closed before its end: what arrived is all the record holds (WARC 1.1
// §5.13, WARC-Truncated).
var errClosedEarly = &schemes.Error{Kind: schemes.ErrTruncated, Op: "close", Err: errors.New("body closed before its end")}

// readError classifies a failed read of req's body: the end of ctx (a
// deadline is a timeout), else by the schemes taxonomy (a connection
// closed within the body is a truncated transfer).
func readError(ctx context.Context, req *schemes.Request, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		if errors.Is(cerr, context.DeadlineExceeded) {
			return &schemes.Error{Kind: schemes.ErrTimeout, URL: req.URL.Redacted(), Op: "read body", Err: cerr, Temporary: true}
		}
		return cerr
	}
	return req.NetError("read body", err)
}

// dialedKey is the context key of a TLS connection that spoke h2, for
// the HTTP/2 transport's DialTLSContext.
type dialedKey struct{}

// pool returns the Fetcher's pool of idle HTTP/1.x connections.
func (f *Fetcher) pool() *netconn.Pool[string, *conn] {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.idle == nil {
		f.idle = newPool()
	}
	return f.idle
}

// h2Transport is net/http's transport, for HTTP/2 only, which turns a TLS
// connection of ours whose server picked h2 into a ClientConn: it dials
// nothing itself.
func (f *Fetcher) h2Transport() *http.Transport {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.h2t == nil {
		var p http.Protocols
		p.SetHTTP2(true)
		f.h2t = &http.Transport{
			Protocols: &p,
			DialTLSContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				if c, ok := ctx.Value(dialedKey{}).(net.Conn); ok {
					return c, nil
				}
				return nil, errors.New("no connection dialled for HTTP/2")
			},
			// The body as the server sent it, as for HTTP/1.1.
			DisableCompression:     true,
			MaxResponseHeaderBytes: maxHeaderBytes,
		}
	}
	return f.h2t
}

// newH2C makes c an HTTP/2 client connection over cleartext, with no
// upgrade (RFC 9113 §3.3), through net/http's transport for unencrypted
// HTTP/2.
func (f *Fetcher) newH2C(ctx context.Context, c net.Conn, addr string) (*http.ClientConn, error) {
	f.mu.Lock()
	if f.h2ct == nil {
		var p http.Protocols
		p.SetUnencryptedHTTP2(true)
		f.h2ct = &http.Transport{
			Protocols: &p,
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				if c, ok := ctx.Value(dialedKey{}).(net.Conn); ok {
					return c, nil
				}
				return nil, errors.New("no connection dialled for HTTP/2")
			},
			DisableCompression:     true,
			MaxResponseHeaderBytes: maxHeaderBytes,
		}
	}
	t := f.h2ct
	f.mu.Unlock()
	return t.NewClientConn(context.WithValue(ctx, dialedKey{}, c), "http", addr)
}

// newH2 makes tc, whose server picked h2, an HTTP/2 client connection.
func (f *Fetcher) newH2(ctx context.Context, tc *tls.Conn, addr string) (*http.ClientConn, error) {
	return f.h2Transport().NewClientConn(context.WithValue(ctx, dialedKey{}, net.Conn(tc)), "https", addr)
}

// h2conn returns a kept HTTP/2 connection for key that takes another
// request now, and the TLS connection it speaks over, dropping those
// that serve no more.
func (f *Fetcher) h2conn(key string) (*http.ClientConn, net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.h2[key]) == 0 {
		return nil, nil
	}
	var pick *http.ClientConn
	ccs := f.h2[key][:0]
	for _, cc := range f.h2[key] {
		if cc.Err() != nil {
			cc.Close()
			delete(f.h2tls, cc)
			continue
		}
		ccs = append(ccs, cc)
		if pick == nil && cc.Available() > 0 {
			pick = cc
		}
	}
	f.h2[key] = ccs
	return pick, f.h2tls[pick]
}

// dropH2 forgets cc, a connection that serves no more requests.
func (f *Fetcher) dropH2(key string, cc *http.ClientConn) {
	f.mu.Lock()
	if ccs, ok := f.h2[key]; ok {
		f.h2[key] = slices.DeleteFunc(ccs, func(c *http.ClientConn) bool { return c == cc })
	}
	delete(f.h2tls, cc)
	f.mu.Unlock()
	cc.Close()
}

// putH2 keeps cc, spoken over tc, for the requests that follow: the
// requests of a run share it, several at once, as far as the server lets
// them (RFC 9113 §5.1.2).
func (f *Fetcher) putH2(key string, cc *http.ClientConn, tc net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.h2 == nil {
		f.h2 = map[string][]*http.ClientConn{}
		f.h2tls = map[*http.ClientConn]net.Conn{}
	}
	f.h2[key] = append(f.h2[key], cc)
	f.h2tls[cc] = tc
}

// h2RoundTrip sends r on an HTTP/2 connection through net/http's HTTP/2
// client, which keeps header fields in a map: they come sorted by name.
func (f *Fetcher) h2RoundTrip(ctx context.Context, req *schemes.Request, cc *http.ClientConn, r *outRequest) (*response, error) {
	hreq, err := http.NewRequestWithContext(ctx, r.method, "http://placeholder/", nil)
	if err != nil {
		return nil, err
	}
	hreq.URL, hreq.Host, hreq.Header = r.url, r.host, r.header()
	// HTTP/2 has no connection-specific fields and TE only for
	// "trailers" (RFC 9113 §8.2.2): --tr-encoding's are HTTP/1.1's.
	hreq.Header.Del("Connection")
	hreq.Header.Del("Te")
	if _, ok := hreq.Header["User-Agent"]; !ok {
		// An empty value keeps the HTTP/2 client from sending its own.
		hreq.Header["User-Agent"] = []string{""}
	}
	traceRequest(req.Trace, r, " HTTP/2")
	if m := schemes.MetricsFrom(ctx); m != nil {
		// The head's size as curl counts an HTTP/2 request's: written
		// as HTTP/1.1 would be, its version "HTTP/2".
		m.Request(r.method, r.url.String(), int64(len(r.bytes())-len("HTTP/1.1")+len("HTTP/2")))
	}
	resp, err := cc.RoundTrip(hreq)
	if err != nil {
		return nil, err
	}
	resp.Request = hreq
	// HTTP/2 field names are lower case on the wire (RFC 9113 §8.2.1):
	// that is the server's spelling, which -i, -D and -v show, as curl's.
	pairs := HeaderPairs(fields(resp))
	for i := range pairs {
		pairs[i][0] = strings.ToLower(pairs[i][0])
	}
	return &response{Response: resp, fields: pairs, req: r}, nil
}

// closeConns closes every kept connection.
func (f *Fetcher) closeConns() {
	f.pool().CloseIdle()
	f.mu.Lock()
	h2 := f.h2
	f.h2, f.h2tls = nil, nil
	f.mu.Unlock()
	closeAll(h2, (*http.ClientConn).Close)
}
