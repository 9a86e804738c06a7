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
		kind PageKind
		want string
	}{
		// http(s): segments decoded, index.html for a directory, the query
		// kept on the last name with "/" encoded.
		{"http://example.org/a/b/c.txt", PageFile, "example.org/a/b/c.txt"},
		{"http://example.org", PageFile, "example.org/index.html"},
		{"http://example.org/", PageFile, "example.org/index.html"},
		{"http://example.org/a/", PageFile, "example.org/a/index.html"},
		{"http://example.org/a/", PageHTMLIndex, "example.org/a/index.html"},
		{"http://example.org/a", PageHTMLIndex, "example.org/a/index.html"},
		{"http://example.org/page?x=1", PageFile, "example.org/page?x=1"},
		{"http://example.org/dir/?x=1", PageFile, "example.org/dir/index.html?x=1"},
		{"http://example.org/dir?x=1", PageHTMLIndex, "example.org/dir/index.html?x=1"},
		{"http://example.org/p?a=/b/c", PageFile, "example.org/p?a=%2Fb%2Fc"},
		{"http://example.org/p?", PageFile, "example.org/p?"},
		{"http://example.org/a%20b/%C3%A9t%C3%A9%3B%23", PageFile, "example.org/a b/été;#"},
		{"http://example.org/x#frag", PageFile, "example.org/x"},
		// Segments that cannot be names stay %-encoded; dot segments are
		// removed as the normal form has them; empty ones are left out.
		{"http://example.org/a%2Fb/c", PageFile, "example.org/a%2Fb/c"},
		{"http://example.org/%00/%ff/%0A", PageFile, "example.org/%00/%FF/%0A"},
		{"http://example.org/a/../../../etc/passwd", PageFile, "example.org/etc/passwd"},
		{"http://example.org/a//b", PageFile, "example.org/a/b"},
		// Ports: only when not the scheme's default.
		{"http://example.org:80/x", PageFile, "example.org/x"},
		{"http://example.org:080/x", PageFile, "example.org/x"},
		{"http://example.org:/x", PageFile, "example.org/x"},
		{"https://example.org:443/x", PageFile, "example.org/x"},
		{"https://example.org:80/x", PageFile, "example.org:80/x"},
		{"http://EXAMPLE.org:8080/x", PageFile, "example.org:8080/x"},
		// Hosts: Unicode however written; IPv6 in brackets.
		{"http://xn--bcher-kva.example/", PageFile, "bücher.example/index.html"},
		{"http://B%C3%BCcher.example/", PageFile, "bücher.example/index.html"},
		{"http://[::1]:8080/a", PageFile, "[::1]:8080/a"},
		{"http://[2001:DB8::1]/a", PageFile, "[2001:db8::1]/a"},
		{"http://127.0.0.1:8000/a", PageFile, "127.0.0.1:8000/a"},

		// ftp(s): RFC 1738 §3.2.2, ";type=" left out; a directory is itself.
		{"ftp://h/pub/file.txt", PageFile, "h/pub/file.txt"},
		{"ftp://h/pub/file.txt;type=i", PageFile, "h/pub/file.txt"},
		{"ftp://h/pub/", PageFile, "h/pub"},
		{"ftp://h/pub;type=d", PageFile, "h/pub"},
		{"ftp://h/", PageFile, "h"},
		{"ftp://h/pub/", PageHTMLIndex, "h/pub/index.html"},
		{"ftp://h/a%3Fb?c", PageFile, "h/a?b?c"},
		{"ftp://h/%2Fetc/passwd", PageFile, "h/%2Fetc/passwd"},
		{"ftp://h/../x", PageFile, "h/%2E%2E/x"},
		{"ftp://h/./x", PageFile, "h/%2E/x"},
		{"ftp://h/%2E%2E/x", PageFile, "h/%2E%2E/x"},
		{"ftps://h:990/x", PageFile, "h/x"},
		{"ftps://h:21/x", PageFile, "h:21/x"},

		// gopher(s): the selector, type left out.
		{"gopher://h/0/docs/a.txt", PageFile, "h/docs/a.txt"},
		{"gopher://h/1/docs", PageGopherMenu, "h/docs/gophermap"},
		{"gopher://h/1/docs/", PageGopherMenu, "h/docs/gophermap"},
		{"gopher://h/1/docs/", PageFile, "h/docs/gophermap"},
		{"gopher://h/", PageGopherMenu, "h/gophermap"},
		{"gopher://h", PageGopherMenu, "h/gophermap"},
		{"gopher://h/1", PageGopherMenu, "h/gophermap"},
		{"gopher://h:7070/0/x", PageFile, "h:7070/x"},
		{"gopher://h/0plain%20name", PageFile, "h/plain name"},
		{"gopher://h/0not/a/path", PageFile, "h/not%2Fa%2Fpath"},
		{"gopher://h/0..", PageFile, "h/%2E%2E"},
		{"gopher://h/0/a/%2E%2E/b", PageFile, "h/a/%2E%2E/b"},
		{"gopher://h/0/a%09b", PageFile, "h/a?b"},
		{"gopher://h/7/find%09two%20words", PageGopherMenu, "h/find/gophermap?two%20words"},
		{"gopher://h/0/bell%07", PageFile, "h/bell%07"},

		// news, nntp.
		{"news:comp.lang.go", PageFile, "news/comp.lang.go"},
		{"snews:comp.lang.go", PageFile, "news/comp.lang.go"},
		{"news:*", PageFile, "news"},
		{"news:abc.123@example.com", PageFile, "news/abc.123@example.com"},
		{"news:%3Cabc.123@example.com%3E", PageFile, "news/abc.123@example.com"},
		{"news:a%2Fb@example.com", PageFile, "news/a%2Fb@example.com"},
		{"nntp://h/comp.lang.go/12", PageFile, "h/comp.lang.go/12"},
		{"nntp://h/comp.lang.go", PageFile, "h/comp.lang.go"},
		{"nntp://h/comp.lang.go/1-100", PageFile, "h/comp.lang.go"},
		{"nntps://h:563/g/1", PageFile, "h/g/1"},
		{"nntps://h:119/g/1", PageFile, "h:119/g/1"},

		// file: below localhost, or the host the URL names.
		{"file:///tmp/a.txt", PageFile, "localhost/tmp/a.txt"},
		{"file://localhost/tmp/a.txt", PageFile, "localhost/tmp/a.txt"},
		{"file:/tmp/a.txt", PageFile, "localhost/tmp/a.txt"},
		{"file:///tmp/", PageFile, "localhost/tmp"},
		{"file:///tmp/a%2Fb/c?d", PageFile, "localhost/tmp/a%2Fb/c?d"},
		{"file://server/share/x", PageFile, "server/share/x"},

		// wais.
		{"wais://h/db", PageFile, "h/db"},
		{"wais://h/db?some+words", PageFile, "h/db"},
		{"wais://h/db/TEXT/0%20123%20/a/b", PageFile, "h/db/TEXT/0%20123%20%2Fa%2Fb"},
		{"wais://h/db/TEXT/x%00y", PageFile, "h/db/TEXT/x%00y"},
		{"wais://h:210/db/TEXT/x", PageFile, "h/db/TEXT/x"},
	}
	var l Layout
	for _, tc := range tests {
		got, err := l.Path(uri.MustParse(tc.url), tc.kind)
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
		kind PageKind
		want string
	}{
		{Layout{NoHostDirs: true}, "http://h/a/b.txt", PageFile, "a/b.txt"},
		{Layout{NoHostDirs: true}, "http://h/", PageFile, "index.html"},
		{Layout{NoHostDirs: true}, "ftp://h/", PageFile, "."},
		{Layout{CutDirs: 1}, "http://h/a/b/c.txt", PageFile, "h/b/c.txt"},
		{Layout{CutDirs: 2}, "http://h/a/b/c.txt", PageFile, "h/c.txt"},
		{Layout{CutDirs: 9}, "http://h/a/b/c.txt", PageFile, "h/c.txt"},
		{Layout{CutDirs: 1}, "http://h/c.txt", PageFile, "h/c.txt"},
		{Layout{CutDirs: 1}, "http://h/a/b", PageHTMLIndex, "h/b/index.html"},
		{Layout{CutDirs: 1}, "gopher://h/1/a/b", PageGopherMenu, "h/b/gophermap"},
		{Layout{NoHostDirs: true, CutDirs: 1}, "ftp://h/pub/x/y", PageFile, "x/y"},
		{Layout{SchemeDirs: true}, "https://h/x", PageFile, "http/h/x"},
		{Layout{SchemeDirs: true}, "ftps://h/x", PageFile, "ftp/h/x"},
		{Layout{SchemeDirs: true}, "gophers://h/0/x", PageFile, "gopher/h/x"},
		{Layout{SchemeDirs: true}, "snews:a@b", PageFile, "news/news/a@b"},
		{Layout{SchemeDirs: true}, "nntps://h/g/1", PageFile, "news/h/g/1"},
		{Layout{SchemeDirs: true}, "file:///x", PageFile, "file/localhost/x"},
		{Layout{SchemeDirs: true}, "wais://h/db", PageFile, "wais/h/db"},
		{Layout{SchemeDirs: true, NoHostDirs: true}, "http://h/x", PageFile, "http/x"},
		{Layout{NewsHost: "news.example:1119"}, "news:comp.lang.go", PageFile, "news.example:1119/comp.lang.go"},
		{Layout{NewsHost: "../up"}, "news:g", PageFile, "..%2Fup/g"},
		{Layout{NewsHost: ".."}, "news:g", PageFile, "%2E%2E/g"},
	}
	for _, tc := range tests {
		got, err := tc.l.Path(uri.MustParse(tc.url), tc.kind)
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
		got, err := tc.l.Dir(uri.MustParse(tc.url))
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
		_, err = l.Path(u, PageFile)
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
	a, err := l.Path(uri.MustParse("http://h/"+q+"a?x"), PageFile)
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Path(uri.MustParse("http://h/"+q+"b?x"), PageFile)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Errorf("two long names became one: %q", a)
	}
	for _, p := range []string{a, b} {
		name := p[strings.LastIndexByte(p, '/')+1:]
		if len(name)+len(PartSuffix) > 255 || !utf8.ValidString(name) || !strings.HasPrefix(name, "éé") {
			t.Errorf("long name %q (%d bytes)", name, len(name))
		}
	}
	long := strings.Repeat("d", 300)
	p, err := l.Path(uri.MustParse("ftp://h/"+long+"/f"), PageFile)
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
		if got := Rel(tc.from, tc.to); got != tc.want {
			t.Errorf("Rel(%q, %q) = %q, want %q", tc.from, tc.to, got, tc.want)
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
		for kind := PageFile; kind <= PageGopherMenu; kind++ {
			for _, get := range []func() (string, error){
				func() (string, error) { return l.Path(u, kind) },
				func() (string, error) { return l.Dir(u) },
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
