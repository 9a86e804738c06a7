// Package proxytest runs proxies in process for tests, on 127.0.0.1: an
// HTTP proxy that forwards absolute-form requests (RFC 9112 §3.2.2) and
// opens CONNECT tunnels (RFC 9110 §9.3.6), and a SOCKS server speaking
// SOCKS4, SOCKS4a and SOCKS5 (RFC 1928) with optional RFC 1929
// authentication. Each logs what it was asked, credentials included, so
// that a test can tell what reached the proxy and what did not. Both reach
// only loopback addresses.
package proxytest

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"

	"github.com/urlget/urlget/integration/internal/testnet"
)

// Entry is one request a proxy received.
type Entry struct {
	Method string      // "CONNECT", "GET", or the SOCKS version: "SOCKS4", "SOCKS4a", "SOCKS5"
	Target string      // what was asked for: host:port, or the absolute URL of a GET
	User   string      // the user the client authenticated as
	Pass   string      // the password it gave
	Header http.Header // an HTTP request's header fields, as received
}

// log is a request log safe for concurrent use.
type log struct{ rec testnet.Recorder[Entry] }

func (l *log) add(e Entry) { l.rec.Record(e) }

// Log returns the requests received so far.
func (l *log) Log() []Entry { return l.rec.All() }

// Hosts maps the names a proxy resolves to loopback addresses, so that a
// test can name a site as a user would (a name the environment's rules do
// not exempt, as they do localhost) and still reach a server on this
// machine. It is shared by both kinds of proxy and read-only once they run.
type Hosts map[string]string

// target maps hostport's name through h and tells whether the result is
// on this machine, the only place the proxies go.
func (h Hosts) target(hostport string) (string, bool) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", false
	}
	if a, ok := h[host]; ok {
		host = a
	}
	ip := net.ParseIP(host)
	return net.JoinHostPort(host, port), host == "localhost" || ip != nil && ip.IsLoopback()
}

// dial connects to hostport, mapped through h, if it is on this machine.
func (h Hosts) dial(hostport string) (net.Conn, error) {
	addr, ok := h.target(hostport)
	if !ok {
		return nil, errors.New("only loopback hosts")
	}
	return net.Dial("tcp", addr)
}

// HTTPProxy is an HTTP proxy.
type HTTPProxy struct {
	log
	*httptest.Server

	// User and Pass, when User is set, are the Basic credentials the
	// proxy requires (407 without them).
	User, Pass string
	// Refuse, when set, answers every CONNECT with this status.
	Refuse int
	// Gateway, when set, is the status of the answer to a request for a
	// URL of another scheme than http (the proxy fetches none): 501 when
	// it is 0, as squid answers for gopher:; tinyproxy answers 400 for
	// ftp: and 503 for gopher:.
	Gateway int
	// Hosts maps names to loopback addresses.
	Hosts Hosts

	transport *http.Transport
}

// NewHTTPProxy starts an HTTP proxy; tls makes it an https proxy.
func NewHTTPProxy(tls bool) *HTTPProxy {
	p := &HTTPProxy{}
	p.transport = &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return p.Hosts.dial(addr)
	}}
	p.Server = httptest.NewUnstartedServer(p)
	if tls {
		p.StartTLS()
	} else {
		p.Start()
	}
	return p
}

// Close stops the proxy.
func (p *HTTPProxy) Close() {
	p.Server.Close()
	p.transport.CloseIdleConnections()
}

