package http

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// rawServer is an HTTP/1.1 server on 127.0.0.1 written byte by byte: it
// reads each request's head as it comes and writes the answer given for
// its request line as is, and logs both, so that a test can compare them
// with what the client wrote, read and recorded.
type rawServer struct {
	url   string
	mu    sync.Mutex
	log   []rawExchange
	conns int
}

type rawExchange struct{ req, resp []byte }

// newRawServer starts a rawServer; tc, when not nil, puts TLS under it.
// answer gives the response bytes for a request line; close ends the
// connection after them.
func newRawServer(t *testing.T, tc *tls.Config, answer func(line string) (resp string, close bool)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	scheme := "http"
	if tc != nil {
		scheme = "https"
	}
	s := &rawServer{url: scheme + "://" + ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
			if tc != nil {
				c = tls.Server(c, tc)
			}
			go s.serve(c, answer)
		}
	}()
	return s
}

func (s *rawServer) serve(c net.Conn, answer func(string) (string, bool)) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		head, err := readRequestHead(br)
		if err != nil {
			return
		}
		line, _, _ := strings.Cut(string(head), "\r\n")
		resp, end := answer(line)
		s.mu.Lock()
		s.log = append(s.log, rawExchange{head, []byte(resp)})
		s.mu.Unlock()
		if _, err := io.WriteString(c, resp); err != nil || end {
			return
		}
	}
}

func (s *rawServer) exchanges() []rawExchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func (s *rawServer) connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// readRequestHead reads a request head through its empty line, as sent.
func readRequestHead(br *bufio.Reader) ([]byte, error) {
	var head []byte
	for {
		l, err := br.ReadSlice('\n')
		head = append(head, l...)
		if err != nil {
			return nil, err
		}
		if string(l) == "\r\n" {
			return head, nil
		}
	}
}

// fixed answers every request with resp.
func fixed(resp string) func(string) (string, bool) {
	return func(string) (string, bool) { return resp, false }
}

// recorder keeps what a Recorder is given.
type recorder struct {
	mu sync.Mutex
	xs []*recorded
}

type recorded struct {
	target    string
	remote    net.Addr
	req, resp bytes.Buffer
	ended     bool
	err       error
}

func (r *recorder) Exchange(target string, remote net.Addr) Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	x := &recorded{target: target, remote: remote}
	r.xs = append(r.xs, x)
	return x
}

func (r *recorder) all() []*recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.xs)
}

func (x *recorded) Request(p []byte)  { x.req.Write(p) }
func (x *recorded) Response(p []byte) { x.resp.Write(p) }
func (x *recorded) End(err error)     { x.ended, x.err = true, err }

func rawRequest(t *testing.T, u string) *schemes.Request {
	t.Helper()
	return &schemes.Request{URL: uri.MustParse(u), Dialer: &net.Dialer{}}
}

