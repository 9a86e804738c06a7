package robots

import (
	"bytes"
	"io"
	"strings"

	"github.com/urlget/urlget/uri"
)

// Rules are the rules of a robots.txt (RFC 9309) that apply to one user
// agent, as Parse reads them or FromStatus stands them for a failed
// fetch. A nil *Rules allows everything.
type Rules struct {
	rules       []rule
	disallowAll bool
}

type rule struct {
	allow   bool
	pattern string // %-encoding normalised (see normalizeRobotsPath)
}

// MaxSize is how much of a robots.txt Parse reads: RFC 9309 §2.5 asks
// crawlers to parse at least 500 KiB. A caller need read no more.
const MaxSize = 500 << 10

// Parse reads a robots.txt (at most its first 500 KiB, RFC 9309
// §2.5) for the user agent agent, whose product token (the letters, '_'
// and '-' it starts with: "urlget" of "urlget/1.0") selects the groups to
// obey (§2.2.1): those whose user-agent lines name it, matched without
// regard to case, all of them combined; when none does, the "*" groups.
// Lines that are not user-agent, allow or disallow lines, comments and
// rules before the first group are ignored (§2.2.4). A read error ends
// the file where it happened.
func Parse(r io.Reader, agent string) *Rules {
	data, _ := io.ReadAll(io.LimitReader(r, MaxSize))
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	token := strings.ToLower(productToken(agent))

	var mine, star []rule
	var haveMine bool
	// The group being read: which agents it names, and whether its
	// user-agent lines are over (a rule line ends them, §2.1).
	inGroup, groupMine, groupStar, rulesStarted := false, false, false, false
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		k := strings.ToLower(string(bytes.TrimSpace(key)))
		v := string(bytes.TrimSpace(value))
		switch k {
		case "user-agent":
			if !inGroup || rulesStarted {
				inGroup, groupMine, groupStar, rulesStarted = true, false, false, false
			}
			if v == "*" {
				groupStar = true
			} else if t := productToken(v); t != "" && strings.ToLower(t) == token {
				groupMine, haveMine = true, true
			}
		case "allow", "disallow":
			if !inGroup {
				continue
			}
			rulesStarted = true
			if v == "" {
				// "Disallow:" with no path disallows nothing.
				continue
			}
			ru := rule{allow: k == "allow", pattern: normalizeRobotsPath(v)}
			if groupMine {
				mine = append(mine, ru)
			}
			if groupStar {
				star = append(star, ru)
			}
		}
	}
	if haveMine {
		return &Rules{rules: mine}
	}
	return &Rules{rules: star}
}

// productToken returns the product token a user-agent value starts with
// (RFC 9309 §2.2.1: letters, '_' and '-').
func productToken(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			return s[:i]
		}
	}
	return s
}

// FromStatus returns the rules a failed fetch of robots.txt
// stands for (RFC 9309 §2.3.1): status is the HTTP status of the answer,
// or 0 when there was none (a network error, a refused connection).
// 3xx (redirects not followed to the end) and 4xx other than 429 mean
// the file is unavailable: nil, everything allowed. 429, 5xx and 0 mean
// it is unreachable: everything disallowed. For a 2xx answer the caller
// parses the body with Parse instead.
func FromStatus(status int) *Rules {
	if status >= 300 && status < 500 && status != 429 {
		return nil
	}
	return &Rules{disallowAll: true}
}

// Locate returns the robots.txt that governs u and the path of u that
// Rules.Allowed is asked about; ok is false for a scheme robots.txt does
// not cover (everything but http, https, gopher and gophers).
//
// For http(s) the file is /robots.txt on u's scheme, host and port
// (RFC 9309 §2.3), and the path is u's path with its query, %-encoded as
// sent ("/" for an empty path). For gopher, as gopher crawlers do, the
// file is the document 0/robots.txt on u's server, and the path is the
// selector, %-encoded as in u (its path after the type character, RFC
// 1738 §3.4), with a "/" put first when it has none.
func Locate(u uri.URL) (file uri.URL, path string, ok bool) {
	var where string
	switch u.Scheme() {
	case "http", "https":
		where = u.Scheme() + "://" + u.RawHost() + portSuffix(u) + "/robots.txt"
		path = u.Path()
		if path == "" {
			path = "/"
		}
		if q, ok := u.Query(); ok {
			path += "?" + q
		}
	case "gopher", "gophers":
		where = u.Scheme() + "://" + u.RawHost() + portSuffix(u) + "/0/robots.txt"
		path = u.Path()
		if len(path) >= 2 {
			path = path[2:]
		} else {
			path = ""
		}
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
	default:
		return uri.URL{}, "", false
	}
	file, err := uri.Parse(where)
	if err != nil {
		return uri.URL{}, "", false
	}
	return file, path, true
}

// portSuffix is ":port" when u names a port, "" when it does not.
func portSuffix(u uri.URL) string {
	if p, ok := u.Port(); ok && p != "" {
		return ":" + p
	}
	return ""
}

// Allowed reports whether path (with its query, %-encoded as sent) may be
// fetched. A nil Rules allows everything. The rule with the longest
// pattern that matches decides, an allow rule winning a tie; with no
// rule matching, the path is allowed (RFC 9309 §2.2.2). /robots.txt
// itself is always allowed.
func (r *Rules) Allowed(path string) bool {
	if r == nil || path == "/robots.txt" {
		return true
	}
	if r.disallowAll {
		return false
	}
	if path == "" {
		path = "/"
	}
	path = normalizeRobotsPath(path)
	best, allowed := -1, true
	for _, ru := range r.rules {
		n := len(ru.pattern)
		if n < best || n == best && !ru.allow {
			continue
		}
		if robotsMatch(ru.pattern, path) {
			best, allowed = n, ru.allow
		}
	}
	return allowed
}

// normalizeRobotsPath brings a path or a rule's pattern to one form for
// comparison (RFC 9309 §2.2.2): bytes outside US-ASCII, spaces and
// controls %-encoded, the hex digits of existing escapes in upper case.
// Escapes are not decoded ("/%62" does not match "/b"). In a pattern '*'
// and a final '$' are special (§2.2.3); a path with those characters is
// matched by a pattern that writes them %-encoded only when the path
// does too.
func normalizeRobotsPath(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(s[i+1 : i+3]))
			i += 2
		case c <= ' ' || c >= 0x7f:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// robotsMatch reports whether pattern matches the start of path (or all
// of it, when the pattern ends in '$'); '*' matches any run of bytes.
// It keeps the set of path positions the pattern so far can end at, so
// it takes len(pattern)×len(path) steps at most, however many '*' the
// pattern has.
func robotsMatch(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	if !strings.Contains(pattern, "*") {
		if anchored {
			return pattern == path
		}
		return strings.HasPrefix(path, pattern)
	}
	// pos[j] is true when the pattern read so far can end at path[j].
	pos := make([]bool, len(path)+1)
	pos[0] = true
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		any := false
		if c == '*' {
			// Every position at or after the first reachable one.
			seen := false
			for j := range pos {
				seen = seen || pos[j]
				pos[j] = seen
				any = any || seen
			}
		} else {
			for j := len(path); j >= 1; j-- {
				pos[j] = pos[j-1] && path[j-1] == c
				any = any || pos[j]
			}
			pos[0] = false
		}
		if !any {
			return false
		}
	}
	if anchored {
		return pos[len(path)]
	}
	for _, p := range pos {
		if p {
			return true
		}
	}
	return false
}

const upperHex = "0123456789ABCDEF"

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
