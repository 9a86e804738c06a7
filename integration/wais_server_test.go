package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/urlget/urlget/integration/waistest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/wais"
)

// waisDocs is a small corpus: three short documents and one of 200000
// bytes, which takes several pieces.
func waisDocs() []waistest.Document {
	big := make([]byte, 200000)
	for i := range big {
		big[i] = "abcdefghijklmnopqrstuvwxyz\n"[i%27]
	}
	return []waistest.Document{
		{Name: "river.txt", Text: []byte("The river runs to the sea.\nA second river line.\n")},
		{Name: "sea.txt", Text: []byte("The sea is wide.\n")},
		{Name: "notes.html", Type: "HTML", Text: []byte("<p>river notes</p>\n")},
		{Name: "big.txt", Text: big, Keywords: []string{"bigword"}},
	}
}

func waisServer(t testing.TB, cfg waistest.Config) *waistest.Server {
	t.Helper()
	if cfg.Documents == nil {
		cfg.Documents = waisDocs()
	}
	s := waistest.NewServer(cfg)
	t.Cleanup(s.Close)
	return s
}

// waisHit searches and returns the URL of the hit whose name starts with name.
func waisHit(t testing.TB, f *wais.Fetcher, searchURL, name string) string {
	t.Helper()
	for _, e := range waisList(t, f, searchURL) {
		if strings.HasPrefix(e.Name, name) {
			return e.URL
		}
	}
	t.Fatalf("%s: no hit %s", searchURL, name)
	return ""
}

func TestWAISServerSearch(t *testing.T) {
	s := waisServer(t, waistest.Config{})
	f := &wais.Fetcher{}
	got := waisList(t, f, s.URL+"?river")
	if len(got) != 2 || !strings.HasPrefix(got[0].Name, "river.txt") || !strings.HasPrefix(got[1].Name, "notes.html") {
		t.Fatalf("entries %+v", got)
	}
	if got[1].Fields["type"] != "HTML" || got[0].Fields["lines"] != "2" || got[0].Size != 48 {
		t.Errorf("fields %+v / %+v", got[0], got[1])
	}
	for _, e := range got {
		if !strings.HasPrefix(e.URL, s.URL+"/"+e.Fields["type"]+"/"+e.Fields["size"]+"/1=waistest.example%3A") {
			t.Errorf("URL %s", e.URL)
		}
	}
	// Every hit is retrievable by its URL.
	for i, want := range []string{"The river runs to the sea.\nA second river line.\n", "<p>river notes</p>\n"} {
		res := mustFetch(t, f, waisRequest(t, got[i].URL))
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v", got[i].URL, b, err)
		}
		if want := map[int]string{0: "text/plain", 1: "text/html"}[i]; res.ContentType != want {
			t.Errorf("%s: content type %q", got[i].URL, res.ContentType)
		}
	}
	// Each connection begins with an Init.
	last := -1
	for _, r := range s.Requests() {
		if r.Conn != last && r.PDU != 20 {
			t.Errorf("connection %d begins with PDU %d", r.Conn, r.PDU)
		}
		last = r.Conn
	}
}

// TestWAISServerSearchFlag: a database URL needs terms, from ?terms or
// req.Search (--search); without them it is not retrievable, of
// ErrNoSearchTerms, and shows the URL form without naming a flag.
func TestWAISServerSearchFlag(t *testing.T) {
	s := waisServer(t, waistest.Config{})
	f := &wais.Fetcher{}
	_, err := f.Fetch(testCtx(t), waisRequest(t, s.URL))
	if !errors.Is(err, schemes.ErrNotRetrievable) || !strings.Contains(err.Error(), "?terms") || !errors.Is(err, schemes.ErrNoSearchTerms) || strings.Contains(err.Error(), "--") {
		t.Errorf("err = %v, want not retrievable with how to search", err)
	}
	if len(s.Requests()) != 0 {
		t.Errorf("the client talked to the server: %d requests", len(s.Requests()))
	}
	req := waisRequest(t, s.URL)
	terms := "sea"
	req.Search = &terms
	res := mustFetch(t, f, req)
	e, err := res.Listing.Next()
	if err != nil || !strings.HasPrefix(e.Name, "sea.txt") {
		t.Errorf("first hit %+v, %v", e, err)
	}
	if rs := s.Requests(); len(rs) != 2 || rs[1].Seed != "sea" {
		t.Errorf("requests %+v", rs)
	}
}