// get fetches u and reads the body whole.
func get(t *testing.T, f *Fetcher, req *schemes.Request) (*schemes.Resource, []byte, error) {
	t.Helper()
	res, err := f.Fetch(context.Background(), req)
	if err != nil {
		return nil, nil, err
	}
	if res.Body == nil {
		return res, nil, nil
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

func wantKind(t *testing.T, err error, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error %v, want %v", err, kind)
	}
}

// TestHeaderOrderAndSpelling checks that the request goes out with its
// fields in the order built (RFC 9112 §3, §5), Host first, the Fetcher's
// Header fields last in the order given and spelled as given, a default
// field they name left out and an empty one written "Name:" as curl's -H
// writes them, and that
// the response's fields come back in the server's order and spelling,
// duplicates kept, the status apart from them.
func TestHeaderOrderAndSpelling(t *testing.T) {
	s := newRawServer(t, nil, fixed("HTTP/1.1 200 OK\r\nZeta: 1\r\nETag: \"x\"\r\nalpha: a\r\nX-Dup: 1\r\nx-dup: 2\r\nContent-Length: 2\r\n\r\nok"))
	f := &Fetcher{Header: []Field{{"X-B", "2"}, {"accept", "text/x"}, {"x-a", "1"}, {"X-B", "0"}, {"X-E", ""}}, Referer: "http://ref/"}
	defer f.Close()
	req := rawRequest(t, s.url+"/p?q")
	res, body, err := get(t, f, req)
	if err != nil || string(body) != "ok" {
		t.Fatalf("body %q, %v", body, err)
	}
	want := [][2]string{{"Zeta", "1"}, {"ETag", `"x"`}, {"alpha", "a"}, {"X-Dup", "1"}, {"x-dup", "2"}, {"Content-Length", "2"}}
	if got := res.Header; !slices.Equal(got, want) {
		t.Errorf("fields %q, want %q", got, want)
	}
	if res.Proto != "HTTP/1.1" || res.StatusCode != 200 || res.Status != "200 OK" || res.ETag != `"x"` {
		t.Errorf("status %q %d %q, ETag %q", res.Proto, res.StatusCode, res.Status, res.ETag)
	}
	host := strings.TrimPrefix(s.url, "http://")
	wantReq := "GET /p?q HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: urlget\r\nReferer: http://ref/\r\nX-B: 2\r\naccept: text/x\r\nx-a: 1\r\nX-B: 0\r\nX-E:\r\n\r\n"
	if got := string(s.exchanges()[0].req); got != wantReq {
		t.Errorf("request %q, want %q", got, wantReq)
	}
}

// TestObsFold checks that a field folded over lines (obs-fold) reads as
// one value with the folds replaced by a space (RFC 9112 §5.2), and that a
// fold before any field, or a space before a field's colon (§5.1), is a
// protocol error.
func TestObsFold(t *testing.T) {
	s := newRawServer(t, nil, fixed("HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\n\tc\r\nContent-Length: 0\r\n\r\n"))
	f := &Fetcher{}
	defer f.Close()
	res, _, err := get(t, f, rawRequest(t, s.url+"/"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Header[0]; got != [2]string{"X-Long", "a b c"} {
		t.Errorf("folded field %q", got)
	}
	for _, bad := range []string{
		"HTTP/1.1 200 OK\r\n folded: first\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-Bad : v\r\n\r\n",
		"HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-CR: a\rb\r\n\r\n",
		"HTTP/1.1 2000 OK\r\n\r\n",
		"HTTP/2.0 200 OK\r\n\r\n",
		"ICY 200 OK\r\n\r\n",
	} {
		s := newRawServer(t, nil, fixed(bad))
		_, _, err := get(t, f, rawRequest(t, s.url+"/"))
		if !errors.Is(err, schemes.ErrProtocol) {
			t.Errorf("%q: error %v, want a protocol error", bad, err)
		}
	}
}

func gzipped(t *testing.T, s string) string {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	io.WriteString(z, s)
	z.Close()
	return b.String()
}

// TestFraming checks the rules of RFC 9112 §6.3 for where a body ends:
// Transfer-Encoding over Content-Length (and then no reuse of the
// connection), Content-Length lists of one value, conflicting or negative
// lengths refused, a body that ends with the connection, transfer codings
// decoded or refused, and no body after HEAD, 204 or 304.
func TestFraming(t *testing.T) {
	gz := gzipped(t, "zipped")
	for _, tc := range []struct {
		name, resp string
		head       bool
		body       string
		err        error
		reused     bool // a second request goes on the same connection
		closes     bool // the server ends the body with the connection
	}{
		{name: "length", resp: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", body: "hello", reused: true},
		{name: "chunked", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n2;ext=1\r\nlo\r\n0\r\n\r\n", body: "hello", reused: true},
		{name: "both", resp: "HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", body: "hello"},
		{name: "repeated length", resp: "HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\nContent-Length: 5\r\n\r\nhello", body: "hello", reused: true},
		{name: "conflicting lengths", resp: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", err: schemes.ErrProtocol},
		{name: "negative length", resp: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", err: schemes.ErrProtocol},
		{name: "signed length", resp: "HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello", err: schemes.ErrProtocol},
		{name: "close delimited", resp: "HTTP/1.1 200 OK\r\n\r\nuntil the end", body: "until the end", closes: true},
		{name: "gzip transfer coding", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" + chunk(gz) + "0\r\n\r\n", body: "zipped", reused: true},
		{name: "gzip not chunked", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n" + gz, body: "zipped", closes: true},
		{name: "unknown transfer coding", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: br, chunked\r\n\r\n0\r\n\r\n", err: schemes.ErrProtocol},
		{name: "bad chunk size", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", err: schemes.ErrProtocol},
		{name: "head", head: true, resp: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", reused: true},
		{name: "204", resp: "HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n", reused: true},
		{name: "interim", resp: "HTTP/1.1 103 Early Hints\r\nLink: </s>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", body: "ok", reused: true},
		{name: "http/1.0", resp: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", body: "ok"},
		{name: "http/1.0 keep-alive", resp: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", body: "ok", reused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRawServer(t, nil, func(string) (string, bool) { return tc.resp, tc.closes })
			f := &Fetcher{}
			defer f.Close()
			req := rawRequest(t, s.url+"/")
			req.Head = tc.head
			res, body, err := get(t, f, req)
			if tc.err != nil {
				wantKind(t, err, tc.err)
				return
			}
			if err != nil || string(body) != tc.body {
				t.Fatalf("body %q, %v; want %q", body, err, tc.body)
			}
			if tc.head && res.Size != 100 {
				t.Errorf("HEAD size %d, want the Content-Length 100", res.Size)
			}
			get(t, f, req)
			if got := s.connections() == 1; got != tc.reused {
				t.Errorf("%d connections for two requests; reuse wanted: %v", s.connections(), tc.reused)
			}
		})
	}
}

func chunk(s string) string {
	return strings.ToUpper(strconvHex(len(s))) + "\r\n" + s + "\r\n"
}

func strconvHex(n int) string {
	const digits = "0123456789abcdef"
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 16 {
		b = append([]byte{digits[n%16]}, b...)
	}
	return string(b)
}

// TestTrailers checks that a chunked body's trailer section is read
// (RFC 9112 §7.1.2), so that the body ends where it should and the
// connection serves the next request.
func TestTrailers(t *testing.T) {
	s := newRawServer(t, nil, fixed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n4\r\nbody\r\n0\r\nX-Sum: abc\r\nX-More: d\r\n\r\n"))
	f := &Fetcher{}
	defer f.Close()
	for range 2 {
		res, err := f.Fetch(context.Background(), rawRequest(t, s.url+"/"))
		if err != nil {
			t.Fatal(err)
		}
		b := res.Body.(*body)
		data, err := io.ReadAll(b)
		if err != nil || string(data) != "body" {
			t.Fatalf("body %q, %v", data, err)
		}
		cb := b.rc.(*connBody).rc.(*chunkedBody)
		if want := [][2]string{{"X-Sum", "abc"}, {"X-More", "d"}}; !slices.Equal(cb.trailer, want) {
			t.Errorf("trailer %q, want %q", cb.trailer, want)
		}
		b.Close()
	}
	if n := s.connections(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

// TestTruncated checks that a server closing the connection within the
// header, within a chunk or before Content-Length bytes fails the
// transfer as truncated.
func TestTruncated(t *testing.T) {
	for _, resp := range []string{
		"HTTP/1.1 200 OK\r\nContent-Le",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nonly some",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nbody\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
	} {
		s := newRawServer(t, nil, func(string) (string, bool) { return resp, true })
		f := &Fetcher{}
		_, _, err := get(t, f, rawRequest(t, s.url+"/"))
		f.Close()
		if !errors.Is(err, schemes.ErrTruncated) {
			t.Errorf("%q: error %v, want truncated", resp, err)
		}
	}
}

// checkRecorded compares what the recorder saw with what the server read
// and wrote, exchange by exchange.
func checkRecorded(t *testing.T, xs []*recorded, log []rawExchange) {
	t.Helper()
	if len(xs) != len(log) {
		t.Fatalf("%d exchanges recorded, the server saw %d", len(xs), len(log))
	}
	for i, x := range xs {
		if !bytes.Equal(x.req.Bytes(), log[i].req) {
			t.Errorf("exchange %d: recorded request %q, sent %q", i, x.req.Bytes(), log[i].req)
		}
		if !bytes.Equal(x.resp.Bytes(), log[i].resp) {
			t.Errorf("exchange %d: recorded response %q, sent %q", i, x.resp.Bytes(), log[i].resp)
		}
		if !x.ended || x.err != nil {
			t.Errorf("exchange %d: ended %v, %v", i, x.ended, x.err)
		}
	}
}

var recordedAnswers = []string{
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: raw\r\n\r\nfirst",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nsecond\r\n0\r\nX-T: 1\r\n\r\n",
	"HTTP/1.1 302 Found\r\nLocation: /third\r\nContent-Length: 4\r\n\r\nmove",
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nthird",
}

// answerByPath answers /first, /second, /redirect and /third with the
// responses of recordedAnswers.
func answerByPath(line string) (string, bool) {
	for i, p := range []string{"/first ", "/second ", "/redirect ", "/third "} {
		if strings.Contains(line, p) {
			return recordedAnswers[i], false
		}
	}
	return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false
}

// testTLS returns a server configuration with httptest's certificate and
// a client one that trusts it.
func testTLS(t *testing.T) (server, client *tls.Config) {
	s := httptest.NewUnstartedServer(nil)
	s.StartTLS()
	t.Cleanup(s.Close)
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	return &tls.Config{Certificates: s.TLS.Certificates}, &tls.Config{RootCAs: pool}
}

// TestRecorder checks that the Recorder sees each exchange's bytes exactly
// as the server read and wrote them, redirects and chunk framing included,
// on a plain connection and over TLS.
func TestRecorder(t *testing.T) {
	srvTLS, cliTLS := testTLS(t)
	for _, tc := range []*tls.Config{nil, srvTLS} {
		s := newRawServer(t, tc, answerByPath)
		rec := &recorder{}
		f := &Fetcher{Recorder: rec}
		for _, p := range []string{"/first", "/second", "/redirect"} {
			req := rawRequest(t, s.url+p)
			req.TLSConfig = cliTLS
			if _, _, err := get(t, f, req); err != nil {
				t.Fatal(err)
			}
		}
		f.Close()
		xs := rec.all()
		checkRecorded(t, xs, s.exchanges())
		if len(xs) == 4 && (xs[3].target != s.url+"/third" || xs[3].remote.String() != strings.TrimPrefix(strings.TrimPrefix(s.url, "http://"), "https://")) {
			t.Errorf("last exchange: target %q, remote %v", xs[3].target, xs[3].remote)
		}
	}
}

// TestTraceNotesOnly: with TraceNotesOnly the request's Trace gets the
// notes alone, not the request and response lines, which a Recorder has.
func TestTraceNotesOnly(t *testing.T) {
	s := newRawServer(t, nil, answerByPath)
	for _, notesOnly := range []bool{false, true} {
		var mu sync.Mutex
		dirs := map[schemes.Direction]int{}
		f := &Fetcher{Recorder: &recorder{}, TraceNotesOnly: notesOnly}
		req := rawRequest(t, s.url+"/redirect")
		req.Trace = func(dir schemes.Direction, line string) {
			mu.Lock()
			dirs[dir]++
			mu.Unlock()
		}
		if _, _, err := get(t, f, req); err != nil {
			t.Fatal(err)
		}
		f.Close()
		lines := dirs[schemes.Sent] + dirs[schemes.Received]
		if dirs[schemes.Info] == 0 || notesOnly != (lines == 0) {
			t.Errorf("notes only %v: traced %v", notesOnly, dirs)
		}
	}
}

// TestRecorderTunnel records an https fetch through a CONNECT proxy: the
// CONNECT exchange as the proxy saw it, then the one inside the tunnel as
// the server saw it, after TLS.
func TestRecorderTunnel(t *testing.T) {
	srvTLS, cliTLS := testTLS(t)
	s := newRawServer(t, srvTLS, answerByPath)
	var proxyLog []rawExchange
	var mu sync.Mutex
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		head, err := readRequestHead(br)
		if err != nil {
			return
		}
		const ok = "HTTP/1.1 200 Connection established\r\n\r\n"
		mu.Lock()
		proxyLog = append(proxyLog, rawExchange{head, []byte(ok)})
		mu.Unlock()
		up, err := net.Dial("tcp", strings.TrimPrefix(s.url, "https://"))
		if err != nil {
			return
		}
		defer up.Close()
		io.WriteString(c, ok)
		go io.Copy(up, br)
		io.Copy(c, up)
	}()
	rec := &recorder{}
	f := &Fetcher{Recorder: rec}
	defer f.Close()
	req := rawRequest(t, s.url+"/first")
	req.TLSConfig = cliTLS
	proxy := uri.MustParse("http://u:p@" + ln.Addr().String())
	req.Route = func(uri.URL) (schemes.Route, error) { return schemes.Route{HTTPProxy: &proxy}, nil }
	var lines []string
	req.Trace = func(d schemes.Direction, l string) { lines = append(lines, string(d)+" "+l) }
	if _, body, err := get(t, f, req); err != nil || string(body) != "first" {
		t.Fatalf("body %q, %v", body, err)
	}
	xs := rec.all()
	if len(xs) != 2 {
		t.Fatalf("%d exchanges recorded, want the CONNECT and the GET", len(xs))
	}
	mu.Lock()
	checkRecorded(t, xs[:1], proxyLog)
	mu.Unlock()
	checkRecorded(t, xs[1:], s.exchanges())
	if !strings.Contains(xs[0].req.String(), "Proxy-Authorization: Basic ") || xs[0].target != strings.TrimPrefix(s.url, "https://") {
		t.Errorf("CONNECT %q to %q", xs[0].req.String(), xs[0].target)
	}
	if !slices.Contains(lines, "> Proxy-Authorization: Basic ****") || !slices.Contains(lines, "< HTTP/1.1 200 Connection established") {
		t.Errorf("trace %q does not show the CONNECT", lines)
	}
}

// TestRecorderPipelined records pipelined requests: each exchange holds
// its own request and its own response, though the requests went out
// together and the responses came in one stream.
func TestRecorderPipelined(t *testing.T) {
	s := newRawServer(t, nil, answerByPath)
	rec := &recorder{}
	f := &Fetcher{Recorder: rec}
	defer f.Close()
	paths := []string{"/first", "/second", "/third"}
	var reqs []*schemes.Request
	for _, p := range paths {
		reqs = append(reqs, rawRequest(t, s.url+p))
	}
	f.Expect(reqs, true)
	for i, p := range paths {
		if _, body, err := get(t, f, reqs[i]); err != nil || string(body) != strings.TrimPrefix(p, "/") {
			t.Fatalf("%s: body %q, %v", p, body, err)
		}
	}
	if s.connections() != 1 {
		t.Errorf("%d connections, want the one pipeline", s.connections())
	}
	checkRecorded(t, rec.all(), s.exchanges())
}

// TestHTTP1Only checks that a Fetcher set to HTTP/1.1 only does not offer
// h2 to a server that would pick it, and that one without the setting
// does (RFC 9113 §3.2).
func TestHTTP1Only(t *testing.T) {
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Proto)
	}))
	s.EnableHTTP2 = true
	s.StartTLS()
	defer s.Close()
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	for _, only := range []bool{true, false} {
		f := &Fetcher{HTTP1Only: only}
		req := rawRequest(t, s.URL+"/")
		req.TLSConfig = &tls.Config{RootCAs: pool}
		res, body, err := get(t, f, req)
		f.Close()
		want, line := "HTTP/1.1", "HTTP/1.1 200 OK"
		if !only {
			want, line = "HTTP/2.0", "HTTP/2 200"
		}
		if err != nil || string(body) != want || res.Proto+" "+res.Status != line {
			t.Errorf("HTTP1Only %v: body %q, status line %q, %v; want %s", only, body, res.Proto+" "+res.Status, err, want)
		}
	}
}

// TestCancelMidBody checks that cancelling a fetch's context while its
// body is being read ends the read at once with the context's error and
// closes the connection, on a server that sends part of the body and then
// nothing.
func TestCancelMidBody(t *testing.T) {
	closed := make(chan struct{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		readRequestHead(bufio.NewReader(c))
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart")
		// The client's close reaches this read as the end.
		c.Read(make([]byte, 1))
		close(closed)
	}()
	f := &Fetcher{}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	res, err := f.Fetch(ctx, rawRequest(t, "http://"+ln.Addr().String()+"/"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(res.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := res.Body.Read(buf); !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel: %v, want context.Canceled", err)
	}
	<-closed
	res.Body.Close()
}

// TestH2Concurrent fetches from an h2 server on several goroutines at once
// with one Fetcher: every fetch is served, whichever connection it takes,
// and the connections a run opened are shared by the fetches after them.
func TestH2Concurrent(t *testing.T) {
	var mu sync.Mutex
	remotes := map[string]int{} // the round that first used each connection
	round := 0
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if _, ok := remotes[r.RemoteAddr]; !ok {
			remotes[r.RemoteAddr] = round
		}
		mu.Unlock()
		io.WriteString(w, r.Proto+" "+r.URL.Path)
	}))
	s.EnableHTTP2 = true
	s.StartTLS()
	defer s.Close()
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	f := &Fetcher{}
	defer f.Close()
	fetch := func(p string) error {
		req := rawRequest(t, s.URL+p)
		req.TLSConfig = &tls.Config{RootCAs: pool}
		_, body, err := get(t, f, req)
		if err == nil && string(body) != "HTTP/2.0 "+p {
			err = errors.New("body " + string(body))
		}
		return err
	}
	for r := range 2 {
		mu.Lock()
		round = r
		mu.Unlock()
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			wg.Go(func() { errs <- fetch("/" + strconvHex(r*8+i)) })
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for addr, r := range remotes {
		if r > 0 {
			t.Errorf("the second round opened a connection (%s) where the first's were kept", addr)
		}
	}
}

// TestRecorderGateway records fetches through an HTTP proxy acting as a
// gateway (FetchThroughGateway) over plain and TLS connections to it: each
// exchange as the proxy saw it, its target the URL asked for with the
// password masked, the fields in the proxy's order, and a connection of
// its own for each, never kept.
func TestRecorderGateway(t *testing.T) {
	srvTLS, cliTLS := testTLS(t)
	for _, tc := range []*tls.Config{nil, srvTLS} {
		s := newRawServer(t, tc, fixed("HTTP/1.1 200 OK\r\nZ-Last: z\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"))
		rec := &recorder{}
		f := &Fetcher{Recorder: rec}
		gp := &schemes.GatewayProxy{URL: uri.MustParse(s.url), Dialer: &net.Dialer{}, TLSConfig: cliTLS}
		for range 2 {
			req := rawRequest(t, "ftp://ann:pw@127.0.0.1:2121/pub/a.txt")
			res, err := f.FetchThroughGateway(context.Background(), req, gp)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || string(body) != "ok" {
				t.Fatalf("body %q, %v", body, err)
			}
			want := [][2]string{{"Z-Last", "z"}, {"Content-Type", "text/plain"}, {"Content-Length", "2"}}
			if !slices.Equal(res.Header, want) || res.Proto+" "+res.Status != "HTTP/1.1 200 OK" {
				t.Errorf("%s %s, fields %q", res.Proto, res.Status, res.Header)
			}
		}
		f.Close()
		xs := rec.all()
		checkRecorded(t, xs, s.exchanges())
		for _, x := range xs {
			if x.target != "ftp://ann:****@127.0.0.1:2121/pub/a.txt;type=i" {
				t.Errorf("recorded target %q", x.target)
			}
		}
		if s.connections() != 2 {
			t.Errorf("%d connections to the proxy, want one a fetch", s.connections())
		}
	}
}
