package schemes

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urlget/urlget/uri"
)

// The error taxonomy shared by every protocol. A fetcher's error wraps exactly
// one of these (through *Error), so that errors.Is(err, ErrNotFound) holds for
// an FTP 550, an HTTP 404, a gopher error item, an NNTP 430 and a missing
// local file alike. The command maps each to an exit code.
var (
	ErrNotFound       = errors.New("not found")
	ErrAccessDenied   = errors.New("access denied")
	ErrLoginFailed    = errors.New("login failed")
	ErrNotRetrievable = errors.New("not retrievable")
	ErrBadURL         = errors.New("bad URL")
	ErrProtocol       = errors.New("protocol violation")
	ErrServer         = errors.New("server error") // the server failed a valid request: HTTP 5xx
	ErrTruncated      = errors.New("truncated transfer")
	ErrTimeout        = errors.New("timeout")
	ErrTooLarge       = errors.New("too large")
	ErrResolve        = errors.New("could not resolve host")
	ErrConnect        = errors.New("could not connect")
	ErrWrite          = errors.New("write error")

	// The proxy's own failures, apart from the site's (curl's exit codes
	// 5, 56 and 97): its name did not resolve, it refused the CONNECT
	// tunnel (the reply carries its status line), or the SOCKS handshake
	// failed (SOCKS4's request rejected, RFC 1928 §6 reply other than
	// succeeded, RFC 1929 authentication refused). A proxy that refuses
	// the TCP connection itself is ErrConnect, as a site's would be.
	ErrProxyResolve   = errors.New("could not resolve proxy")
	ErrProxyTunnel    = errors.New("proxy CONNECT failed")
	ErrProxyHandshake = errors.New("SOCKS handshake failed")

	// The failures of TLS, apart from other failures to connect (curl's
	// exit codes 35, 60 and 90): the handshake failed (no version or
	// cipher suite in common, a peer that speaks no TLS, an alert such
	// as a TLS 1.2 server's refusal of the client's certificate, RFC 5246
	// §7.4.6), the server's certificate was not verified (unknown
	// authority, wrong name, expired, RFC 5280 §6), or its public key is
	// none of those pinned (curl's --pinnedpubkey). Each is also
	// ErrConnect for errors.Is: the connection was not made.
	ErrTLSHandshake = &subKind{"TLS handshake failed", ErrConnect}
	ErrCertificate  = &subKind{"the server's certificate was not verified", ErrConnect}
	ErrPinnedKey    = &subKind{"the server's public key is not the pinned one", ErrConnect}
	// ErrCertStatus: the server stapled no OCSP response, or one that
	// says the certificate is revoked or does not answer for it (RFC
	// 6066 §8, curl's --cert-status and its exit 91).
	ErrCertStatus = &subKind{"the server's certificate status is not good", ErrConnect}

	// ErrTLSAlert: the server ended a TLS connection with an alert after
	// the handshake, as a TLS 1.3 server refuses the client's certificate
	// (RFC 8446 §4.4.2.4: the client learns of it on its first read).
	// curl reports it as a failure to receive (its exit 56).
	ErrTLSAlert = errors.New("the server ended TLS with an alert")
)

// subKind is a kind of failure that is also a broader one for errors.Is.
type subKind struct {
	msg string
	of  error
}

func (k *subKind) Error() string { return k.msg }
func (k *subKind) Unwrap() error { return k.of }

