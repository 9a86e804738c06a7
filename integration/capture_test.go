package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/integration/proxytest"
	"github.com/urlget/urlget/integration/waistest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/ftp"
	httpscheme "github.com/urlget/urlget/schemes/http"
)

// The tests of fetch.Client's Archive: a sink in memory, fed by fetches
// over real sockets to this package's servers, must hold exactly what
// crossed the wire.

// memArchive is an Archive in memory: every attempt's capture, in order.
type memArchive struct {
	mu   sync.Mutex
	caps []*memCapture
}

func (a *memArchive) Begin(target string) fetch.Capture {
	c := &memCapture{target: target}
	a.mu.Lock()
	a.caps = append(a.caps, c)
	a.mu.Unlock()
	return c
}

func (a *memArchive) all() []*memCapture {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.caps)
}

// only returns the one capture the archive holds, failing the test
// otherwise.
// fetchCaptured fetches url with c, reads the body to its end, and
// returns the one capture a holds, which must have ended.
func fetchCaptured(t *testing.T, c *fetch.Client, a *memArchive, url string) *memCapture {
	t.Helper()
	res, err := c.Fetch(testCtx(t), url)
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, res)
	cp := a.only(t)
	cp.ended(t)
	return cp
}

func (a *memArchive) only(t *testing.T) *memCapture {
	t.Helper()
	cs := a.all()
	if len(cs) != 1 {
		t.Fatalf("%d captures, want 1", len(cs))
	}
	return cs[0]
}

// memCapture is one attempt's capture. Its methods check the contract:
// nothing after End, End once.
type memCapture struct {
	target string

	mu        sync.Mutex
	exchanges []*memExchange
	remotes   []string
	lines     []string
	listing   bytes.Buffer
	body      bytes.Buffer
	fetched   int
	res       *schemes.Resource
	fetchErr  error
	ends      int
	endErr    error
	late      []string // calls made after End
}

type memExchange struct {
	target, remote string
	req, resp      bytes.Buffer
	ended          bool
	err            error
}

func (c *memCapture) after(what string) {
	if c.ends > 0 {
		c.late = append(c.late, what)
	}
}

func (c *memCapture) Exchange(target string, remote net.Addr) schemes.Exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.after("Exchange")
	x := &memExchange{target: target, remote: remote.String()}
	c.exchanges = append(c.exchanges, x)
	return &lockedExchange{c: c, x: x}
}

func (c *memCapture) Connected(remote net.Addr) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.after("Connected")
	c.remotes = append(c.remotes, remote.String())
}

func (c *memCapture) Line(dir schemes.Direction, line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, string(dir)+" "+line)
}

func (c *memCapture) Listing(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.after("Listing")
	c.listing.Write(p)
}

func (c *memCapture) Fetched(res *schemes.Resource, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.after("Fetched")
	c.fetched++
	c.res, c.fetchErr = res, err
}

func (c *memCapture) Body(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.after("Body")
	c.body.Write(p)
}

func (c *memCapture) End(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ends++
	c.endErr = err
}

// ended checks that the capture was told what the fetcher returned and
// ended once, with nothing after, and returns its end's error.
func (c *memCapture) ended(t *testing.T) error {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fetched != 1 || c.ends != 1 || len(c.late) > 0 {
		t.Errorf("%s: Fetched %d times, End %d times, after End: %v", c.target, c.fetched, c.ends, c.late)
	}
	return c.endErr
}

// has tells whether a line of the conversation was captured.
func (c *memCapture) has(line string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.lines, line)
}

// holds fails the test when any captured byte or line contains secret.
func (c *memCapture) holds(t *testing.T, secret string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	all := c.target + strings.Join(c.lines, "\n") + c.listing.String() + c.body.String()
	for _, x := range c.exchanges {
		all += x.target + x.req.String() + x.resp.String()
	}
	if strings.Contains(all, secret) {
		t.Errorf("%s: the capture holds the secret %q", c.target, secret)
	}
}

type lockedExchange struct {
	c *memCapture
	x *memExchange
}

func (l *lockedExchange) Request(p []byte) {
	l.c.mu.Lock()
	defer l.c.mu.Unlock()
	l.x.req.Write(p)
}

func (l *lockedExchange) Response(p []byte) {
	l.c.mu.Lock()
	defer l.c.mu.Unlock()
	l.x.resp.Write(p)
}

func (l *lockedExchange) End(err error) {
	l.c.mu.Lock()
	defer l.c.mu.Unlock()
	l.x.ended, l.x.err = true, err
}

