package robots

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseRobots checks the robots.txt reader (RFC 9309): Allowed
// answers for any path; a file with no disallow rule, an empty one
// included, allows everything (§2.2.2); /robots.txt is always allowed;
// and the agent's product token is matched without regard to case
// (§2.2.1).
func FuzzParseRobots(f *testing.F) {
	for _, s := range [][2]string{
		{"User-agent: *\nDisallow: /private\nAllow: /private/open\n", "/private/x"},
		{"User-agent: urlget\nDisallow: /\n\nUser-agent: *\nAllow: /\n", "/a"},
		{"\xef\xbb\xbfuser-AGENT: URLGET/2.0 # c\r\nDisallow: /*.gif$\r", "/a.gif"},
		{"Disallow: /before-group\n", "/before-group"},
		{"User-agent: *\nDisallow: /a%2fb\nDisallow: /%E4\n", "/a%2Fb"},
		{"User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a$\n", strings.Repeat("a", 64) + "b"},
		{"User-agent: *\nDisallow:\n", "/"},
		{"", ""},
		{"User-agent: *\nDisallow: /\n", "/robots.txt"},
	} {
		f.Add([]byte(s[0]), s[1])
	}
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		r := Parse(bytes.NewReader(data), "urlget/1.0")
		allowed := r.Allowed(path)
		if !bytes.Contains(bytes.ToLower(data), []byte("disallow")) && !allowed {
			t.Fatalf("%q, with no disallow rule, refuses %q", data, path)
		}
		if !r.Allowed("/robots.txt") {
			t.Fatalf("%q refuses /robots.txt", data)
		}
		if got := Parse(bytes.NewReader(data), "URLGET/9").Allowed(path); got != allowed {
			t.Fatalf("%q: %q allowed %v for urlget/1.0, %v for URLGET/9", data, path, allowed, got)
		}
	})
}

// FuzzRobotsMatch holds the pattern matcher to a regular expression: '*'
// any run of bytes, a final '$' the end of the path, every other byte
// itself, matched from the path's start (RFC 9309 §2.2.3).
func FuzzRobotsMatch(f *testing.F) {
	f.Add("/a*b$", "/axxb")
	f.Add("/*.php$", "/index.php?x")
	f.Add("*", "")
	f.Add("$", "")
	f.Add("/a$b", "/a$b")
	f.Add("**$$", "x$")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		// regexp reads UTF-8; the matcher's bytes are the same on valid
		// text, and real patterns and paths are %-encoded ASCII.
		if len(pattern) > 64 || len(path) > 256 || !utf8.ValidString(pattern) || !utf8.ValidString(path) {
			return
		}
		p, anchored := strings.CutSuffix(pattern, "$")
		parts := strings.Split(p, "*")
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		expr := "(?s)^" + strings.Join(parts, ".*")
		if anchored {
			expr += "$"
		}
		want := regexp.MustCompile(expr).MatchString(path)
		if got := robotsMatch(pattern, path); got != want {
			t.Fatalf("robotsMatch(%q, %q) = %v, want %v (%s)", pattern, path, got, want, expr)
		}
	})
}
