package uri

import (
	"fmt"
	"math"
	"net"
	"net/netip"
	"strings"
)

// URL is a parsed URL or relative reference. It is a small value type, like
// netip.Addr: it holds the text as written and the offsets of its components,
// which are returned still %-encoded; decoded views are computed on demand.
// The zero URL is the empty relative reference.
type URL struct {
	s string
	// Offsets into s. The scheme is s[:schemeEnd] (schemeEnd is the index of
	// its ':', 0 when there is none). The userinfo is s[authStart():userEnd]
	// and the password starts after passColon. The host is
	// s[hostStart:hostEnd], the port s[hostEnd+1:pathStart]. The path runs
	// from pathStart to the '?' at query, the '#' at frag or the end.
	schemeEnd int32
	userEnd   int32
	passColon int32
	hostStart int32
	hostEnd   int32
	pathStart int32
	query     int32
	frag      int32
	flags     uint8
}

const (
	hasAuthority uint8 = 1 << iota
	hasUser
	hasPassword
	hasPort
	hasQuery
	hasFragment
)

// Character classes of RFC 3986 appendix A.
const (
	cUnreserved = 1 << iota // ALPHA DIGIT - . _ ~
	cSubDelim               // ! $ & ' ( ) * + , ; =
	cColonAt                // : @
	cSchemeChar             // ALPHA DIGIT + - .
	cHex                    // HEXDIG
	cAlpha                  // ALPHA
	cDigit                  // DIGIT
	cPath                   // pchar and "/": what a path holds besides %-escapes
	cQuery                  // pchar, "/" and "?": what a query or fragment holds

	cPchar = cUnreserved | cSubDelim | cColonAt
)

var ctab = func() (t [256]uint16) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= cUnreserved | cSchemeChar | cAlpha
		t[c-'a'+'A'] |= cUnreserved | cSchemeChar | cAlpha
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= cUnreserved | cSchemeChar | cDigit | cHex
	}
	for _, c := range "abcdefABCDEF" {
		t[c] |= cHex
	}
	for _, c := range "-._~" {
		t[c] |= cUnreserved
	}
	for _, c := range "!$&'()*+,;=" {
		t[c] |= cSubDelim
	}
	t[':'] |= cColonAt
	t['@'] |= cColonAt
	for _, c := range "+-." {
		t[c] |= cSchemeChar
	}
	for c := range t {
		if t[c]&cPchar != 0 || c == '/' {
			t[c] |= cPath | cQuery
		}
	}
	t['?'] |= cQuery
	return t
}()

func isHex(c byte) bool { return ctab[c]&cHex != 0 }

// Parse parses an absolute URL (RFC 3986 §4.3: a scheme is required). It
// allocates nothing on success: the URL keeps s and offsets into it.
func Parse(s string) (URL, error) {
	var u URL
	if err := u.parse(s); err != nil {
		return URL{}, err
	}
	if u.schemeEnd == 0 {
		if s == "" {
			return URL{}, newError(s, 0, "empty URL")
		}
		return URL{}, newError(s, 0, "missing scheme (an absolute URL starts with a scheme and ':')")
	}
	return u, nil
}

// ParseReference parses a URI reference (RFC 3986 §4.1): an absolute URL or a
// relative reference.
func ParseReference(s string) (URL, error) {
	var u URL
	if err := u.parse(s); err != nil {
		return URL{}, err
	}
	return u, nil
}

// reparse is ParseReference for internal callers that build valid text.
func reparse(s string) (URL, error) { return ParseReference(s) }