// archivingClient is a Client that goes direct and archives into a.
func archivingClient(t *testing.T, a fetch.Archive, setup func(*fetch.Client)) *fetch.Client {
	t.Helper()
	c := &fetch.Client{Proxy: fetch.NoProxy, Archive: a}
	if setup != nil {
		setup(c)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// wireServer is an HTTP/1.1 server that logs each request's head as it
// read it and the bytes it wrote, for comparison with a capture.
type wireServer struct {
	url, addr string
	mu        sync.Mutex
	log       [][2]string
}

// newWireServer starts a wireServer, over TLS when tc is not nil, whose
// answer to a request line is answer's; close ends the connection after.
func newWireServer(t *testing.T, tc *tls.Config, answer func(line string) (resp string, close bool)) *wireServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &wireServer{url: "http://" + ln.Addr().String(), addr: ln.Addr().String()}
	if tc != nil {
		s.url = "https://" + ln.Addr().String()
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if tc != nil {
				c = tls.Server(c, tc)
			}
			go s.serve(c, answer)
		}
	}()
	return s
}

func (s *wireServer) serve(c net.Conn, answer func(string) (string, bool)) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		var head []byte
		for {
			l, err := br.ReadSlice('\n')
			head = append(head, l...)
			if err != nil {
				return
			}
			if string(l) == "\r\n" {
				break
			}
		}
		line, _, _ := strings.Cut(string(head), "\r\n")
		resp, end := answer(line)
		s.mu.Lock()
		s.log = append(s.log, [2]string{string(head), resp})
		s.mu.Unlock()
		if _, err := io.WriteString(c, resp); err != nil || end {
			return
		}
	}
}

func (s *wireServer) exchanges() [][2]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// wireAnswer answers by path (the query aside): a redirect, a chunked
// body, a short body.
func wireAnswer(line string) (string, bool) {
	if m, rest, ok := strings.Cut(line, " "); ok {
		target, proto, _ := strings.Cut(rest, " ")
		target, _, _ = strings.Cut(target, "?")
		line = m + " " + target + " " + proto
	}
	switch {
	case strings.Contains(line, " /redirect "):
		return "HTTP/1.1 302 Found\r\nLocation: /chunked\r\nContent-Length: 0\r\n\r\n", false
	case strings.Contains(line, " /chunked "):
		return "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n", false
	case strings.Contains(line, " /short "):
		return "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b", true
	case strings.Contains(line, " /long "):
		return "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n0123456789abcdefghij", false
	case strings.Contains(line, " /busy "):
		return "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy", false
	}
	return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false
}

// sameExchanges checks that the captured exchanges hold exactly the bytes
// the server read and wrote, in order, each ended whole.
func sameExchanges(t *testing.T, got []*memExchange, want [][2]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d exchanges captured, server saw %d", len(got), len(want))
	}
	for i, x := range got {
		if x.req.String() != want[i][0] || x.resp.String() != want[i][1] {
			t.Errorf("exchange %d:\nrequest  %q\nserver read  %q\nresponse %q\nserver wrote %q", i, x.req.String(), want[i][0], x.resp.String(), want[i][1])
		}
		if !x.ended || x.err != nil {
			t.Errorf("exchange %d: ended %v with %v", i, x.ended, x.err)
		}
	}
}

// TestCaptureHTTP: a redirect and its chunked target are two exchanges,
// byte for byte as the server read and wrote them; the body the caller
// reads is the capture's too; a password in the URL reaches no record.
func TestCaptureHTTP(t *testing.T) {
	srvTLS, cliTLS := captureTLS(t)
	for _, tc := range []*tls.Config{nil, srvTLS} {
		s := newWireServer(t, tc, wireAnswer)
		var a memArchive
		// Byte for byte: the Authorization the URL's userinfo makes is
		// kept (TestCaptureCredentialsMasked masks it).
		c := archivingClient(t, &a, func(c *fetch.Client) { c.TLSConfig, c.ArchiveCredentials = cliTLS, true })
		u := strings.Replace(s.url, "://", "://joe:pa55word@", 1) + "/redirect"
		res, err := c.Fetch(testCtx(t), u)
		if err != nil {
			t.Fatal(err)
		}
		if body := readBody(t, res); string(body) != "hello, world" {
			t.Errorf("body %q", body)
		}
		cp := a.only(t)
		if err := cp.ended(t); err != nil {
			t.Errorf("end: %v", err)
		}
		sameExchanges(t, cp.exchanges, s.exchanges())
		if cp.body.String() != "hello, world" || cp.res.ContentType != "text/plain" || cp.res.StatusCode != 200 {
			t.Errorf("capture: body %q, type %q, status %d", cp.body.String(), cp.res.ContentType, cp.res.StatusCode)
		}
		if want := strings.Replace(s.url, "://", "://joe@", 1) + "/redirect"; cp.target != want {
			t.Errorf("target %q, want %q", cp.target, want)
		}
		if len(cp.exchanges) == 2 && (cp.exchanges[1].target != s.url+"/chunked" || cp.exchanges[0].remote != s.addr) {
			t.Errorf("exchanges to %q on %q", cp.exchanges[1].target, cp.exchanges[0].remote)
		}
		cp.holds(t, "pa55word")
	}
}

