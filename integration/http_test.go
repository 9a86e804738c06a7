package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	httpscheme "github.com/urlget/urlget/schemes/http"
	"github.com/urlget/urlget/uri"
)

// httpTrace collects traced lines for assertions.
type httpTrace struct {
	mu    sync.Mutex
	lines []string
}

func (h *httpTrace) tracer() schemes.Tracer {
	return func(dir schemes.Direction, line string) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.lines = append(h.lines, string(dir)+" "+line)
	}
}

func (h *httpTrace) has(line string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range h.lines {
		if l == line {
			return true
		}
	}
	return false
}

// httpBothWays runs test twice: as subtest "pool", and as "last", where
// httpGet first tells the Fetcher that each request is the last of its
// run (schemes.Expecter). Every request goes through the Fetcher's
// Transport either way, and must be served alike.
func httpBothWays(t *testing.T, test func(t *testing.T)) {
	for _, mode := range []string{"pool", "last"} {
		t.Run(mode, test)
	}
}

// httpLast tells whether t runs under httpBothWays's "last" subtest.
func httpLast(t *testing.T) bool {
	return strings.Contains(t.Name()+"/", "/last/")
}

// httpRequest builds the request the fetch package would pass for rawURL.
func httpRequest(t *testing.T, rawURL string) *schemes.Request {
	t.Helper()
	u, err := uri.Parse(rawURL)
	if err != nil {
		t.Fatalf("parse %q: %v", rawURL, err)
	}
	return &schemes.Request{URL: u, Dialer: &net.Dialer{}, TLSConfig: &tls.Config{}}
}

// stallingServer starts a server that answers each request with what
// first writes (nothing of a response when first is nil), flushed, and
// then holds the connection until the client goes or the test ends.
func stallingServer(t *testing.T, first func(w http.ResponseWriter)) *httptest.Server {
	release := make(chan struct{})
	s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first != nil {
			first(w)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	// Cleanups run last-added first: the handlers return before the
	// server's Close waits for them.
	t.Cleanup(func() { close(release) })
	return s
}

// httpFetcher returns a Fetcher closed when the test ends.
func httpFetcher(t *testing.T) *httpscheme.Fetcher {
	return httpFetcherWith(t, &httpscheme.Fetcher{})
}

// httpFetcherWith is f, closed when the test ends.
func httpFetcherWith(t *testing.T, f *httpscheme.Fetcher) *httpscheme.Fetcher {
	t.Cleanup(func() { f.Close() })
	return f
}

// httpServer starts an httptest server closed when the test ends.
func httpServer(t *testing.T, h http.Handler) *httptest.Server {
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// httpGet fetches req and reads the whole body.
func httpGet(t *testing.T, f *httpscheme.Fetcher, req *schemes.Request) (*schemes.Resource, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if httpLast(t) {
		f.Expect([]*schemes.Request{req}, true)
	}
	res, err := f.Fetch(ctx, req)
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

// httpWantKind checks that err is a *schemes.Error of the given kind and code.
func httpWantKind(t *testing.T, err error, kind error, code int) *schemes.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", kind)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("error %q is not %v", err, kind)
	}
	var se *schemes.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %q is not a *schemes.Error", err)
	}
	if se.Code != code {
		t.Fatalf("error %q has code %d, want %d", err, se.Code, code)
	}
	return se
}

