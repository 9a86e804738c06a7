package integration

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/gopher"
	"github.com/urlget/urlget/uri"
)

// gopherRequest builds the request the fetch package would pass for rawURL.
func gopherRequest(t *testing.T, rawURL string) *schemes.Request {
	t.Helper()
	u, err := uri.Parse(rawURL)
	if err != nil {
		t.Fatalf("parse %q: %v", rawURL, err)
	}
	return &schemes.Request{URL: u, Dialer: &net.Dialer{}, TLSConfig: &tls.Config{}}
}

func gopherServer(t *testing.T, h gophertest.Handler) *gophertest.Server {
	t.Helper()
	s := gophertest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// gopherSent checks the exact bytes of the server's last request.
func gopherSent(t *testing.T, s *gophertest.Server, want string) {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) == 0 {
		t.Fatalf("server received no request; want %q", want)
	}
	if got := string(reqs[len(reqs)-1].Raw); got != want {
		t.Errorf("client sent %q, want %q", got, want)
	}
}

func TestGopherText(t *testing.T) {
	mux := gophertest.NewMux()
	mux.Handle("/doc.txt", gophertest.Raw([]byte("line one\r\n..dotted\r\n.kept\r\n\r\nlast\r\n.\r\nafter the end\r\n")))
	mux.Handle("/bare", gophertest.Raw([]byte("no terminator\nLF only\n")))
	s := gopherServer(t, mux)
	var f gopher.Fetcher

	res := mustFetch(t, &f, gopherRequest(t, s.URL+"/0/doc.txt"))
	if got, want := string(readBody(t, res)), "line one\n.dotted\n.kept\n\nlast\n"; got != want {
		t.Errorf("text body = %q, want %q", got, want)
	}
	gopherSent(t, s, "/doc.txt\r\n")
	if res.ContentType != "text/plain" || res.Name != "doc.txt" {
		t.Errorf("ContentType %q Name %q, want text/plain doc.txt", res.ContentType, res.Name)
	}

	res = mustFetch(t, &f, gopherRequest(t, s.URL+"/0/bare"))
	if got, want := string(readBody(t, res)), "no terminator\nLF only\n"; got != want {
		t.Errorf("unterminated text = %q, want %q", got, want)
	}
}