// TestCaptureHTTPNoH2: a server that offers h2 is spoken to in HTTP/1.1
// while archiving, and the exchange is captured.
func TestCaptureHTTPNoH2(t *testing.T) {
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Proto)
	}))
	s.EnableHTTP2 = true
	s.StartTLS()
	t.Cleanup(s.Close)
	for _, archive := range []bool{false, true} {
		var a memArchive
		c := &fetch.Client{Proxy: fetch.NoProxy, TLSConfig: trusting(s.Certificate())}
		if archive {
			c.Archive = &a
		}
		res, err := c.Fetch(testCtx(t), s.URL+"/")
		if err != nil {
			t.Fatal(err)
		}
		body := string(readBody(t, res))
		c.Close()
		want := map[bool]string{false: "HTTP/2.0", true: "HTTP/1.1"}[archive]
		if body != want {
			t.Errorf("archive %v: the server saw %s, want %s", archive, body, want)
		}
		if archive {
			cp := a.only(t)
			if len(cp.exchanges) != 1 || !strings.HasPrefix(cp.exchanges[0].req.String(), "GET / HTTP/1.1\r\n") || !strings.HasSuffix(cp.exchanges[0].resp.String(), "\r\n\r\nHTTP/1.1") {
				t.Errorf("exchanges %+v", cp.exchanges)
			}
		}
	}
}

// TestCaptureHTTPSProxyTunnel: through a CONNECT proxy, the CONNECT is an
// exchange with the proxy, and the tunnelled one holds the decrypted
// bytes the server read and wrote.
func TestCaptureHTTPSProxyTunnel(t *testing.T) {
	srvTLS, cliTLS := captureTLS(t)
	s := newWireServer(t, srvTLS, wireAnswer)
	p := proxytest.NewHTTPProxy(false)
	t.Cleanup(p.Close)
	var a memArchive
	c := archivingClient(t, &a, func(c *fetch.Client) {
		c.Proxy = fetch.ProxyURL(mustProxy(t, p.URL), "")
		c.TLSConfig = cliTLS
	})
	cp := fetchCaptured(t, c, &a, s.url+"/chunked")
	if len(cp.exchanges) != 2 {
		t.Fatalf("%d exchanges, want the CONNECT and the GET", len(cp.exchanges))
	}
	proxyAddr := strings.TrimPrefix(p.URL, "http://")
	if x := cp.exchanges[0]; !strings.HasPrefix(x.req.String(), "CONNECT "+s.addr+" HTTP/1.1\r\n") || !strings.HasPrefix(x.resp.String(), "HTTP/1.1 200") || x.target != s.addr || x.remote != proxyAddr {
		t.Errorf("CONNECT exchange to %q on %q: %q / %q", x.target, x.remote, x.req.String(), x.resp.String())
	}
	sameExchanges(t, cp.exchanges[1:], s.exchanges())
	if cp.exchanges[1].remote != proxyAddr {
		t.Errorf("tunnelled exchange on %q, want the proxy's %q", cp.exchanges[1].remote, proxyAddr)
	}
}

// TestCaptureHTTPProxy: an http: URL through a proxy is one exchange with
// the proxy, the request in absolute form, the response as the proxy
// wrote it.
func TestCaptureHTTPProxy(t *testing.T) {
	s := newWireServer(t, nil, wireAnswer)
	p := proxytest.NewHTTPProxy(false)
	t.Cleanup(p.Close)
	var a memArchive
	c := archivingClient(t, &a, func(c *fetch.Client) { c.Proxy = fetch.ProxyURL(mustProxy(t, p.URL), "") })
	cp := fetchCaptured(t, c, &a, s.url+"/chunked")
	if len(cp.exchanges) != 1 {
		t.Fatalf("%d exchanges", len(cp.exchanges))
	}
	x := cp.exchanges[0]
	if !strings.HasPrefix(x.req.String(), "GET "+s.url+"/chunked HTTP/1.1\r\n") || !strings.HasPrefix(x.resp.String(), "HTTP/1.1 200 OK\r\n") ||
		!strings.Contains(x.resp.String(), "hello") || x.remote != strings.TrimPrefix(p.URL, "http://") {
		t.Errorf("exchange on %q: %q / %q", x.remote, x.req.String(), x.resp.String())
	}
}