func TestHTTPGetMetadataAndTrace(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		mod := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
		var gotURI, gotAE, gotUA string
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotURI, gotAE, gotUA = r.RequestURI, r.Header.Get("Accept-Encoding"), r.Header.Get("User-Agent")
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Last-Modified", mod.Format(http.TimeFormat))
			w.Header().Set("Content-Length", "5")
			io.WriteString(w, "hello")
		}))
		var tr httpTrace
		req := httpRequest(t, s.URL+"/a%20dir/r%C3%A9sum%C3%A9%3B1.txt?q=1;x")
		req.Trace = tr.tracer()
		res, body, err := httpGet(t, httpFetcher(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if string(body) != "hello" {
			t.Errorf("body %q", body)
		}
		if gotURI != "/a%20dir/r%C3%A9sum%C3%A9%3B1.txt?q=1;x" {
			t.Errorf("server saw request-target %q, want the URL's path and query as written", gotURI)
		}
		if gotAE != "" {
			t.Errorf("Accept-Encoding %q sent; compression must not be negotiated implicitly", gotAE)
		}
		if gotUA != "urlget" {
			t.Errorf("User-Agent %q", gotUA)
		}
		if res.Size != 5 || res.ContentType != "text/plain; charset=utf-8" || !res.ModTime.Equal(mod) || res.Offset != 0 {
			t.Errorf("metadata: size %d type %q time %v offset %d", res.Size, res.ContentType, res.ModTime, res.Offset)
		}
		if res.Name != "résumé;1.txt" {
			t.Errorf("name %q", res.Name)
		}
		if res.Proto != "HTTP/1.1" || res.StatusCode != 200 || res.Status != "200 OK" {
			t.Errorf("status %q %d %q, want HTTP/1.1 200 OK", res.Proto, res.StatusCode, res.Status)
		}
		if len(res.Header) < 1 || strings.HasPrefix(res.Header[0][0], ":") {
			t.Errorf("header pairs %q: fields only, the status apart", res.Header)
		}
		foundLen := false
		for _, kv := range res.Header {
			if kv == [2]string{"Content-Length", "5"} {
				foundLen = true
			}
		}
		if !foundLen {
			t.Errorf("header pairs %q lack Content-Length", res.Header)
		}
		for _, want := range []string{
			"> GET /a%20dir/r%C3%A9sum%C3%A9%3B1.txt?q=1;x HTTP/1.1",
			"> User-Agent: urlget",
			"< HTTP/1.1 200 OK",
			"< Content-Length: 5",
		} {
			if !tr.has(want) {
				t.Errorf("trace lacks %q; got %q", want, tr.lines)
			}
		}
	})
}

func TestHTTPContentDispositionName(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Disposition", r.URL.Query().Get("cd"))
			io.WriteString(w, "x")
		}))
		for cd, want := range map[string]string{
			`attachment; filename="report.pdf"`:           "report.pdf",
			`attachment; filename="../../etc/passwd"`:     "passwd",
			`attachment; filename*=UTF-8''na%C3%AFve.txt`: "naïve.txt",
			`attachment; filename=".."`:                   "get",
		} {
			res, _, err := httpGet(t, httpFetcher(t), httpRequest(t, s.URL+"/dl/get?cd="+uri.EscapeSegment(cd)))
			if err != nil {
				t.Fatal(err)
			}
			if res.Name != want {
				t.Errorf("Content-Disposition %s: name %q, want %q", cd, res.Name, want)
			}
		}
	})
}

// redirectChain serves /r/N as a redirect to /r/N-1 and /r/0 as the body.
func redirectChain(count *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		count.Add(1)
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if n == 0 {
			io.WriteString(w, "end of chain")
			return
		}
		http.Redirect(w, r, "/r/"+strconv.Itoa(n-1), http.StatusFound)
	})
}

func TestHTTPRedirectChain(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		var count atomic.Int32
		s := httpServer(t, redirectChain(&count))
		res, body, err := httpGet(t, httpFetcher(t), httpRequest(t, s.URL+"/r/20"))
		if err != nil {
			t.Fatal(err)
		}
		if string(body) != "end of chain" || res.URL != s.URL+"/r/0" {
			t.Errorf("body %q, final URL %q", body, res.URL)
		}
		if got := count.Load(); got != 21 {
			t.Errorf("server saw %d requests, want 21", got)
		}
	})
}

func TestHTTPRedirectSendsNoReferer(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		var referers []string
		var mu sync.Mutex
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			referers = append(referers, r.Header.Get("Referer"))
			mu.Unlock()
			if r.URL.Path == "/from" {
				http.Redirect(w, r, "/to", http.StatusFound)
				return
			}
			io.WriteString(w, "arrived")
		}))
		_, body, err := httpGet(t, httpFetcher(t), httpRequest(t, s.URL+"/from"))
		if err != nil || string(body) != "arrived" {
			t.Fatalf("body %q, error %v", body, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(referers) != 2 || referers[0] != "" || referers[1] != "" {
			t.Errorf("Referer fields %q, want none", referers)
		}
	})
}

func TestHTTPTooManyRedirects(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		var count atomic.Int32
		s := httpServer(t, redirectChain(&count))
		_, _, err := httpGet(t, httpFetcher(t), httpRequest(t, s.URL+"/r/21"))
		se := httpWantKind(t, err, schemes.ErrProtocol, 0)
		if !strings.Contains(se.Error(), "20 redirects") {
			t.Errorf("error %q does not name the limit", se)
		}
		if got := count.Load(); got != 21 {
			t.Errorf("server saw %d requests, want 21 (the first and 20 redirects)", got)
		}

		req := httpRequest(t, s.URL+"/r/3")
		_, _, err = httpGet(t, httpFetcherWith(t, &httpscheme.Fetcher{MaxRedirects: 2}), req)
		httpWantKind(t, err, schemes.ErrProtocol, 0)
	})
}