// MustParse is like Parse but panics on error; it is for tests and constants.
func MustParse(s string) URL {
	u, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// parse is the single pass over s following the URI-reference rule of RFC 3986
// appendix A.
func (u *URL) parse(s string) error {
	if len(s) > math.MaxInt32 {
		return newError(s, 0, "URL too long")
	}
	u.s = s
	n := len(s)
	i := 0

	// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
	for i < n && ctab[s[i]]&cSchemeChar != 0 {
		i++
	}
	if i < n && s[i] == ':' && i > 0 {
		if ctab[s[0]]&cAlpha == 0 {
			return newError(s, 0, "scheme does not start with a letter")
		}
		u.schemeEnd = int32(i)
		i++
	} else {
		i = 0
	}

	// RFC 3986 §3.2: authority follows "//".
	if i+1 < n && s[i] == '/' && s[i+1] == '/' {
		var err error
		i, err = u.parseAuthority(i + 2)
		if err != nil {
			return err
		}
	}

	// RFC 3986 §3.3: path = *( pchar / "/" ).
	u.pathStart = int32(i)
	for ; i < n; i++ {
		c := s[i]
		if ctab[c]&cPath != 0 {
			continue
		}
		if c == '%' {
			if i+2 >= n || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return badChar(s, i)
			}
			i += 2
			continue
		}
		if c == '?' || c == '#' {
			break
		}
		return badChar(s, i)
	}
	if u.schemeEnd == 0 && u.flags&hasAuthority == 0 {
		// RFC 3986 §4.2: the first segment of a relative-path reference
		// (path-noscheme) must not contain ':', or it would read as a scheme.
		p := s[u.pathStart:i]
		if k := strings.IndexByte(p, ':'); k >= 0 {
			if j := strings.IndexByte(p, '/'); j < 0 || k < j {
				return schemeError(s, p[:k])
			}
		}
	}

	// RFC 3986 §3.4: query = *( pchar / "/" / "?" ).
	if i < n && s[i] == '?' {
		u.flags |= hasQuery
		u.query = int32(i)
		for i++; i < n; i++ {
			c := s[i]
			if ctab[c]&cQuery != 0 {
				continue
			}
			if c == '%' {
				if i+2 >= n || !isHex(s[i+1]) || !isHex(s[i+2]) {
					return badChar(s, i)
				}
				i += 2
				continue
			}
			if c == '#' {
				break
			}
			return badChar(s, i)
		}
	}

	// RFC 3986 §3.5: fragment = *( pchar / "/" / "?" ).
	if i < n && s[i] == '#' {
		u.flags |= hasFragment
		u.frag = int32(i)
		for i++; i < n; i++ {
			c := s[i]
			if ctab[c]&cQuery != 0 {
				continue
			}
			if c == '%' {
				if i+2 >= n || !isHex(s[i+1]) || !isHex(s[i+2]) {
					return badChar(s, i)
				}
				i += 2
				continue
			}
			if c == '#' {
				return newError(s, i, "second '#' (only one fragment is allowed)")
			}
			return badChar(s, i)
		}
	}
	return nil
}

// schemeError explains why the text before the first ':' of s, which is not
// a valid scheme, makes s invalid: RFC 3986 §4.2 forbids ':' in the first
// segment of a relative path, so it must have been meant as a scheme.
func schemeError(s, prefix string) *Error {
	if prefix == "" {
		return newError(s, 0, "missing scheme before ':'")
	}
	if ctab[prefix[0]]&cAlpha == 0 {
		return newError(s, 0, "scheme does not start with a letter")
	}
	for i := 1; i < len(prefix); i++ {
		if ctab[prefix[i]]&cSchemeChar == 0 {
			return newError(s, i, fmt.Sprintf("character %q not allowed in a scheme", prefix[i]))
		}
	}
	return newError(s, len(prefix), "unexpected ':'")
}

// parseAuthority parses authority = [ userinfo "@" ] host [ ":" port ]
// (RFC 3986 §3.2) starting at i, just after "//", and returns the index where
// the path begins.
func (u *URL) parseAuthority(i int) (int, error) {
	s := u.s
	n := len(s)
	u.flags |= hasAuthority
	hostStart := i
	colon := -1 // first ':' since hostStart
	j := i
	for ; j < n; j++ {
		c := s[j]
		if ctab[c]&(cUnreserved|cSubDelim) != 0 {
			continue
		}
		switch c {
		case ':':
			if colon < 0 {
				colon = j
			}
			continue
		case '%':
			if j+2 >= n || !isHex(s[j+1]) || !isHex(s[j+2]) {
				return 0, badChar(s, j)
			}
			j += 2
			continue
		case '@':
			if u.flags&hasUser != 0 {
				return 0, newError(s, j, "second '@' in the authority (percent-encode '@' in a user name or password as %40)")
			}
			// RFC 3986 §3.2.1: userinfo = *( unreserved / pct-encoded / sub-delims / ":" ).
			u.flags |= hasUser
			u.userEnd = int32(j)
			if colon >= 0 {
				u.flags |= hasPassword
				u.passColon = int32(colon)
			}
			colon = -1
			hostStart = j + 1
			continue
		case '[':
			if j != hostStart {
				return 0, newError(s, j, "'[' not at the start of the host")
			}
			end, err := parseIPLiteral(s, j)
			if err != nil {
				return 0, err
			}
			j = end // at ']'
			if j+1 < n {
				switch s[j+1] {
				case ':', '/', '?', '#':
				default:
					return 0, newError(s, j+1, "unexpected character after ']' (expected ':' and a port, or the end of the host)")
				}
			}
			continue
		case ']':
			return 0, newError(s, j, "unbalanced ']'")
		case '/', '?', '#':
		default:
			return 0, badChar(s, j)
		}
		break
	}
	u.hostStart = int32(hostStart)
	u.hostEnd = int32(j)
	if colon >= 0 {
		// RFC 3986 §3.2.3: port = *DIGIT. Ports above 65535 cannot be used.
		u.flags |= hasPort
		u.hostEnd = int32(colon)
		v := 0
		for k := colon + 1; k < j; k++ {
			c := s[k]
			if c < '0' || c > '9' {
				return 0, newError(s, k, "port is not a number")
			}
			if v = v*10 + int(c-'0'); v > 65535 {
				return 0, newError(s, colon+1, "port exceeds 65535")
			}
		}
	}
	return j, nil
}