// TestCaptureTruncated: a body the server cuts short ends the capture
// with a truncation and the bytes that came; one the caller closes early
// ends it as cut by the caller, with the bytes read.
func TestCaptureTruncated(t *testing.T) {
	s := newWireServer(t, nil, wireAnswer)
	var a memArchive
	c := archivingClient(t, &a, nil)
	res, err := c.Fetch(testCtx(t), s.url+"/short")
	if err != nil {
		t.Fatal(err)
	}
	got, rerr := io.ReadAll(res.Body)
	res.Body.Close()
	if string(got) != "only ten b" || !errors.Is(rerr, schemes.ErrTruncated) {
		t.Fatalf("read %q, %v", got, rerr)
	}
	cp := a.only(t)
	if err := cp.ended(t); !errors.Is(err, schemes.ErrTruncated) || cp.body.String() != "only ten b" {
		t.Errorf("end %v with body %q", err, cp.body.String())
	}
	if x := cp.exchanges[0]; !strings.HasSuffix(x.resp.String(), "only ten b") || x.err == nil {
		t.Errorf("exchange %q ended with %v", x.resp.String(), x.err)
	}

	var b memArchive
	c = archivingClient(t, &b, nil)
	res, err = c.Fetch(testCtx(t), s.url+"/long")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	n, _ := io.ReadFull(res.Body, buf)
	res.Body.Close()
	cp = b.only(t)
	if err := cp.ended(t); !errors.Is(err, schemes.ErrTruncated) || cp.body.String() != string(buf[:n]) {
		t.Errorf("closed early: end %v with body %q", err, cp.body.String())
	}
}

// TestCaptureRetries: each attempt is a capture of its own; the one
// retried ends cut, the last whole.
func TestCaptureRetries(t *testing.T) {
	var n int
	var mu sync.Mutex
	s := newWireServer(t, nil, func(line string) (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 1 {
			return wireAnswer("GET /busy HTTP/1.1")
		}
		return wireAnswer("GET /long HTTP/1.1")
	})
	var a memArchive
	c := archivingClient(t, &a, func(c *fetch.Client) { c.Retries, c.RetryDelay = 1, time.Millisecond })
	res, err := c.Fetch(testCtx(t), s.url+"/x")
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, res)
	cs := a.all()
	if len(cs) != 2 {
		t.Fatalf("%d captures, want one per attempt", len(cs))
	}
	// The 503 fails the attempt (the http fetcher's default, curl's -f
	// aside, is an error for a status it retries).
	if err := cs[0].ended(t); err == nil || err != cs[0].fetchErr || !strings.Contains(err.Error(), "503") {
		t.Errorf("first attempt: end %v", err)
	}
	if err := cs[1].ended(t); err != nil || cs[1].body.String() != "0123456789abcdefghij" {
		t.Errorf("second attempt: end %v, body %q", err, cs[1].body.String())
	}
	sameExchanges(t, slices.Concat(cs[0].exchanges, cs[1].exchanges), s.exchanges())
}

// TestCaptureFailure: a fetch that fails is captured with its error.
func TestCaptureFailure(t *testing.T) {
	s := newWireServer(t, nil, func(string) (string, bool) { return "HTTP/1.1 200 OK\r\nBad\x00Field: x\r\n\r\n", true })
	var a memArchive
	c := archivingClient(t, &a, nil)
	_, err := c.Fetch(testCtx(t), s.url+"/")
	if err == nil {
		t.Fatal("no error")
	}
	cp := a.only(t)
	if end := cp.ended(t); end == nil || cp.fetchErr == nil || cp.res != nil {
		t.Errorf("end %v, fetched %v %v", end, cp.res, cp.fetchErr)
	}
}

