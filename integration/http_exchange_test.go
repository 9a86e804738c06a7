package integration

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	httpscheme "github.com/urlget/urlget/schemes/http"
)

// connCounter counts a test server's connections as they open and close.
type connCounter struct {
	opened, closed atomic.Int32
}

func (c *connCounter) hook(_ net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		c.opened.Add(1)
	case http.StateClosed, http.StateHijacked:
		c.closed.Add(1)
	}
}

// countedServer starts a server whose connections c counts.
func countedServer(t *testing.T, h http.Handler, c *connCounter) *httptest.Server {
	s := httptest.NewUnstartedServer(h)
	s.Config.ConnState = c.hook
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// hijacked serves each request by taking over its connection, letting
// write answer on it as it likes, then flushing and closing it.
func hijacked(write func(path string, bw *bufio.ReadWriter, conn net.Conn)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, bw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		write(r.URL.Path, bw, conn)
		bw.Flush()
	})
}

// rawReply is a hijacked handler that writes the same bytes to every
// request.
func rawReply(reply string) http.Handler {
	return hijacked(func(_ string, bw *bufio.ReadWriter, _ net.Conn) { bw.WriteString(reply) })
}

func TestHTTPRedirectKeepsConnection(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		var count atomic.Int32
		var conns connCounter
		s := countedServer(t, redirectChain(&count), &conns)
		req := httpRequest(t, s.URL+"/r/5")
		var tr httpTrace
		req.Trace = tr.tracer()
		_, body, err := httpGet(t, httpFetcher(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if string(body) != "end of chain" || count.Load() != 6 {
			t.Errorf("body %q after %d requests", body, count.Load())
		}
		// Six requests, to one host and port, on the first connection.
		if got := conns.opened.Load(); got != 1 {
			t.Errorf("%d connections for a redirect chain on one host, want 1", got)
		}
		if !tr.has("* Re-using connection to " + strings.TrimPrefix(s.URL, "http://")) {
			t.Errorf("trace does not tell of the reuse: %q", tr.lines)
		}
	})
}

// TestHTTPCloseLeavesNoConnectionOpen: the caller's end of work is the
// Fetcher's Close, which closes what the exchange opened, a redirect's
// first hop's connection too.
func TestHTTPCloseLeavesNoConnectionOpen(t *testing.T) {
	var originConns, otherConns connCounter
	other := countedServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "landed")
	}), &otherConns)
	origin := countedServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/landed", http.StatusFound)
	}), &originConns)
	t.Run("last", func(t *testing.T) {
		f := &httpscheme.Fetcher{}
		_, body, err := httpGet(t, f, httpRequest(t, origin.URL+"/away"))
		if err != nil || string(body) != "landed" {
			t.Fatalf("body %q, error %v", body, err)
		}
		f.Close()
		deadline := time.Now().Add(10 * time.Second)
		for originConns.closed.Load() < 1 || otherConns.closed.Load() < 1 {
			if time.Now().After(deadline) {
				t.Fatalf("connections still open: origin %d of %d closed, other %d of %d",
					originConns.closed.Load(), originConns.opened.Load(), otherConns.closed.Load(), otherConns.opened.Load())
			}
			time.Sleep(10 * time.Millisecond)
		}
		if originConns.opened.Load() != 1 || otherConns.opened.Load() != 1 {
			t.Errorf("opened %d and %d connections, want one to each host", originConns.opened.Load(), otherConns.opened.Load())
		}
	})
}

func TestHTTPRedirectToHTTPS(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		secure := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, r.Proto)
		}))
		secure.EnableHTTP2 = true
		secure.StartTLS()
		t.Cleanup(secure.Close)
		plain := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, secure.URL+"/there", http.StatusMovedPermanently)
		}))
		pool := x509.NewCertPool()
		pool.AddCert(secure.Certificate())
		req := httpRequest(t, plain.URL+"/here")
		req.TLSConfig = &tls.Config{RootCAs: pool}
		res, body, err := httpGet(t, httpFetcher(t), req)
		if err != nil {
			t.Fatal(err)
		}
		// h2 is offered over TLS (see TestHTTPS).
		want := "HTTP/2.0"
		if string(body) != want || res.URL != secure.URL+"/there" {
			t.Errorf("body %q from %s, want %s from the https server", body, res.URL, want)
		}
	})
}

