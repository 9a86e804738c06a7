package fetch

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/proxy"

	"github.com/urlget/urlget/internal/xfer"
	"github.com/urlget/urlget/schemes"
)

// proxyDialer makes every connection of one request through a proxy: a
// CONNECT tunnel through an http or https proxy (RFC 9110 §9.3.6), or a
// SOCKS4, SOCKS4a or SOCKS5 (RFC 1928) connection. FTP's data connections
// go through it as its control connection does.
type proxyDialer struct {
	base  schemes.Dialer
	proxy *Proxy
	req   *schemes.Request // for errors and the trace
	tls   *tls.Config      // the TLS configuration of an https proxy
}

// DialContext connects to address through the proxy.
func (d *proxyDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	paddr := proxyAddr(d.proxy)
	tr := d.req.Trace
	tr.TraceLine(schemes.Info, "Connecting to proxy "+d.proxy.URL.Redacted()+" ("+paddr+") for "+address)
	conn, err := d.base.DialContext(ctx, "tcp", paddr)
	if err != nil {
		return nil, proxyDialError(d.req, paddr, err)
	}
	// The handshake is bounded by ctx as the connection was; a connect
	// timeout during it names the proxy.
	defer waitingOnProxy(ctx)()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	c, err := d.handshake(ctx, conn, address)
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		conn.Close()
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, d.req.NetError("proxy "+paddr, ctxErr)
		}
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	// The connection's RemoteAddr is the proxy's: a fetcher that needs
	// the server's address again (FTP's data connections) knows from
	// Request.Proxy to use the URL's host.
	return c, nil
}

// waitingOnProxy tells the attempt's watchdog, if ctx carries one, that
// what is awaited is the proxy's answer, so that a connect timeout names
// the proxy; the function it returns ends that.
func waitingOnProxy(ctx context.Context) (done func()) {
	return xfer.WatchdogFrom(ctx).Proxying()
}

// proxyDialError classifies a failure to reach the proxy itself: its name
// not resolving is curl's exit 5, apart from a site's.
func proxyDialError(req *schemes.Request, paddr string, err error) error {
	e := req.NetError("connect to proxy "+paddr, err)
	var se *schemes.Error
	if errors.As(e, &se) && se.Kind == schemes.ErrResolve {
		se.Kind = schemes.ErrProxyResolve
	}
	return e
}

func (d *proxyDialer) handshake(ctx context.Context, conn net.Conn, address string) (net.Conn, error) {
	switch s := d.proxy.URL.Scheme(); s {
	case "http":
		return d.connect(conn, address)
	case "https":
		tc := tls.Client(conn, d.proxyTLS())
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, d.req.TLSError("TLS handshake with proxy", err)
		}
		return d.connect(tc, address)
	case "socks4", "socks4a":
		return d.socks4(ctx, conn, address, s == "socks4a")
	default:
		return d.socks5(ctx, conn, address, s == "socks5h")
	}
}

func (d *proxyDialer) proxyTLS() *tls.Config {
	c := d.tls.Clone()
	c.ServerName = d.proxy.URL.Hostname()
	c.NextProtos = nil
	return c
}

// handshakeErr reports a failed proxy conversation: a timeout or a closed
// connection as the network error it is, anything else as kind.
func (d *proxyDialer) handshakeErr(op string, kind, err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return d.req.NetError(op, err)
	}
	return &schemes.Error{Kind: kind, URL: d.req.URL.Redacted(), Op: op, Err: err}
}