// rawOf fetches url's listing as the server's own bytes (--raw-listing),
// with a Client that archives nothing.
func rawOf(t *testing.T, url string) []byte {
	t.Helper()
	c := &fetch.Client{Proxy: fetch.NoProxy}
	defer c.Close()
	u, err := fetch.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Do(testCtx(t), fetch.Request{URL: u, Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	return readBody(t, res)
}

// captureListing fetches the listing url names with a Client archiving
// into a memArchive, reads it to its end, and returns its one capture,
// checked to have ended whole.
func captureListing(t *testing.T, url string) *memCapture {
	t.Helper()
	var a memArchive
	c := archivingClient(t, &a, nil)
	res, err := c.Fetch(testCtx(t), url)
	if err != nil {
		t.Fatal(err)
	}
	readEntries(t, res)
	cp := a.only(t)
	if err := cp.ended(t); err != nil {
		t.Errorf("%s: end %v", url, err)
	}
	return cp
}

// TestCaptureFTP: the control conversation with the password masked, the
// addresses dialled, a LIST's bytes as the server sent them, and a file's
// body.
func TestCaptureFTP(t *testing.T) {
	s := newFTPServer(t, nil)
	raw := string(rawOf(t, "ftp://user:secret@"+s.Addr+"/rel/"))
	var a memArchive
	c := archivingClient(t, &a, nil)
	res, err := c.Fetch(testCtx(t), "ftp://user:secret@"+s.Addr+"/rel/")
	if err != nil {
		t.Fatal(err)
	}
	if es := readEntries(t, res); len(es) != 1 || es[0].Name != "file" {
		t.Errorf("entries %+v", es)
	}
	res, err = c.Fetch(testCtx(t), "ftp://user:secret@"+s.Addr+"/rel/file")
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, res)
	cs := a.all()
	if len(cs) != 2 {
		t.Fatalf("%d captures", len(cs))
	}
	for _, cp := range cs {
		if err := cp.ended(t); err != nil {
			t.Errorf("%s: %v", cp.target, err)
		}
		cp.holds(t, "secret")
		if len(cp.remotes) == 0 || cp.remotes[0] != s.Addr {
			t.Errorf("%s: connected to %v", cp.target, cp.remotes)
		}
	}
	if cs[0].listing.String() != raw || raw == "" {
		t.Errorf("listing captured %q, the server's %q", cs[0].listing.String(), raw)
	}
	if !cs[0].has("> PASS ****") || !cs[0].has("> USER user") || cs[0].target != "ftp://user@"+s.Addr+"/rel/" {
		t.Errorf("%s: lines %q", cs[0].target, cs[0].lines)
	}
	if cs[1].body.String() != "relative to the login directory\n" || cs[1].listing.Len() != 0 || !slices.ContainsFunc(cs[1].lines, func(l string) bool { return strings.HasPrefix(l, "> RETR ") }) {
		t.Errorf("file: body %q, listing %q, lines %q", cs[1].body.String(), cs[1].listing.String(), cs[1].lines)
	}
}

// TestCaptureGopher: the selector sent and the menu's bytes as the server
// sent them, its "." line included.
func TestCaptureGopher(t *testing.T) {
	s := gopherServer(t, gophertest.Menu(
		gophertest.Info("welcome"),
		gophertest.Item{Type: '0', Display: "About", Selector: "/about"},
	))
	cp := captureListing(t, s.URL+"/1/menu")
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if want := "> " + strings.TrimSuffix(string(reqs[0].Raw), "\r\n"); !cp.has(want) {
		t.Errorf("lines %q lack %q", cp.lines, want)
	}
	raw := string(rawOf(t, s.URL+"/1/menu"))
	if cp.listing.String() != raw || !strings.HasSuffix(raw, ".\r\n") {
		t.Errorf("menu captured %q, the server's %q", cp.listing.String(), raw)
	}
	if len(cp.remotes) != 1 || cp.remotes[0] != strings.TrimPrefix(s.URL, "gopher://") {
		t.Errorf("connected to %v", cp.remotes)
	}
}

// TestCaptureGopherCut: a menu cut short ends the capture as truncated,
// with the bytes that came.
func TestCaptureGopherCut(t *testing.T) {
	s := gopherServer(t, gophertest.Raw([]byte("iwelcome\tfake\t(NULL)\t0\r\n0About\t/about\tlocalhost\t70\r\n")))
	var a memArchive
	c := archivingClient(t, &a, nil)
	res, err := c.Fetch(testCtx(t), s.URL+"/1/menu")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := res.Listing.Next(); err != nil {
			break
		}
	}
	res.Listing.Close()
	cp := a.only(t)
	if err := cp.ended(t); !errors.Is(err, schemes.ErrTruncated) || !strings.HasPrefix(cp.listing.String(), "iwelcome") {
		t.Errorf("end %v, listing %q", err, cp.listing.String())
	}
}