// parseIPLiteral checks IP-literal = "[" ( IPv6address / IPvFuture ) "]"
// (RFC 3986 §3.2.2) starting at the '[' at i, and returns the index of ']'.
func parseIPLiteral(s string, i int) (int, error) {
	end := -1
	for k := i + 1; k < len(s); k++ {
		c := s[k]
		if c == ']' {
			end = k
			break
		}
		if c == '/' || c == '?' || c == '#' || c == '@' || c == '[' {
			break
		}
	}
	if end < 0 {
		return 0, newError(s, i, "unbalanced '['")
	}
	lit := s[i+1 : end]
	if lit == "" {
		return 0, newError(s, i, "empty IP literal \"[]\"")
	}
	if lit[0] == 'v' || lit[0] == 'V' {
		// IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
		k := 1
		for k < len(lit) && isHex(lit[k]) {
			k++
		}
		if k == 1 || k >= len(lit)-1 || lit[k] != '.' {
			return 0, newError(s, i+1, "malformed IPvFuture literal (expected v<hex>.<text>)")
		}
		for k++; k < len(lit); k++ {
			c := lit[k]
			if ctab[c]&(cUnreserved|cSubDelim) == 0 && c != ':' {
				return 0, badChar(s, i+1+k)
			}
		}
		return end, nil
	}
	for k := 0; k < len(lit); k++ {
		c := lit[k]
		if c == '%' {
			// RFC 6874 zone identifiers are refused: a zone names an
			// interface of one machine and means nothing in a shared URL.
			return 0, newError(s, i+1+k, "IPv6 zone identifiers are not accepted")
		}
		if !isHex(c) && c != ':' && c != '.' {
			return 0, badChar(s, i+1+k)
		}
	}
	a, err := netip.ParseAddr(lit)
	if err != nil || !a.Is6() {
		return 0, newError(s, i+1, "malformed IPv6 address")
	}
	return end, nil
}

// String returns the URL exactly as it was parsed.
func (u URL) String() string { return u.s }

// Redacted returns String with the password, when one is defined, replaced by
// "****"; use it in logs and messages.
func (u URL) Redacted() string {
	if u.flags&hasPassword == 0 {
		return u.s
	}
	return u.s[:u.passColon+1] + "****" + u.s[u.userEnd:]
}

// IsAbs reports whether the URL has a scheme.
func (u URL) IsAbs() bool { return u.schemeEnd > 0 }

// knownSchemes lets Scheme return a lower-cased scheme without allocating.
var knownSchemes = [...]string{"http", "https", "ftp", "gopher", "news", "nntp", "wais", "file", "telnet", "mailto", "prospero", "urn", "nntps", "snews", "ftps", "gophers"}

// Scheme returns the scheme in lower case (RFC 3986 §3.1: schemes are
// case-insensitive), or "" for a relative reference.
func (u URL) Scheme() string {
	sc := u.s[:u.schemeEnd]
	for i := 0; i < len(sc); i++ {
		if c := sc[i]; c >= 'A' && c <= 'Z' {
			for _, k := range knownSchemes {
				if strings.EqualFold(k, sc) {
					return k
				}
			}
			return strings.ToLower(sc)
		}
	}
	return sc
}

