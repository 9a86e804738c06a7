package robots

import (
	"strings"
	"testing"

	"github.com/urlget/urlget/uri"
)

func TestRobotsGroups(t *testing.T) {
	const txt = "\xef\xbb\xbf# comment line\n" +
		"Disallow: /before-any-group\n" +
		"User-agent: *\n" +
		"Disallow: /private\n" +
		"\n" +
		"User-agent: other\r\n" +
		"user-AGENT: URLGET/2.0   # grouped with other\r\n" +
		"Disallow: /mine\r\n" +
		"Sitemap: http://h/sitemap.xml\r" +
		"Allow: /mine/open\r" +
		"unknown line without colon\n" +
		"Crawl-delay: 10\n" +
		"User-agent: googlebot\n" +
		"Disallow: /\n" +
		"User-agent: urlget\n" +
		"Disallow: /also-mine   \n" +
		"Disallow:\n"
	for _, tc := range []struct {
		agent, path string
		want        bool
	}{
		{"urlget", "/mine", false},
		{"urlget/1.0", "/mine/x", false},
		{"UrlGet", "/mine/open/x", true},
		{"urlget", "/also-mine.html", false},
		{"urlget", "/private", true}, // its own groups replace "*"
		{"urlget", "/before-any-group", true},
		{"urlget", "/", true},
		{"urlget", "", true},
		{"wget", "/private/x", false},
		{"wget", "/mine", true},
		{"googlebot", "/anything", false},
		{"googlebot", "/robots.txt", true},
		{"other", "/mine", false},
	} {
		r := Parse(strings.NewReader(txt), tc.agent)
		if got := r.Allowed(tc.path); got != tc.want {
			t.Errorf("agent %q, path %q: allowed %v, want %v", tc.agent, tc.path, got, tc.want)
		}
	}
}

func TestRobotsRules(t *testing.T) {
	for _, tc := range []struct {
		rules, path string
		want        bool
	}{
		// RFC 9309 §2.2.2: longest match, allow wins ties.
		{"Allow: /p\nDisallow: /", "/page", true},
		{"Allow: /folder\nDisallow: /folder", "/folder/page", true},
		{"Allow: /page\nDisallow: /*.html", "/page.html", false},
		{"Allow: /$\nDisallow: /", "/", true},
		{"Allow: /$\nDisallow: /", "/page.html", false},
		{"Disallow: /*.gif$", "/a/b.gif", false},
		{"Disallow: /*.gif$", "/a/b.gif?x", true},
		{"Disallow: /a*b*c", "/axxbyyc/z", false},
		{"Disallow: /a*b*c", "/axxbyy", true},
		{"Disallow: /*", "/anything", false},
		{"Disallow: *", "gopher-selector", false},
		{"Disallow: /fish", "/Fish.asp", true}, // paths are case-sensitive
		{"Disallow: /fish/", "/fish", true},
		{"Disallow: /foo/bar?baz=quz", "/foo/bar?baz=quz&x", false},
		// §2.2.2's %-encoding table.
		{"Disallow: /foo/bar/ツ", "/foo/bar/%E3%83%84", false},
		{"Disallow: /foo/bar/%E3%83%84", "/foo/bar/ツ", false},
		{"Disallow: /foo/bar/%e3%83%84", "/foo/bar/%E3%83%84", false},
		{"Disallow: /foo/bar/%62%61%7A", "/foo/bar/baz", true},
		{"Disallow: /foo/bar/%62%61%7A", "/foo/bar/%62%61%7A", false},
		{"Disallow: /a b", "/a%20b", false},
		{"Disallow: /robots.txt", "/robots.txt", true},
		{"Disallow: /x$y", "/x$y", false},
		{"", "/x", true},
	} {
		r := Parse(strings.NewReader("User-agent: *\n"+tc.rules+"\n"), "urlget")
		if got := r.Allowed(tc.path); got != tc.want {
			t.Errorf("rules %q, path %q: allowed %v, want %v", tc.rules, tc.path, got, tc.want)
		}
	}
}

func TestRobotsLimit(t *testing.T) {
	// Rules past the first 500 KiB are not read (RFC 9309 §2.5).
	txt := "User-agent: *\nDisallow: /early\n" + strings.Repeat("# padding\n", 60<<10) + "Disallow: /late\n"
	r := Parse(strings.NewReader(txt), "urlget")
	if r.Allowed("/early") || !r.Allowed("/late") {
		t.Errorf("early allowed %v, late allowed %v", r.Allowed("/early"), r.Allowed("/late"))
	}
}

func TestFromStatus(t *testing.T) {
	var nilRobots *Rules
	if !nilRobots.Allowed("/x") {
		t.Error("a nil Rules disallows")
	}
	for status, want := range map[int]bool{0: false, 301: true, 404: true, 403: true, 429: false, 500: false, 503: false} {
		if got := FromStatus(status).Allowed("/x"); got != want {
			t.Errorf("status %d: allowed %v, want %v", status, got, want)
		}
	}
	if !FromStatus(503).Allowed("/robots.txt") {
		t.Error("/robots.txt itself is disallowed")
	}
}

func TestRobotsMatchIsLinear(t *testing.T) {
	// A pattern of many '*' against a long path that it does not match
	// ends in len(pattern)×len(path) steps, not by backtracking.
	pattern := "/" + strings.Repeat("*a", 200) + "b"
	path := "/" + strings.Repeat("a", 5000)
	if robotsMatch(pattern, path) {
		t.Error("matched")
	}
	if !robotsMatch(pattern, path+"b") {
		t.Error("did not match")
	}
}

func TestLocate(t *testing.T) {
	for _, tc := range []struct {
		url, file, path string
		ok              bool
	}{
		{"http://h/", "http://h/robots.txt", "/", true},
		{"http://h", "http://h/robots.txt", "/", true},
		{"https://u:p@H:8443/a%20b/c?q=1#f", "https://H:8443/robots.txt", "/a%20b/c?q=1", true},
		{"http://[::1]:80/x", "http://[::1]:80/robots.txt", "/x", true},
		{"gopher://h/1/dir/", "gopher://h/0/robots.txt", "/dir/", true},
		{"gopher://h:7070/0sel", "gopher://h:7070/0/robots.txt", "/sel", true},
		{"gopher://h/", "gopher://h/0/robots.txt", "/", true},
		{"ftp://h/pub/", "", "", false},
		{"file:///etc/", "", "", false},
	} {
		file, path, ok := Locate(uri.MustParse(tc.url))
		if ok != tc.ok || ok && (file.String() != tc.file || path != tc.path) {
			t.Errorf("Locate(%s) = %s, %q, %v; want %s, %q, %v", tc.url, file, path, ok, tc.file, tc.path, tc.ok)
		}
	}
}