// TestCaptureNews: the NNTP commands and status lines, AUTHINFO PASS
// masked, and the OVER lines as the server sent them.
func TestCaptureNews(t *testing.T) {
	cfg := newsConfig()
	cfg.User, cfg.Password = "reader", "s3cret"
	s := newNewsServer(t, cfg)
	cp := captureListing(t, "nntp://reader:s3cret@"+s.Addr+"/test.urlget")
	cp.holds(t, "s3cret")
	if !cp.has("> AUTHINFO PASS ****") || !slices.ContainsFunc(cp.lines, func(l string) bool { return strings.HasPrefix(l, "> OVER ") || strings.HasPrefix(l, "> XOVER ") }) {
		t.Errorf("lines %q", cp.lines)
	}
	// The block as it came: --raw-listing's lines, each ending in CRLF,
	// then the final "." line (RFC 3977 §3.1.1).
	raw := string(rawOf(t, "nntp://reader:s3cret@"+s.Addr+"/test.urlget"))
	if got := cp.listing.String(); got != strings.ReplaceAll(raw, "\n", "\r\n")+".\r\n" || strings.Count(raw, "\n") != len(newsArticles()) {
		t.Errorf("OVER block captured %q, the server's lines %q", got, raw)
	}
}

// TestCaptureWAIS: the search reply as the server sent it, as --raw-listing
// would give it.
func TestCaptureWAIS(t *testing.T) {
	s := waistest.NewServer(waistest.Config{Documents: waisDocs()})
	t.Cleanup(s.Close)
	raw := rawOf(t, s.URL+"?river")
	cp := captureListing(t, s.URL+"?river")
	if !bytes.Equal(cp.listing.Bytes(), raw) || len(raw) == 0 {
		t.Errorf("reply captured %d bytes, the server's %d", cp.listing.Len(), len(raw))
	}
	if !slices.ContainsFunc(cp.lines, func(l string) bool {
		return strings.HasPrefix(l, "> SearchRequest ") && strings.Contains(l, `seed="river"`)
	}) {
		t.Errorf("lines %q", cp.lines)
	}
}

// TestCaptureFile: a file: directory is captured as its entries' names,
// a file as its bytes.
func TestCaptureFile(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("file "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var a memArchive
	c := archivingClient(t, &a, nil)
	res, err := c.Fetch(testCtx(t), "file://"+filepath.ToSlash(dir)+"/")
	if err != nil {
		t.Fatal(err)
	}
	readEntries(t, res)
	res, err = c.Fetch(testCtx(t), "file://"+filepath.ToSlash(dir)+"/b.txt")
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, res)
	cs := a.all()
	if len(cs) != 2 {
		t.Fatalf("%d captures", len(cs))
	}
	names := strings.Split(strings.TrimSuffix(cs[0].listing.String(), "\n"), "\n")
	slices.Sort(names)
	if !slices.Equal(names, []string{"a.txt", "b.txt"}) || cs[0].ended(t) != nil {
		t.Errorf("directory captured as %q", names)
	}
	if cs[1].body.String() != "file b.txt" || cs[1].res.ContentType != "text/plain; charset=utf-8" && cs[1].res.ContentType != "text/plain" || cs[1].ended(t) != nil {
		t.Errorf("file captured as %q, type %q", cs[1].body.String(), cs[1].res.ContentType)
	}
}

// TestCaptureServerBytesAreData: CR and LF a server puts in its replies
// and content type reach the capture as data within one line or field,
// never as a line or record of their own: the sink decides what to do
// with them.
func TestCaptureServerBytesAreData(t *testing.T) {
	s := newFTPServer(t, nil)
	s.ReplyOnce("TYPE", "200 Type set\rWARC-Type: resource")
	var a memArchive
	c := archivingClient(t, &a, func(c *fetch.Client) {
		c.Fetchers = registryWith(&ftp.Fetcher{})
	})
	res, err := c.Fetch(testCtx(t), "ftp://"+s.Addr+"/etc/motd")
	if err == nil {
		readBody(t, res)
	}
	cp := a.only(t)
	cp.ended(t)
	for _, l := range cp.lines {
		if strings.HasPrefix(l, "WARC-Type") {
			t.Errorf("a server's bytes became a line of their own: %q", l)
		}
	}
	if !cp.has("< 200 Type set\rWARC-Type: resource") {
		t.Errorf("the reply is not one line of data: %q", cp.lines)
	}

	// A content type with a bare CR is refused by the wire layer or kept
	// whole as the field's value.
	h := newWireServer(t, nil, func(string) (string, bool) {
		return "HTTP/1.1 200 OK\r\nContent-Type: text/plain; x=\"a\rWARC-Type: metadata\"\r\nContent-Length: 2\r\n\r\nok", true
	})
	var b memArchive
	c = archivingClient(t, &b, nil)
	res, err = c.Fetch(testCtx(t), h.url+"/")
	if err == nil {
		readBody(t, res)
	}
	cp = b.only(t)
	cp.ended(t)
	if cp.res != nil && strings.ContainsAny(cp.res.ContentType, "\r\n") && !strings.Contains(cp.res.ContentType, "text/plain") {
		t.Errorf("content type %q", cp.res.ContentType)
	}
	if len(cp.exchanges) != 1 || !strings.Contains(cp.exchanges[0].resp.String(), "a\rWARC-Type") {
		t.Errorf("the response's bytes are not captured as they came: %+v", cp.exchanges)
	}
}

