// Package cookies is an HTTP cookie jar (RFC 6265) that reads and writes
// curl's Netscape cookie files, so that cookies move between urlget and
// curl both ways (-b, -c). Unlike net/http/cookiejar, its cookies can be
// listed and saved; it keeps curl's rules where RFC 6265 leaves a choice.
package cookies

import (
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/publicsuffix"
)

// Bounds of what a server can make a jar hold, curl's where curl has one.
const (
	// MaxNameValue is the most bytes a cookie's name and value have
	// together (curl's MAX_NAME; RFC 6265 §6.1 asks for at least 4096).
	MaxNameValue = 4096
	// MaxPerResponse is how many Set-Cookie fields of one response are
	// read (curl's MAX_SET_COOKIE_AMOUNT); the rest are ignored.
	MaxPerResponse = 50
	// MaxPerDomain is how many cookies one domain keeps (RFC 6265 §6.1:
	// at least 50); a new one pushes out the domain's oldest.
	MaxPerDomain = 50
	// MaxCookies is how many cookies a jar keeps (RFC 6265 §6.1: at
	// least 3000); a new one pushes out the oldest.
	MaxCookies = 3000
	// MaxSend is how many cookies one request carries, and MaxHeader the
	// most bytes of its Cookie field (curl's MAX_COOKIE_SEND_AMOUNT and
	// MAX_COOKIE_HEADER_LEN).
	MaxSend   = 150
	MaxHeader = 8190
)

// Cookie is one cookie of a jar.
type Cookie struct {
	Name, Value string
	// Domain is the host or domain the cookie belongs to, lower case,
	// without a leading dot; HostOnly keeps it to that host alone (no
	// Domain attribute: RFC 6265 §5.3 step 6), else its subdomains
	// match too (the Netscape file's "TRUE").
	Domain   string
	HostOnly bool
	Path     string
	Secure   bool // sent only over https (or to the loopback host)
	HTTPOnly bool
	// Expires is when the cookie goes; the zero time is a session
	// cookie, kept only for the run (and written with 0, as curl).
	Expires time.Time

	seq uint64 // creation order
}

// Jar holds cookies. Its zero value is an empty jar ready to use; it is
// safe for use by several goroutines.
type Jar struct {
	// Now, when not nil, tells the time (tests); nil is time.Now.
	Now func() time.Time

	mu      sync.Mutex
	cookies []*Cookie
	seq     uint64
}

func (j *Jar) now() time.Time {
	if j.Now != nil {
		return j.Now()
	}
	return time.Now()
}