// ServeHTTP handles one request to the proxy.
func (p *HTTPProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e := Entry{Method: r.Method, Target: r.RequestURI, Header: r.Header.Clone()}
	if r.Method == http.MethodConnect {
		e.Target = r.Host
	}
	if u, pw, ok := proxyAuth(r); ok {
		e.User, e.Pass = u, pw
	}
	p.add(e)
	if p.User != "" && (e.User != p.User || e.Pass != p.Pass) {
		w.Header().Set("Proxy-Authenticate", `Basic realm="proxytest"`)
		http.Error(w, "proxy credentials required", http.StatusProxyAuthRequired)
		return
	}
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if r.URL.Scheme != "http" {
		// As squid since version 4 does for gopher: URLs: the proxy
		// is no gateway to the scheme.
		code := p.Gateway
		if code == 0 {
			code = http.StatusNotImplemented
		}
		http.Error(w, "no gateway to "+r.URL.Scheme+": URLs", code)
		return
	}
	if _, ok := p.Hosts.target(hostPort(r.URL.Host, r.URL.Scheme)); r.URL.Host == "" || !ok {
		http.Error(w, "only absolute-form requests to loopback hosts", http.StatusForbidden)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Authorization")
	out.Header.Del("Proxy-Connection")
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

func hostPort(host, scheme string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	if scheme == "https" {
		return net.JoinHostPort(host, "443")
	}
	return net.JoinHostPort(host, "80")
}

// connect opens a tunnel to r.Host.
func (p *HTTPProxy) connect(w http.ResponseWriter, r *http.Request) {
	if p.Refuse != 0 {
		http.Error(w, "tunnel refused", p.Refuse)
		return
	}
	addr, ok := p.Hosts.target(r.Host)
	if !ok {
		http.Error(w, "only loopback hosts", http.StatusForbidden)
		return
	}
	up, err := net.Dial("tcp", addr)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		return
	}
	rw.WriteString("HTTP/1.1 200 Connection established\r\n\r\n")
	rw.Flush()
	pipe(&readerConn{Conn: conn, r: rw.Reader}, up)
}

// readerConn reads through the bufio.Reader the server kept.
type readerConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *readerConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// pipe copies both ways until either side ends, then closes both.
func pipe(a, b net.Conn) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		io.Copy(dst, src)
		// The end of one side's bytes is passed on as such (an FTP
		// data connection ends so), the other side may go on.
		if rc, ok := dst.(*readerConn); ok {
			dst = rc.Conn
		}
		if tc, ok := dst.(interface{ CloseWrite() error }); ok {
			tc.CloseWrite()
		} else {
			dst.Close()
		}
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	<-done
	a.Close()
	b.Close()
}

func proxyAuth(r *http.Request) (string, string, bool) {
	h := r.Header.Get("Proxy-Authorization")
	if h == "" {
		return "", "", false
	}
	fake := &http.Request{Header: http.Header{"Authorization": {h}}}
	return fake.BasicAuth()
}

// SOCKS is a SOCKS4, SOCKS4a and SOCKS5 server.
type SOCKS struct {
	log
	l *testnet.Listener

	// User and Pass, when User is set, are the credentials SOCKS5
	// clients must give (RFC 1929), and User the USERID SOCKS4 ones must.
	User, Pass string
	// Fail, when set, refuses every request with this SOCKS5 reply code
	// (SOCKS4: 91).
	Fail byte
	// Hosts maps names to loopback addresses.
	Hosts Hosts
}

// NewSOCKS starts a SOCKS server.
func NewSOCKS() *SOCKS {
	s := &SOCKS{}
	l, err := testnet.Listen(func(c net.Conn, _ int) { s.handle(c) })
	if err != nil {
		panic("proxytest: " + err.Error())
	}
	s.l = l
	return s
}

// Addr is the server's host:port.
func (s *SOCKS) Addr() string { return s.l.Addr().String() }

// Close stops the server and closes its connections.
func (s *SOCKS) Close() { s.l.Close() }

func (s *SOCKS) handle(c net.Conn) {
	br := bufio.NewReader(c)
	v, err := br.ReadByte()
	if err != nil {
		return
	}
	var up net.Conn
	switch v {
	case 4:
		up, err = s.socks4(c, br)
	case 5:
		up, err = s.socks5(c, br)
	default:
		return
	}
	if err != nil || up == nil {
		return
	}
	pipe(&readerConn{Conn: c, r: br}, up)
}

