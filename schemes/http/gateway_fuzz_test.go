package http

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/urlget/urlget/uri"
)

// FuzzGatewayListing reads an HTTP proxy's HTML listing of an ftp:
// directory (squid's page, or anything the proxy sends in its place): each
// entry is a URL that parses, strictly below the directory listed, named
// once, carrying no password, whatever links, <base> or entities the page
// holds.
func FuzzGatewayListing(f *testing.F) {
	page, err := os.ReadFile("testdata/squid-ftp-listing.html")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(page)
	for _, s := range []string{
		`<a href="a.txt">a</a><a href="../up.txt">up</a><a href="/pub/">self</a><a href="sub/">sub</a>`,
		`<base href="ftp://evil.example/pub/"><a href="x">x</a>`,
		`<table><tr><td class="date">Jan 1</td><td><a href="f;type=i">[DOWNLOAD]</a><a href="f">f</a></td><td class="size">1k</td></tr></table>`,
		`<a href="ftp://u:pw@127.0.0.1:22121/pub/x">x</a><a href="%2e%2e/etc">dots</a><a href="sub/%2E%2E/..%2f">mixed</a>`,
		`<a href="&#x66;&#x74;&#x70;://127.0.0.1:22121/pub/ent">e</a><a href=" <URL:y> ">y</a>`,
	} {
		f.Add([]byte(s))
	}
	dir := uri.MustParse("ftp://ann:pw@127.0.0.1:22121/pub/")
	f.Fuzz(func(t *testing.T, data []byte) {
		l := newGatewayListing(dir, io.NopCloser(bytes.NewReader(data)))
		seen := map[string]bool{}
		for {
			e, err := l.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return
			}
			u, perr := uri.Parse(e.URL)
			if perr != nil || !strings.HasPrefix(e.URL, "ftp://ann@127.0.0.1:22121/pub/") || len(e.URL) == len("ftp://ann@127.0.0.1:22121/pub/") {
				t.Fatalf("%q: entry URL %q (%v)", data, e.URL, perr)
			}
			if _, ok := u.RawPassword(); ok {
				t.Fatalf("%q: entry URL %q carries a password", data, e.URL)
			}
			if seen[e.URL] {
				t.Fatalf("%q: entry %q twice", data, e.URL)
			}
			seen[e.URL] = true
		}
	})
}