func TestWAISServerMissingDatabase(t *testing.T) {
	s := waisServer(t, waistest.Config{})
	_, err := (&wais.Fetcher{}).Fetch(testCtx(t), waisRequest(t, "wais://"+s.Addr+"/other?river"))
	if !errors.Is(err, schemes.ErrNotFound) {
		t.Errorf("err = %v, want not found", err)
	}
}

func TestWAISServerNoHits(t *testing.T) {
	s := waisServer(t, waistest.Config{})
	f := &wais.Fetcher{}
	got := waisList(t, f, s.URL+"?xylophone")
	if len(got) != 2 || got[0].Name != "no hits" || got[1].Fields["catalog"] != "true" {
		t.Fatalf("entries %+v", got)
	}
	if b := waisGet(t, f, got[1].URL); !bytes.Contains(b, []byte("Headline: big.txt")) {
		t.Errorf("catalog = %q", b)
	}
}

// TestWAISServerPieces: a 200000-byte document comes in pieces of at most
// wais.DefaultPieceSize, each request naming the type and a range.
func TestWAISServerPieces(t *testing.T) {
	s := waisServer(t, waistest.Config{})
	f := &wais.Fetcher{}
	u := waisHit(t, f, s.URL+"?bigword", "big.txt")
	if got := waisGet(t, f, u); !bytes.Equal(got, waisDocs()[3].Text) {
		t.Fatalf("document of %d bytes differs", len(got))
	}
	var ranges []string
	for _, r := range s.Requests() {
		if r.Query == "1" {
			if r.Type != "TEXT" || r.Unit != "wb" || r.End-r.Start > wais.DefaultPieceSize {
				t.Errorf("retrieval %+v", r)
			}
			ranges = append(ranges, fmt.Sprintf("%d-%d", r.Start, r.End))
		}
	}
	var want []string
	for at := 0; at < 200000; at += wais.DefaultPieceSize {
		want = append(want, fmt.Sprintf("%d-%d", at, min(at+wais.DefaultPieceSize, 200000)))
	}
	if got := strings.Join(ranges, " "); got != strings.Join(want, " ") {
		t.Errorf("ranges %s, want %s", got, strings.Join(want, " "))
	}
}

// TestWAISServerUnknownLength: a URL without the length segment fetches
// pieces until one comes back short with the SF diagnostic.
func TestWAISServerUnknownLength(t *testing.T) {
	s := waisServer(t, waistest.Config{})
	f := &wais.Fetcher{PieceSize: 70000}
	u := waisHit(t, f, s.URL+"?bigword", "big.txt")
	i := strings.Index(u, "/200000/")
	res := mustFetch(t, f, waisRequest(t, u[:i]+"/"+u[i+len("/200000/"):]))
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	if err != nil || !bytes.Equal(got, waisDocs()[3].Text) || res.Size != -1 {
		t.Fatalf("%d bytes, %v, size %d", len(got), err, res.Size)
	}
}

// TestWAISServerSmallRecords: a server that grants a small record size in
// its InitResponse gets smaller pieces.
func TestWAISServerSmallRecords(t *testing.T) {
	s := waisServer(t, waistest.Config{MaxReply: 4096})
	f := &wais.Fetcher{}
	u := waisHit(t, f, s.URL+"?bigword", "big.txt")
	if got := waisGet(t, f, u); !bytes.Equal(got, waisDocs()[3].Text) {
		t.Fatalf("document of %d bytes differs", len(got))
	}
	for _, r := range s.Requests() {
		if r.Query == "1" && r.End-r.Start > 4096 {
			t.Fatalf("piece %d-%d over the granted 4096", r.Start, r.End)
		}
	}
}

