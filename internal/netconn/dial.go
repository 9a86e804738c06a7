// Package netconn is the connection layer the line protocols (ftp, news,
// gopher, wais) and HTTP/1.x share: dialing with TLS from the first byte or after an
// upgrade, binding a connection to a request's context, and a keyed pool
// of idle sessions. Each protocol keeps its conversation; what a
// connection is, and how it ends, is written here once.
package netconn

import (
	"context"
	"crypto/tls"
	"net"
	"strconv"

	"github.com/urlget/urlget/schemes"
)

// Dial connects to addr ("host:port") through req.Dialer, so that the
// caller's connect timeout and proxy hold. When cfg is not nil the
// connection speaks TLS from its first byte (ftps, gophers, nntps and
// snews: the implicit TLS of RFC 4217 §7 and RFC 8143 §4): the handshake
// runs at once, bound to ctx, as StartTLS runs it.
//
// raw is the TCP connection, for what only it knows (the peer's address,
// socket options); conn is the one to speak over, the TLS connection or
// raw itself. Errors are classified by req.NetError under the operations
// "connect" and "TLS handshake"; on error nothing is left open.
func Dial(ctx context.Context, req *schemes.Request, addr string, cfg *tls.Config) (raw, conn net.Conn, err error) {
	// The lines are built only for a tracer: a run without one makes
	// no garbage of them, connection after connection.
	trace := req.Trace != nil
	if trace {
		req.Trace(schemes.Info, "connecting to "+addr)
	}
	raw, err = req.Dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, req.NetError("connect", err)
	}
	if trace {
		req.Trace(schemes.Info, "connected to "+raw.RemoteAddr().String())
	}
	if cfg == nil {
		return raw, raw, nil
	}
	tc, err := StartTLS(ctx, req, raw, cfg)
	if err != nil {
		raw.Close()
		return nil, nil, err
	}
	return raw, tc, nil
}

// StartTLS runs a TLS client handshake over c with cfg, bound to ctx, and
// returns the TLS connection: for a connection dialed with TLS, and for
// one upgraded once the protocol agreed to it (FTP's AUTH TLS, RFC 4217
// §4). cfg comes from req.TLSClientConfig, so that its ServerName is the
// URL's host in ASCII form (the IDNA A-labels fetch put in the URL) and
// the caller's trust roots hold. On error c is left to the caller.
//
// Any failure of the handshake is a failure to connect, not a protocol
// error of the server's conversation (a peer that does not speak TLS
// answers with bytes that are no TLS record): req.TLSError tells curl's
// exit 35 from a certificate not verified (60) or a key not pinned (90).
func StartTLS(ctx context.Context, req *schemes.Request, c net.Conn, cfg *tls.Config) (*tls.Conn, error) {
	if req.Trace != nil {
		req.Trace(schemes.Info, "TLS handshake with "+cfg.ServerName)
	}
	tc, err := Handshake(ctx, c, cfg)
	if err != nil {
		return nil, req.TLSError("TLS handshake", err)
	}
	if req.Trace != nil {
		req.Trace(schemes.Info, Describe(tc.ConnectionState()))
	}
	return tc, nil
}

// Handshake runs a TLS client handshake over c with cfg, bound to ctx, and
// returns the TLS connection; the error is Cause's, unclassified, for a
// caller with a taxonomy of its own (HTTP names the request's method, and
// a proxy's handshake apart from the server's). On error c is left to the
// caller. cfg.NextProtos, when set, is the ALPN offer (RFC 7301 §3.1):
// HTTP offers h2 there (RFC 9113 §3.2). The end of the handshake is the
// end of the fetch's PhaseAppConnect, when ctx carries schemes.Metrics,
// which holds the peer's certificates then.
func Handshake(ctx context.Context, c net.Conn, cfg *tls.Config) (*tls.Conn, error) {
	tc := tls.Client(c, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, Cause(ctx, err)
	}
	if m := schemes.MetricsFrom(ctx); m != nil {
		m.Handshake(tc.ConnectionState().PeerCertificates)
	}
	return tc, nil
}

// Describe is the trace line of a finished handshake: the TLS version and
// cipher suite, the protocol agreed by ALPN when one was (RFC 7301 §3.2),
// and whether the session was resumed (RFC 8446 §2.2), which tells a
// user that a run's connections share one full handshake.
func Describe(cs tls.ConnectionState) string {
	line := "TLS " + tls.VersionName(cs.Version) + " " + tls.CipherSuiteName(cs.CipherSuite)
	if cs.NegotiatedProtocol != "" {
		line += " ALPN " + strconv.Quote(cs.NegotiatedProtocol)
	}
	if cs.DidResume {
		line += ", session resumed"
	}
	return line
}
