package fetch

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// seenRequest is what the fake gateway received.
type seenRequest struct {
	line, host, auth, proxyAuth, rng string
}

// fakeGateway starts an HTTP proxy on 127.0.0.1 that answers every request
// with answer, recording the request line and headers it got.
func fakeGateway(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) (proxyURL string, seen func() []seenRequest) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []seenRequest
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, seenRequest{
			line: r.Method + " " + r.RequestURI + " " + r.Proto,
			host: r.Host, auth: r.Header.Get("Authorization"), proxyAuth: r.Header.Get("Proxy-Authorization"),
			rng: r.Header.Get("Range"),
		})
		mu.Unlock()
		answer(w, r)
	}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://proxyuser:proxy%20pw@" + ln.Addr().String(), func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]seenRequest(nil), got...)
	}
}

// gatewayClient is a Client that sends every URL through proxyURL, and
// collects its trace.
func gatewayClient(t *testing.T, proxyURL string) (*Client, *strings.Builder) {
	var mu sync.Mutex
	trace := &strings.Builder{}
	c := &Client{
		Proxy: ProxyURL(&Proxy{URL: uri.MustParse(proxyURL)}, ""),
		Trace: func(dir schemes.Direction, line string) {
			mu.Lock()
			defer mu.Unlock()
			trace.WriteString(string(dir) + " " + line + "\n")
		},
	}
	t.Cleanup(func() { c.Close() })
	return c, trace
}

func gatewayCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestGatewayFile(t *testing.T) {
	proxy, seen := fakeGateway(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Last-Modified", "Wed, 25 Nov 2026 22:55:55 GMT")
		w.Header().Set("Content-Length", "6")
		w.WriteHeader(200)
		io.WriteString(w, "hello\n")
	})
	c, trace := gatewayClient(t, proxy)
	for _, tc := range []struct {
		url, line, host, auth string
	}{
		// Anonymous: the request line carries the absolute URI (RFC 9112
		// §3.2.2), Host the target's authority.
		{"ftp://files.example:2121/pub/a.txt#frag", "GET ftp://files.example:2121/pub/a.txt;type=i HTTP/1.1", "files.example:2121", ""},
		// The site's credentials as the user wrote them stay in the URL,
		// for the gateway to log in with; the proxy's go apart.
		{"ftp://ann:s%3Acret@files.example/a.txt", "GET ftp://ann:s%3Acret@files.example/a.txt;type=i HTTP/1.1", "files.example", ""},
		{"gopher://hole.example/0/a.txt", "GET gopher://hole.example/0/a.txt HTTP/1.1", "hole.example", ""},
	} {
		res, err := c.Fetch(gatewayCtx(t), tc.url)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(b) != "hello\n" {
			t.Fatalf("%s: body %q, %v", tc.url, b, err)
		}
		if res.Size != 6 || res.ContentType != "text/plain" || res.ModTime.IsZero() || res.Name != "a.txt" {
			t.Errorf("%s: size %d, type %q, time %v, name %q", tc.url, res.Size, res.ContentType, res.ModTime, res.Name)
		}
		got := seen()[len(seen())-1]
		wantProxyAuth := "Basic " + base64.StdEncoding.EncodeToString([]byte("proxyuser:proxy pw"))
		if got.line != tc.line || got.host != tc.host || got.auth != tc.auth || got.proxyAuth != wantProxyAuth {
			t.Errorf("%s: the proxy got %+v", tc.url, got)
		}
	}
	// -v shows the request and status; no secret appears.
	tr := trace.String()
	for _, want := range []string{"> GET ftp://files.example:2121/pub/a.txt;type=i HTTP/1.1", "> Proxy-Authorization: Basic ****", "< HTTP/1.1 200 OK", "ftp://ann:****@files.example/a.txt"} {
		if !strings.Contains(tr, want) {
			t.Errorf("trace lacks %q:\n%s", want, tr)
		}
	}
	for _, secret := range []string{"s%3Acret", "proxy pw", "proxy%20pw", base64.StdEncoding.EncodeToString([]byte("proxyuser:proxy pw"))} {
		if strings.Contains(tr, secret) {
			t.Errorf("trace shows %q:\n%s", secret, tr)
		}
	}
}

