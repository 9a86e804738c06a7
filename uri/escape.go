package uri

import (
	"net"
	"strings"
)

// DefaultPort returns the port a scheme uses when a URL names none: "21"
// ftp, "990" ftps, "70" gopher and gophers, "80" http, "443" https, "119" nntp and news, "563" nntps
// and snews, "210" wais, "23" telnet, "1525" prospero (RFC 1738 §3), and ""
// for any other scheme (see SchemeOf). The scheme is matched without regard
// to case.
func DefaultPort(scheme string) string {
	info, _ := SchemeOf(scheme)
	return info.Port
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

// Unescape decodes every %XX escape in s (RFC 3986 §2.1). It returns an
// *Error when a '%' is not followed by two hex digits. '+' is left alone: it
// means a space only in HTML form encoding, not in URLs.
func Unescape(s string) (string, error) {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			return "", badChar(s, i)
		}
	}
	return unescape(s), nil
}

// unescape decodes s, which the parser has already checked.
func unescape(s string) string {
	k := strings.IndexByte(s, '%')
	if k < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:k]...)
	for i := k; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

const upperhex = "0123456789ABCDEF"

// segmentSafe reports the bytes a path segment may hold unencoded:
// unreserved and !$&'()*+,=:@ (RFC 3986 §3.3 pchar without ';', which RFC
// 1738 reserves inside ftp and prospero paths).
func segmentSafe(c byte) bool {
	return ctab[c]&(cUnreserved|cSubDelim|cColonAt) != 0 && c != ';'
}

func escape(s string, keepSlash bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; !segmentSafe(c) && !(keepSlash && c == '/') {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if segmentSafe(c) || keepSlash && c == '/' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', upperhex[c>>4], upperhex[c&15])
	}
	return string(b)
}

// EscapeSegment %-encodes s for use as one path segment: everything except
// unreserved characters and !$&'()*+,=:@ is encoded, so '/', ';', '?', '#',
// '%', space, control bytes and non-ASCII bytes are.
func EscapeSegment(s string) string { return escape(s, false) }

// EscapePath is EscapeSegment but keeps '/', for a whole path.
func EscapePath(s string) string { return escape(s, true) }

// JoinHostPort joins a host and a port into an authority's host[:port]: an
// IPv6 address gets brackets (RFC 3986 §3.2.2), and the port is omitted when
// it is "".
func JoinHostPort(host, port string) string {
	bracket := strings.IndexByte(host, ':') >= 0 && !strings.HasPrefix(host, "[")
	if port == "" {
		if bracket {
			return "[" + host + "]"
		}
		return host
	}
	if bracket {
		return net.JoinHostPort(host, port)
	}
	return host + ":" + port
}