// Causes a fetcher gives (as Error.Err, or wrapped in it) when the request
// lacks something only its caller can supply. A program can recognise them
// with errors.Is and tell its user how to give what is missing; the urlget
// command names its flags.
var (
	// ErrNoCredentials: the server asks for a user name or password that
	// the request does not carry, and Request.Prompt cannot ask for it.
	ErrNoCredentials = errors.New("the server requires credentials that were not given")
	// ErrNoSearchTerms: the URL names a search (a gopher type-7 item, a
	// WAIS database) and neither it nor Request.Search gives terms.
	ErrNoSearchTerms = errors.New("no search terms were given")
	// ErrNoNewsServer: a news: or snews: URL, which names no server,
	// was given neither news.Fetcher.Server nor NNTPSERVER.
	ErrNoNewsServer = errors.New("no news server configured")
	// ErrActiveFTPProxy: an ftp: URL asked for active mode
	// (ftp.Fetcher.ActiveAddr) goes through a proxy, which cannot relay
	// the server's connection back to this host (RFC 959 §3.2).
	ErrActiveFTPProxy = errors.New("active FTP cannot go through a proxy")
)

// ErrTooManyRedirects is the cause, under ErrProtocol, of a fetch that met
// more redirects than it may follow (HTTP's 3xx, RFC 9110 §15.4); the
// command exits with curl's 47 for it.
var ErrTooManyRedirects = errors.New("too many redirects")

// Error is the error every fetcher returns. It names the URL (password
// masked), the kind of failure from the taxonomy above, what was being done
// and the server's own reply.
type Error struct {
	Kind      error  // one of the Err* values of this package
	URL       string // the URL with any password masked
	Op        string // what failed: "RETR motd", "GET", "ARTICLE <id>", "connect"
	Code      int    // the protocol's reply code (550, 404, 430), 0 when none
	Reply     string // the server's reply text, one line
	Err       error  // the underlying error, if any
	Temporary bool   // a retry may succeed (FTP 421/425/426, HTTP 5xx, timeouts)
	// RetryAfter is the wait an HTTP server asked for before a retry
	// (Retry-After, RFC 9110 §10.2.3), 0 when it named none.
	RetryAfter time.Duration
}

// Error formats the error on one line: URL, kind, operation, reply, cause.
func (e *Error) Error() string {
	var b strings.Builder
	if e.URL != "" {
		b.WriteString(e.URL)
		b.WriteString(": ")
	}
	if e.Kind != nil {
		b.WriteString(e.Kind.Error())
	} else {
		b.WriteString("error")
	}
	if e.Op != "" {
		b.WriteString(" (")
		b.WriteString(e.Op)
		b.WriteString(")")
	}
	if e.Reply != "" {
		b.WriteString(": ")
		if e.Code != 0 && !strings.HasPrefix(e.Reply, strconv.Itoa(e.Code)) {
			b.WriteString(strconv.Itoa(e.Code))
			b.WriteByte(' ')
		}
		b.WriteString(oneLine(e.Reply))
	} else if e.Code != 0 {
		b.WriteString(": ")
		b.WriteString(strconv.Itoa(e.Code))
	}
	if e.Err != nil {
		if c := e.causeText(); c != "" {
			b.WriteString(": ")
			b.WriteString(oneLine(c))
		}
	}
	return b.String()
}

