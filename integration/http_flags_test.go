package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
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
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/urlget/urlget/integration/enctest"
	"github.com/urlget/urlget/schemes"
	httpscheme "github.com/urlget/urlget/schemes/http"
)

// encodeWith compresses data in one coding of enctest.Codings.
func encodeWith(t *testing.T, coding string, data []byte) []byte {
	t.Helper()
	b, err := enctest.Encode(coding, data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compressible is 2 MiB of text that compresses well but not to nothing:
// enough that decoding spans many reads of the connection.
func compressible(t *testing.T) []byte {
	t.Helper()
	raw := make([]byte, 16<<10)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	return bytes.Repeat([]byte(hex.EncodeToString(raw)+"\n"), 64)
}

// TestHTTPCompressedEachCoding fetches a body in each content coding with
// Compressed set: the request offers all four, the body arrives decoded
// with no size known ahead. Without Compressed it arrives as sent.
func TestHTTPCompressedEachCoding(t *testing.T) {
	data := compressible(t)
	for _, coding := range enctest.Codings {
		t.Run(coding, func(t *testing.T) {
			enc := encodeWith(t, coding, data)
			var mu sync.Mutex
			var asked string
			s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				asked = r.Header.Get("Accept-Encoding")
				mu.Unlock()
				w.Header().Set("Content-Encoding", enctest.Name(coding))
				w.Header().Set("Content-Length", strconv.Itoa(len(enc)))
				w.Write(enc)
			}))
			req := httpRequest(t, s.URL+"/f")
			res, body, err := httpGet(t, httpFetcherWith(t, &httpscheme.Fetcher{Compressed: true}), req)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, data) {
				t.Errorf("%d bytes decoded, want the %d sent encoded", len(body), len(data))
			}
			if res.Size != -1 {
				t.Errorf("Size %d, want -1 for a decoded body", res.Size)
			}
			mu.Lock()
			if asked != "gzip, deflate, br, zstd" {
				t.Errorf("Accept-Encoding %q", asked)
			}
			mu.Unlock()

			res, body, err = httpGet(t, httpFetcher(t), httpRequest(t, s.URL+"/f"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, enc) || res.Size != int64(len(enc)) {
				t.Errorf("without Compressed: %d bytes, Size %d; want the %d sent", len(body), res.Size, len(enc))
			}
			mu.Lock()
			if asked != "" {
				t.Errorf("without Compressed, Accept-Encoding %q was sent", asked)
			}
			mu.Unlock()
		})
	}
}

// TestHTTPCompressedStackedCodings undoes two codings, the last applied
// first (RFC 9110 §8.4), on a chunked body.
func TestHTTPCompressedStackedCodings(t *testing.T) {
	data := []byte("twice wrapped\n")
	enc := encodeWith(t, "br", encodeWith(t, "gzip", data))
	s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip, br")
		w.Write(enc)
	}))
	req := httpRequest(t, s.URL+"/f")
	_, body, err := httpGet(t, httpFetcherWith(t, &httpscheme.Fetcher{Compressed: true}), req)
	if err != nil || !bytes.Equal(body, data) {
		t.Fatalf("body %q, %v", body, err)
	}
}