func TestHTTPRedirectToFileRefused(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		for _, loc := range []string{"file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/"} {
			s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Location", loc)
				w.WriteHeader(http.StatusMovedPermanently)
			}))
			res, _, err := httpGet(t, httpFetcher(t), httpRequest(t, s.URL+"/go"))
			if res != nil {
				t.Errorf("%s: got a resource", loc)
			}
			se := httpWantKind(t, err, schemes.ErrAccessDenied, 0)
			if !strings.Contains(se.Error(), "only http and https") {
				t.Errorf("%s: error %q does not say why", loc, se)
			}
		}
	})
}

func TestHTTPCredentialsNotSentToOtherHost(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		var mu sync.Mutex
		seen := map[string]string{}
		record := func(name string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen[name+" "+r.URL.Path] = r.Header.Get("Authorization")
				mu.Unlock()
				io.WriteString(w, name)
			}
		}
		other := httpServer(t, record("other"))
		origin := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/away":
				http.Redirect(w, r, other.URL+"/landed", http.StatusFound)
			case "/same":
				http.Redirect(w, r, "/here", http.StatusFound)
			default:
				record("origin")(w, r)
			}
		}))
		f := httpFetcher(t)
		for _, p := range []string{"/away", "/same"} {
			req := httpRequest(t, origin.URL+p)
			req.User = url.UserPassword("alice", "s3cret")
			if _, _, err := httpGet(t, f, req); err != nil {
				t.Fatal(err)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		want := "Basic " + "YWxpY2U6czNjcmV0" // alice:s3cret
		if got := seen["origin /here"]; got != want {
			t.Errorf("same-origin redirect: Authorization %q, want %q", got, want)
		}
		if got, ok := seen["other /landed"]; !ok || got != "" {
			t.Errorf("cross-host redirect: Authorization %q (request seen: %v), want none", got, ok)
		}
	})
}

func TestHTTPStatusErrors(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
			if code == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			}
			http.Error(w, "status page", code)
		}))
		f := httpFetcher(t)
		for _, tc := range []struct {
			code      int
			withCreds bool
			kind      error
			temporary bool
		}{
			{404, false, schemes.ErrNotFound, false},
			{410, false, schemes.ErrNotFound, false},
			{401, false, schemes.ErrAccessDenied, false},
			{401, true, schemes.ErrLoginFailed, false},
			{403, false, schemes.ErrAccessDenied, false},
			{400, false, schemes.ErrProtocol, false},
			{408, false, schemes.ErrProtocol, true},
			{429, false, schemes.ErrProtocol, true},
			{500, false, schemes.ErrServer, true},
			{503, false, schemes.ErrServer, true},
		} {
			req := httpRequest(t, s.URL+"/"+strconv.Itoa(tc.code))
			if tc.withCreds {
				req.User = url.UserPassword("u", "wrong")
			}
			res, _, err := httpGet(t, f, req)
			if res != nil {
				t.Errorf("%d: got a resource", tc.code)
			}
			se := httpWantKind(t, err, tc.kind, tc.code)
			if se.Temporary != tc.temporary {
				t.Errorf("%d: Temporary %v, want %v", tc.code, se.Temporary, tc.temporary)
			}
			if !strings.Contains(se.Reply, http.StatusText(tc.code)) {
				t.Errorf("%d: reply %q lacks the status line", tc.code, se.Reply)
			}
			if want := ": " + tc.kind.Error() + " (GET): " + strconv.Itoa(tc.code) + " " + http.StatusText(tc.code); !strings.HasSuffix(err.Error(), want) {
				t.Errorf("%d: message %q does not end in %q", tc.code, err, want)
			}
		}
	})
}

func TestHTTPPromptsForMissingPassword(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, p, _ := r.BasicAuth()
			io.WriteString(w, u+":"+p)
		}))
		req := httpRequest(t, s.URL+"/")
		req.User = url.User("bob")
		var asked string
		req.Prompt = func(prompt string) (string, error) { asked = prompt; return "typed", nil }
		_, body, err := httpGet(t, httpFetcher(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if string(body) != "bob:typed" || !strings.Contains(asked, "bob") {
			t.Errorf("body %q after prompt %q", body, asked)
		}
	})
}

func TestHTTPSlowBodyTimesOut(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		s := stallingServer(t, func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "1000")
			io.WriteString(w, "first bytes")
		})
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		res, err := httpFetcher(t).Fetch(ctx, httpRequest(t, s.URL+"/slow"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if string(b) != "first bytes" {
			t.Errorf("read %q before the deadline", b)
		}
		se := httpWantKind(t, err, schemes.ErrTimeout, 0)
		if !se.Temporary {
			t.Error("a timeout should be temporary")
		}
	})
}

