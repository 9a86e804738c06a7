package uri

import (
	"strings"
	"testing"
)

// FuzzMaskPassword checks the masking of the text an *Error quotes: a URL
// that parses with a password is masked as Redacted masks it, a
// "//user:password@host" text loses its password whatever follows, and
// masking twice changes nothing more.
func FuzzMaskPassword(f *testing.F) {
	f.Add("ftp://u:secret@h/", "u", "secret", "h", "/p")
	f.Add("//a:b:c@h/x@y", "", "p@ss", "h", "?q@r")
	f.Add("http://u:p w@h/", "u", "p w", "[::1]:21", "#f")
	f.Add("http://u:pw@h\x00/", "", "pw", "h\x7f", "")
	f.Fuzz(func(t *testing.T, raw, user, pass, host, tail string) {
		m := maskPassword(raw)
		if maskPassword(m) != m {
			t.Fatalf("maskPassword(%q) = %q, then %q", raw, m, maskPassword(m))
		}
		if u, err := ParseReference(raw); err == nil {
			if _, ok := u.RawPassword(); ok && m != u.Redacted() {
				t.Fatalf("maskPassword(%q) = %q, Redacted %q", raw, m, u.Redacted())
			}
		}
		if strings.ContainsAny(user, ":@/?#") || strings.ContainsAny(pass, "@/?#") || strings.ContainsAny(host, "@/?#") {
			return
		}
		if tail != "" && !strings.ContainsAny(tail[:1], "/?#") {
			return
		}
		s := "http://" + user + ":" + pass + "@" + host + tail
		if want, got := "http://"+user+":****@"+host+tail, maskPassword(s); got != want {
			t.Fatalf("maskPassword(%q) = %q, want %q", s, got, want)
		}
	})
}
