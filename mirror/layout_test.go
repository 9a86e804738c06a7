package mirror

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

func TestLayoutPath(t *testing.T) {
	tests := []struct {
		url  string
		kind pageType
		want string
	}{
		// http(s): segments decoded, index.html for a directory, the query
		// kept on the last name with "/" encoded.
		{"http://example.org/a/b/c.txt", pageFile, "example.org/a/b/c.txt"},
		{"http://example.org", pageFile, "example.org/index.html"},
		{"http://example.org/", pageFile, "example.org/index.html"},
		{"http://example.org/a/", pageFile, "example.org/a/index.html"},
		{"http://example.org/a/", pageHTMLIndex, "example.org/a/index.html"},
		{"http://example.org/a", pageHTMLIndex, "example.org/a/index.html"},
		{"http://example.org/page?x=1", pageFile, "example.org/page?x=1"},
		{"http://example.org/dir/?x=1", pageFile, "example.org/dir/index.html?x=1"},
		{"http://example.org/dir?x=1", pageHTMLIndex, "example.org/dir/index.html?x=1"},
		{"http://example.org/p?a=/b/c", pageFile, "example.org/p?a=%2Fb%2Fc"},
		{"http://example.org/p?", pageFile, "example.org/p?"},
		{"http://example.org/a%20b/%C3%A9t%C3%A9%3B%23", pageFile, "example.org/a b/été;#"},
		{"http://example.org/x#frag", pageFile, "example.org/x"},
		// Segments that cannot be names stay %-encoded; dot segments are
		// removed as the normal form has them; empty ones are left out.
		{"http://example.org/a%2Fb/c", pageFile, "example.org/a%2Fb/c"},
		{"http://example.org/%00/%ff/%0A", pageFile, "example.org/%00/%FF/%0A"},
		{"http://example.org/a/../../../etc/passwd", pageFile, "example.org/etc/passwd"},
		{"http://example.org/a//b", pageFile, "example.org/a/b"},
		// Ports: only when not the scheme's default.
		{"http://example.org:80/x", pageFile, "example.org/x"},
		{"http://example.org:080/x", pageFile, "example.org/x"},
		{"http://example.org:/x", pageFile, "example.org/x"},
		{"https://example.org:443/x", pageFile, "example.org/x"},
		{"https://example.org:80/x", pageFile, "example.org:80/x"},
		{"http://EXAMPLE.org:8080/x", pageFile, "example.org:8080/x"},
		// Hosts: Unicode however written; IPv6 in brackets.
		{"http://xn--bcher-kva.example/", pageFile, "bücher.example/index.html"},
		{"http://B%C3%BCcher.example/", pageFile, "bücher.example/index.html"},
		{"http://[::1]:8080/a", pageFile, "[::1]:8080/a"},
		{"http://[2001:DB8::1]/a", pageFile, "[2001:db8::1]/a"},
		{"http://127.0.0.1:8000/a", pageFile, "127.0.0.1:8000/a"},

		// ftp(s): RFC 1738 §3.2.2, ";type=" left out; a directory is itself.
		{"ftp://h/pub/file.txt", pageFile, "h/pub/file.txt"},
		{"ftp://h/pub/file.txt;type=i", pageFile, "h/pub/file.txt"},
		{"ftp://h/pub/", pageFile, "h/pub"},
		{"ftp://h/pub;type=d", pageFile, "h/pub"},
		{"ftp://h/", pageFile, "h"},
		{"ftp://h/pub/", pageHTMLIndex, "h/pub/index.html"},
		{"ftp://h/a%3Fb?c", pageFile, "h/a?b?c"},
		{"ftp://h/%2Fetc/passwd", pageFile, "h/%2Fetc/passwd"},
		{"ftp://h/../x", pageFile, "h/%2E%2E/x"},
		{"ftp://h/./x", pageFile, "h/%2E/x"},
		{"ftp://h/%2E%2E/x", pageFile, "h/%2E%2E/x"},
		{"ftps://h:990/x", pageFile, "h/x"},
		{"ftps://h:21/x", pageFile, "h:21/x"},

		// gopher(s): the selector, type left out.
		{"gopher://h/0/docs/a.txt", pageFile, "h/docs/a.txt"},
		{"gopher://h/1/docs", pageGopherMenu, "h/docs/gophermap"},
		{"gopher://h/1/docs/", pageGopherMenu, "h/docs/gophermap"},
		{"gopher://h/1/docs/", pageFile, "h/docs/gophermap"},
		{"gopher://h/", pageGopherMenu, "h/gophermap"},
		{"gopher://h", pageGopherMenu, "h/gophermap"},
		{"gopher://h/1", pageGopherMenu, "h/gophermap"},
		{"gopher://h:7070/0/x", pageFile, "h:7070/x"},
		{"gopher://h/0plain%20name", pageFile, "h/plain name"},
		{"gopher://h/0not/a/path", pageFile, "h/not%2Fa%2Fpath"},
		{"gopher://h/0..", pageFile, "h/%2E%2E"},
		{"gopher://h/0/a/%2E%2E/b", pageFile, "h/a/%2E%2E/b"},
		{"gopher://h/0/a%09b", pageFile, "h/a?b"},
		{"gopher://h/7/find%09two%20words", pageGopherMenu, "h/find/gophermap?two%20words"},
		{"gopher://h/0/bell%07", pageFile, "h/bell%07"},

		// news, nntp.
		{"news:comp.lang.go", pageFile, "news/comp.lang.go"},
		{"snews:comp.lang.go", pageFile, "news/comp.lang.go"},
		{"news:*", pageFile, "news"},
		{"news:abc.123@example.com", pageFile, "news/abc.123@example.com"},
		{"news:%3Cabc.123@example.com%3E", pageFile, "news/abc.123@example.com"},
		{"news:a%2Fb@example.com", pageFile, "news/a%2Fb@example.com"},
		{"nntp://h/comp.lang.go/12", pageFile, "h/comp.lang.go/12"},
		{"nntp://h/comp.lang.go", pageFile, "h/comp.lang.go"},
		{"nntp://h/comp.lang.go/1-100", pageFile, "h/comp.lang.go"},
		{"nntps://h:563/g/1", pageFile, "h/g/1"},
		{"nntps://h:119/g/1", pageFile, "h:119/g/1"},

		// file: below localhost, or the host the URL names.
		{"file:///tmp/a.txt", pageFile, "localhost/tmp/a.txt"},
		{"file://localhost/tmp/a.txt", pageFile, "localhost/tmp/a.txt"},
		{"file:/tmp/a.txt", pageFile, "localhost/tmp/a.txt"},
		{"file:///tmp/", pageFile, "localhost/tmp"},
		{"file:///tmp/a%2Fb/c?d", pageFile, "localhost/tmp/a%2Fb/c?d"},
		{"file://server/share/x", pageFile, "server/share/x"},

		// wais.
		{"wais://h/db", pageFile, "h/db"},
		{"wais://h/db?some+words", pageFile, "h/db"},
		{"wais://h/db/TEXT/0%20123%20/a/b", pageFile, "h/db/TEXT/0%20123%20%2Fa%2Fb"},
		{"wais://h/db/TEXT/x%00y", pageFile, "h/db/TEXT/x%00y"},
		{"wais://h:210/db/TEXT/x", pageFile, "h/db/TEXT/x"},
	}
	var l Layout
	for _, tc := range tests {
		got, err := l.path(uri.MustParse(tc.url), tc.kind)
		if err != nil {
			t.Errorf("Path(%s, %d): %v", tc.url, tc.kind, err)
			continue
		}
		if got != tc.want {
			t.Errorf("Path(%s, %d) = %q, want %q", tc.url, tc.kind, got, tc.want)
		}
		if !filepath.IsLocal(got) {
			t.Errorf("Path(%s) = %q is not local", tc.url, got)
		}
	}
}

