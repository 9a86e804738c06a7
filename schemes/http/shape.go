package http

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/urlget/urlget/uri"
)

// The shape of a request as curl's options set it: the method and target
// of the request line, the path's dot segments, the protocol version, how
// the body is decoded, the authentication scheme.

// Version is the HTTP version a Fetcher speaks (Fetcher.Version).
type Version int

const (
	// VersionDefault speaks HTTP/1.1, offering h2 by ALPN over TLS
	// (RFC 9113 §3.2), as curl does for https.
	VersionDefault Version = iota
	// Version10 sends HTTP/1.0 requests (curl's -0, --http1.0): no
	// chunked responses, a connection per request unless the server
	// keeps it alive.
	Version10
	// Version11 speaks HTTP/1.1 only: h2 is not offered (--http1.1).
	Version11
	// Version2 is curl's --http2: h2 by ALPN over TLS, as the default;
	// over cleartext curl asks to upgrade to h2c (RFC 7540 §3.2, gone
	// from RFC 9113), which urlget does not, speaking HTTP/1.1 as curl
	// does when the server declines.
	Version2
	// Version2PriorKnowledge speaks h2 from the first byte, over TLS
	// and over cleartext alike (RFC 9113 §3.3, curl's
	// --http2-prior-knowledge).
	Version2PriorKnowledge
)

// AuthScheme is how credentials are sent (Fetcher.Auth, ProxyAuth).
type AuthScheme int

const (
	// AuthBasic sends the credentials with the first request (RFC 7617).
	AuthBasic AuthScheme = iota
	// AuthDigest sends the first request without them and answers the
	// server's Digest challenge (RFC 7616).
	AuthDigest
	// AuthAny sends the first request without them and answers with
	// the strongest scheme the challenge offers: Digest, else Basic.
	AuthAny
)

// shaped reports whether the Fetcher's requests differ from the plain GET
// the pipelined path writes, so that they go the ordinary way.
func (f *Fetcher) shaped() bool {
	return f.Method != "" || f.RequestTarget != "" || f.Version != VersionDefault ||
		f.Raw || f.TransferEncoding || f.IgnoreContentLength || f.Auth != AuthBasic || f.Bearer != "" || f.HTTP09
}

// http09 reports whether the response coming on c has no status line,
// so is an HTTP/0.9 one: its first bytes are not "HTTP/". It waits for
// those bytes; a connection that ends first is left to readResponse.
func http09(c *conn) bool {
	p, _ := c.br.Peek(len("HTTP/"))
	return len(p) > 0 && !bytes.HasPrefix([]byte("HTTP/"), p)
}

// http09Response is the response of an HTTP/0.9 server: no status line,
// no fields, the body up to the connection's end (curl's --http0.9).
func http09Response(c *conn) *response {
	return &response{Response: &http.Response{
		Proto: "HTTP/0.9", ProtoMinor: 9, StatusCode: http.StatusOK, Status: "200 OK",
		Header: http.Header{}, ContentLength: -1, Close: true, Body: &closeBody{c: c},
	}}
}

// CheckMethod refuses a method that is not a token (RFC 9110 §9.1), which
// would break the request line.
func CheckMethod(m string) error {
	if !isToken(m) {
		return fmt.Errorf("method %q is not a token", m)
	}
	return nil
}

// CheckRequestTarget refuses a request target that is empty or holds a
// space or a control byte, which would break the request line (RFC 9112
// §3).
func CheckRequestTarget(t string) error {
	if t == "" {
		return errors.New("the request target is empty")
	}
	for i := 0; i < len(t); i++ {
		if t[i] <= ' ' || t[i] == 0x7f {
			return fmt.Errorf("request target %q holds a space or a control byte", t)
		}
	}
	return nil
}

// withoutDots is the path p (escaped, as written) with its "." and ".."
// segments removed (RFC 3986 §5.2.4), as curl sends it without
// --path-as-is. Escaped dots ("%2e") are kept, as curl keeps them.
func withoutDots(p string) string {
	if !strings.Contains(p, "/.") {
		return p
	}
	const base = "http://h"
	// A reference that is an absolute path takes the dot removal of
	// RFC 3986 §5.2.2 and nothing else.
	s, err := uri.Resolve(base+"/", p)
	if err != nil || !strings.HasPrefix(s, base+"/") {
		return p
	}
	return s[len(base):]
}

// requestURL is requestURL(u) with the dot segments of its path removed,
// unless the Fetcher sends paths as they are written.
func (f *Fetcher) requestURL(u uri.URL) (*url.URL, error) {
	t, err := requestURL(u)
	if err != nil {
		return nil, err
	}
	return t, f.cleanTarget(t)
}

// cleanTarget removes the dot segments of t's path, unless PathAsIs.
func (f *Fetcher) cleanTarget(t *url.URL) error {
	if f.PathAsIs {
		return nil
	}
	raw := t.EscapedPath()
	clean := withoutDots(raw)
	if clean == raw {
		return nil
	}
	dec, err := uri.Unescape(clean)
	if err != nil {
		return err
	}
	t.Path, t.RawPath = dec, clean
	return nil
}