// A resume asks the gateway for the whole file (squid 5.7 gets a Range
// over ftp wrong), which comes with Offset 0 for the caller to start over.
func TestGatewayResume(t *testing.T) {
	proxy, seen := fakeGateway(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello\n") })
	c, _ := gatewayClient(t, proxy)
	res, err := c.Do(gatewayCtx(t), Request{URL: uri.MustParse("ftp://files.example/a.txt"), Offset: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if got := seen()[0]; got.rng != "" || res.Offset != 0 || string(b) != "hello\n" {
		t.Errorf("Range %q sent; Offset %d, body %q", got.rng, res.Offset, b)
	}
}

// Credentials given apart from the URL (-u, .netrc) go to the gateway as
// Authorization, never into the URL and never as the proxy's.
func TestGatewaySiteCredentials(t *testing.T) {
	proxy, seen := fakeGateway(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") })
	c, _ := gatewayClient(t, proxy)
	c.User = url.UserPassword("bob", "pw")
	res, err := c.Fetch(gatewayCtx(t), "ftp://files.example/a")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	got := seen()[0]
	if got.line != "GET ftp://files.example/a;type=i HTTP/1.1" || got.auth != "Basic "+base64.StdEncoding.EncodeToString([]byte("bob:pw")) ||
		strings.Contains(got.proxyAuth, base64.StdEncoding.EncodeToString([]byte("bob:pw"))) {
		t.Errorf("the proxy got %+v", got)
	}
}

// squid's listing of a directory (testdata: squid 5.7's page for a vsftpd
// directory holding a.txt, sub/ and "we ird&.html") becomes entries with
// absolute ftp: URLs; --raw-listing keeps the page.
func TestGatewayListing(t *testing.T) {
	page, err := os.ReadFile("../schemes/http/testdata/squid-ftp-listing.html")
	if err != nil {
		t.Fatal(err)
	}
	proxy, _ := fakeGateway(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html;charset=utf-8")
		w.Write(page)
	})
	c, _ := gatewayClient(t, proxy)
	for _, u := range []string{"ftp://ann:pw@127.0.0.1:22121/pub/", "ftp://127.0.0.1:22121/pub/;type=d"} {
		res, err := c.Fetch(gatewayCtx(t), u)
		if err != nil {
			t.Fatal(err)
		}
		if res.Listing == nil {
			t.Fatalf("%s: no listing", u)
		}
		var got []string
		for {
			e, err := res.Listing.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, e.Kind.String()+" "+e.Name+" "+e.URL+" "+e.Fields["size"])
		}
		res.Listing.Close()
		user := ""
		if strings.Contains(u, "ann") {
			user = "ann@" // the user stays, the password does not (listings are printed)
		}
		want := []string{
			"file a.txt ftp://" + user + "127.0.0.1:22121/pub/a.txt 1k",
			"directory sub ftp://" + user + "127.0.0.1:22121/pub/sub/ ",
			"file we ird&.html ftp://" + user + "127.0.0.1:22121/pub/we%20ird%26.html 1k",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: entries\n%s\nwant\n%s", u, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}

	res, err := c.Do(gatewayCtx(t), Request{URL: uri.MustParse("ftp://127.0.0.1:22121/pub/"), Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != string(page) {
		t.Errorf("--raw-listing: got %d bytes, want the page's %d", len(b), len(page))
	}
}

func TestGatewayErrors(t *testing.T) {
	proxy, _ := fakeGateway(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.Contains(r.RequestURI, "/missing"):
			w.Header().Set("X-Squid-Error", "ERR_FTP_NOT_FOUND 0")
			http.Error(w, "nope", http.StatusNotFound)
		case strings.Contains(r.RequestURI, "/secret"):
			http.Error(w, "no", http.StatusForbidden)
		case strings.HasPrefix(r.RequestURI, "gopher:"):
			w.Header().Set("X-Squid-Error", "ERR_UNSUP_REQ 0")
			http.Error(w, "no gopher", http.StatusNotImplemented)
		case strings.Contains(r.RequestURI, "/proxyauth"):
			http.Error(w, "who", http.StatusProxyAuthRequired)
		default:
			w.Header().Set("X-Squid-Error", "ERR_CONNECT_FAIL 111")
			http.Error(w, "down", http.StatusServiceUnavailable)
		}
	})
	c, _ := gatewayClient(t, proxy)
	for _, tc := range []struct {
		url  string
		kind error
		msg  string
	}{
		{"ftp://files.example/missing", schemes.ErrNotFound, "404 Not Found: the proxy says ERR_FTP_NOT_FOUND 0"},
		// A refusal of the gateway request: the fetch goes on by
		// CONNECT, which this proxy refuses too; the message names
		// both answers.
		{"ftp://files.example/secret", schemes.ErrProxyTunnel, "proxy CONNECT failed: 503 Service Unavailable: the proxy http://proxyuser:****@127.0.0.1:"},
		{"ftp://files.example/secret", schemes.ErrProxyTunnel, "fetches no ftp: URLs (it answered 403 Forbidden) and tunnels none to files.example:21"},
		// 501 to a gopher: URL: the fetch goes on by CONNECT, which this
		// proxy answers 503.
		{"gopher://hole.example/0/a", schemes.ErrProxyTunnel, "proxy CONNECT failed: 503 Service Unavailable"},
		{"ftp://files.example/proxyauth", schemes.ErrLoginFailed, "the proxy refused its credentials"},
		{"ftp://u:hidden@files.example/down", schemes.ErrProxyTunnel, "ftp://u:****@files.example/down: proxy CONNECT failed: 503 Service Unavailable"},
		{"ftp://u:hidden@files.example/down", schemes.ErrProxyTunnel, "(it answered 503 Service Unavailable, the proxy says ERR_CONNECT_FAIL 111)"},
	} {
		_, err := c.Fetch(gatewayCtx(t), tc.url)
		if temp := schemes.IsTemporary(err); temp != strings.HasSuffix(tc.url, "/down") {
			t.Errorf("%s: temporary %v", tc.url, temp)
		}
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) || strings.Contains(err.Error(), "hidden") {
			t.Errorf("%s: %v, want %v with %q", tc.url, err, tc.kind, tc.msg)
		}
	}
	// A proxy that refuses the connection.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	c2, _ := gatewayClient(t, "http://"+addr)
	_, err := c2.Fetch(gatewayCtx(t), "ftp://files.example/a")
	if !errors.Is(err, schemes.ErrConnect) || !strings.Contains(err.Error(), addr) {
		t.Errorf("refused proxy: %v", err)
	}
}
