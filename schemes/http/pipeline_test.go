package http

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/cookies"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// pipeServer is an HTTP/1.1 server on 127.0.0.1 that answers requests in
// order on each connection and records, for each request, whether more
// requests were already waiting behind it when it was read (the client
// pipelined), and its fields.
type pipeServer struct {
	ln      net.Listener
	url     string
	mu      sync.Mutex
	conns   int
	behind  int                    // requests read with another already buffered behind them
	headers map[string]http.Header // by path, the last request's
	served  int
	// closeAfter ends each connection after this many responses, with
	// "Connection: close" on the last (0: never).
	closeAfter int
	handler    func(w io.Writer, r *http.Request)
}

func newPipeServer(t testing.TB, handler func(w io.Writer, r *http.Request)) *pipeServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &pipeServer{ln: ln, url: "http://" + ln.Addr().String(), headers: map[string]http.Header{}, handler: handler}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
			go s.serve(c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return s
}

func (s *pipeServer) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for n := 1; ; n++ {
		r, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		s.mu.Lock()
		if br.Buffered() > 0 {
			s.behind++
		}
		s.headers[r.URL.Path] = r.Header
		s.served++
		close := s.closeAfter > 0 && n == s.closeAfter
		s.mu.Unlock()
		var body strings.Builder
		s.handler(&body, r)
		status := "200 OK"
		extra := ""
		switch {
		case strings.HasPrefix(body.String(), "REDIRECT "):
			status = "302 Found"
			extra = "Location: " + strings.TrimPrefix(body.String(), "REDIRECT ") + "\r\n"
			body.Reset()
		case body.String() == "304":
			status = "304 Not Modified"
			body.Reset()
		}
		if close {
			extra += "Connection: close\r\n"
		}
		fmt.Fprintf(c, "HTTP/1.1 %s\r\n%sContent-Length: %d\r\n\r\n%s", status, extra, body.Len(), body.String())
		if close {
			return
		}
	}
}

func (s *pipeServer) counts() (conns, behind, served int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns, s.behind, s.served
}

// expectRun tells f that requests for urls follow, in order, and returns
// them, each with its own conditions when conds is not nil, for the
// caller to make.
func expectRun(f *Fetcher, urls []uri.URL, conds func(uri.URL) (time.Time, string)) []*schemes.Request {
	reqs := make([]*schemes.Request, len(urls))
	for i, u := range urls {
		reqs[i] = &schemes.Request{URL: u, Dialer: &net.Dialer{}}
		if conds != nil {
			reqs[i].IfModifiedSince, reqs[i].IfNoneMatch = conds(u)
		}
	}
	f.Expect(reqs, false)
	return reqs
}

// fetchAll fetches the paths in order through f, told of them as one run
// first, and returns the bodies.
func fetchAll(t *testing.T, f *Fetcher, base string, paths []string, conds func(uri.URL) (time.Time, string)) []string {
	t.Helper()
	var urls []uri.URL
	for _, p := range paths {
		urls = append(urls, uri.MustParse(base+p))
	}
	reqs := expectRun(f, urls, conds)
	var out []string
	for i, u := range urls {
		req := reqs[i]
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := f.Fetch(ctx, req)
		if err != nil {
			cancel()
			t.Fatalf("%s: %v", u, err)
		}
		if res.NotModified {
			out = append(out, "not modified")
		} else {
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatalf("%s: %v", u, err)
			}
			out = append(out, string(b))
		}
		cancel()
	}
	return out
}

func echoPath(w io.Writer, r *http.Request) { io.WriteString(w, "body of "+r.URL.Path) }

// notModifiedIfAsked answers 304 to a request with If-Modified-Since, and
// echoPath to any other.
func notModifiedIfAsked(w io.Writer, r *http.Request) {
	if r.Header.Get("If-Modified-Since") != "" {
		io.WriteString(w, "304")
		return
	}
	echoPath(w, r)
}