// basicAuth is the Basic credentials (RFC 7617) of user and password.
func basicAuth(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// connect opens a tunnel to address with CONNECT (RFC 9110 §9.3.6): any 2xx
// reply makes the connection the tunnel. The proxy's credentials go in
// Proxy-Authorization (RFC 9110 §11.7.1), and only there.
func (d *proxyDialer) connect(conn net.Conn, address string) (net.Conn, error) {
	tr := d.req.Trace
	line := "CONNECT " + address + " HTTP/1.1"
	if d.proxy.HTTP10 {
		line = "CONNECT " + address + " HTTP/1.0"
	}
	msg := line + "\r\nHost: " + address + "\r\n"
	tr.TraceLine(schemes.Sent, line)
	tr.TraceLine(schemes.Sent, "Host: "+address)
	if user, pw, ok := proxyCredentials(d.proxy); ok {
		msg += "Proxy-Authorization: " + basicAuth(user, pw) + "\r\n"
		tr.TraceSecret("Proxy-Authorization: Basic ")
	}
	if _, err := io.WriteString(conn, msg+"\r\n"); err != nil {
		return nil, d.handshakeErr("CONNECT "+address, schemes.ErrProxyTunnel, err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		return nil, d.handshakeErr("CONNECT "+address, schemes.ErrProxyTunnel, err)
	}
	tr.TraceLine(schemes.Received, resp.Proto+" "+resp.Status)
	if resp.StatusCode/100 != 2 {
		return nil, &schemes.Error{Kind: schemes.ErrProxyTunnel, URL: d.req.URL.Redacted(), Reply: resp.Status}
	}
	if br.Buffered() > 0 {
		// A server that speaks first (FTP, NNTP) may have its greeting
		// in the same segment as the proxy's reply.
		return &bufferedConn{Conn: conn, r: br}, nil
	}
	return conn, nil
}

// bufferedConn reads what a bufio.Reader holds before the connection.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// resolve looks host up on this side, for SOCKS4 and SOCKS5 (not 4a or 5h,
// whose proxy resolves it); ipv4 asks for an IPv4 address, all SOCKS4 can
// carry.
func (d *proxyDialer) resolve(ctx context.Context, host string, ipv4 bool) (net.IP, error) {
	if ip := net.ParseIP(host); ip != nil {
		if ipv4 && ip.To4() == nil {
			return nil, d.req.Fail(schemes.ErrConnect, "", 0, "", fmt.Errorf("SOCKS4 cannot carry the IPv6 address %s", host))
		}
		return ip, nil
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, d.req.NetError("resolve "+host, err)
	}
	for _, a := range ips {
		if !ipv4 || a.IP.To4() != nil {
			return a.IP, nil
		}
	}
	return nil, d.req.Fail(schemes.ErrResolve, "resolve "+host, 0, "", errors.New("no IPv4 address, which SOCKS4 needs"))
}

// socks4 asks a SOCKS4 proxy for a connection to address (the protocol of
// NEC's "SOCKS: A protocol for TCP proxy across firewalls", and its 4A
// extension for a name the proxy resolves). Written here because
// golang.org/x/net/proxy speaks only SOCKS5; the request is one message
// and the reply eight bytes. The proxy URL's user is SOCKS4's USERID; a
// password has nowhere to go.
func (d *proxyDialer) socks4(ctx context.Context, conn net.Conn, address string, remote bool) (net.Conn, error) {
	tr := d.req.Trace
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return nil, d.req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, d.req.Fail(schemes.ErrBadURL, "", 0, "", fmt.Errorf("port %q", portText))
	}
	ip := net.ParseIP(host).To4()
	name := ""
	if ip == nil && remote {
		// SOCKS4a: the address 0.0.0.x (x nonzero) says a name follows.
		ip, name = net.IPv4(0, 0, 0, 1).To4(), host
	} else if ip == nil {
		a, err := d.resolve(ctx, host, true)
		if err != nil {
			return nil, err
		}
		ip = a.To4()
	}
	user, _, _ := proxyCredentials(d.proxy)
	msg := []byte{4, 1, 0, 0}
	binary.BigEndian.PutUint16(msg[2:], uint16(port))
	msg = append(msg, ip...)
	msg = append(append(msg, user...), 0)
	step := "SOCKS4 CONNECT " + net.JoinHostPort(ip.String(), portText)
	if name != "" {
		msg = append(append(msg, name...), 0)
		step = "SOCKS4a CONNECT " + address
	}
	tr.TraceLine(schemes.Info, step)
	if _, err := conn.Write(msg); err != nil {
		return nil, d.handshakeErr(step, schemes.ErrProxyHandshake, err)
	}
	var reply [8]byte
	if _, err := io.ReadFull(conn, reply[:]); err != nil {
		return nil, d.handshakeErr(step, schemes.ErrProxyHandshake, err)
	}
	if reply[1] != 90 {
		return nil, d.handshakeErr(step, schemes.ErrProxyHandshake, fmt.Errorf("the proxy answered %d (%s)", reply[1], socks4Reply(reply[1])))
	}
	tr.TraceLine(schemes.Info, "SOCKS4 request granted")
	return conn, nil
}

// socks4Reply names a SOCKS4 reply code.
func socks4Reply(code byte) string {
	switch code {
	case 91:
		return "request rejected or failed"
	case 92:
		return "the proxy cannot reach identd on the client"
	case 93:
		return "identd reports a different user"
	}
	return "not a SOCKS4 reply"
}

// socks5 asks a SOCKS5 proxy (RFC 1928) for a connection to address, with
// RFC 1929 username and password when the proxy URL carries a user. With
// socks5h the proxy resolves the name; with socks5 it is resolved here and
// the proxy sees only the address, as in curl.
func (d *proxyDialer) socks5(ctx context.Context, conn net.Conn, address string, remote bool) (net.Conn, error) {
	tr := d.req.Trace
	target := address
	if !remote {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, d.req.Fail(schemes.ErrBadURL, "", 0, "", err)
		}
		ip, err := d.resolve(ctx, host, false)
		if err != nil {
			return nil, err
		}
		target = net.JoinHostPort(ip.String(), port)
	}
	var auth *proxy.Auth
	if user, pw, ok := proxyCredentials(d.proxy); ok {
		auth = &proxy.Auth{User: user, Password: pw}
		tr.TraceLine(schemes.Info, "SOCKS5 authentication (RFC 1929) as "+user+", password ****")
	}
	step := "SOCKS5 CONNECT " + target
	tr.TraceLine(schemes.Info, step)
	sd, err := proxy.SOCKS5("tcp", proxyAddr(d.proxy), auth, nil)
	if err != nil {
		return nil, d.handshakeErr(step, schemes.ErrProxyHandshake, err)
	}
	// The handshake runs on the connection already made, which then
	// carries the stream as it is: a *net.TCPConn keeps the kernel's
	// copy paths (splice, batched receive) a wrapper would hide.
	wc, ok := sd.(withConn)
	if !ok {
		return nil, d.handshakeErr(step, schemes.ErrProxyHandshake, errors.New("the SOCKS5 client cannot use a connection already made"))
	}
	offered := []byte{0} // no authentication
	if auth != nil {
		offered = append(offered, 2) // RFC 1929
	}
	if _, err := wc.DialWithConn(ctx, &offeredOnly{Conn: conn, offered: offered}, "tcp", target); err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Err != nil {
			err = op.Err // the proxy's words, without the addresses step names
		}
		if reply, ok := strings.CutPrefix(err.Error(), "unknown error "); ok {
			// x/net's words for a reply other than succeeded (RFC
			// 1928 §6), which the proxy did send.
			err = errors.New("the proxy answered: " + reply)
		}
		return nil, d.handshakeErr(step, schemes.ErrProxyHandshake, err)
	}
	tr.TraceLine(schemes.Info, "SOCKS5 request granted")
	return conn, nil
}

// offeredOnly carries a SOCKS5 handshake. RFC 1928 §3 lets the proxy
// choose only a method the client offered; x/net's client, offering none
// but "no authentication", goes on whatever the choice, so here the write
// that would follow a choice not offered fails instead.
type offeredOnly struct {
	net.Conn
	offered []byte // the methods offered
	head    []byte // the first two bytes read: the version and the method chosen
}

func (c *offeredOnly) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if k := min(n, 2-len(c.head)); k > 0 {
		c.head = append(c.head, p[:k]...)
	}
	return n, err
}

func (c *offeredOnly) Write(p []byte) (int, error) {
	if len(c.head) == 2 && bytes.IndexByte(c.offered, c.head[1]) < 0 {
		return 0, fmt.Errorf("the proxy chose authentication method %d, which was not offered", c.head[1])
	}
	return c.Conn.Write(p)
}

// withConn is the method of x/net's SOCKS5 client (proxy.SOCKS5's
// Dialer) that runs the handshake on a connection the caller made, so
// that reaching the proxy fails apart from the handshake.
type withConn interface {
	DialWithConn(ctx context.Context, c net.Conn, network, address string) (net.Addr, error)
}