func TestHTTPCancelStopsBody(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		s := stallingServer(t, func(w http.ResponseWriter) { io.WriteString(w, "some") })
		ctx, cancel := context.WithCancel(context.Background())
		res, err := httpFetcher(t).Fetch(ctx, httpRequest(t, s.URL+"/"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		buf := make([]byte, 4)
		if _, err := io.ReadFull(res.Body, buf); err != nil {
			t.Fatal(err)
		}
		cancel()
		if _, err := io.ReadAll(res.Body); !errors.Is(err, context.Canceled) {
			t.Errorf("read after cancel: %v, want context.Canceled", err)
		}
	})
}

func TestHTTPConnectionClosedMidBody(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		s := httpServer(t, hijacked(func(path string, bw *bufio.ReadWriter, _ net.Conn) {
			if path == "/chunked" {
				bw.WriteString("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n10\r\nshort")
			} else {
				bw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789")
			}
		}))
		for _, p := range []string{"/length", "/chunked"} {
			res, err := httpFetcher(t).Fetch(context.Background(), httpRequest(t, s.URL+p))
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.ReadAll(res.Body)
			res.Body.Close()
			se := httpWantKind(t, err, schemes.ErrTruncated, 0)
			if !se.Temporary {
				t.Errorf("%s: a truncated transfer should be temporary", p)
			}
		}
	})
}

func TestHTTPRangeResume(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		content := bytes.Repeat([]byte("0123456789"), 100)
		mod := time.Date(2023, 5, 6, 7, 8, 9, 0, time.UTC)
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/norange" {
				r.Header.Del("Range")
			}
			http.ServeContent(w, r, "data.bin", mod, bytes.NewReader(content))
		}))
		f := httpFetcher(t)

		req := httpRequest(t, s.URL+"/data.bin")
		req.Offset = 995
		res, body, err := httpGet(t, f, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Offset != 995 || res.Size != 1000 || string(body) != "56789" {
			t.Errorf("resume: offset %d size %d body %q", res.Offset, res.Size, body)
		}

		req = httpRequest(t, s.URL+"/norange")
		req.Offset = 995
		res, body, err = httpGet(t, f, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Offset != 0 || res.Size != 1000 || !bytes.Equal(body, content) {
			t.Errorf("200 to a Range request: offset %d size %d, %d bytes", res.Offset, res.Size, len(body))
		}

		req = httpRequest(t, s.URL+"/data.bin")
		req.Offset = 1000
		res, body, err = httpGet(t, f, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Offset != 1000 || res.Size != 1000 || len(body) != 0 {
			t.Errorf("resume of a complete file: offset %d size %d body %q", res.Offset, res.Size, body)
		}

		req = httpRequest(t, s.URL+"/data.bin")
		req.Offset = 5000
		_, _, err = httpGet(t, f, req)
		httpWantKind(t, err, schemes.ErrProtocol, http.StatusRequestedRangeNotSatisfiable)
	})
}

func TestHTTPHead(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		var method string
		mod := time.Date(2022, 1, 2, 3, 4, 5, 0, time.UTC)
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			method = r.Method
			http.ServeContent(w, r, "page.html", mod, strings.NewReader("<p>twelve</p>"))
		}))
		req := httpRequest(t, s.URL+"/page.html")
		req.Head = true
		res, err := httpFetcher(t).Fetch(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if method != http.MethodHead {
			t.Errorf("method %s", method)
		}
		if res.Body != nil || res.Listing != nil {
			t.Error("HEAD returned a body or listing")
		}
		if res.Size != 13 || !strings.HasPrefix(res.ContentType, "text/html") || !res.ModTime.Equal(mod) || res.Name != "page.html" {
			t.Errorf("size %d type %q time %v name %q", res.Size, res.ContentType, res.ModTime, res.Name)
		}
	})
}

func TestHTTPNoTransparentGunzip(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		gz := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0}
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz)
		}))
		_, body, err := httpGet(t, httpFetcher(t), httpRequest(t, s.URL+"/z"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(body, gz) {
			t.Errorf("body %x, want the gzip bytes as sent", body)
		}
	})
}

func TestHTTPMaxSize(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			w.Write(make([]byte, 100))
		}))
		req := httpRequest(t, s.URL+"/big")
		req.MaxSize = 99
		_, _, err := httpGet(t, httpFetcher(t), req)
		httpWantKind(t, err, schemes.ErrTooLarge, 0)
	})
}