// SecureContext reports whether a cookie marked Secure may be set by and
// sent to u: https, or a loopback host, as curl 7.88 counts "localhost",
// 127.0.0.1 and ::1 secure (and browsers count them trustworthy).
func SecureContext(u *url.URL) bool {
	if u.Scheme == "https" {
		return true
	}
	switch h := strings.ToLower(u.Hostname()); h {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// SetCookies stores the cookies of a response to u, the values of its
// Set-Cookie fields in order (RFC 6265 §5.2, §5.3); at most
// MaxPerResponse are read. A field the rules refuse (another domain, a
// public suffix, a Secure cookie over plain http, a control character)
// is ignored, as a user agent ignores it.
func (j *Jar) SetCookies(u *url.URL, fields []string) {
	if len(fields) > MaxPerResponse {
		fields = fields[:MaxPerResponse]
	}
	host := canonicalHost(u.Hostname())
	if !validHost(host) {
		return
	}
	secure := SecureContext(u)
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, f := range fields {
		c, ok := parseSetCookie(f, now)
		if !ok {
			continue
		}
		if !c.place(host, u.EscapedPath(), secure) {
			continue
		}
		j.store(c, secure, now)
	}
}

// place fills the cookie's domain and path from the request (RFC 6265
// §5.3 steps 4 to 7) and reports whether its origin may set it.
func (c *Cookie) place(host, reqPath string, secure bool) bool {
	if c.Secure && !secure {
		// RFC 6265bis §5.7 step 8, curl 7.88: an insecure origin
		// cannot set a Secure cookie.
		return false
	}
	if c.Domain != "" {
		if isIP(host) {
			// An address matches only itself (§5.1.3).
			if c.Domain != host {
				return false
			}
			c.HostOnly = true
		} else {
			if !domainMatch(host, c.Domain) {
				return false
			}
			if ps, _ := publicsuffix.PublicSuffix(c.Domain); ps == c.Domain {
				// §5.3 step 5: a public suffix is no cookie's domain,
				// but the host's own.
				if c.Domain != host {
					return false
				}
				c.HostOnly = true
			}
		}
	} else {
		c.Domain, c.HostOnly = host, true
	}
	if c.Path == "" || c.Path[0] != '/' {
		c.Path = defaultPath(reqPath)
	}
	if len(c.Path) > maxPath {
		return false
	}
	// Cookie prefixes (RFC 6265bis §4.1.3), as curl 7.88 enforces them.
	if strings.HasPrefix(c.Name, "__Secure-") && !c.Secure {
		return false
	}
	if strings.HasPrefix(c.Name, "__Host-") && (!c.Secure || !c.HostOnly || c.Path != "/") {
		return false
	}
	return true
}

// store puts c in the jar, replacing the cookie of the same name, domain
// and path (§5.3 step 11), or removes that cookie when c has expired.
func (j *Jar) store(c *Cookie, secure bool, now time.Time) {
	for i, old := range j.cookies {
		if old.Name != c.Name {
			continue
		}
		if old.Secure && !secure && (domainMatch(old.Domain, c.Domain) || domainMatch(c.Domain, old.Domain)) && pathMatch(c.Path, old.Path) {
			// RFC 6265bis §5.7 step 16: an insecure origin leaves a
			// Secure cookie of that name alone.
			return
		}
		if old.Domain == c.Domain && old.Path == c.Path {
			j.cookies = slices.Delete(j.cookies, i, i+1)
			break
		}
	}
	if !c.Expires.IsZero() && !c.Expires.After(now) {
		return
	}
	j.add(c)
}

// add appends c, pushing out the oldest cookie of its domain or of the
// jar beyond MaxPerDomain and MaxCookies.
func (j *Jar) add(c *Cookie) {
	j.seq++
	c.seq = j.seq
	n := 0
	oldest := -1
	for i, o := range j.cookies {
		if o.Domain == c.Domain {
			n++
			if oldest < 0 {
				oldest = i
			}
		}
	}
	if n >= MaxPerDomain {
		j.cookies = slices.Delete(j.cookies, oldest, oldest+1)
	}
	if len(j.cookies) >= MaxCookies {
		j.cookies = slices.Delete(j.cookies, 0, 1)
	}
	j.cookies = append(j.cookies, c)
}

// Cookies returns the value of the Cookie field a request to u carries
// (RFC 6265 §5.4): the cookies whose domain, path and Secure flag match
// u and that have not expired, as "name=value" pairs joined by "; ",
// sorted as curl 7.88 sorts them (longer paths first, then longer
// domains, then longer names, then newer first, where RFC 6265 §5.4 would
// have older first: the same file then makes both tools send the same
// bytes), at most MaxSend of them and
// MaxHeader bytes; "" when none match.
func (j *Jar) Cookies(u *url.URL) string {
	host := canonicalHost(u.Hostname())
	if host == "" {
		return ""
	}
	secure := SecureContext(u)
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	now := j.now()
	j.mu.Lock()
	var match []*Cookie
	for _, c := range j.cookies {
		if !c.Expires.IsZero() && !c.Expires.After(now) {
			continue
		}
		if c.Secure && !secure {
			continue
		}
		if c.HostOnly && c.Domain != host || !c.HostOnly && !domainMatch(host, c.Domain) {
			continue
		}
		if !pathMatch(p, c.Path) {
			continue
		}
		match = append(match, c)
	}
	j.mu.Unlock()
	slices.SortStableFunc(match, func(a, b *Cookie) int {
		switch {
		case len(a.Path) != len(b.Path):
			return len(b.Path) - len(a.Path)
		case len(a.Domain) != len(b.Domain):
			return len(b.Domain) - len(a.Domain)
		case len(a.Name) != len(b.Name):
			return len(b.Name) - len(a.Name)
		case a.seq > b.seq:
			return -1
		case a.seq < b.seq:
			return 1
		}
		return 0
	})
	var b strings.Builder
	for i, c := range match {
		if i == MaxSend {
			break
		}
		n := len(c.Name) + 1 + len(c.Value)
		if i > 0 {
			n += 2
		}
		if b.Len()+n > MaxHeader {
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.Name)
		b.WriteByte('=')
		b.WriteString(c.Value)
	}
	return b.String()
}

// All returns a copy of the cookies the jar holds, oldest first, the
// expired ones left out.
func (j *Jar) All() []Cookie {
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Cookie, 0, len(j.cookies))
	for _, c := range j.cookies {
		if c.Expires.IsZero() || c.Expires.After(now) {
			out = append(out, *c)
		}
	}
	return out
}

// parseSetCookie reads one Set-Cookie field value (RFC 6265 §5.2): the
// name-value pair before the first ';' and the attributes after it. The
// cookie's Domain is the attribute's, lower case without a leading dot
// ("" for none); its Path the attribute's ("" for none).
func parseSetCookie(field string, now time.Time) (*Cookie, bool) {
	pair, attrs, _ := strings.Cut(field, ";")
	name, value, ok := strings.Cut(pair, "=")
	if !ok {
		return nil, false
	}
	c := &Cookie{Name: trimWSP(name), Value: trimWSP(value)}
	if !validNameValue(c.Name, c.Value) {
		return nil, false
	}
	var maxAge *time.Time
	for attrs != "" {
		var av string
		av, attrs, _ = strings.Cut(attrs, ";")
		k, v, _ := strings.Cut(av, "=")
		k, v = strings.ToLower(trimWSP(k)), trimWSP(v)
		if strings.ContainsFunc(v, isCtl) {
			return nil, false
		}
		switch k {
		case "expires":
			if t, ok := ParseDate(v); ok {
				c.Expires = t
				if !t.After(now) {
					// Already past: deletes the cookie (§5.3 step 3).
					c.Expires = now.Add(-time.Second)
				}
			}
		case "max-age":
			// §5.2.2: digits with an optional leading '-'.
			d := strings.TrimPrefix(v, "-")
			if d == "" || strings.Trim(d, "0123456789") != "" {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			var t time.Time
			switch {
			case err != nil && v[0] == '-', err == nil && n <= 0:
				t = now.Add(-time.Second)
			case err != nil, n > 400*24*3600:
				// RFC 6265bis §5.6.2: no more than 400 days.
				t = now.Add(400 * 24 * time.Hour)
			default:
				t = now.Add(time.Duration(n) * time.Second)
			}
			maxAge = &t
		case "domain":
			d := strings.ToLower(strings.TrimPrefix(v, "."))
			if d != "" {
				c.Domain = d
			}
		case "path":
			c.Path = v
		case "secure":
			c.Secure = true
		case "httponly":
			c.HTTPOnly = true
		}
	}
	if maxAge != nil {
		// §5.3 step 3: Max-Age wins over Expires.
		c.Expires = *maxAge
	}
	return c, true
}

// validNameValue reports whether a cookie's name and value can be kept
// and sent back: a name, no control character but tab in either (a CR
// or LF would split the Cookie field), no ';' in the value or '=' in the
// name, and within MaxNameValue bytes together.
func validNameValue(name, value string) bool {
	if name == "" || len(name)+len(value) > MaxNameValue {
		return false
	}
	if strings.ContainsFunc(name, isCtl) || strings.ContainsFunc(value, isCtl) {
		return false
	}
	return !strings.ContainsAny(name, ";=\t") && !strings.ContainsAny(value, ";\t")
}

// isCtl reports the bytes curl's cookie parser refuses: the controls but
// tab, and DEL.
func isCtl(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }

// trimWSP trims spaces and tabs (RFC 6265 §5.2: WSP).
func trimWSP(s string) string { return strings.Trim(s, " \t") }

// canonicalHost is a host as cookies compare it: lower case, without a
// trailing dot or an IPv6 literal's brackets.
func canonicalHost(h string) string {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
}

// maxHost is the longest host name DNS allows (RFC 1035 §2.3.4), and
// maxPath the longest Path a cookie keeps: with MaxNameValue, a cookie's
// line of a cookie file stays within maxLine.
const (
	maxHost = 253
	maxPath = 1024
)

// validHost reports whether h can be a cookie's domain and a line's
// first field: a name or address, without a leading dot, white space,
// a control character, or a byte that ends a field or a path.
func validHost(h string) bool {
	return h != "" && len(h) <= maxHost && h[0] != '.' && !strings.ContainsFunc(h, isCtl) && !strings.ContainsAny(h, " \t/;,")
}

func isIP(h string) bool { return net.ParseIP(h) != nil }

// domainMatch reports whether host domain-matches domain (RFC 6265
// §5.1.3): the same, or a name below it, never for an address.
func domainMatch(host, domain string) bool {
	if host == domain {
		return true
	}
	return !isIP(host) && strings.HasSuffix(host, domain) && host[len(host)-len(domain)-1] == '.'
}

// defaultPath is a request path's directory (RFC 6265 §5.1.4).
func defaultPath(p string) string {
	if p == "" || p[0] != '/' {
		return "/"
	}
	i := strings.LastIndexByte(p, '/')
	if i == 0 {
		return "/"
	}
	return p[:i]
}

// pathMatch reports whether a request path path-matches a cookie's
// (RFC 6265 §5.1.4).
func pathMatch(reqPath, cookiePath string) bool {
	if reqPath == cookiePath {
		return true
	}
	if !strings.HasPrefix(reqPath, cookiePath) {
		return false
	}
	return strings.HasSuffix(cookiePath, "/") || reqPath[len(cookiePath)] == '/'
}