// TestCaptureConcurrent: fetches from several goroutines through one
// Client each get their own capture, whole.
func TestCaptureConcurrent(t *testing.T) {
	s := newWireServer(t, nil, wireAnswer)
	var a memArchive
	c := archivingClient(t, &a, nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.Fetch(testCtx(t), s.url+"/long?"+strconv.Itoa(i))
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}()
	}
	wg.Wait()
	cs := a.all()
	if len(cs) != 8 {
		t.Fatalf("%d captures", len(cs))
	}
	for _, cp := range cs {
		if err := cp.ended(t); err != nil || cp.body.String() != "0123456789abcdefghij" || len(cp.exchanges) != 1 ||
			!strings.Contains(cp.exchanges[0].req.String(), strings.TrimPrefix(cp.target, s.url)+" HTTP/1.1") {
			t.Errorf("%s: end %v, body %q, %d exchanges", cp.target, err, cp.body.String(), len(cp.exchanges))
		}
	}
}

// TestCaptureNilArchive: without an Archive the fetcher gets the
// Client's own Trace (none here) and no Capture: nothing is captured and
// nothing is wrapped. With one, a gopher fetch's lines go to it.
func TestCaptureNilArchive(t *testing.T) {
	var seen []*schemes.Request
	f := schemes.FetcherFunc(func(_ context.Context, req *schemes.Request) (*schemes.Resource, error) {
		seen = append(seen, req)
		return &schemes.Resource{Body: io.NopCloser(strings.NewReader("x")), Size: 1}, nil
	})
	for _, archive := range []bool{false, true} {
		var a memArchive
		c := &fetch.Client{Fetchers: map[string]schemes.Fetcher{"gopher": f}, Proxy: fetch.NoProxy}
		if archive {
			c.Archive = &a
		}
		res, err := c.Fetch(testCtx(t), "gopher://127.0.0.1:1/0x")
		if err != nil {
			t.Fatal(err)
		}
		readBody(t, res)
		req := seen[len(seen)-1]
		if (req.Capture != nil) != archive || (req.Trace != nil) != archive {
			t.Errorf("archive %v: capture %v, trace %v", archive, req.Capture != nil, req.Trace != nil)
		}
		if got := len(a.all()); got != map[bool]int{false: 0, true: 1}[archive] {
			t.Errorf("archive %v: %d captures", archive, got)
		}
		if archive && a.only(t).body.String() != "x" {
			t.Errorf("body %q", a.only(t).body.String())
		}
	}
}

// captureTLS returns a server TLS configuration for 127.0.0.1 and a
// client one that trusts it: net/http/httptest's certificate.
func captureTLS(t *testing.T) (srv, cli *tls.Config) {
	t.Helper()
	s := httptest.NewTLSServer(http.NotFoundHandler())
	srv = s.TLS.Clone()
	srv.NextProtos = nil
	cli = trusting(s.Certificate())
	s.Close()
	return srv, cli
}

// TestCapturePipelined: requests told ahead (Client.Expect) go out
// together on one pipeline, and each fetch's capture holds its own
// exchange, as the server read and wrote it, though it was sent during
// an earlier fetch.
func TestCapturePipelined(t *testing.T) {
	var conns sync.Map
	s := newWireServer(t, nil, wireAnswer)
	var a memArchive
	c := archivingClient(t, &a, func(c *fetch.Client) {
		c.Dialer = dialFunc(func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err == nil {
				conns.Store(nc.LocalAddr().String(), true)
			}
			return nc, err
		})
	})
	var reqs []fetch.Request
	for i := range 3 {
		u, err := fetch.ParseURL(s.url + "/long?" + strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, fetch.Request{URL: u})
	}
	c.Expect(reqs, true)
	for _, r := range reqs {
		res, err := c.Do(testCtx(t), r)
		if err != nil {
			t.Fatal(err)
		}
		readBody(t, res)
	}
	n := 0
	conns.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Errorf("%d connections, want the one pipeline", n)
	}
	cs := a.all()
	if len(cs) != 3 {
		t.Fatalf("%d captures", len(cs))
	}
	var xs []*memExchange
	for i, cp := range cs {
		if err := cp.ended(t); err != nil || len(cp.exchanges) != 1 || cp.target != reqs[i].URL.String() {
			t.Fatalf("capture %d of %s: end %v, %d exchanges", i, cp.target, err, len(cp.exchanges))
		}
		if !strings.Contains(cp.exchanges[0].req.String(), "/long?"+strconv.Itoa(i)+" ") {
			t.Errorf("capture %d holds the request %q", i, cp.exchanges[0].req.String())
		}
		xs = append(xs, cp.exchanges...)
	}
	sameExchanges(t, xs, s.exchanges())
}