// readField reads a byte count and that many bytes (RFC 1928 and 1929's
// length-prefixed fields).
func readField(br *bufio.Reader) (string, error) {
	n, err := br.ReadByte()
	if err != nil {
		return "", err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(br, b); err != nil {
		return "", err
	}
	return string(b), nil
}

func readString(br *bufio.Reader) (string, error) {
	b, err := br.ReadString(0)
	if err != nil {
		return "", err
	}
	return b[:len(b)-1], nil
}

// socks4 serves a SOCKS4 or 4a request, whose version byte is read.
func (s *SOCKS) socks4(c net.Conn, br *bufio.Reader) (net.Conn, error) {
	var hdr [7]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, err
	}
	port := binary.BigEndian.Uint16(hdr[1:3])
	ip := net.IP(hdr[3:7])
	user, err := readString(br)
	if err != nil {
		return nil, err
	}
	e := Entry{Method: "SOCKS4", User: user}
	host := ip.String()
	if ip[0] == 0 && ip[1] == 0 && ip[2] == 0 && ip[3] != 0 {
		e.Method = "SOCKS4a"
		if host, err = readString(br); err != nil {
			return nil, err
		}
	}
	e.Target = net.JoinHostPort(host, strconv.Itoa(int(port)))
	s.add(e)
	reply := func(code byte) { c.Write([]byte{0, code, 0, 0, 0, 0, 0, 0}) }
	if hdr[0] != 1 || s.Fail != 0 || s.User != "" && user != s.User {
		reply(91)
		return nil, nil
	}
	up, err := s.Hosts.dial(e.Target)
	if err != nil {
		reply(91)
		return nil, nil
	}
	reply(90)
	return up, nil
}

// socks5 serves a SOCKS5 session (RFC 1928 §3-§6), whose version byte is
// read.
func (s *SOCKS) socks5(c net.Conn, br *bufio.Reader) (net.Conn, error) {
	methods, err := readField(br)
	if err != nil {
		return nil, err
	}
	want := byte(0)
	if s.User != "" {
		want = 2
	}
	offered := false
	for _, m := range []byte(methods) {
		offered = offered || m == want
	}
	if !offered {
		c.Write([]byte{5, 0xff})
		return nil, errors.New("no acceptable method")
	}
	c.Write([]byte{5, want})
	e := Entry{Method: "SOCKS5"}
	if want == 2 {
		// RFC 1929 §2: VER 1, ULEN, UNAME, PLEN, PASSWD.
		if _, err := br.ReadByte(); err != nil {
			return nil, err
		}
		if e.User, err = readField(br); err != nil {
			return nil, err
		}
		if e.Pass, err = readField(br); err != nil {
			return nil, err
		}
		if e.User != s.User || e.Pass != s.Pass {
			s.add(e)
			c.Write([]byte{1, 1})
			return nil, errors.New("bad credentials")
		}
		c.Write([]byte{1, 0})
	}
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil {
		return nil, err
	}
	var host string
	switch req[3] {
	case 1, 4:
		ip := make(net.IP, 4)
		if req[3] == 4 {
			ip = make(net.IP, 16)
		}
		if _, err := io.ReadFull(br, ip); err != nil {
			return nil, err
		}
		host = ip.String()
	case 3:
		if host, err = readField(br); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("bad address type")
	}
	var pb [2]byte
	if _, err := io.ReadFull(br, pb[:]); err != nil {
		return nil, err
	}
	e.Target = net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(pb[:]))))
	s.add(e)
	reply := func(code byte) { c.Write([]byte{5, code, 0, 1, 0, 0, 0, 0, 0, 0}) }
	switch {
	case req[1] != 1:
		reply(7) // command not supported
		return nil, nil
	case s.Fail != 0:
		reply(s.Fail)
		return nil, nil
	}
	if _, ok := s.Hosts.target(e.Target); !ok {
		reply(2) // not allowed by ruleset
		return nil, nil
	}
	up, err := s.Hosts.dial(e.Target)
	if err != nil {
		reply(5)
		return nil, nil
	}
	reply(0)
	return up, nil
}

// Unresolvable is a Dialer for which no name resolves and addresses are
// dialed as they are: a test of a name that does not resolve then asks no
// resolver.
type Unresolvable struct{}

// DialContext fails for a name and dials an address.
func (Unresolvable) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, _, _ := net.SplitHostPort(address)
	if net.ParseIP(host) != nil {
		return (&net.Dialer{}).DialContext(ctx, network, address)
	}
	return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
}

// ClosedAddr returns a loopback address nothing listens on.
func ClosedAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("proxytest: " + err.Error())
	}
	a := ln.Addr().String()
	ln.Close()
	return a
}