// TestWAISServerOversize: an empty reply (over the server's limit) on an
// open connection makes the client ask for half as much there.
func TestWAISServerOversize(t *testing.T) {
	s := waisServer(t, waistest.Config{Fault: func(n int, reply []byte) ([]byte, bool) {
		if n == 1 { // the first retrieval after the Init
			return []byte("0000000000z2wais        0"), false
		}
		return reply, false
	}})
	f := &wais.Fetcher{}
	u := waisHit(t, f, s.URL+"?bigword", "big.txt")
	if got := waisGet(t, f, u); !bytes.Equal(got, waisDocs()[3].Text) {
		t.Fatalf("document of %d bytes differs", len(got))
	}
	var ranges []string
	conns := map[int]bool{}
	for _, r := range s.Requests() {
		if r.Query == "1" {
			ranges = append(ranges, fmt.Sprintf("%d-%d", r.Start, r.End))
			conns[r.Conn] = true
		}
	}
	p, h := wais.DefaultPieceSize, wais.DefaultPieceSize/2
	if want := fmt.Sprintf("0-%d 0-%d %d-%d ", p, h, h, p); !strings.HasPrefix(strings.Join(ranges, " "), want) || len(conns) != 1 {
		t.Errorf("ranges %v on %d connections", ranges, len(conns))
	}
}

func TestWAISServerResume(t *testing.T) {
	s := waisServer(t, waistest.Config{})
	f := &wais.Fetcher{}
	u := waisHit(t, f, s.URL+"?bigword", "big.txt")
	req := waisRequest(t, u)
	req.Offset = 150000
	res := mustFetch(t, f, req)
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	if err != nil || res.Offset != 150000 || !bytes.Equal(got, waisDocs()[3].Text[150000:]) {
		t.Errorf("offset %d, %d bytes, %v", res.Offset, len(got), err)
	}
}

func TestWAISServerHeadRawMaxSize(t *testing.T) {
	s := waisServer(t, waistest.Config{})
	f := &wais.Fetcher{}
	u := waisHit(t, f, s.URL+"?bigword", "big.txt")
	req := waisRequest(t, u)
	req.Head = true
	res := mustFetch(t, f, req)
	if res.Body != nil || res.Size != 200000 || res.Name != "big.txt" {
		t.Errorf("head: %+v", res)
	}
	req = waisRequest(t, u)
	req.MaxSize = 1000
	if _, err := f.Fetch(testCtx(t), req); !errors.Is(err, schemes.ErrTooLarge) {
		t.Errorf("max size: %v", err)
	}
	req = waisRequest(t, s.URL+"?sea")
	req.Raw = true
	res = mustFetch(t, f, req)
	b, _ := io.ReadAll(res.Body)
	if len(b) < 25 || string(b[10:12]) != "z2" || !bytes.Contains(b, []byte("sea.txt")) {
		t.Errorf("raw: %q", b)
	}
}

// TestWAISDefaultPort: a URL without a port dials port 210.
func TestWAISDefaultPort(t *testing.T) {
	var addr string
	req := waisRequest(t, "wais://127.0.0.1/db?x")
	req.Dialer = waisDialFunc(func(_ context.Context, _, a string) (net.Conn, error) {
		addr = a
		return nil, errors.New("refused by the test")
	})
	if _, err := (&wais.Fetcher{}).Fetch(testCtx(t), req); err == nil || addr != "127.0.0.1:210" {
		t.Errorf("dialed %q, %v", addr, err)
	}
}

type waisDialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (f waisDialFunc) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f(ctx, network, addr)
}

func TestWAISBadURLs(t *testing.T) {
	s := waisServer(t, waistest.Config{})
	for _, u := range []string{
		s.URL + "?a%0Db",
		s.URL + "?a%00b",
		"wais://" + s.Addr + "/te%1Fst?x",
		s.URL + "/TEXT/12/2=a;x",
		s.URL + "/TE%0AXT/12/2=a;",
	} {
		_, err := (&wais.Fetcher{}).Fetch(testCtx(t), waisRequest(t, u))
		if !errors.Is(err, schemes.ErrBadURL) {
			t.Errorf("%s: %v, want bad URL", u, err)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}