// dialFunc adapts a function to schemes.Dialer.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (f dialFunc) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f(ctx, network, addr)
}

// TestCaptureWithRecorder: the http fetcher's Recorder (curl's --trace)
// and an archive's capture each get every exchange, the same bytes.
func TestCaptureWithRecorder(t *testing.T) {
	s := newWireServer(t, nil, wireAnswer)
	trace := &memCapture{}
	var a memArchive
	c := archivingClient(t, &a, func(c *fetch.Client) {
		c.Fetchers = registryWith(&httpscheme.Fetcher{Recorder: trace})
	})
	cp := fetchCaptured(t, c, &a, s.url+"/redirect")
	sameExchanges(t, cp.exchanges, s.exchanges())
	sameExchanges(t, trace.exchanges, s.exchanges())
}

// TestCaptureCredentialsMasked: the Authorization and Cookie fields of an
// archived request are masked, unless ArchiveCredentials keeps them; the
// server got them whole either way.
func TestCaptureCredentialsMasked(t *testing.T) {
	s := newWireServer(t, nil, wireAnswer)
	for _, keep := range []bool{false, true} {
		var a memArchive
		c := archivingClient(t, &a, func(c *fetch.Client) {
			c.User = url.UserPassword("joe", "pa55word")
			c.ArchiveCredentials = keep
			c.Fetchers = registryWith(&httpscheme.Fetcher{Header: []httpscheme.Field{{Name: "Cookie", Value: "sid=c00kie; theme=dark"}}})
		})
		res, err := c.Fetch(testCtx(t), s.url+"/long")
		if err != nil {
			t.Fatal(err)
		}
		readBody(t, res)
		cp := a.only(t)
		cp.ended(t)
		xs := s.exchanges()
		sent := xs[len(xs)-1]
		basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("joe:pa55word"))
		if !strings.Contains(sent[0], "Authorization: "+basic+"\r\n") || !strings.Contains(sent[0], "Cookie: sid=c00kie; theme=dark\r\n") {
			t.Fatalf("the server got %q", sent[0])
		}
		if keep {
			sameExchanges(t, cp.exchanges, xs[len(xs)-1:])
			continue
		}
		if want := strings.NewReplacer(basic, "Basic ****", "sid=c00kie; theme=dark", "sid=****; theme=****").Replace(sent[0]); cp.exchanges[0].req.String() != want {
			t.Errorf("archived request %q, want %q", cp.exchanges[0].req.String(), want)
		}
		cp.holds(t, "c00kie")
		cp.holds(t, basic)
	}
}

// TestCaptureWriteTo: a body copied with io.Copy (its WriteTo) is
// captured whole, and a destination that fails ends the capture with the
// write's error, which io.Copy returns as it would without an archive.
func TestCaptureWriteTo(t *testing.T) {
	s := newWireServer(t, nil, wireAnswer)
	var a memArchive
	c := archivingClient(t, &a, nil)
	res, err := c.Fetch(testCtx(t), s.url+"/long")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := io.Copy(&out, res.Body); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	res, err = c.Fetch(testCtx(t), s.url+"/long")
	if err != nil {
		t.Fatal(err)
	}
	_, werr := io.Copy(failingWriter{}, res.Body)
	var plain fetch.Client
	plain.Proxy = fetch.NoProxy
	defer plain.Close()
	pres, err := plain.Fetch(testCtx(t), s.url+"/long")
	if err != nil {
		t.Fatal(err)
	}
	_, perr := io.Copy(failingWriter{}, pres.Body)
	pres.Body.Close()
	res.Body.Close()
	cs := a.all()
	if len(cs) != 2 {
		t.Fatalf("%d captures", len(cs))
	}
	if err := cs[0].ended(t); err != nil || cs[0].body.String() != out.String() || out.String() != "0123456789abcdefghij" {
		t.Errorf("copied %q, captured %q, end %v", out.String(), cs[0].body.String(), err)
	}
	if err := cs[1].ended(t); err == nil || werr == nil || err.Error() != werr.Error() || werr.Error() != perr.Error() {
		t.Errorf("failed copy: %v (without an archive %v), end %v", werr, perr, err)
	}
}

// failingWriter refuses every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