func TestGopherBinaryUntouched(t *testing.T) {
	data := make([]byte, 300<<10)
	rand.Read(data)
	// Bytes that text decoding would change must come through as sent.
	copy(data, "3x\t\t\t\r\n.\r\n..\r\n")
	mux := gophertest.NewMux()
	mux.Handle("/blob.bin", gophertest.Binary(data))
	s := gopherServer(t, mux)
	var f gopher.Fetcher

	res := mustFetch(t, &f, gopherRequest(t, s.URL+"/9/blob.bin"))
	if got := readBody(t, res); !bytes.Equal(got, data) {
		t.Errorf("binary body differs: got %d bytes, want %d", len(got), len(data))
	}
	if res.Name != "blob.bin" || res.ContentType != "application/octet-stream" || res.Size != -1 {
		t.Errorf("Name %q ContentType %q Size %d", res.Name, res.ContentType, res.Size)
	}

	// Through a file, the path io.Copy takes for -o: WriteTo, then splice.
	res = mustFetch(t, &f, gopherRequest(t, s.URL+"/9/blob.bin"))
	out, err := os.Create(filepath.Join(t.TempDir(), "blob"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	n, err := io.Copy(out, res.Body)
	res.Body.Close()
	if err != nil || n != int64(len(data)) {
		t.Fatalf("io.Copy to file: %d bytes, %v", n, err)
	}
	got, _ := os.ReadFile(out.Name())
	if !bytes.Equal(got, data) {
		t.Errorf("file copy differs")
	}
}

func TestGopherEmptyPathAndQuestionMark(t *testing.T) {
	mux := gophertest.NewMux()
	mux.Handle("", gophertest.Menu(gophertest.Info("root")))
	mux.Handle("/a?b=c", gophertest.Text("query kept\n"))
	s := gopherServer(t, mux)
	var f gopher.Fetcher

	es := readEntries(t, mustFetch(t, &f, gopherRequest(t, s.URL)))
	if len(es) != 1 || es[0].Name != "root" || es[0].Kind != schemes.KindInfo {
		t.Errorf("root menu = %+v", es)
	}
	gopherSent(t, s, "\r\n")

	readEntries(t, mustFetch(t, &f, gopherRequest(t, s.URL+"/")))
	gopherSent(t, s, "\r\n")

	// RFC 1738 §3.4: '?' is part of the selector; only %09 separates a search.
	body := readBody(t, mustFetch(t, &f, gopherRequest(t, s.URL+"/0/a?b=c")))
	if string(body) != "query kept\n" {
		t.Errorf("body = %q", body)
	}
	gopherSent(t, s, "/a?b=c\r\n")
}

func TestGopherMenu(t *testing.T) {
	var menu bytes.Buffer
	menu.WriteString("iWelcome\tfake\t(NULL)\t0\r\n")
	menu.WriteString("0About this server\t/about.txt\tHOST\tPORT\r\n")
	menu.WriteString("1Sub menu\t/sub\tHOST\tPORT\r\n")
	menu.WriteString("7Search\t/search\tHOST\tPORT\r\n")
	menu.WriteString("9A name with spaces\t/files/a name?#%.bin\tHOST\tPORT\r\n")
	menu.WriteString("+Mirror of it\t/files/a name?#%.bin\tmirror.example\t7070\r\n")
	menu.WriteString("1Elsewhere\t/x\tgopher.example.org\t70\r\n")
	menu.WriteString("hWeb link\tURL:http://example.org/a?b\tHOST\tPORT\r\n")
	menu.WriteString("8Telnet\tguest\tbbs.example\t23\r\n")
	menu.WriteString("TTN3270\t\tibm.example\t2323\r\n")
	menu.WriteString("3An error line\terror\terror.host\t1\r\n")
	menu.WriteString("0Gopher+ item\t/plus\tHOST\tPORT\t+\r\n")
	menu.WriteString("this line has no tabs at all\r\n")
	menu.WriteString("9bad port\t/b\tHOST\tseventy\r\n")
	menu.WriteString("I\t/img.png\tfe80::1\t70\r\n")
	menu.WriteString(".\r\n")
	mux := gophertest.NewMux()
	var s *gophertest.Server
	mux.Handle("/menu", gophertest.HandlerFunc(func(w io.Writer, r *gophertest.Request) {
		io.WriteString(w, strings.NewReplacer("HOST", r.Host, "PORT", r.Port).Replace(menu.String()))
	}))
	s = gopherServer(t, mux)
	host, port, _ := net.SplitHostPort(s.Addr)
	var f gopher.Fetcher

	es := readEntries(t, mustFetch(t, &f, gopherRequest(t, s.URL+"/1/menu")))
	gopherSent(t, s, "/menu\r\n")
	type want struct {
		kind schemes.Kind
		name string
		url  string
	}
	base := "gopher://" + host + ":" + port
	wants := []want{
		{schemes.KindInfo, "Welcome", ""},
		{schemes.KindFile, "About this server", base + "/0/about.txt"},
		{schemes.KindDirectory, "Sub menu", base + "/1/sub"},
		{schemes.KindSearch, "Search", base + "/7/search"},
		{schemes.KindFile, "A name with spaces", base + "/9/files/a%20name%3F%23%25.bin"},
		{schemes.KindFile, "Mirror of it", "gopher://mirror.example:7070/9/files/a%20name%3F%23%25.bin"},
		{schemes.KindDirectory, "Elsewhere", "gopher://gopher.example.org/1/x"},
		{schemes.KindLink, "Web link", "http://example.org/a?b"},
		{schemes.KindOther, "Telnet", "telnet://guest@bbs.example/"},
		{schemes.KindOther, "TN3270", "telnet://ibm.example:2323/"},
		{schemes.KindInfo, "An error line", ""},
		{schemes.KindFile, "Gopher+ item", base + "/0/plus"},
		{schemes.KindInfo, "this line has no tabs at all", ""},
		{schemes.KindInfo, "9bad port\t/b\t" + host + "\tseventy", ""},
		{schemes.KindFile, "", "gopher://[fe80::1]/I/img.png"},
	}
	if len(es) != len(wants) {
		t.Fatalf("got %d entries, want %d: %+v", len(es), len(wants), es)
	}
	for i, w := range wants {
		e := es[i]
		if e.Kind != w.kind || e.Name != w.name || e.URL != w.url {
			t.Errorf("entry %d = {%v %q %q}, want {%v %q %q}", i, e.Kind, e.Name, e.URL, w.kind, w.name, w.url)
		}
		if e.URL == "" {
			continue
		}
		// Every URL a menu gives must name what the line named.
		u, err := uri.Parse(e.URL)
		if err != nil {
			t.Errorf("entry %d URL %q does not parse: %v", i, e.URL, err)
			continue
		}
		if u.Scheme() == "gopher" {
			g, err := u.Gopher()
			if err != nil || g.Selector != e.Fields["selector"] {
				t.Errorf("entry %d URL %q selects %q (%v), want %q", i, e.URL, g.Selector, err, e.Fields["selector"])
			}
		}
	}
	if es[11].Fields["gopher+"] != "+" {
		t.Errorf("Gopher+ marker not kept: %v", es[11].Fields)
	}
	if es[1].Raw != "0About this server\t/about.txt\t"+host+"\t"+port {
		t.Errorf("Raw = %q", es[1].Raw)
	}

	// The URL a menu gives fetches the item it names.
	mux.Handle("/files/a name?#%.bin", gophertest.Binary([]byte("spaces")))
	got := readBody(t, mustFetch(t, &f, gopherRequest(t, es[4].URL)))
	if string(got) != "spaces" {
		t.Errorf("fetching %s = %q", es[4].URL, got)
	}
	gopherSent(t, s, "/files/a name?#%.bin\r\n")
}

func TestGopherRawMenu(t *testing.T) {
	menu := "iHello\tfake\t(NULL)\t0\r\n1Sub\t/sub\th\t70\r\n.\r\n"
	mux := gophertest.NewMux()
	mux.Handle("/m", gophertest.Raw([]byte(menu)))
	s := gopherServer(t, mux)
	req := gopherRequest(t, s.URL+"/1/m")
	req.Raw = true
	var f gopher.Fetcher
	res := mustFetch(t, &f, req)
	if got := string(readBody(t, res)); got != menu {
		t.Errorf("raw menu = %q, want %q", got, menu)
	}
	if res.ContentType != "application/gopher-menu" {
		t.Errorf("ContentType = %q", res.ContentType)
	}
}

func TestGopherNotFound(t *testing.T) {
	mux := gophertest.NewMux()
	mux.Handle("/gone", gophertest.Raw([]byte("iSorry.\tfake\t(NULL)\t0\r\n3'/gone' does not exist\terror\terror.host\t1\r\n.\r\n")))
	s := gopherServer(t, mux)
	var f gopher.Fetcher
	for _, path := range []string{"/1/gone", "/0/gone", "/9/gone", "/1/missing", "/9/missing"} {
		_, err := f.Fetch(testCtx(t), gopherRequest(t, s.URL+path))
		if !errors.Is(err, schemes.ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", path, err)
			continue
		}
		if !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("%s: error %q lacks the server's message", path, err)
		}
	}
	// With --raw-listing the not-found is still an error, not the menu's bytes.
	req := gopherRequest(t, s.URL+"/1/gone")
	req.Raw = true
	if _, err := f.Fetch(testCtx(t), req); !errors.Is(err, schemes.ErrNotFound) {
		t.Errorf("raw: err = %v, want ErrNotFound", err)
	}
}

func TestGopherSearch(t *testing.T) {
	mux := gophertest.NewMux()
	mux.Handle("/search", gophertest.Search(func(terms string) []gophertest.Item {
		return []gophertest.Item{{Type: '0', Display: "hit for " + terms, Selector: "/hit"}}
	}))
	s := gopherServer(t, mux)
	var f gopher.Fetcher

	es := readEntries(t, mustFetch(t, &f, gopherRequest(t, s.URL+"/7/search%09foo%20bar")))
	gopherSent(t, s, "/search\tfoo bar\r\n")
	if len(es) != 1 || es[0].Name != "hit for foo bar" {
		t.Errorf("search result = %+v", es)
	}

	// --search gives the terms when the URL has none.
	req := gopherRequest(t, s.URL+"/7/search")
	terms := "from flag"
	req.Search = &terms
	readEntries(t, mustFetch(t, &f, req))
	gopherSent(t, s, "/search\tfrom flag\r\n")

	// The URL's own terms win over --search.
	req = gopherRequest(t, s.URL+"/7/search%09in%20url")
	req.Search = &terms
	readEntries(t, mustFetch(t, &f, req))
	gopherSent(t, s, "/search\tin url\r\n")

	// Without terms nothing is sent, and the error says so in words a
	// program can tell (ErrNoSearchTerms) and shows the URL form; it names
	// no command-line flag.
	n := len(s.Requests())
	_, err := f.Fetch(testCtx(t), gopherRequest(t, s.URL+"/7/search"))
	if !errors.Is(err, schemes.ErrNotRetrievable) || !errors.Is(err, schemes.ErrNoSearchTerms) || strings.Contains(err.Error(), "--") || !strings.Contains(err.Error(), "%09") {
		t.Errorf("type 7 without terms: err = %v", err)
	}
	if len(s.Requests()) != n {
		t.Errorf("a request was sent for a search without terms")
	}
}

func TestGopherRefusesControlBytes(t *testing.T) {
	s := gopherServer(t, gophertest.Text("never"))
	var f gopher.Fetcher
	for _, path := range []string{
		"/0/a%0D%0Ab",                           // CR LF in the selector
		"/0/a%00b",                              // NUL in the selector
		"/7/s%09a%0Ab",                          // LF in the search
		"/0/a%09%09+%0Dx",                       // CR in a one-line Gopher+ string
		"/0/a%09%09+%091x",                      // TAB without the §3.4.9 data block
		"/0/a%09%09+%091%0D%0A+-1%0D%0Av%0D%0A", // data block without "."
		"/0/a%09%09+%091%0D%0A+-1%0D%0Av%09w%0D%0A.%0D%0A", // TAB in a value
	} {
		_, err := f.Fetch(testCtx(t), gopherRequest(t, s.URL+path))
		if !errors.Is(err, schemes.ErrBadURL) {
			t.Errorf("%s: err = %v, want ErrBadURL", path, err)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("server received %d requests; nothing should have been sent", n)
	}
}

func TestGopherHead(t *testing.T) {
	mux := gophertest.NewMux()
	mux.Handle("/img.gif", gophertest.Binary([]byte("GIF89a....")))
	mux.Handle("/menu", gophertest.Menu(gophertest.Info("x")))
	s := gopherServer(t, mux)
	var f gopher.Fetcher

	req := gopherRequest(t, s.URL+"/g/img.gif")
	req.Head = true
	res := mustFetch(t, &f, req)
	if res.Body != nil || res.Listing != nil || res.ContentType != "image/gif" || res.Size != -1 {
		t.Errorf("head = %+v", res)
	}
	// Gopher+ gives the length.
	req = gopherRequest(t, s.URL+"/g/img.gif%09%09+")
	req.Head = true
	res = mustFetch(t, &f, req)
	if res.Size != 10 || res.Body != nil {
		t.Errorf("Gopher+ head: Size %d Body %v", res.Size, res.Body != nil)
	}
	req = gopherRequest(t, s.URL+"/1/nothing")
	req.Head = true
	if _, err := f.Fetch(testCtx(t), req); !errors.Is(err, schemes.ErrNotFound) {
		t.Errorf("head of a missing menu: %v", err)
	}
}

func TestGopherNotRetrievableTypes(t *testing.T) {
	var f gopher.Fetcher
	for _, path := range []string{"/8guest", "/Tx", "/2cso", "/ifake", "/3err"} {
		_, err := f.Fetch(testCtx(t), gopherRequest(t, "gopher://127.0.0.1:1"+path))
		if !errors.Is(err, schemes.ErrNotRetrievable) {
			t.Errorf("%s: err = %v, want ErrNotRetrievable", path, err)
		}
	}
}

func TestGophersTLS(t *testing.T) {
	mux := gophertest.NewMux()
	mux.Handle("", gophertest.Menu(
		gophertest.Item{Type: '0', Display: "secret", Selector: "/secret.txt"},
		gophertest.Item{Type: '1', Display: "plain", Selector: "/", Host: "gopher.example.org", Port: "70"},
	))
	mux.Handle("/secret.txt", gophertest.Text("over TLS\n"))
	s := gophertest.NewTLSServer(mux)
	t.Cleanup(s.Close)
	var f gopher.Fetcher

	req := gopherRequest(t, s.URL+"/")
	req.TLSConfig = s.ClientTLSConfig()
	es := readEntries(t, mustFetch(t, &f, req))
	if len(es) != 2 || es[0].URL != s.URL+"/0/secret.txt" || es[1].URL != "gopher://gopher.example.org/1/" {
		t.Fatalf("gophers menu = %+v", es)
	}
	req = gopherRequest(t, es[0].URL)
	req.TLSConfig = s.ClientTLSConfig()
	if got := readBody(t, mustFetch(t, &f, req)); string(got) != "over TLS\n" {
		t.Errorf("gophers text = %q", got)
	}
	gopherSent(t, s, "/secret.txt\r\n")

	// An untrusted certificate is a connect error.
	if _, err := f.Fetch(testCtx(t), gopherRequest(t, s.URL+"/")); !errors.Is(err, schemes.ErrConnect) {
		t.Errorf("untrusted certificate: err = %v, want ErrConnect", err)
	}
}
