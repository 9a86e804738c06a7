package cli

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/integration/proxytest"
	"github.com/urlget/urlget/internal/xfer/xfertest"
	"github.com/urlget/urlget/warc"
)

// The WARC records of HTTP exchanges as they end: a body read to its end
// whole, one cut or closed early marked WARC-Truncated, a request with no
// answer archived alone, and each URL asked for once.

// countingServer serves pages by path, counting the requests for each
// (method and path), and redirects /redirect to the first page.
type countingServer struct {
	url   string
	mu    sync.Mutex
	count map[string]int
}

func newCountingServer(t *testing.T, pages map[string]string) *countingServer {
	s := &countingServer{count: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.count[r.Method+" "+r.URL.Path]++
		s.mu.Unlock()
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/f00.txt", http.StatusFound)
			return
		}
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/") {
			w.Header().Set("Content-Type", "text/html")
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// twice returns the requests made more than once since the last call,
// and forgets the counts.
func (s *countingServer) twice() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k, n := range s.count {
		if n > 1 {
			out = append(out, fmt.Sprintf("%s ×%d", k, n))
		}
	}
	s.count = map[string]int{}
	return out
}

// TestEachURLAskedOnce: a run of several URLs, -Z, a URL list and
// --mirror, with and without --warc-file, send each URL's GET once: the
// requests the client pipelines are not started again ahead of their
// turn, and a redirect answered on a pipeline is followed from there.
func TestEachURLAskedOnce(t *testing.T) {
	pages := map[string]string{"/": ""}
	var urls []string
	for i := 0; i < 40; i++ {
		p := fmt.Sprintf("/f%02d.txt", i)
		pages[p] = strings.Repeat("x", 100*i)
		pages["/"] += `<a href="` + p[1:] + `">x</a> `
	}
	s := newCountingServer(t, pages)
	for i := 0; i < 40; i++ {
		urls = append(urls, fmt.Sprintf("%s/f%02d.txt", s.url, i))
	}
	list := filepath.Join(t.TempDir(), "list")
	if err := os.WriteFile(list, []byte(strings.Join(urls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, archive := range []bool{false, true} {
		runs := map[string][]string{
			"several":  append([]string{"-s", "-o", os.DevNull}, urls...),
			"files":    append([]string{"-s", "--output-dir", t.TempDir(), "--remote-name-all"}, urls...),
			"-Z":       append([]string{"-s", "-Z", "--output-dir", t.TempDir(), "--remote-name-all"}, urls...),
			"list":     {"-s", "--output-dir", t.TempDir(), "--remote-name-all", "--url", "@" + list},
			"mirror":   {"-s", "--mirror", "--output-dir", t.TempDir(), s.url + "/"},
			"redirect": {"-s", "-L", "-o", os.DevNull, s.url + "/redirect", urls[2], urls[3]},
		}
		for name, args := range runs {
			if archive {
				args = append([]string{"--warc-file", filepath.Join(t.TempDir(), "w")}, args...)
			}
			if code, _, errOut := runQ(t, args...); code != 0 {
				t.Errorf("%s (archive %v): exit %d: %s", name, archive, code, errOut)
			}
			if twice := s.twice(); len(twice) > 0 {
				t.Errorf("%s (archive %v): asked more than once: %v", name, archive, twice)
			}
		}
	}
}

// framedPages answers /length, /chunked and /close with one body framed
// by Content-Length, chunked and the connection's end (RFC 9112 §6.3),
// and /big with a chunked body of 1 MiB.
func framedPages(t *testing.T) string {
	const body = "a body of some length\n"
	ln := xfertest.ServeTCP(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			switch req.URL.Path {
			case "/length":
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			case "/chunked":
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
			case "/close":
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n%s", body)
				return
			case "/big":
				big := strings.Repeat("b", 1<<20)
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(big), big)
			}
		}
	})
	return "http://" + ln.Addr().String()
}