// RawScheme returns the scheme as written, or "" for a relative reference.
func (u URL) RawScheme() string { return u.s[:u.schemeEnd] }

// HasAuthority reports whether the URL has an authority ("//" after the scheme).
func (u URL) HasAuthority() bool { return u.flags&hasAuthority != 0 }

func (u URL) authStart() int {
	if u.schemeEnd > 0 {
		return int(u.schemeEnd) + 3
	}
	return 2
}

// RawUserinfo returns the userinfo as written (user, and ':' and password when
// present); ok is false when there is no userinfo.
func (u URL) RawUserinfo() (string, bool) {
	if u.flags&hasUser == 0 {
		return "", false
	}
	return u.s[u.authStart():u.userEnd], true
}

// RawUser returns the user name as written; ok is false when undefined. The
// userinfo splits at its first ':' (RFC 1738 §3.1).
func (u URL) RawUser() (string, bool) {
	if u.flags&hasUser == 0 {
		return "", false
	}
	if u.flags&hasPassword != 0 {
		return u.s[u.authStart():u.passColon], true
	}
	return u.s[u.authStart():u.userEnd], true
}

// RawPassword returns the password as written; ok is false when undefined.
func (u URL) RawPassword() (string, bool) {
	if u.flags&hasPassword == 0 {
		return "", false
	}
	return u.s[u.passColon+1 : u.userEnd], true
}

// User returns the %-decoded user name; ok is false when undefined.
func (u URL) User() (string, bool) {
	r, ok := u.RawUser()
	return unescape(r), ok
}

// Password returns the %-decoded password; ok is false when undefined.
func (u URL) Password() (string, bool) {
	r, ok := u.RawPassword()
	return unescape(r), ok
}

// RawHost returns the host as written, an IPv6 address with its brackets; it
// is "" when there is no authority or the host is empty.
func (u URL) RawHost() string {
	if u.flags&hasAuthority == 0 {
		return ""
	}
	return u.s[u.hostStart:u.hostEnd]
}

// Hostname returns the host %-decoded and lower-cased (RFC 3986 §3.2.2: the
// host is case-insensitive), an IP literal without its brackets.
func (u URL) Hostname() string {
	h := u.RawHost()
	if len(h) > 0 && h[0] == '[' {
		h = h[1 : len(h)-1]
	}
	return lower(unescape(h))
}

// lower returns s in ASCII lower case, allocating only when s has upper case.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// Port returns the port as written; ok is false when undefined. "http://h:/"
// has a defined, empty port.
func (u URL) Port() (string, bool) {
	if u.flags&hasPort == 0 {
		return "", false
	}
	return u.s[u.hostEnd+1 : u.pathStart], true
}

// Addr returns the host and port to dial: the port as written, or the
// scheme's default port when the port is undefined or empty.
func (u URL) Addr() string {
	p, _ := u.Port()
	if p == "" {
		p = DefaultPort(u.Scheme())
	}
	return net.JoinHostPort(u.Hostname(), p)
}

func (u URL) pathEnd() int {
	switch {
	case u.flags&hasQuery != 0:
		return int(u.query)
	case u.flags&hasFragment != 0:
		return int(u.frag)
	}
	return len(u.s)
}

// Path returns the path as written. For a URL without authority such as
// news:, mailto: or urn:, it is the whole text after "scheme:" up to any '?'
// or '#' (RFC 3986 §3.3).
func (u URL) Path() string { return u.s[u.pathStart:u.pathEnd()] }

// Query returns the query as written, without its '?'; ok is false when
// undefined.
func (u URL) Query() (string, bool) {
	if u.flags&hasQuery == 0 {
		return "", false
	}
	end := len(u.s)
	if u.flags&hasFragment != 0 {
		end = int(u.frag)
	}
	return u.s[u.query+1 : end], true
}

// Fragment returns the fragment as written, without its '#'; ok is false when
// undefined.
func (u URL) Fragment() (string, bool) {
	if u.flags&hasFragment == 0 {
		return "", false
	}
	return u.s[u.frag+1:], true
}

// WithoutFragment returns the URL with its fragment removed.
func (u URL) WithoutFragment() URL {
	if u.flags&hasFragment == 0 {
		return u
	}
	u.s = u.s[:u.frag]
	u.flags &^= hasFragment
	u.frag = 0
	return u
}
