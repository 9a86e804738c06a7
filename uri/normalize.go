package uri

import (
	"strconv"
	"strings"
)

// emptyPathIsRoot lists the schemes for which an empty path and "/" name the
// same resource (RFC 3986 §6.2.3 for http; RFC 1738 §3.2, §3.4 and §3.8 make
// the final "/" optional for ftp, gopher and telnet).
func emptyPathIsRoot(scheme string) bool {
	switch scheme {
	case "http", "https", "ftp", "gopher", "telnet":
		return true
	}
	return false
}

// Normalize returns the normal form of the URL, for comparison (RFC 3986
// §6.2.2–6.2.3): scheme and host in lower case, %-escapes with upper-case hex,
// %-escapes of unreserved characters decoded, dot segments removed from a
// hierarchical path, a port equal to the scheme's default (or empty) dropped,
// an empty http, https, ftp, gopher or telnet path made "/", and "localhost"
// as the host of a file URL made empty (RFC 1738 §3.10). The fragment is kept.
//
// A URN (RFC 8141 §3.1) is normalized by its own lexical-equivalence rules
// instead: "urn" and the NID in lower case, %-escapes with upper-case hex and
// never decoded, the fragment removed, and the query kept with its components
// and directives in a fixed order. A mailto address keeps its case.
func (u URL) Normalize() URL {
	scheme := u.Scheme()
	if scheme == "urn" {
		s, err := normalizeURN(u)
		if err != nil {
			// A text that breaks RFC 8141 gets only the changes that
			// cannot make it a valid URN: decoding could.
			s = "urn" + upperEscapes(u.s[u.schemeEnd:])
		}
		v, _ := reparse(s)
		return v
	}
	b := make([]byte, 0, len(u.s)+8)
	if scheme != "" {
		b = append(b, scheme...)
		b = append(b, ':')
	}
	hasAuth := u.flags&hasAuthority != 0
	if hasAuth {
		b = append(b, '/', '/')
		if ui, ok := u.RawUserinfo(); ok {
			b = appendPct(b, ui, false)
			b = append(b, '@')
		}
		if !(scheme == "file" && strings.EqualFold(u.RawHost(), "localhost")) {
			b = appendPct(b, u.RawHost(), true)
		}
		if p, ok := u.Port(); ok && p != "" {
			p = strings.TrimLeft(p, "0")
			if p == "" {
				p = "0"
			}
			if p != DefaultPort(scheme) {
				b = append(b, ':')
				b = append(b, p...)
			}
		}
	}
	pathStart := len(b)
	path := u.Path()
	switch {
	case path == "" && hasAuth && emptyPathIsRoot(scheme):
		b = append(b, '/')
	case strings.HasPrefix(path, "/"):
		// RFC 3986 §6.2.2.3: dot segments go from hierarchical paths only
		// (a rootless path is opaque, as in mailto: or news:). Decode first,
		// so that "%2E%2E" is seen as "..".
		b = removeDotSegments(b, string(appendPct(nil, path, false)), false)
		if !hasAuth && len(b)-pathStart >= 2 && b[pathStart+1] == '/' {
			b = append(b[:pathStart], append([]byte("/."), b[pathStart:]...)...)
		}
	default:
		b = appendPct(b, path, false)
	}
	if q, ok := u.Query(); ok {
		b = append(b, '?')
		b = appendPct(b, q, false)
	}
	if f, ok := u.Fragment(); ok {
		b = append(b, '#')
		b = appendPct(b, f, false)
	}
	v, err := reparse(string(b))
	if err != nil {
		// Every step above maps valid text to valid text.
		panic("uri: normalizing " + strconv.Quote(u.s) + " gave invalid " + strconv.Quote(string(b)) + ": " + err.Error())
	}
	return v
}

// appendPct appends s with its %-escapes normalized (RFC 3986 §6.2.2.1–2):
// an escape of an unreserved character is decoded, any other gets upper-case
// hex digits. With fold, ASCII letters outside escapes are lower-cased too, as
// a host wants (RFC 3986 §6.2.2.1).
func appendPct(b []byte, s string, fold bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			d := unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
			if ctab[d]&cUnreserved != 0 {
				c = d
			} else {
				b = append(b, '%', upperhex[d>>4], upperhex[d&15])
				continue
			}
		}
		if fold && c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// Normalize parses s as a URI reference and returns its normal form (see
// URL.Normalize). A URN that breaks RFC 8141 is an error.
func Normalize(s string) (string, error) {
	u, err := ParseReference(s)
	if err != nil {
		return "", err
	}
	if u.Scheme() == "urn" {
		return normalizeURN(u)
	}
	return u.Normalize().String(), nil
}

// Equal reports whether a and b have the same normal form (see
// URL.Normalize): RFC 3986 §6.2.2–6.2.3 for URLs, RFC 8141 §3.1 for URNs.
func Equal(a, b string) (bool, error) {
	na, err := Normalize(a)
	if err != nil {
		return false, err
	}
	nb, err := Normalize(b)
	if err != nil {
		return false, err
	}
	return na == nb, nil
}
