package links

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/urlget/urlget/uri"
)

// localMap maps the URLs of a test's local files to their paths relative
// to the converted document's directory, comparing URLs in normal form as
// a crawl's visited set does.
func localMap(m map[string]string) func(uri.URL) (string, bool) {
	norm := map[string]string{}
	for k, v := range m {
		norm[uri.MustParse(k).Normalize().String()] = v
	}
	return func(u uri.URL) (string, bool) {
		rel, ok := norm[u.Normalize().String()]
		return rel, ok
	}
}

func convert(t *testing.T, doc, base string, local map[string]string) string {
	t.Helper()
	var out bytes.Buffer
	if err := ConvertHTML(strings.NewReader(doc), &out, uri.MustParse(base), localMap(local)); err != nil {
		t.Fatalf("ConvertHTML: %v", err)
	}
	return out.String()
}

func TestConvertHTML(t *testing.T) {
	const base = "http://h/dir/page.html"
	local := map[string]string{
		"http://h/dir/a.html":        "a.html",
		"http://h/dir/sub/":          "sub/index.html",
		"http://h/other/x%20y.html":  "../other/x y.html",
		"http://h/dir/50%25.txt":     "50%.txt",
		"http://h/dir/q%3F.txt":      "q?.txt",
		"http://h/dir/h%23.txt":      "h#.txt",
		"http://h/dir/x:y.txt":       "x:y.txt",
		"http://h/dir/caf%C3%A9.txt": "café.txt",
		"http://h/dir/img/p.png":     "img/p.png",
		"http://h/dir/img/p2.png":    "img/p2.png",
		"http://h/dir/amp?a=1&b=2":   "amp@a=1&b=2",
		"http://cdn/lib.js":          "../../cdn/lib.js",
	}
	for _, tc := range []struct{ name, in, want string }{
		{"local", `<a href="a.html">A</a>`, `<a href="a.html">A</a>`},
		{"directory", `<a href=sub/>S</a>`, `<a href=sub/index.html>S</a>`},
		{"fragment kept", `<a href='a.html#top'>`, `<a href='a.html#top'>`},
		{"other dir, space", `<a href="../other/x%20y.html">`, `<a href="../other/x%20y.html">`},
		{"percent", `<a href="50%25.txt">`, `<a href="50%25.txt">`},
		{"question mark", `<a href="q%3F.txt">`, `<a href="q%3F.txt">`},
		{"hash", `<a href="h%23.txt">`, `<a href="h%23.txt">`},
		{"colon in first segment", `<a href="./x:y.txt">`, `<a href="x%3Ay.txt">`},
		{"non-ASCII written raw", `<a href="café.txt">`, `<a href="caf%C3%A9.txt">`},
		{"ampersand", `<a href="amp?a=1&amp;b=2">`, `<a href="amp@a=1&amp;b=2">`},
		{"absolute made local", `<script src="http://cdn/lib.js"></script>`, `<script src="../../cdn/lib.js"></script>`},
		{"relative made absolute", `<a href="missing.html">`, `<a href="http://h/dir/missing.html">`},
		{"relative made absolute, fragment kept", `<a href="../m.html#s">`, `<a href="http://h/m.html#s">`},
		{"unquoted made absolute", `<a href=m.html title=x>`, `<a href=http://h/dir/m.html title=x>`},
		{"absolute left", `<a href="HTTP://elsewhere/x y">`, `<a href="HTTP://elsewhere/x y">`},
		{"gopher left", `<a href="gopher://g/1/">`, `<a href="gopher://g/1/">`},
		{"fragment only left", `<a href="#x">`, `<a href="#x">`},
		{"javascript left", `<a href="javascript:go('a.html')">`, `<a href="javascript:go('a.html')">`},
		{"other attributes byte for byte", "<A  Title='t&amp;t'\n HREF = \"a.html\"  class=c>", "<A  Title='t&amp;t'\n HREF = \"a.html\"  class=c>"},
		{"quote style kept", `<a title="x" href='missing.html'>`, `<a title="x" href='http://h/dir/missing.html'>`},
		{"duplicate attribute: the first counts", `<a href="m1" href="m2">`, `<a href="http://h/dir/m1" href="m2">`},
		{"self-closing", `<img src="img/p.png"/>`, `<img src="img/p.png"/>`},
		{"unquoted self-closing: the '/' is the value's", `<img src=img/p.png/>`, `<img src=http://h/dir/img/p.png/>`},
		{"srcset", `<img srcset="img/p.png 1x, img/p2.png 2x, far.png 3x">`, `<img srcset="img/p.png 1x, img/p2.png 2x, http://h/dir/far.png 3x">`},
		{"base removed", `<base href="/dir/" target=_top><a href="a.html">`, `<base target=_top><a href="a.html">`},
		{"base moves relative links", `<base href="http://h/elsewhere/"><a href="m.html">`, `<base><a href="http://h/elsewhere/m.html">`},
		{"text, comments, scripts untouched", `<!-- <a href="m"> --><script>x='<a href="m">'</script><p>a&amp;b`, `<!-- <a href="m"> --><script>x='<a href="m">'</script><p>a&amp;b`},
		{"not a link attribute", `<div href="m.html"><a data-href="m.html">`, `<div href="m.html"><a data-href="m.html">`},
	} {
		if got := convert(t, tc.in, base, local); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestConvertHTMLAutoindex(t *testing.T) {
	in := testdata(t, "autoindex-nginx.html")
	local := map[string]string{}
	for _, name := range []string{"sub dir/index.html", "50%.txt", "<angle>.txt", "a b.txt", "amp&lt.txt", "café.txt", "hash#tag.txt", "quote\"d.txt", "semi;colon.txt", "what?.txt", "x:y.txt"} {
		u := "http://127.0.0.1:8080/dir/" + uri.EscapePath(strings.TrimSuffix(name, "index.html"))
		local[u] = name
	}
	local["http://127.0.0.1:8080/dir/%3Cangle%3E.txt"] = "<angle>.txt"
	local["http://127.0.0.1:8080/dir/amp%26lt.txt"] = "amp&lt.txt"
	local["http://127.0.0.1:8080/dir/quote%22d.txt"] = "quote\"d.txt"
	local["http://127.0.0.1:8080/dir/semi%3Bcolon.txt"] = "semi;colon.txt"
	local["http://127.0.0.1:8080/dir/x%3Ay.txt"] = "x:y.txt"
	got := convert(t, in, "http://127.0.0.1:8080/dir/", local)
	want := strings.NewReplacer(
		`"../"`, `"http://127.0.0.1:8080/"`,
		`"sub%20dir/"`, `"sub%20dir/index.html"`,
		// EscapePath leaves '&' alone, and the attribute holds it as &amp;.
		`"amp%26lt.txt"`, `"amp&amp;lt.txt"`,
	).Replace(in)
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestRelativeRef(t *testing.T) {
	for in, want := range map[string]string{
		"a b/c d.html":  "a%20b/c%20d.html",
		"x:y/z:w":       "x%3Ay/z:w",
		"../a?b#c%d":    "../a%3Fb%23c%25d",
		"semi;colon":    "semi%3Bcolon",
		"café":          "caf%C3%A9",
		"dir/index.htm": "dir/index.htm",
	} {
		if got := relativeRef(in); got != want {
			t.Errorf("relativeRef(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScanAttrs(t *testing.T) {
	for _, tag := range []string{
		`<a href="x" title='y' z=w>`,
		`<a href = "x"title=y>`,
		`<a / href=x />`,
		`<a =x b c = d e>`,
		"<a\thref\n=\n'x'\f>",
		`<a href=x href=y HREF=z>`,
		`<a b=">" c>`,
		`<img src=a/>`,
	} {
		z := html.NewTokenizer(strings.NewReader(tag))
		z.Next()
		var want []string
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			if k != nil {
				want = append(want, string(k)+"="+string(v))
			}
		}
		var got []string
		raw := []byte(tag)
		for _, a := range scanAttrs(raw) {
			v := ""
			if a.val[0] >= 0 {
				v = string(raw[a.val[0]:a.val[1]])
			}
			got = append(got, strings.ToLower(string(raw[a.key[0]:a.key[1]]))+"="+v)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%q: scan %q, tokenizer %q", tag, got, want)
		}
	}
}

func TestConvertHTMLHugeTokens(t *testing.T) {
	old := maxToken
	maxToken = 256
	t.Cleanup(func() { maxToken = old })
	big := strings.Repeat("y", 3000)
	in := `<a href="m.html">` + big + `<script>` + big + `<a href="s.html"></script><img alt="` + big + `" src="lost.png"><a href='n.html'>`
	got := convert(t, in, "http://h/", nil)
	want := `<a href="http://h/m.html">` + big + `<script>` + big + `<a href="s.html"></script><img alt="` + big + `" src="lost.png"><a href='http://h/n.html'>`
	if got != want {
		t.Errorf("huge tokens: got %d bytes, want %d\n%.300s", len(got), len(want), got)
	}
}

// hasRelative reports whether a document holds a link that ConvertHTML
// makes absolute, or a <base href>, by the tokenizer alone.
func hasRelative(doc []byte) bool {
	z := html.NewTokenizer(bytes.NewReader(doc))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return false
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, _ := z.TagName()
		if string(name) == "noscript" {
			z.NextIsNotRawText()
		}
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			var vals [][]byte
			switch attrKind(name, k) {
			case linkBase:
				return true
			case linkURL:
				vals = [][]byte{v}
			case linkSrcset:
				for _, r := range srcsetURLs(v) {
					vals = append(vals, v[r[0]:r[1]])
				}
			}
			for _, v := range vals {
				if u, ok := parseLink(v); ok && !u.IsAbs() {
					return true
				}
			}
		}
	}
}

func FuzzConvertHTML(f *testing.F) {
	for _, name := range []string{"autoindex-nginx.html", "autoindex-apache.html", "handwritten.html"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<a href="http://x/" title='&amp;'><img srcset="http://a/ 1x, http://b/ 2x"><a href=//h/>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var out bytes.Buffer
		nothing := func(uri.URL) (string, bool) { return "", false }
		if err := ConvertHTML(bytes.NewReader(doc), &out, uri.MustParse("http://fuzz.example/d/p.html"), nothing); err != nil {
			t.Fatalf("ConvertHTML: %v", err)
		}
		if !hasRelative(doc) && !bytes.Equal(out.Bytes(), doc) {
			t.Errorf("a document without relative links changed:\n in %q\nout %q", doc, out.Bytes())
		}
		// Whatever it maps, the conversion keeps the document's length
		// order of magnitude and never fails.
		all := func(u uri.URL) (string, bool) { return "l/" + u.Path(), true }
		if err := ConvertHTML(bytes.NewReader(doc), &out, uri.MustParse("http://fuzz.example/d/p.html"), all); err != nil {
			t.Fatalf("ConvertHTML: %v", err)
		}
	})
}

func TestConvertGophermap(t *testing.T) {
	menu := uri.MustParse("gopher://g.example/1/dir/")
	local := localMap(map[string]string{
		"gopher://g.example/0/dir/file.txt":         "file.txt",
		"gopher://g.example/1/dir/sub/":             "sub/gophermap",
		"gopher://g.example/0/dir/a%20b%25c%3F.txt": "a b%c?.txt",
		"gopher://g.example/1/other/":               "../other/gophermap",
		"gopher://g.example/1/dir/":                 "gophermap",
		"gopher://g.example/9/dir/bin":              "bin",
		"gopher://g.example/0/dir/URL:odd":          "URL:odd",
		"http://w.example/page.html":                "../../w.example/page.html",
		"gopher://far.example:7070/0/x":             "../../far.example:7070/x",
		"gopher://g.example/0/outside":              "../../../outside",
	})
	in := "iWelcome\t\tfake\t(NULL)\t0\r\n" +
		"0A file\t/dir/file.txt\tg.example\t70\r\n" +
		"1Sub menu\t/dir/sub/\tG.EXAMPLE\t70\t+\r\n" +
		"0Odd name\t/dir/a b%c?.txt\tg.example\t70\r\n" +
		"1Sibling\t/other/\tg.example\t70\r\n" +
		"1This menu\t/dir/\tg.example\t70\r\n" +
		"9Binary\t/dir/bin\tg.example\t70\r\n" +
		"+Mirror of it\t/dir/bin\tg.example\t70\r\n" +
		"0Looks like a URL\t/dir/URL:odd\tg.example\t70\r\n" +
		"hWeb page\tURL:http://w.example/page.html\tg.example\t70\r\n" +
		"0Other server\t/x\tfar.example\t7070\r\n" +
		"0Not mirrored\t/dir/missing\tg.example\t70\r\n" +
		"0Outside the tree\t/outside\tg.example\t70\r\n" +
		"8Telnet\tuser\tg.example\t23\r\n" +
		"3Error line\t\terror.host\t1\r\n" +
		"malformed line\n" +
		"0Wrong port\t/dir/file.txt\tg.example\t71\r\n" +
		".\r\n"
	want := "iWelcome\t\tfake\t(NULL)\t0\r\n" +
		"0A file\tfile.txt\r\n" +
		"1Sub menu\tsub/\r\n" +
		"0Odd name\ta b%25c%3F.txt\r\n" +
		"1Sibling\t/g.example/other/\r\n" +
		"1This menu\t/g.example/dir/\r\n" +
		"9Binary\tbin\r\n" +
		"+Mirror of it\tbin\r\n" +
		"0Looks like a URL\tURL%3Aodd\r\n" +
		"hWeb page\t/w.example/page.html\r\n" +
		"0Other server\t/far.example:7070/x\r\n" +
		"0Not mirrored\t/dir/missing\tg.example\t70\r\n" +
		"0Outside the tree\t/outside\tg.example\t70\r\n" +
		"8Telnet\tuser\tg.example\t23\r\n" +
		"3Error line\t\terror.host\t1\r\n" +
		"malformed line\n" +
		"0Wrong port\t/dir/file.txt\tg.example\t71\r\n" +
		".\r\n"
	var out bytes.Buffer
	if err := ConvertGophermap(strings.NewReader(in), &out, menu, "g.example/dir", local); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestConvertGophermapSchemeAndLongLines(t *testing.T) {
	// An item on the menu's own server keeps its gophers: scheme; a line
	// longer than the reader's buffer is copied as it is.
	long := "0" + strings.Repeat("d", 40<<10) + "\t/f\tg\t70\r\n"
	in := "0F\t/f\tg\t70\r\n" + long + "0F\t/f\tg\t70"
	local := localMap(map[string]string{"gophers://g/0/f": "f"})
	var out bytes.Buffer
	if err := ConvertGophermap(strings.NewReader(in), &out, uri.MustParse("gophers://g/1/"), "g", local); err != nil {
		t.Fatal(err)
	}
	if want := "0F\tf\r\n" + long + "0F\tf"; out.String() != want {
		t.Errorf("got %.80q…, want %.80q…", out.String(), want)
	}
}
