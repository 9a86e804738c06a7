package links

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/urlget/urlget/uri"
)

func links(t *testing.T, doc string, base string) []string {
	t.Helper()
	var got []string
	err := FromHTML(strings.NewReader(doc), uri.MustParse(base), func(u uri.URL) {
		if !u.IsAbs() {
			t.Errorf("link %q is not absolute", u)
		}
		got = append(got, u.String())
	})
	if err != nil {
		t.Fatalf("FromHTML: %v", err)
	}
	return got
}

func testdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sameList(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func TestHTMLLinksNginxAutoindex(t *testing.T) {
	got := links(t, testdata(t, "autoindex-nginx.html"), "http://127.0.0.1:8080/dir/")
	sameList(t, got, []string{
		"http://127.0.0.1:8080/",
		"http://127.0.0.1:8080/dir/sub%20dir/",
		"http://127.0.0.1:8080/dir/50%25.txt",
		"http://127.0.0.1:8080/dir/%3Cangle%3E.txt",
		"http://127.0.0.1:8080/dir/a%20b.txt",
		"http://127.0.0.1:8080/dir/amp%26lt.txt",
		"http://127.0.0.1:8080/dir/caf%C3%A9.txt",
		"http://127.0.0.1:8080/dir/hash%23tag.txt",
		"http://127.0.0.1:8080/dir/quote%22d.txt",
		"http://127.0.0.1:8080/dir/semi%3Bcolon.txt",
		"http://127.0.0.1:8080/dir/what%3F.txt",
		"http://127.0.0.1:8080/dir/x%3Ay.txt",
	})
}

func TestHTMLLinksApacheAutoindex(t *testing.T) {
	got := links(t, testdata(t, "autoindex-apache.html"), "http://127.0.0.1:8080/dir/")
	// Apache's name links are relative to the directory's URL; its base
	// has no trailing '/' when the request had none, which it redirects.
	sameList(t, got, []string{
		"http://127.0.0.1:8080/icons/blank.gif",
		"http://127.0.0.1:8080/dir/?C=N;O=D",
		"http://127.0.0.1:8080/dir/?C=M;O=A",
		"http://127.0.0.1:8080/dir/?C=S;O=A",
		"http://127.0.0.1:8080/dir/?C=D;O=A",
		"http://127.0.0.1:8080/icons/back.gif",
		"http://127.0.0.1:8080/",
		"http://127.0.0.1:8080/icons/text.gif",
		"http://127.0.0.1:8080/dir/50%25.txt",
		"http://127.0.0.1:8080/icons/text.gif",
		"http://127.0.0.1:8080/dir/a%20b.txt",
		"http://127.0.0.1:8080/icons/text.gif",
		"http://127.0.0.1:8080/dir/amp&lt.txt",
		"http://127.0.0.1:8080/icons/text.gif",
		"http://127.0.0.1:8080/dir/caf%c3%a9.txt",
		"http://127.0.0.1:8080/icons/text.gif",
		"http://127.0.0.1:8080/dir/hash%23tag.txt",
		"http://127.0.0.1:8080/icons/text.gif",
		"http://127.0.0.1:8080/dir/semi;colon.txt",
		"http://127.0.0.1:8080/icons/folder.gif",
		"http://127.0.0.1:8080/dir/sub%20dir/",
		"http://127.0.0.1:8080/icons/text.gif",
		"http://127.0.0.1:8080/dir/what%3f.txt",
		"http://127.0.0.1:8080/icons/text.gif",
		"http://127.0.0.1:8080/dir/x:y.txt",
	})
}

func TestHTMLLinksHandwritten(t *testing.T) {
	got := links(t, testdata(t, "handwritten.html"), "http://www.example/docs/guide/index.html")
	sameList(t, got, []string{
		"http://www.example/docs/guide/style.css",
		"http://www.example/docs/guide/js/app.js",
		"http://www.example/docs/guide/a%20b.html",
		"http://www.example/docs/guide/caf%C3%A9.html",
		"http://www.example/docs/guide/100%25.html",
		"http://www.example/docs/guide/x%20y.html",
		"http://www.example/docs/guide/spaced.html",
		"http://www.example/docs/guide/linebreak.html",
		"http://www.example/docs/up.html",
		"http://www.example/top.html",
		"http://www.example/docs/guide/same/file.html",
		"http://www.example/docs/guide/search?q=a%20b&n=1",
		"http://www.example/docs/guide/index.html?sort=name",
		"http://www.example/docs/guide/page.html",
		"gopher://gopher.example:7070/1/menu",
		"ftp://ftp.example/pub/file.tar.gz",
		"http://other.example/net-path",
		"http://www.example/abs/path%7Bx%7D%7Cy%5E.html",
		"http://www.example/docs/guide/two",
		"http://www.example/docs/guide/img/pic.png",
		"http://www.example/docs/guide/img/pic-2x.png",
		"http://www.example/docs/guide/img/pic,3x.png",
		"http://www.example/docs/guide/img/pic-4x.png",
		"http://www.example/docs/guide/map-area.html",
		"http://www.example/docs/guide/frame.html",
		"http://www.example/docs/guide/frame2.html",
		"http://www.example/docs/guide/noscript.png",
		"http://www.example/docs/guide/pic.webp",
		"http://www.example/docs/guide/pic@2x.webp",
		"http://cdn.example/base/after-base.html",
		"http://cdn.example/base/after-second-base.html",
		"http://cdn.example/base/UPPER.HTML",
	})
}

func TestHTMLLinksRelativeBase(t *testing.T) {
	doc := `<base href="../other/"><a href="x.html">x</a><a href="//h2/y">y</a>`
	sameList(t, links(t, doc, "https://h/a/b/page.html"), []string{
		"https://h/a/other/x.html",
		"https://h2/y",
	})
	// A gopher page's base works the same way.
	sameList(t, links(t, `<a href="../0/file">f</a>`, "gopher://h/1/dir/"), []string{"gopher://h/1/0/file"})
}

func TestSrcsetURLs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a.png", []string{"a.png"}},
		{"a.png 1x, b.png 2x", []string{"a.png", "b.png"}},
		{" a.png,b.png ,, c.png 100w", []string{"a.png,b.png", "c.png"}},
		{"a.png 1x,b.png", []string{"a.png", "b.png"}},
		{"a.png (x, y) 1x, b.png", []string{"a.png", "b.png"}},
		{"a,b.png 1x", []string{"a,b.png"}},
		{"", nil},
		{" , ,", nil},
	} {
		var got []string
		for _, c := range srcsetURLs([]byte(tc.in)) {
			got = append(got, tc.in[c[0]:c[1]])
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("srcset %q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsHTML(t *testing.T) {
	for _, tc := range []struct {
		ct, name string
		want     bool
	}{
		{"text/html", "x.bin", true},
		{"Text/HTML; charset=utf-8", "", true},
		{"application/xhtml+xml", "", true},
		{"text/plain", "x.html", false},
		{"", "INDEX.HTM", true},
		{"", "page.xhtml", true},
		{"", "notes.txt", false},
		{" ; charset=utf-8", "a.html", true},
	} {
		if got := IsHTML(tc.ct, tc.name); got != tc.want {
			t.Errorf("IsHTML(%q, %q) = %v", tc.ct, tc.name, got)
		}
	}
}

// A page far larger than the token cap, with huge text, a huge script and
// a huge attribute, still yields the links around them.
func TestHTMLLinksHugeTokens(t *testing.T) {
	old := maxToken
	maxToken = 256
	t.Cleanup(func() { maxToken = old })
	big := strings.Repeat("x", 5000)
	doc := `<a href="1.html">` + big + `<a href="2.html"><script>` + big + `<a href="no.html"></script>` +
		`<a href="3.html"><img alt="` + big + `" src="lost.png"><a href="4.html">` + `<title>` + big + `</title><a href="5.html">`
	sameList(t, links(t, doc, "http://h/"), []string{
		"http://h/1.html", "http://h/2.html", "http://h/3.html", "http://h/4.html", "http://h/5.html",
	})
}

type errReader struct{ data []byte }

var errBroken = errors.New("connection reset")

func (e *errReader) Read(p []byte) (int, error) {
	if len(e.data) == 0 {
		return 0, errBroken
	}
	n := copy(p, e.data)
	e.data = e.data[n:]
	return n, nil
}

func TestHTMLLinksReadError(t *testing.T) {
	var got []string
	err := FromHTML(&errReader{[]byte(`<a href="x">`)}, uri.MustParse("http://h/"), func(u uri.URL) { got = append(got, u.String()) })
	if !errors.Is(err, errBroken) {
		t.Errorf("error %v, want %v", err, errBroken)
	}
	sameList(t, got, []string{"http://h/x"})
}

func FuzzHTMLLinks(f *testing.F) {
	for _, name := range []string{"autoindex-nginx.html", "autoindex-apache.html", "handwritten.html"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<a href="http://[::1]:80/a b#c#d">`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		base := uri.MustParse("http://fuzz.example/d/p.html")
		err := FromHTML(bytes.NewReader(doc), base, func(u uri.URL) {
			if _, err := uri.Parse(u.String()); err != nil {
				t.Errorf("link %q does not parse: %v", u, err)
			}
			if _, ok := u.Fragment(); ok {
				t.Errorf("link %q has a fragment", u)
			}
		})
		if err != nil {
			t.Errorf("FromHTML: %v", err)
		}
	})
}