func TestLayoutOptions(t *testing.T) {
	tests := []struct {
		l    Layout
		url  string
		kind pageType
		want string
	}{
		{Layout{NoHostDirs: true}, "http://h/a/b.txt", pageFile, "a/b.txt"},
		{Layout{NoHostDirs: true}, "http://h/", pageFile, "index.html"},
		{Layout{NoHostDirs: true}, "ftp://h/", pageFile, "."},
		{Layout{CutDirs: 1}, "http://h/a/b/c.txt", pageFile, "h/b/c.txt"},
		{Layout{CutDirs: 2}, "http://h/a/b/c.txt", pageFile, "h/c.txt"},
		{Layout{CutDirs: 9}, "http://h/a/b/c.txt", pageFile, "h/c.txt"},
		{Layout{CutDirs: 1}, "http://h/c.txt", pageFile, "h/c.txt"},
		{Layout{CutDirs: 1}, "http://h/a/b", pageHTMLIndex, "h/b/index.html"},
		{Layout{CutDirs: 1}, "gopher://h/1/a/b", pageGopherMenu, "h/b/gophermap"},
		{Layout{NoHostDirs: true, CutDirs: 1}, "ftp://h/pub/x/y", pageFile, "x/y"},
		{Layout{SchemeDirs: true}, "https://h/x", pageFile, "http/h/x"},
		{Layout{SchemeDirs: true}, "ftps://h/x", pageFile, "ftp/h/x"},
		{Layout{SchemeDirs: true}, "gophers://h/0/x", pageFile, "gopher/h/x"},
		{Layout{SchemeDirs: true}, "snews:a@b", pageFile, "news/news/a@b"},
		{Layout{SchemeDirs: true}, "nntps://h/g/1", pageFile, "news/h/g/1"},
		{Layout{SchemeDirs: true}, "file:///x", pageFile, "file/localhost/x"},
		{Layout{SchemeDirs: true}, "wais://h/db", pageFile, "wais/h/db"},
		{Layout{SchemeDirs: true, NoHostDirs: true}, "http://h/x", pageFile, "http/x"},
		{Layout{NewsHost: "news.example:1119"}, "news:comp.lang.go", pageFile, "news.example:1119/comp.lang.go"},
		{Layout{NewsHost: "../up"}, "news:g", pageFile, "..%2Fup/g"},
		{Layout{NewsHost: ".."}, "news:g", pageFile, "%2E%2E/g"},
	}
	for _, tc := range tests {
		got, err := tc.l.path(uri.MustParse(tc.url), tc.kind)
		if err != nil || got != tc.want {
			t.Errorf("%+v.Path(%s) = %q, %v; want %q", tc.l, tc.url, got, err, tc.want)
		}
	}
}