// TestHTTPCompressedFaults: a coding urlget cannot decode fails the fetch,
// a body that does not decode fails its read, both as the server's
// protocol errors; an empty body reads as empty whatever its coding.
func TestHTTPCompressedFaults(t *testing.T) {
	s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/compress":
			w.Header().Set("Content-Encoding", "compress")
			w.Write([]byte("LZW"))
		case "/corrupt":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write([]byte("\x1f\x8b\x08\x00 not really gzip at all"))
		case "/empty":
			w.Header().Set("Content-Encoding", "zstd")
			w.WriteHeader(http.StatusOK)
		case "/missing":
			w.Header().Set("Content-Encoding", "compress")
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	f := httpFetcherWith(t, &httpscheme.Fetcher{Compressed: true})
	get := func(path string) ([]byte, error) {
		req := httpRequest(t, s.URL+path)
		_, body, err := httpGet(t, f, req)
		return body, err
	}
	_, err := get("/compress")
	if se := httpWantKind(t, err, schemes.ErrProtocol, 200); !strings.Contains(se.Error(), `"compress"`) {
		t.Errorf("error %q does not name the coding", se)
	}
	_, err = get("/corrupt")
	if se := httpWantKind(t, err, schemes.ErrProtocol, 0); !strings.Contains(se.Error(), "gzip-encoded body does not decode") {
		t.Errorf("error %q", se)
	}
	body, err := get("/empty")
	if err != nil || len(body) != 0 {
		t.Errorf("empty body: %q, %v", body, err)
	}
	// The status comes first: a 404 is a 404 whatever its coding.
	_, err = get("/missing")
	httpWantKind(t, err, schemes.ErrNotFound, 404)
}

// TestHTTPCompressedResumeAsksPlainBytes: a request from an offset asks
// for no encoding, so that the range is one of the plain bytes a
// resumed file holds.
func TestHTTPCompressedResumeAsksPlainBytes(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Header.Get("Accept-Encoding"))
		mu.Unlock()
		http.ServeContent(w, r, "f", time.Time{}, strings.NewReader("0123456789"))
	}))
	req := httpRequest(t, s.URL+"/f")
	req.Offset = 4
	res, body, err := httpGet(t, httpFetcherWith(t, &httpscheme.Fetcher{Compressed: true}), req)
	if err != nil || string(body) != "456789" || res.Offset != 4 {
		t.Fatalf("body %q offset %v: %v", body, res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0] != "" {
		t.Errorf("Accept-Encoding sent with a range: %q", asked)
	}
}

// echoHeaders answers with the request's header fields, one "Name: value"
// a line, and its Host.
func echoHeaders(w http.ResponseWriter, r *http.Request) {
	for name, vs := range r.Header {
		for _, v := range vs {
			fmt.Fprintf(w, "%s: %s\n", name, v)
		}
	}
	fmt.Fprintf(w, "Host: %s\n", r.Host)
}