func TestHTTPInterimResponsesSkipped(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		// RFC 9110 §15.2: interim responses, then the final one.
		s := httpServer(t, rawReply("HTTP/1.1 100 Continue\r\n\r\n"+
			"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"+
			"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal"))
		res, body, err := httpGet(t, httpFetcher(t), httpRequest(t, s.URL+"/x"))
		if err != nil {
			t.Fatal(err)
		}
		if status := res.Proto + " " + res.Status; string(body) != "final" || status != "HTTP/1.1 200 OK" || res.StatusCode != 200 {
			t.Errorf("body %q, status %q (%d)", body, status, res.StatusCode)
		}
	})
}

func TestHTTPSwitchingProtocolsRefused(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		s := httpServer(t, rawReply("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nraw bytes"))
		res, _, err := httpGet(t, httpFetcher(t), httpRequest(t, s.URL+"/x"))
		if res != nil {
			t.Error("got a resource")
		}
		se := httpWantKind(t, err, schemes.ErrProtocol, http.StatusSwitchingProtocols)
		if !strings.Contains(se.Error(), "did not ask") {
			t.Errorf("error %q does not say why", se)
		}
	})
}

func TestHTTPEndlessHeaderRefused(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		// The server sends header fields until the client hangs up, at
		// most 4 MiB of them.
		s := httpServer(t, hijacked(func(_ string, bw *bufio.ReadWriter, _ net.Conn) {
			bw.WriteString("HTTP/1.1 200 OK\r\n")
			field := "X-Filler: " + strings.Repeat("f", 1014) + "\r\n"
			for range 4 << 10 {
				if _, err := bw.WriteString(field); err != nil {
					return
				}
			}
		}))
		res, _, err := httpGet(t, httpFetcher(t), httpRequest(t, s.URL+"/x"))
		if res != nil {
			t.Error("got a resource")
		}
		se := httpWantKind(t, err, schemes.ErrProtocol, 0)
		if !strings.Contains(se.Error(), "exceeded") {
			t.Errorf("error %q does not say the header was too large", se)
		}
	})
}

func TestHTTPKeptConnectionClosedBeforeNextHop(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		var mu sync.Mutex
		var paths []string
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			paths = append(paths, r.URL.Path)
			mu.Unlock()
			if r.URL.Path == "/b" {
				io.WriteString(w, "fine")
				return
			}
			// A redirect that lets the connection stay open, after
			// which the server closes it anyway (RFC 9112 §9.3.1
			// allows either side to).
			hijacked(func(_ string, bw *bufio.ReadWriter, conn net.Conn) {
				bw.WriteString("HTTP/1.1 302 Found\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n")
				bw.Flush()
				conn.(*net.TCPConn).CloseWrite()
				io.Copy(io.Discard, conn)
			}).ServeHTTP(w, r)
		}))
		_, body, err := httpGet(t, httpFetcher(t), httpRequest(t, s.URL+"/a"))
		if err != nil {
			t.Fatal(err)
		}
		if string(body) != "fine" {
			t.Errorf("body %q", body)
		}
	})
}

func TestHTTPUserAgentWithControlBytesRefused(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		var hits atomic.Int32
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
		req := httpRequest(t, s.URL+"/x")
		_, _, err := httpGet(t, httpFetcherWith(t, &httpscheme.Fetcher{UserAgent: "agent\r\nX-Injected: 1"}), req)
		httpWantKind(t, err, schemes.ErrBadURL, 0)
		if hits.Load() != 0 {
			t.Error("the request reached the server")
		}
	})
}

func TestHTTPSlowHeaderTimesOut(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		s := stallingServer(t, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		res, err := httpFetcher(t).Fetch(ctx, httpRequest(t, s.URL+"/never"))
		if res != nil {
			t.Error("got a resource")
		}
		se := httpWantKind(t, err, schemes.ErrTimeout, 0)
		if !se.Temporary {
			t.Error("a timeout should be temporary")
		}
	})
}