func TestLayoutDir(t *testing.T) {
	tests := []struct {
		l    Layout
		url  string
		want string
	}{
		{Layout{}, "ftp://h/pub/", "h/pub"},
		{Layout{}, "ftp://h/pub", "h/pub"},
		{Layout{}, "ftp://h/", "h"},
		{Layout{}, "http://h/a/b/?x=1", "h/a/b"},
		{Layout{}, "http://h/a/b", "h/a/b"},
		{Layout{}, "gopher://h/1/docs", "h/docs"},
		{Layout{}, "gopher://h/", "h"},
		{Layout{}, "news:comp.lang.go", "news/comp.lang.go"},
		{Layout{}, "nntp://h/g/1-10", "h/g"},
		{Layout{}, "file:///tmp/d/", "localhost/tmp/d"},
		{Layout{}, "wais://h/db?q", "h/db"},
		{Layout{NoHostDirs: true}, "ftp://h/", "."},
		{Layout{NoHostDirs: true, CutDirs: 3}, "ftp://h/a/b/", "."},
		{Layout{CutDirs: 1}, "ftp://h/a/b/", "h/b"},
	}
	for _, tc := range tests {
		got, err := tc.l.dir(uri.MustParse(tc.url))
		if err != nil || got != tc.want {
			t.Errorf("%+v.Dir(%s) = %q, %v; want %q", tc.l, tc.url, got, err, tc.want)
		}
	}
}