// causeText says what e.Err means, in the words of a user rather than of
// Go's network stack ("use of closed network connection", "context
// canceled", "i/o timeout", a bare "EOF"): the part of its message that
// such an error wrote is replaced, and what wraps it kept. It is "" when
// the kind says it all: a timeout or an interruption ends by closing the
// connection, which is no news. A URL that does not parse is not named a
// second time.
func (e *Error) causeText() string {
	kind, err := e.Kind, e.Err
	msg := err.Error()
	var ue *uri.Error
	if kind == ErrBadURL && errors.As(err, &ue) && msg == ue.Error() {
		return parseText(e.URL, ue)
	}
	inner := goInternal(err)
	if inner == nil {
		return msg
	}
	var words string
	ours := false // the connection ended on this side
	var op *net.OpError
	var netErr net.Error
	switch {
	case errors.Is(inner, context.Canceled):
		words, ours = "interrupted", true
	case errors.Is(inner, context.DeadlineExceeded), errors.Is(inner, os.ErrDeadlineExceeded),
		errors.As(inner, &netErr) && netErr.Timeout():
		words, ours = "timed out", true
	case errors.Is(inner, net.ErrClosed):
		words, ours = "the connection was closed", true
	case kind == ErrWrite && errors.Is(inner, syscall.EPIPE):
		// A write to the output, not to the server: the program
		// reading a pipe (| head) closed its end.
		words = "the program reading the output closed the pipe"
	case errors.Is(inner, io.EOF), errors.Is(inner, io.ErrUnexpectedEOF), errors.Is(inner, syscall.EPIPE):
		words = "the server closed the connection"
	case errors.Is(inner, syscall.ECONNRESET):
		words = "the server reset the connection"
	case errors.As(inner, &op):
		// Dialing: "dial tcp 127.0.0.1:1: connect: connection refused".
		var errno syscall.Errno
		if errors.As(op.Err, &errno) {
			words = errno.Error()
		} else {
			words = op.Err.Error()
		}
		if op.Op == "dial" && op.Addr != nil {
			words = "connecting to " + op.Addr.String() + ": " + words
		}
	default:
		return msg
	}
	if ours && (kind == ErrTimeout || kind != nil && kind.Error() == "interrupted") {
		return ""
	}
	if s := inner.Error(); strings.HasSuffix(msg, s) {
		return msg[:len(msg)-len(s)] + words
	}
	return words
}

// parseText tells a parse error of the URL shown as shown: what is wrong
// and its column there, which a masked password moves. A URL shown other
// than as parsed keeps the error's own text, which names what was parsed.
func parseText(shown string, ue *uri.Error) string {
	in := ue.Input
	p := 0
	for p < len(in) && p < len(shown) && in[p] == shown[p] {
		p++
	}
	s := 0
	for s < len(in)-p && s < len(shown)-p && in[len(in)-1-s] == shown[len(shown)-1-s] {
		s++
	}
	if strings.Trim(shown[p:len(shown)-s], "*") != "" {
		return ue.Error()
	}
	col := ue.Col
	if col > len(in)-s {
		col += len(shown) - len(in)
	}
	return ue.Msg + " at column " + strconv.Itoa(col)
}

// goInternal returns the outermost error in err's tree that the network
// stack or a context made, nil if none.
func goInternal(err error) error {
	switch err.(type) {
	case *net.OpError, *os.SyscallError, syscall.Errno:
		return err
	}
	switch err {
	case context.Canceled, context.DeadlineExceeded, os.ErrDeadlineExceeded, net.ErrClosed, io.EOF, io.ErrUnexpectedEOF:
		return err
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if w := u.Unwrap(); w != nil {
			return goInternal(w)
		}
	case interface{ Unwrap() []error }:
		for _, w := range u.Unwrap() {
			if g := goInternal(w); g != nil {
				return g
			}
		}
	}
	return nil
}

// Unwrap lets errors.Is and errors.As see both the kind and the cause.
func (e *Error) Unwrap() []error {
	var errs []error
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// oneLine keeps an error message on one line whatever a server sent.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	s = strings.TrimRight(s, "\r\n")
	return strings.NewReplacer("\r\n", " | ", "\n", " | ", "\r", " ").Replace(s)
}

// Fail builds an *Error for this request's URL.
func (r *Request) Fail(kind error, op string, code int, reply string, err error) *Error {
	return &Error{Kind: kind, URL: r.URL.Redacted(), Op: op, Code: code, Reply: reply, Err: err}
}