// TestHTTPHeaderFields sends -H's forms as the Fetcher holds them: a
// field added, a default replaced, a default removed, one sent empty, two
// of a name, the Host.
func TestHTTPHeaderFields(t *testing.T) {
	s := httpServer(t, http.HandlerFunc(echoHeaders))
	req := httpRequest(t, s.URL+"/h")
	header := []httpscheme.Field{{Name: "X-One", Value: "1"}, {Name: "Accept", Value: "text/plain"}, {Name: "X-One", Value: "2"}, {Name: "X-Empty", Value: ""}, {Name: "Host", Value: "example.test"}, {Name: "Host", Value: "second.test"}}
	f := httpFetcherWith(t, &httpscheme.Fetcher{Header: header, RemoveHeader: []string{"User-Agent", "referer"}, Referer: "http://gone.example/"})
	_, body, err := httpGet(t, f, req)
	if err != nil {
		t.Fatal(err)
	}
	lines := "\n" + string(body)
	for _, want := range []string{"X-One: 1", "X-One: 2", "Accept: text/plain", "X-Empty: ", "Host: example.test"} {
		if !strings.Contains(lines, "\n"+want+"\n") {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
	for _, gone := range []string{"User-Agent", "Accept: */*", "Referer"} {
		if strings.Contains(lines, "\n"+gone) {
			t.Errorf("%q sent:\n%s", gone, body)
		}
	}

	if len(header) != 6 || header[0] != (httpscheme.Field{Name: "X-One", Value: "1"}) {
		t.Errorf("the Fetcher's Header was changed: %q", header)
	}

	req = httpRequest(t, s.URL+"/h")
	_, _, err = httpGet(t, httpFetcherWith(t, &httpscheme.Fetcher{Header: []httpscheme.Field{{Name: "X-Bad", Value: "a\r\nInjected: yes"}}}), req)
	httpWantKind(t, err, schemes.ErrBadURL, 0)
	req = httpRequest(t, s.URL+"/h")
	_, _, err = httpGet(t, httpFetcherWith(t, &httpscheme.Fetcher{Header: []httpscheme.Field{{Name: "Bad Name", Value: "a"}}}), req)
	httpWantKind(t, err, schemes.ErrBadURL, 0)
}

// TestHTTPRefererOnRedirects: the Referer given goes with every request
// of a redirect chain; with AutoReferer each redirected request names the
// page that redirected it, its credentials left out.
func TestHTTPRefererOnRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/b", http.StatusFound) })
	mux.HandleFunc("/b", echoHeaders)
	s := httpServer(t, mux)

	req := httpRequest(t, s.URL+"/a")
	_, body, err := httpGet(t, httpFetcherWith(t, &httpscheme.Fetcher{Referer: "http://from.example/"}), req)
	if err != nil || !strings.Contains(string(body), "Referer: http://from.example/\n") {
		t.Errorf("fixed Referer: %s %v", body, err)
	}

	req = httpRequest(t, strings.Replace(s.URL, "http://", "http://u:secret@", 1)+"/a#frag")
	_, body, err = httpGet(t, httpFetcherWith(t, &httpscheme.Fetcher{AutoReferer: true}), req)
	if err != nil || !strings.Contains(string(body), "Referer: "+s.URL+"/a\n") {
		t.Errorf("auto Referer: %s %v", body, err)
	}
}

// TestHTTPFailWithBody: the error page is the body, and its end is the
// status error; kept-alive connections and the 416 of a complete resume
// are as without it.
func TestHTTPFailWithBody(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		page := encodeWith(t, "gzip", []byte("no such page\n"))
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/gz" {
				w.Header().Set("Content-Encoding", "gzip")
				w.WriteHeader(http.StatusNotFound)
				w.Write(page)
				return
			}
			http.Error(w, "no such page", http.StatusNotFound)
		}))
		f := httpFetcherWith(t, &httpscheme.Fetcher{FailWithBody: true, Compressed: true})
		for _, path := range []string{"/plain", "/gz"} {
			req := httpRequest(t, s.URL+path)
			res, body, err := httpGet(t, f, req)
			if string(body) != "no such page\n" {
				t.Errorf("%s: body %q", path, body)
			}
			httpWantKind(t, err, schemes.ErrNotFound, 404)
			if res == nil || res.StatusCode != 404 || res.Status != "404 Not Found" {
				t.Errorf("%s: resource %+v", path, res)
			}
		}
		// HEAD has no page to keep: the error comes from Fetch.
		req := httpRequest(t, s.URL+"/plain")
		req.Head = true
		_, _, err := httpGet(t, f, req)
		httpWantKind(t, err, schemes.ErrNotFound, 404)
	})
}

// TestHTTPOnResponseEveryHop: OnResponse sees each response of a redirect
// chain in order, the error status that ends one too.
func TestHTTPOnResponseEveryHop(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/b", http.StatusMovedPermanently) })
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/c", http.StatusFound) })
	mux.HandleFunc("/c", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("end")) })
	s := httpServer(t, mux)
	var statuses []string
	var locations []string
	onResponse := func(head *schemes.Resource) {
		statuses = append(statuses, head.Proto+" "+head.Status)
		for _, kv := range head.Header {
			if kv[0] == "Location" {
				locations = append(locations, kv[1])
			}
		}
	}
	f := httpFetcherWith(t, &httpscheme.Fetcher{OnResponse: onResponse})
	for _, trace := range []bool{false, true} {
		statuses, locations = nil, nil
		req := httpRequest(t, s.URL+"/a")
		if trace {
			req.Trace = (&httpTrace{}).tracer()
		}
		if _, body, err := httpGet(t, f, req); err != nil || string(body) != "end" {
			t.Fatalf("body %q: %v", body, err)
		}
		want := []string{"HTTP/1.1 301 Moved Permanently", "HTTP/1.1 302 Found", "HTTP/1.1 200 OK"}
		if strings.Join(statuses, "|") != strings.Join(want, "|") || strings.Join(locations, "|") != "/b|/c" {
			t.Errorf("trace %v: statuses %q locations %q", trace, statuses, locations)
		}
	}
	statuses = nil
	req := httpRequest(t, s.URL+"/missing")
	_, _, err := httpGet(t, f, req)
	httpWantKind(t, err, schemes.ErrNotFound, 404)
	if len(statuses) != 1 || statuses[0] != "HTTP/1.1 404 Not Found" {
		t.Errorf("error response: %q", statuses)
	}
}