func TestLayoutRefused(t *testing.T) {
	var l Layout
	for _, s := range []string{
		"mailto:a@b",
		"telnet://h/",
		"http:relative",
		"ftp://h/a;type=x",
		"nntp://h/g/x-y",
		"wais://h/db/TEXT/",
	} {
		u, err := uri.Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		_, err = l.path(u, pageFile)
		if !errors.Is(err, schemes.ErrBadURL) {
			t.Errorf("Path(%s): %v, want a bad URL error", s, err)
		} else if !strings.Contains(err.Error(), s) {
			t.Errorf("Path(%s): %q does not name the URL", s, err)
		}
	}
}

func TestLayoutLongNames(t *testing.T) {
	var l Layout
	q := strings.Repeat("%C3%A9", 200) // 400 bytes decoded
	a, err := l.path(uri.MustParse("http://h/"+q+"a?x"), pageFile)
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.path(uri.MustParse("http://h/"+q+"b?x"), pageFile)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Errorf("two long names became one: %q", a)
	}
	for _, p := range []string{a, b} {
		name := p[strings.LastIndexByte(p, '/')+1:]
		if len(name)+len(partSuffix) > 255 || !utf8.ValidString(name) || !strings.HasPrefix(name, "éé") {
			t.Errorf("long name %q (%d bytes)", name, len(name))
		}
	}
	long := strings.Repeat("d", 300)
	p, err := l.path(uri.MustParse("ftp://h/"+long+"/f"), pageFile)
	if err != nil {
		t.Fatal(err)
	}
	if dir := strings.Split(p, "/")[1]; len(dir) > maxComponent || !strings.HasPrefix(dir, "ddd") {
		t.Errorf("long directory %q", dir)
	}
}

func TestRel(t *testing.T) {
	tests := []struct{ from, to, want string }{
		{"h/a/b.html", "h/a/c.png", "c.png"},
		{"h/a/b.html", "h/c/d.png", "../c/d.png"},
		{"h/index.html", "h/index.html", "index.html"},
		{"h/a/b/index.html", "h/x", "../../x"},
		{"h/a/index.html", "h/a", "."},
		{"h/a/index.html", ".", "../.."},
		{"index.html", "g/x", "g/x"},
		{"h/index.html", "k/y", "../k/y"},
		{"h/index.html", "h/a:b", "./a:b"},
		{"h/a/b.html", "[::1]:80/x", "../../[::1]:80/x"},
	}
	for _, tc := range tests {
		if got := relPath(tc.from, tc.to); got != tc.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}

// FuzzLayoutPath checks that no URL leads out of the output directory.
func FuzzLayoutPath(f *testing.F) {
	for _, s := range []string{
		"http://h/../../x", "http://h/%2E%2E/%2e%2E/x?/../..", "ftp://h/../%2E%2E/..;type=d",
		"gopher://h/0../../x", "gopher://h/1/../..", "news:..%2F..@x", "file:///../../etc",
		"wais://h/%2E%2E/x/..%2F..", "http://[::1]/%00", "nntp://h/a.b/1-2",
	} {
		f.Add(s, 0, true, false)
	}
	f.Fuzz(func(t *testing.T, s string, cut int, noHost, schemeDirs bool) {
		u, err := uri.Parse(s)
		if err != nil {
			return
		}
		l := Layout{NoHostDirs: noHost, CutDirs: cut % 4, SchemeDirs: schemeDirs, NewsHost: "../n"}
		for kind := pageFile; kind <= pageGopherMenu; kind++ {
			for _, get := range []func() (string, error){
				func() (string, error) { return l.path(u, kind) },
				func() (string, error) { return l.dir(u) },
			} {
				p, err := get()
				if err != nil {
					continue
				}
				if !filepath.IsLocal(p) {
					t.Fatalf("%s: %q is not local", s, p)
				}
				for _, c := range strings.Split(p, "/") {
					if c == ".." || c == "" || strings.ContainsFunc(c, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
						t.Fatalf("%s: %q has the component %q", s, p, c)
					}
				}
			}
		}
	})
}