// TestWarcBodyEnds: a response read to its end is a whole record, framed
// by Content-Length, chunked or by the connection's end, alone and
// pipelined behind another; one the command stops reading
// (--max-filesize) is marked WARC-Truncated.
func TestWarcBodyEnds(t *testing.T) {
	base := framedPages(t)
	for _, paths := range [][]string{{"/length"}, {"/chunked"}, {"/close"}, {"/length", "/chunked", "/length", "/close"}} {
		var urls []string
		for _, p := range paths {
			urls = append(urls, base+p)
		}
		name := filepath.Join(t.TempDir(), "b")
		if code, _, errOut := runQ(t, append([]string{"-s", "-o", os.DevNull, "--warc-file", name}, urls...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", paths, code, errOut)
		}
		recs := readWarc(t, name+".warc.gz")
		checkExchanges(t, recs)
		resps := ofType(recs, "response")
		if len(resps) != len(paths) {
			t.Fatalf("%v: %d responses", paths, len(resps))
		}
		for _, r := range resps {
			if tr := r.h.Get("WARC-Truncated"); tr != "" || r.h.Get("WARC-Payload-Digest") != sha1Of("a body of some length\n") {
				t.Errorf("%v: %s: WARC-Truncated %q, digest %s", paths, r.target(), tr, r.h.Get("WARC-Payload-Digest"))
			}
		}
	}
	name := filepath.Join(t.TempDir(), "big")
	if code, _, _ := runQ(t, "-s", "-o", os.DevNull, "--max-filesize", "1000", "--warc-file", name, base+"/big"); code == 0 {
		t.Error("--max-filesize let 1 MiB through")
	}
	recs := readWarc(t, name+".warc.gz")
	checkExchanges(t, recs)
	if resps := ofType(recs, "response"); len(resps) != 1 || resps[0].h.Get("WARC-Truncated") == "" {
		t.Errorf("the response cut at --max-filesize: %v", resps)
	}
}

// TestWarcUnanswered: a request that got no answer is archived alone,
// naming no response; one whose answer was cut has its response marked
// WARC-Truncated; a request sent ahead on a connection the server closed
// before answering it, and sent again on a new one, is archived as both
// attempts.
func TestWarcUnanswered(t *testing.T) {
	var mu sync.Mutex
	conns := 0
	sent := map[string]int{} // requests read, by path
	ln := xfertest.ServeTCP(t, func(c net.Conn) {
		defer c.Close()
		mu.Lock()
		conns++
		first := conns == 1
		mu.Unlock()
		br := bufio.NewReader(c)
		for n := 0; ; n++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			mu.Lock()
			sent[req.URL.Path]++
			mu.Unlock()
			switch {
			case req.URL.Path == "/none":
				return
			case req.URL.Path == "/cut":
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a part")
				return
			case first && n == 1:
				// The pipelined run's first connection answers its
				// first request and closes before the others.
				return
			}
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(req.URL.Path), req.URL.Path)
		}
	})
	base := "http://" + ln.Addr().String()
	name := filepath.Join(t.TempDir(), "u")
	runQ(t, "-s", "-o", os.DevNull, "--warc-file", name, base+"/p1", base+"/p2", base+"/p3", base+"/none", base+"/cut")
	recs := readWarc(t, name+".warc.gz")
	checkExchanges(t, recs)
	requests := map[string][]warcRec{}
	for _, r := range ofType(recs, "request") {
		path := strings.TrimPrefix(r.target(), base)
		requests[path] = append(requests[path], r)
	}
	responses := map[string][]warcRec{}
	for _, r := range ofType(recs, "response") {
		path := strings.TrimPrefix(r.target(), base)
		responses[path] = append(responses[path], r)
	}
	// /none: each attempt's request alone, whole, naming nothing (the
	// server closing before an answer, the client may send it again on
	// a new connection, RFC 9112 §9.3.1).
	if rs := requests["/none"]; len(rs) == 0 || len(responses["/none"]) != 0 {
		t.Errorf("/none: %d requests, %d responses", len(rs), len(responses["/none"]))
	}
	for _, r := range requests["/none"] {
		if r.h.Get("WARC-Concurrent-To") != "" || !strings.HasPrefix(string(r.block), "GET /none HTTP/1.1\r\n") || r.h.Get("WARC-Truncated") != "" {
			t.Errorf("/none: request %v %q", r.h.Fields, r.block)
		}
	}
	// /cut: what came of the answer, marked.
	if rs := responses["/cut"]; len(rs) != 1 || rs[0].h.Get("WARC-Truncated") != warc.TruncatedDisconnect || !strings.HasSuffix(string(rs[0].block), "only a part") {
		t.Errorf("/cut: responses %v", rs)
	}
	// /p2 and /p3 went out ahead on the first connection, which closed
	// before their answers: each is archived twice, the first time
	// alone, and answered once.
	for _, p := range []string{"/p2", "/p3"} {
		rs, as := requests[p], responses[p]
		if len(rs) != 2 || len(as) != 1 || rs[0].h.Get("WARC-Concurrent-To") != "" || string(as[0].block[len(as[0].block)-3:]) != p {
			t.Errorf("%s: %d requests, %d responses", p, len(rs), len(as))
		}
	}
	if rs, as := requests["/p1"], responses["/p1"]; len(rs) != 1 || len(as) != 1 {
		t.Errorf("/p1: %d requests, %d responses", len(rs), len(as))
	}
	// Every request the server read is in the archive (a request
	// written ahead on a connection the server had left may be there
	// besides: it crossed the wire, unread).
	mu.Lock()
	defer mu.Unlock()
	for p, n := range sent {
		if len(requests[p]) < n {
			t.Errorf("%s: read %d times, archived %d", p, n, len(requests[p]))
		}
	}
}