// TestHTTPHeaderAuthorizationOnRedirects: an Authorization given with -H
// follows a redirect to the same origin, like -u's, and never to another
// (another port of the same host included).
func TestHTTPHeaderAuthorizationOnRedirects(t *testing.T) {
	other := httpServer(t, http.HandlerFunc(echoHeaders))
	mux := http.NewServeMux()
	mux.HandleFunc("/same", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/echo", http.StatusFound) })
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other.URL+"/echo", http.StatusFound) })
	mux.HandleFunc("/echo", echoHeaders)
	s := httpServer(t, mux)
	f := httpFetcherWith(t, &httpscheme.Fetcher{Header: []httpscheme.Field{{Name: "Authorization", Value: "Bearer token"}}})
	for path, sent := range map[string]bool{"/same": true, "/away": false} {
		req := httpRequest(t, s.URL+path)
		_, body, err := httpGet(t, f, req)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(body), "Authorization: Bearer token\n"); got != sent {
			t.Errorf("%s: Authorization sent %v, want %v:\n%s", path, got, sent, body)
		}
	}
	// A URL a recursion reached on another origin (Request.Foreign) gets
	// neither the Authorization nor the Cookie field; the others go.
	f = httpFetcherWith(t, &httpscheme.Fetcher{Header: []httpscheme.Field{{Name: "Authorization", Value: "Bearer token"}, {Name: "Cookie", Value: "sid=1"}, {Name: "X-Kept", Value: "yes"}}})
	for _, foreign := range []bool{false, true} {
		req := httpRequest(t, s.URL+"/echo")
		req.Foreign = foreign
		_, body, err := httpGet(t, f, req)
		if err != nil {
			t.Fatal(err)
		}
		got := string(body)
		if sent := strings.Contains(got, "Authorization: Bearer token\n") || strings.Contains(got, "Cookie: sid=1\n"); sent == foreign || !strings.Contains(got, "X-Kept: yes\n") {
			t.Errorf("foreign %v: credential fields sent %v:\n%s", foreign, sent, got)
		}
	}
	// Nor does a removal of the user's own Authorization take a foreign
	// URL's own credentials away.
	f = httpFetcherWith(t, &httpscheme.Fetcher{RemoveHeader: []string{"Authorization"}})
	for _, foreign := range []bool{false, true} {
		req := httpRequest(t, s.URL+"/echo")
		req.User, req.Foreign = url.UserPassword("u", "p"), foreign
		_, body, err := httpGet(t, f, req)
		if err != nil {
			t.Fatal(err)
		}
		if sent := strings.Contains(string(body), "Authorization: Basic dTpw\n"); sent != foreign {
			t.Errorf("foreign %v: the URL's own credentials sent %v:\n%s", foreign, sent, body)
		}
	}
}

