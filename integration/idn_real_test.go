package integration

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/news"
	"github.com/urlget/urlget/uri"
)

// idnServer returns a Client whose --resolve entry points the international
// name bücher.example, on the port of addr, at addr's address, and the
// name and port to write in URLs in place of addr.
func idnServer(t *testing.T, addr string) (*fetch.Client, string) {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	e, err := fetch.ParseResolve("bücher.example:" + port + ":" + host)
	if err != nil {
		t.Fatal(err)
	}
	c := &fetch.Client{Resolve: []fetch.ResolveEntry{e}}
	t.Cleanup(func() { c.Close() })
	return c, "bücher.example:" + port
}

// idnFetch fetches url through c and returns the body, or the listing's
// entries, checking that the entries name the A-labels and no other form.
func idnFetch(t *testing.T, c *fetch.Client, url string) (string, []schemes.Entry) {
	t.Helper()
	res, err := c.Fetch(testCtx(t), url)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	if !strings.Contains(res.URL, "xn--bcher-kva.example:") {
		t.Errorf("%s: the resource's URL is %q, want the A-labels", url, res.URL)
	}
	if res.Listing != nil {
		es := readEntries(t, res)
		for _, e := range es {
			if strings.Contains(e.URL, "b%C3%BC") || strings.Contains(e.URL, "bücher") {
				t.Errorf("%s: entry %q names the host in another form than xn--bcher-kva.example", url, e.URL)
			}
		}
		return "", es
	}
	return string(readBody(t, res)), nil
}

// hasEntry reports whether one of es has the URL want.
func hasEntry(es []schemes.Entry, want string) bool {
	for _, e := range es {
		if e.URL == want {
			return true
		}
	}
	return false
}

// The real servers of CI, each reached under an international name: IDNA
// happens before the look-up for every scheme, with a real server at the
// other end.

func TestIDNRealNginx(t *testing.T) {
	base, dir, urlDir := nginxServer(t)
	if err := os.WriteFile(filepath.Join(dir, "idn.txt"), []byte("international\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(strings.TrimSuffix(base, "/"), "http://")
	c, name := idnServer(t, addr)
	if body, _ := idnFetch(t, c, strings.Replace(urlDir, addr, name, 1)+"/idn.txt"); body != "international\n" {
		t.Errorf("body %q", body)
	}
}

func TestIDNRealFTP(t *testing.T) {
	eachRealFTP(t, func(t *testing.T, e realFTP) {
		dir := writeFTPTree(t, e.root, "idn-"+e.name)
		c, name := idnServer(t, e.addr)
		if body, _ := idnFetch(t, c, "ftp://"+name+dir+"one/only.txt"); body != "only\n" {
			t.Errorf("body %q", body)
		}
		_, es := idnFetch(t, c, "ftp://"+name+dir+"one/")
		if want := "ftp://xn--bcher-kva.example:" + strings.Split(name, ":")[1] + dir + "one/only.txt"; !hasEntry(es, want) {
			t.Errorf("listing %v has no entry %s", es, want)
		}
	})
}

func TestIDNRealGophernicus(t *testing.T) {
	tr := gophernicus(t)
	addr := strings.TrimPrefix(tr.base, "gopher://")
	c, name := idnServer(t, addr)
	body, _ := idnFetch(t, c, "gopher://"+name+"/0"+tr.sel+"/hello.txt")
	if !strings.HasPrefix(body, "Hello from gophernicus\n") {
		t.Errorf("body %q", body)
	}
}

func TestIDNRealINN(t *testing.T) {
	addr := innAddr(t, "URLGET_INN_ADDR")
	posted := innArticles("urlget.test")[:1]
	innPost(t, addr, posted)
	c, name := idnServer(t, addr)
	// The news server named by --nntp-server in Unicode, and an nntp:
	// URL's host: both go to the resolver as A-labels.
	c.Fetchers = registryWith(&news.Fetcher{Server: name})
	res, err := c.Fetch(testCtx(t), "news:"+uri.EscapeSegment(posted[0].id))
	if err != nil {
		t.Fatal(err)
	}
	innCheckArticle(t, string(readBody(t, res)), posted[0])
	if _, es := idnFetch(t, c, "nntp://"+name+"/urlget.test"); len(es) == 0 {
		t.Error("an empty listing of urlget.test")
	}
}