// NetError classifies an error from dialing, reading or writing a
// connection into the taxonomy: a timeout, a refused connection, a host that
// does not resolve, a peer that closed early (truncated). An error that is
// already an *Error, or a cancelled context, is returned as it is.
func (r *Request) NetError(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) || errors.Is(err, context.Canceled) {
		return err
	}
	kind := ErrProtocol
	temp := false
	var dnsErr *net.DNSError
	var netErr net.Error
	var tlsErr tls.RecordHeaderError
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		kind, temp = ErrTimeout, true
	case errors.As(err, &dnsErr):
		kind, temp = ErrResolve, dnsErr.IsTemporary
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		kind, temp = ErrConnect, true
	case errors.As(err, &netErr) && netErr.Timeout():
		kind, temp = ErrTimeout, true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		kind, temp = ErrTruncated, true
	case errors.As(err, &certErr):
		kind = ErrCertificate
	case errors.As(err, &tlsErr):
		kind = ErrTLSHandshake
	case isRemoteAlert(err):
		kind = ErrTLSAlert
	}
	return &Error{Kind: kind, URL: r.URL.Redacted(), Op: op, Err: err, Temporary: temp}
}

// TLSError classifies the failure of a TLS handshake: a timeout or a
// cancellation as NetError has them (curl too reports a handshake out of
// time as its exit 28), the server's certificate not verified as
// ErrCertificate (x509's failures, with or without crypto/tls's wrapper),
// a key other than the pinned ones (an error wrapping ErrPinnedKey, as a
// tls.Config's VerifyConnection returns it) as ErrPinnedKey, a stapled
// status that is not good as ErrCertStatus, and anything else (an alert,
// a record that is no TLS, the peer closing or resetting the connection
// mid-handshake) as ErrTLSHandshake: curl's exit 35, "SSL connect error",
// which is what a user looks the failure up by.
func (r *Request) TLSError(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) || errors.Is(err, context.Canceled) {
		return err
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout() {
		return r.NetError(op, err)
	}
	var certErr *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	kind := ErrTLSHandshake
	switch {
	case errors.Is(err, ErrPinnedKey):
		kind = ErrPinnedKey
	case errors.Is(err, ErrCertStatus):
		kind = ErrCertStatus
	case errors.As(err, &certErr), errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &invalid):
		kind = ErrCertificate
	}
	return &Error{Kind: kind, URL: r.URL.Redacted(), Op: op, Err: err}
}

// isRemoteAlert tells an alert the peer sent (crypto/tls reports one as
// a net.OpError of the operation "remote error").
func isRemoteAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}

// IsTemporary reports whether err is one a retry may cure.
func IsTemporary(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Temporary
	}
	return false
}

// CheckArg refuses a value bound for a protocol command when it holds CR, LF
// or NUL, which would end the command early or smuggle a second one in. Every
// fetcher calls it (or a stricter check of its own) on every piece of a URL
// before sending it; what names the value ("selector", "message-id").
func (r *Request) CheckArg(what, value string) error {
	if i := strings.IndexAny(value, "\r\n\x00"); i >= 0 {
		return r.Fail(ErrBadURL, "", 0, "", errors.New(what+" contains a "+ctlName(value[i])+" byte, which cannot be sent in a command"))
	}
	return nil
}

func ctlName(c byte) string {
	switch c {
	case '\r':
		return "CR"
	case '\n':
		return "LF"
	case 0:
		return "NUL"
	case '\t':
		return "TAB"
	}
	return "control"
}

// TLSClientConfig returns a copy of the request's TLS configuration for a
// connection to host.
func (r *Request) TLSClientConfig(host string) *tls.Config {
	var c *tls.Config
	if r.TLSConfig != nil {
		c = r.TLSConfig.Clone()
	} else {
		c = &tls.Config{}
	}
	if c.ServerName == "" {
		c.ServerName = host
	}
	return c
}

// ServerURL returns "scheme://user@host:port/" for u: the prefix the URLs
// of a listing's entries share. The password is left out, since listings
// are printed; the port only when the URL names one.
func ServerURL(u uri.URL) string {
	var b strings.Builder
	b.WriteString(u.Scheme())
	b.WriteString("://")
	if user, ok := u.RawUser(); ok {
		b.WriteString(user)
		b.WriteByte('@')
	}
	port, _ := u.Port()
	b.WriteString(uri.JoinHostPort(u.Hostname(), port))
	b.WriteByte('/')
	return b.String()
}