// TestHTTPDecodedBodyLeavesNoConnectionOpen: a body closed gives its
// connection back, when the body is decoded or an error page too, so that
// the Fetcher's Close, the caller's end of work, closes it.
func TestHTTPDecodedBodyLeavesNoConnectionOpen(t *testing.T) {
	page := encodeWith(t, "gzip", []byte("page\n"))
	for _, status := range []int{http.StatusOK, http.StatusNotFound} {
		var conns connCounter
		s := countedServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(status)
			w.Write(page)
		}), &conns)
		req := httpRequest(t, s.URL+"/p")
		f := &httpscheme.Fetcher{Compressed: true, FailWithBody: true}
		_, body, _ := httpGet(t, f, req)
		if string(body) != "page\n" {
			t.Fatalf("%d: body %q", status, body)
		}
		f.Close()
		deadline := time.Now().Add(10 * time.Second)
		for conns.closed.Load() < 1 {
			if time.Now().After(deadline) {
				t.Fatalf("%d: the connection is still open after the last body", status)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestHTTPCompressedCancelAndTruncation: a decoded body reports the
// body's own failures as they are: a cancelled transfer as cancelled, a
// connection closed before Content-Length as truncated, not as bytes
// that do not decode.
func TestHTTPCompressedCancelAndTruncation(t *testing.T) {
	enc := encodeWith(t, "gzip", compressible(t))
	s := stallingServer(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(enc)))
		w.Write(enc[:len(enc)/2])
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := httpRequest(t, s.URL+"/stall")
	res, err := httpFetcherWith(t, &httpscheme.Fetcher{Compressed: true}).Fetch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	buf := make([]byte, 64<<10)
	if _, err := res.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, err = io.Copy(io.Discard, res.Body)
	if !errors.Is(err, context.Canceled) || errors.Is(err, schemes.ErrProtocol) {
		t.Errorf("cancelled: %v, want context.Canceled alone", err)
	}

	cut := httpServer(t, hijacked(func(_ string, bw *bufio.ReadWriter, _ net.Conn) {
		fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", len(enc))
		bw.Write(enc[:len(enc)/2])
	}))
	req = httpRequest(t, cut.URL+"/cut")
	_, _, err = httpGet(t, httpFetcherWith(t, &httpscheme.Fetcher{Compressed: true}), req)
	httpWantKind(t, err, schemes.ErrTruncated, 0)
}

// TestHTTPZstdWindowBounded: a zstd body whose frame asks for a window
// past RFC 9659's 8 MB is refused rather than decoded with that much
// memory.
func TestHTTPZstdWindowBounded(t *testing.T) {
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b, zstd.WithWindowSize(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(compressible(t))
	w.Close()
	s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "zstd")
		w.Write(b.Bytes())
	}))
	req := httpRequest(t, s.URL+"/big-window")
	_, _, err = httpGet(t, httpFetcherWith(t, &httpscheme.Fetcher{Compressed: true}), req)
	httpWantKind(t, err, schemes.ErrProtocol, 0)
}

// TestHTTP2StatusLine: an HTTP/2 response's status line is "HTTP/2 200",
// as curl writes it for -i and -D: HTTP/2 has no reason phrase.
func TestHTTP2StatusLine(t *testing.T) {
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) }))
	s.EnableHTTP2 = true
	s.StartTLS()
	t.Cleanup(s.Close)
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	var lines []string
	req := httpRequest(t, s.URL+"/h2")
	req.TLSConfig = &tls.Config{RootCAs: pool}
	onResponse := func(head *schemes.Resource) { lines = append(lines, head.Proto+" "+head.Status) }
	res, body, err := httpGet(t, httpFetcherWith(t, &httpscheme.Fetcher{OnResponse: onResponse}), req)
	if err != nil || string(body) != "HTTP/2.0" {
		t.Fatalf("body %q: %v", body, err)
	}
	if line := res.Proto + " " + res.Status; len(lines) != 1 || lines[0] != "HTTP/2 200" || line != "HTTP/2 200" || res.StatusCode != 200 {
		t.Errorf("status lines %q and %q (%d), want HTTP/2 200", lines, line, res.StatusCode)
	}
}