// TestWarcTunnel: an https URL through a proxy's CONNECT tunnel. The
// CONNECT exchange is no request or response record (its target,
// host:port, is no URI, and the proxy's 200 is no capture of the URL):
// it is a metadata record for the URL fetched through it, naming that
// exchange's request, its Proxy-Authorization masked; the exchange in
// the tunnel is archived as any other. A tunnel the proxy refuses leaves
// its metadata record for the URL asked for.
func TestWarcTunnel(t *testing.T) {
	clearProxyEnv(t)
	const body = "through the tunnel\n"
	site := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, body)
	}))
	defer site.Close()
	px := proxytest.NewHTTPProxy(false)
	px.User, px.Pass = "pxuser", "pxsecret"
	defer px.Close()
	u := site.URL + "/t.txt"

	dir := t.TempDir()
	name := filepath.Join(dir, "tun")
	code, out, errOut := runProxy(t, "-sS", "-k", "-x", px.URL, "-U", "pxuser:pxsecret", "--warc-file", name, u)
	if code != 0 || out != body {
		t.Fatalf("exit %d, out %q: %s", code, out, errOut)
	}
	recs := readWarc(t, name+".warc.gz")
	for _, r := range recs[1:] {
		if !strings.Contains(r.target(), "://") {
			t.Errorf("a %s record's target is no URI: %q", r.typ(), r.target())
		}
	}
	reqs, resps, metas := ofType(recs, "request"), ofType(recs, "response"), ofType(recs, "metadata")
	if len(reqs) != 1 || len(resps) != 1 || len(metas) != 1 {
		t.Fatalf("%d requests, %d responses, %d metadata records; want 1 of each", len(reqs), len(resps), len(metas))
	}
	checkExchanges(t, recs)
	m := metas[0]
	conv := string(m.block)
	if m.target() != u || m.h.Get("WARC-Concurrent-To") != reqs[0].h.Get("WARC-Record-ID") ||
		!strings.HasPrefix(conv, "> CONNECT ") || !strings.Contains(conv, "\r\n< HTTP/1.1 200 ") {
		t.Errorf("the tunnel's record: %v\n%s", m.h.Fields, conv)
	}
	if !strings.Contains(conv, "> Proxy-Authorization: Basic ****\r\n") {
		t.Errorf("the tunnel's record lacks the masked Proxy-Authorization:\n%s", conv)
	}
	if strings.Contains(rawArchive(t, name+".warc.gz"), base64.StdEncoding.EncodeToString([]byte("pxuser:pxsecret"))) {
		t.Error("the proxy's credentials are in the archive")
	}
	if resps[0].target() != u || !strings.HasSuffix(string(resps[0].block), body) {
		t.Errorf("the tunnelled response: %v", resps[0].h.Fields)
	}

	refusing := proxytest.NewHTTPProxy(false)
	refusing.Refuse = http.StatusForbidden
	defer refusing.Close()
	name = filepath.Join(dir, "refused")
	if code, _, errOut := runProxy(t, "-sS", "-k", "-x", refusing.URL, "--warc-file", name, u); code != exitProxyTunnel {
		t.Fatalf("refused tunnel: exit %d: %s", code, errOut)
	}
	recs = readWarc(t, name+".warc.gz")
	if len(recs) != 2 || recs[1].typ() != "metadata" || recs[1].target() != u || !strings.Contains(string(recs[1].block), "\r\n< HTTP/1.1 403 ") {
		for _, r := range recs {
			t.Logf("%s %s\n%s", r.typ(), r.target(), r.block)
		}
		t.Error("a refused tunnel is not one metadata record for the URL")
	}
}

// TestProxiedURLsStartEarly: through an HTTP proxy, which pipelines
// nothing, the URLs that follow are started while the current body is
// still coming, as https's are, and each is asked for once; a plain
// http URL that goes out pipelined is not (TestEachURLAskedOnce).
func TestProxiedURLsStartEarly(t *testing.T) {
	clearProxyEnv(t)
	var mu sync.Mutex
	inFlight, most := 0, 0
	asked := map[string]int{}
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		asked[r.URL.Path]++
		mu.Unlock()
		defer func() {
			mu.Lock()
			inFlight--
			mu.Unlock()
		}()
		if r.URL.Path != "/f0" {
			io.WriteString(w, "body\n")
			return
		}
		// The first body is slow: its first 64 KiB come at once (past
		// any proxy's buffer), the rest after a while, and the URLs
		// after it are started meanwhile.
		w.Header().Set("Content-Length", strconv.Itoa(128<<10))
		w.Write(bytes.Repeat([]byte("a"), 64<<10))
		w.(http.Flusher).Flush()
		time.Sleep(300 * time.Millisecond)
		w.Write(bytes.Repeat([]byte("b"), 64<<10))
	}))
	defer origin.Close()
	px := proxytest.NewHTTPProxy(false)
	defer px.Close()
	var urls []string
	for i := range 5 {
		urls = append(urls, fmt.Sprintf("%s/f%d", origin.URL, i))
	}
	code, out, errOut := runProxy(t, append([]string{"-s", "-x", px.URL}, urls...)...)
	if want := strings.Repeat("a", 64<<10) + strings.Repeat("b", 64<<10) + strings.Repeat("body\n", 4); code != 0 || out != want {
		t.Fatalf("exit %d, %d bytes out: %s", code, len(out), errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, u := range urls {
		p := u[len(origin.URL):]
		if asked[p] != 1 {
			t.Errorf("%s asked %d times", p, asked[p])
		}
	}
	if most < 2 {
		t.Errorf("at most %d request at once: the URLs after a slow body were not started early", most)
	}
}