// Requests told of the URLs after them go out together on one
// connection, and each body is its own.
func TestPipelineSendsAhead(t *testing.T) {
	s := newPipeServer(t, echoPath)
	f := &Fetcher{}
	defer f.Close()
	var paths []string
	for i := range 40 {
		paths = append(paths, fmt.Sprintf("/f%d", i))
	}
	got := fetchAll(t, f, s.url, paths, nil)
	for i, p := range paths {
		if got[i] != "body of "+p {
			t.Fatalf("%s: %q", p, got[i])
		}
	}
	conns, behind, served := s.counts()
	if conns != 1 || served != 40 {
		t.Errorf("%d connections, %d requests; want 1 and 40", conns, served)
	}
	// The first write alone carries pipelineDepth requests.
	if behind < pipelineDepth-1 {
		t.Errorf("only %d of 40 requests had another behind them: not pipelined", behind)
	}
}

// A URL sent ahead and then not asked for has its answer dropped; a
// redirect in the pipeline is followed through the Transport.
func TestPipelineSkipsAndRedirects(t *testing.T) {
	s := newPipeServer(t, func(w io.Writer, r *http.Request) {
		if r.URL.Path == "/moved" {
			io.WriteString(w, "REDIRECT /target")
			return
		}
		echoPath(w, r)
	})
	f := &Fetcher{}
	defer f.Close()
	urls := []uri.URL{uri.MustParse(s.url + "/a"), uri.MustParse(s.url + "/skipped"), uri.MustParse(s.url + "/moved"), uri.MustParse(s.url + "/c")}
	get := func(i int) string {
		res, err := f.Fetch(context.Background(), expectRun(f, urls[i:], nil)[0])
		if err != nil {
			t.Fatalf("%s: %v", urls[i], err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	if got := get(0); got != "body of /a" {
		t.Errorf("/a: %q", got)
	}
	if got := get(2); got != "body of /target" {
		t.Errorf("/moved: %q", got)
	}
	if got := get(3); got != "body of /c" {
		t.Errorf("/c: %q", got)
	}
}

// A server that ends the connection mid-pipeline: the requests it did not
// answer are made again, and every body arrives.
func TestPipelineServerCloses(t *testing.T) {
	s := newPipeServer(t, echoPath)
	s.closeAfter = 3
	f := &Fetcher{}
	defer f.Close()
	var paths []string
	for i := range 10 {
		paths = append(paths, fmt.Sprintf("/f%d", i))
	}
	got := fetchAll(t, f, s.url, paths, nil)
	for i, p := range paths {
		if got[i] != "body of "+p {
			t.Fatalf("%s: %q", p, got[i])
		}
	}
	if conns, _, _ := s.counts(); conns < 2 {
		t.Errorf("%d connections for a server that closes after 3", conns)
	}
}

// Each URL sent ahead carries its own conditions, and its 304 is a
// Resource that is NotModified.
func TestPipelineConditions(t *testing.T) {
	old := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := newPipeServer(t, notModifiedIfAsked)
	f := &Fetcher{}
	defer f.Close()
	conds := func(u uri.URL) (time.Time, string) {
		if strings.HasSuffix(u.Path(), "/have") {
			return old, `"e1"`
		}
		return time.Time{}, ""
	}
	got := fetchAll(t, f, s.url, []string{"/new", "/have", "/new2"}, conds)
	if want := []string{"body of /new", "not modified", "body of /new2"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// The 304 is the answer, not a redirect to follow: nothing is asked
	// for twice.
	if conns, _, served := s.counts(); conns != 1 || served != 3 {
		t.Errorf("%d connections and %d requests; want 1 and 3", conns, served)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.headers["/have"]; h.Get("If-Modified-Since") != old.Format(http.TimeFormat) || h.Get("If-None-Match") != `"e1"` {
		t.Errorf("/have sent with %v", h)
	}
	if h := s.headers["/new2"]; h.Get("If-Modified-Since") != "" {
		t.Errorf("/new2 sent with the conditions of another URL: %v", h)
	}
}

// An answer sent ahead with other conditions than the request asks with
// (a request sent ahead in a run before, when the file was not there) is
// dropped, and the request is made as asked.
func TestPipelineStaleConditions(t *testing.T) {
	old := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := newPipeServer(t, notModifiedIfAsked)
	f := &Fetcher{}
	defer f.Close()
	// /b goes ahead unconditionally, and is never asked for.
	fetchAll(t, f, s.url, []string{"/a"}, nil)
	urls := []uri.URL{uri.MustParse(s.url + "/x"), uri.MustParse(s.url + "/b")}
	res, err := f.Fetch(context.Background(), expectRun(f, urls, nil)[0])
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(res.Body)
	res.Body.Close()
	// Now /b is asked for with a condition.
	res, err = f.Fetch(context.Background(), &schemes.Request{URL: urls[1], Dialer: &net.Dialer{}, IfModifiedSince: old})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NotModified {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		t.Errorf("/b with If-Modified-Since: got the body %q sent ahead without it", b)
	}
}

// Three batches of one server on three pipelines, kept with an idle one
// first and the one that sent a URL last: that URL is read from the
// connection that sent it, not asked for again on the idle one.
func TestPipelineTakesTheOneThatSent(t *testing.T) {
	s := newPipeServer(t, echoPath)
	f := &Fetcher{}
	defer f.Close()
	u := func(p string) uri.URL { return uri.MustParse(s.url + p) }
	open := func(p string, ahead ...uri.URL) *schemes.Resource {
		t.Helper()
		res, err := f.Fetch(context.Background(), expectRun(f, append([]uri.URL{u(p)}, ahead...), nil)[0])
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return res
	}
	read := func(p string, res *schemes.Resource) {
		t.Helper()
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(b) != "body of "+p {
			t.Fatalf("%s: %q, %v", p, b, err)
		}
	}
	read("/a1", open("/a1", u("/a2"))) // kept with /a2 in flight
	b1 := open("/b1", u("/b2"))        // held, /b2 in flight
	c1 := open("/c1", u("/c2"))        // held, /c2 in flight
	read("/a2", open("/a2"))           // kept: [a idle]
	read("/c1", c1)                    // kept: [a idle, c /c2]
	read("/b1", b1)                    // kept: [a idle, c /c2, b /b2]
	read("/b2", open("/b2"))
	read("/c2", open("/c2"))
	if conns, _, served := s.counts(); conns != 3 || served != 6 {
		t.Errorf("%d connections and %d requests; want 3 and 6 (each URL once)", conns, served)
	}
}

// More pipelines to one server than the idle ones kept, each put back with
// an answer still in flight: none is closed, and every URL is asked for
// once.
func TestPipelineKeepsThoseInFlight(t *testing.T) {
	s := newPipeServer(t, echoPath)
	f := &Fetcher{}
	defer f.Close()
	n := maxIdlePerHost + 4
	firsts := make([]*schemes.Resource, n)
	for i := range n {
		u := uri.MustParse(fmt.Sprintf("%s/first%d", s.url, i))
		ahead := uri.MustParse(fmt.Sprintf("%s/then%d", s.url, i))
		res, err := f.Fetch(context.Background(), expectRun(f, []uri.URL{u, ahead}, nil)[0])
		if err != nil {
			t.Fatal(err)
		}
		firsts[i] = res
	}
	for _, res := range firsts {
		io.ReadAll(res.Body)
		res.Body.Close()
	}
	for i := range n {
		p := fmt.Sprintf("/then%d", i)
		res, err := f.Fetch(context.Background(), &schemes.Request{URL: uri.MustParse(s.url + p), Dialer: &net.Dialer{}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if string(b) != "body of "+p {
			t.Fatalf("%s: %q", p, b)
		}
	}
	if conns, _, served := s.counts(); conns != n || served != 2*n {
		t.Errorf("%d connections and %d requests; want %d and %d (each URL once)", conns, served, n, 2*n)
	}
}

// Pipelines whose answers sent ahead are never asked for are not kept
// without end: past pipelinesKept the oldest is closed.
func TestPipelineDropsTheOldestPastTheBound(t *testing.T) {
	s := newPipeServer(t, echoPath)
	f := &Fetcher{}
	defer f.Close()
	for i := range pipelinesKept + 3 {
		u := uri.MustParse(fmt.Sprintf("%s/first%d", s.url, i))
		ahead := uri.MustParse(fmt.Sprintf("%s/never%d", s.url, i))
		res, err := f.Fetch(context.Background(), expectRun(f, []uri.URL{u, ahead}, nil)[0])
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(res.Body)
		res.Body.Close()
	}
	host := strings.TrimPrefix(s.url, "http://")
	pipes := f.pipelines()
	if n := pipes.Len(host); n != pipelinesKept {
		t.Fatalf("%d pipelines kept, want %d", n, pipelinesKept)
	}
	// The three oldest went; the oldest kept is the one that sent
	// /never3 ahead.
	for i := range 4 {
		p := f.takePipeline(host, fmt.Sprintf("/never%d", i))
		if kept := p != nil && p.sent[0].req.url.Path == fmt.Sprintf("/never%d", i); kept != (i == 3) {
			t.Errorf("the pipeline that sent /never%d ahead: kept %v", i, kept)
		}
		if p != nil {
			p.close()
		}
	}
}

// A URL sent ahead that names its own user is not sent with the
// credentials of the request it follows: they are that URL's, not its.
func TestPipelineKeepsCredentialsToTheirURL(t *testing.T) {
	var mu sync.Mutex
	auth := map[string][]string{}
	s := newPipeServer(t, func(w io.Writer, r *http.Request) {
		mu.Lock()
		auth[r.URL.Path] = append(auth[r.URL.Path], r.Header.Get("Authorization"))
		mu.Unlock()
		echoPath(w, r)
	})
	f := &Fetcher{}
	defer f.Close()
	host := strings.TrimPrefix(s.url, "http://")
	first := uri.MustParse("http://alice@" + host + "/a")
	// Each request carries its own credentials, as the fetch package
	// builds them: alice's password for alice's URLs.
	alice := func(u uri.URL) *schemes.Request {
		return &schemes.Request{URL: u, Dialer: &net.Dialer{}, User: url.UserPassword("alice", "secret")}
	}
	req := alice(first)
	f.Expect([]*schemes.Request{
		req,
		alice(uri.MustParse("http://alice@" + host + "/b")),
		{URL: uri.MustParse("http://bob@" + host + "/c"), Dialer: &net.Dialer{}, User: url.User("bob")},
		{URL: uri.MustParse("http://" + host + "/d"), Dialer: &net.Dialer{}},
	}, false)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := f.Fetch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	// The server reads /b, sent ahead, after it has answered /a: its
	// record is waited for, not raced.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		if len(auth["/b"]) > 0 || time.Now().After(deadline) {
			break
		}
		mu.Unlock()
	}
	defer mu.Unlock()
	if len(auth["/a"]) != 1 || auth["/a"][0] == "" {
		t.Fatalf("the request itself: %q", auth["/a"])
	}
	if len(auth["/b"]) != 1 || auth["/b"][0] != auth["/a"][0] {
		t.Errorf("a URL of the same user is sent ahead with its credentials: %q", auth["/b"])
	}
	for _, p := range []string{"/c", "/d"} {
		if len(auth[p]) != 0 {
			t.Errorf("%s was sent ahead with alice's credentials: %q", p, auth[p])
		}
	}
}

// TestSendsAhead: Expect sends ahead a plain http GET the pipeline may
// carry, and nothing else: not https, a HEAD, a resumed request, one
// through a proxy, nor one of a Fetcher that keeps cookies.
func TestSendsAhead(t *testing.T) {
	proxy := uri.MustParse("http://127.0.0.1:3128/")
	viaProxy := func(uri.URL) (schemes.Route, error) { return schemes.Route{HTTPProxy: &proxy}, nil }
	direct := func(uri.URL) (schemes.Route, error) { return schemes.Route{}, nil }
	for _, c := range []struct {
		name string
		f    *Fetcher
		req  *schemes.Request
		want bool
	}{
		{"http GET", &Fetcher{}, &schemes.Request{URL: uri.MustParse("http://127.0.0.1:1/a")}, true},
		{"routed direct", &Fetcher{}, &schemes.Request{URL: uri.MustParse("http://127.0.0.1:1/a"), Route: direct}, true},
		{"https", &Fetcher{}, &schemes.Request{URL: uri.MustParse("https://127.0.0.1:1/a")}, false},
		{"HEAD", &Fetcher{}, &schemes.Request{URL: uri.MustParse("http://127.0.0.1:1/a"), Head: true}, false},
		{"resumed", &Fetcher{}, &schemes.Request{URL: uri.MustParse("http://127.0.0.1:1/a"), Offset: 10}, false},
		{"proxy", &Fetcher{}, &schemes.Request{URL: uri.MustParse("http://127.0.0.1:1/a"), Route: viaProxy}, false},
		{"cookies", &Fetcher{Jar: &cookies.Jar{}}, &schemes.Request{URL: uri.MustParse("http://127.0.0.1:1/a")}, false},
	} {
		if got := c.f.SendsAhead(c.req); got != c.want {
			t.Errorf("%s: SendsAhead %v, want %v", c.name, got, c.want)
		}
	}
}
