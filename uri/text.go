package uri

import (
	"strings"
	"unicode/utf8"
)

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// FromText returns the URL in text a person typed or pasted (RFC 3986
// appendix C, appendix E of draft-fielding-uri-rfc2396bis-01, the RFC 1738
// appendix): it strips white space around it, one "<URL:…>" or "<…>"
// wrapper, and the line breaks (with the spaces and tabs next to them) that
// broke a long URL across lines. Any other white space inside stays, for
// Parse to reject. It also maps an IRI to a URI (RFC 3987 §3.1): each byte of
// a non-ASCII character is %-encoded, in the host too (RFC 3986 §3.2.2: a
// reg-name's UTF-8 %-encoded), where URL.ASCII later turns the name into its
// IDNA A-labels for the wire. Invalid UTF-8 is an error.
func FromText(s string) (string, error) {
	start, end := 0, len(s)
	trim := func() {
		for start < end && isSpace(s[start]) {
			start++
		}
		for end > start && isSpace(s[end-1]) {
			end--
		}
	}
	trim()
	if end-start >= 2 && s[start] == '<' && s[end-1] == '>' {
		start++
		end--
		trim()
		if end-start >= 4 && strings.EqualFold(s[start:start+4], "URL:") {
			start += 4
			trim()
		}
	}
	if start == end {
		return "", newError(s, start, "empty URL")
	}
	body := s[start:end]
	clean := true
	for i := 0; i < len(body); i++ {
		if c := body[i]; c >= 0x80 || c == '\r' || c == '\n' {
			clean = false
			break
		}
	}
	if clean {
		return body, nil
	}
	for i := 0; i < len(body); {
		r, n := utf8.DecodeRuneInString(body[i:])
		if r == utf8.RuneError && n == 1 {
			return "", newError(s, start+i, "invalid UTF-8")
		}
		i += n
	}
	b := make([]byte, 0, len(body)+16)
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\r' || c == '\n':
			for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
				b = b[:len(b)-1]
			}
			for i+1 < len(body) && isSpace(body[i+1]) {
				i++
			}
		case c >= 0x80:
			b = append(b, '%', upperhex[c>>4], upperhex[c&15])
		default:
			b = append(b, c)
		}
	}
	return string(b), nil
}

// RedactText returns text that holds a URL as a person typed or pasted
// it, parsed or not, with the password of its authority replaced by
// "****", as URL.Redacted does for a parsed URL: white space around it, a
// "<URL:…>" wrapper, line breaks or blanks inside, a host or port that does
// not parse, and any further "scheme://" in the text all keep the password
// out of what is shown. Text that holds no password is returned as it is.
func RedactText(s string) string {
	if u, err := Parse(s); err == nil {
		return u.Redacted()
	}
	if t, err := FromText(s); err == nil {
		if u, err := Parse(t); err == nil {
			if pw, ok := u.Password(); !ok || pw == "****" {
				// No password, or one masked already.
				return s
			}
			if strings.ContainsAny(s, "\r\n") {
				// Wrapped over lines, its password perhaps split: the
				// URL as it is read, masked.
				return u.Redacted()
			}
		}
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			break
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		// RFC 3986 §3.2: the authority ends at the first '/', '?' or
		// '#', and §3.2.1: the userinfo at its last '@'. Text that is no
		// URL may hold anything in its userinfo, white space and '>'
		// included, and is masked on the safe side: up to the last '@'
		// before the authority's end, or, where a raw '/' was typed in
		// the password, the last '@' after it and before any '?' or
		// '#', when a ':' comes before it.
		end := strings.IndexAny(s, "/?#")
		if end < 0 {
			end = len(s)
		}
		at := strings.LastIndexByte(s[:end], '@')
		if at < 0 && end < len(s) && s[end] == '/' {
			rest := s[end:]
			if k := strings.IndexAny(rest, "?#"); k >= 0 {
				rest = rest[:k]
			}
			if j := strings.LastIndexByte(rest, '@'); j >= 0 && strings.IndexByte(s[:end+j], ':') >= 0 {
				at = end + j
			}
		}
		if at < 0 {
			continue
		}
		colon := strings.IndexByte(s[:at], ':')
		if colon < 0 {
			b.WriteString(s[:at])
		} else {
			b.WriteString(s[:colon+1])
			b.WriteString("****")
		}
		s = s[at:]
	}
	b.WriteString(s)
	return b.String()
}