func TestHTTPConnectionReuse(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		var conns atomic.Int32
		s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, r.URL.Path)
		}))
		s.Config.ConnState = func(c net.Conn, st http.ConnState) {
			if st == http.StateNew {
				conns.Add(1)
			}
		}
		s.Start()
		t.Cleanup(s.Close)
		f := httpFetcher(t)
		for i := range 5 {
			p := fmt.Sprintf("/item%d", i)
			req := httpRequest(t, s.URL+p)
			_, body, err := httpGet(t, f, req)
			if err != nil {
				t.Fatal(err)
			}
			if string(body) != p {
				t.Errorf("body %q, want %q", body, p)
			}
		}
		if got := conns.Load(); got != 1 {
			t.Errorf("%d connections for 5 sequential fetches, want 1", got)
		}
	})
}

func TestHTTPS(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, r.Proto)
		}))
		s.EnableHTTP2 = true
		s.StartTLS()
		t.Cleanup(s.Close)
		pool := x509.NewCertPool()
		pool.AddCert(s.Certificate())

		req := httpRequest(t, s.URL+"/secure")
		req.TLSConfig = &tls.Config{RootCAs: pool}
		var tr httpTrace
		req.Trace = tr.tracer()
		_, body, err := httpGet(t, httpFetcher(t), req)
		if err != nil {
			t.Fatal(err)
		}
		// h2 is offered over TLS, as curl offers it, to a run's only
		// URL as to any other.
		want, line := "HTTP/2.0", "> GET /secure HTTP/2"
		if string(body) != want || !tr.has(line) {
			t.Errorf("body %q, trace %q; want %s", body, tr.lines, want)
		}

		// Without the test CA the certificate is not trusted.
		_, _, err = httpGet(t, httpFetcher(t), httpRequest(t, s.URL+"/secure"))
		httpWantKind(t, err, schemes.ErrConnect, 0)
	})
}

// TestHTTPSResumesSessions checks that a run's later TLS connections to a
// server resume the session of the first, as curl's do: the server here
// closes every connection after its response, and the trace says which
// handshakes resumed.
func TestHTTPSResumesSessions(t *testing.T) {
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		io.WriteString(w, "fresh")
	}))
	s.StartTLS()
	t.Cleanup(s.Close)
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	f := httpFetcher(t)
	var handshakes []string
	for i := 0; i < 3; i++ {
		req := httpRequest(t, s.URL+"/r"+strconv.Itoa(i))
		req.TLSConfig = &tls.Config{RootCAs: pool}
		var tr httpTrace
		req.Trace = tr.tracer()
		if _, body, err := httpGet(t, f, req); err != nil || string(body) != "fresh" {
			t.Fatalf("request %d: %q, %v", i, body, err)
		}
		for _, l := range tr.lines {
			if strings.HasPrefix(l, "* TLS ") {
				handshakes = append(handshakes, l)
			}
		}
	}
	if len(handshakes) != 3 {
		t.Fatalf("handshakes %q, want 3", handshakes)
	}
	for i, l := range handshakes {
		if resumed := strings.HasSuffix(l, ", session resumed"); resumed != (i > 0) {
			t.Errorf("handshake %d: %q", i, l)
		}
	}
}

func TestHTTPConnectionRefused(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		_, _, err = httpGet(t, httpFetcher(t), httpRequest(t, "http://"+addr+"/"))
		httpWantKind(t, err, schemes.ErrConnect, 0)
	})
}

// BenchmarkHTTPBulk measures the fetcher's throughput for a 64 MiB body
// over loopback.
func BenchmarkHTTPBulk(b *testing.B) {
	const size = 64 << 20
	data := make([]byte, 1<<20)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for range size / len(data) {
			w.Write(data)
		}
	}))
	defer s.Close()
	f := &httpscheme.Fetcher{}
	defer f.Close()
	u := uri.MustParse(s.URL + "/bulk")
	b.SetBytes(size)
	for b.Loop() {
		res, err := f.Fetch(context.Background(), &schemes.Request{URL: u, Dialer: &net.Dialer{}, TLSConfig: &tls.Config{}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
	}
}

// BenchmarkHTTPSmall measures one fetch of a 4 KiB body over a kept-alive
// connection, the per-URL cost of a run over many small files.
func BenchmarkHTTPSmall(b *testing.B) {
	data := make([]byte, 4096)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "4096")
		w.Write(data)
	}))
	defer s.Close()
	f := &httpscheme.Fetcher{}
	defer f.Close()
	u := uri.MustParse(s.URL + "/small")
	req := &schemes.Request{URL: u, Dialer: &net.Dialer{}, TLSConfig: &tls.Config{}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := f.Fetch(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
	}
}
