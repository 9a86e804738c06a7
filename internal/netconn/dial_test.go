package netconn

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// bound is how long a blocked call may take to return once it should: far
// above what it takes, so that only a call that never returns fails.
const bound = 10 * time.Second

// newRequest returns a request for rawURL dialing directly, whose trace
// lines are collected in lines.
func newRequest(t *testing.T, rawURL string, lines *[]string) *schemes.Request {
	t.Helper()
	var mu sync.Mutex
	return &schemes.Request{
		URL:       uri.MustParse(rawURL),
		Dialer:    &net.Dialer{},
		TLSConfig: &tls.Config{},
		Trace: func(dir schemes.Direction, line string) {
			mu.Lock()
			defer mu.Unlock()
			*lines = append(*lines, string(dir)+" "+line)
		},
	}
}

// listen starts a TCP listener on loopback whose accepted connections
// serve runs on, closed with the test.
func listen(t *testing.T, serve func(net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln
}

func kindOf(err error) error {
	var e *schemes.Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return nil
}

func TestDialPlain(t *testing.T) {
	ln := listen(t, func(c net.Conn) { c.Write([]byte("220 ready\r\n")) })
	var lines []string
	req := newRequest(t, "ftp://"+ln.Addr().String()+"/", &lines)
	raw, conn, err := Dial(context.Background(), req, ln.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if raw != conn {
		t.Errorf("without TLS, conn %T is not raw %T", conn, raw)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || line != "220 ready\r\n" {
		t.Fatalf("read %q, %v", line, err)
	}
	want := []string{"* connecting to " + ln.Addr().String(), "* connected to " + ln.Addr().String()}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("trace %q, want %q", lines, want)
	}
}

func TestDialRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var lines []string
	_, _, err = Dial(context.Background(), newRequest(t, "gopher://"+addr+"/", &lines), addr, nil)
	if kindOf(err) != schemes.ErrConnect {
		t.Fatalf("error %v, want kind %v", err, schemes.ErrConnect)
	}
	var e *schemes.Error
	if errors.As(err, &e) && e.Op != "connect" {
		t.Errorf("op %q, want connect", e.Op)
	}
}

// tlsServer starts an HTTPS server on loopback that records the server
// names clients ask for, and returns it with a TLS configuration that
// trusts its certificate.
func tlsServer(t *testing.T) (*httptest.Server, *tls.Config, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var names []string
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello over TLS"))
	}))
	ts.TLS = &tls.Config{GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
		mu.Lock()
		names = append(names, h.ServerName)
		mu.Unlock()
		return nil, nil
	}}
	ts.StartTLS()
	t.Cleanup(ts.Close)
	trust := ts.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	return ts, trust, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), names...)
	}
}

func TestDialTLS(t *testing.T) {
	ts, trust, names := tlsServer(t)
	addr := ts.Listener.Addr().String()
	var lines []string
	// httptest's certificate is for example.com: the URL's host is
	// what the handshake names and verifies.
	req := newRequest(t, "gophers://example.com/", &lines)
	req.TLSConfig = trust
	raw, conn, err := Dial(context.Background(), req, addr, req.TLSClientConfig(req.URL.Hostname()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, ok := conn.(*tls.Conn); !ok || raw == conn {
		t.Fatalf("conn %T over raw %T, want a TLS connection over TCP", conn, raw)
	}
	if _, err := conn.Write([]byte("GET / HTTP/1.0\r\nHost: example.com\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("status %d", resp.StatusCode)
	}
	if got := names(); len(got) != 1 || got[0] != "example.com" {
		t.Errorf("server names %q, want [example.com]", got)
	}
	trace := strings.Join(lines, "\n")
	for _, want := range []string{"* TLS handshake with example.com", "* TLS TLS 1.3 "} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %q:\n%s", want, trace)
		}
	}
}

func TestDialTLSUntrusted(t *testing.T) {
	ts, _, _ := tlsServer(t)
	addr := ts.Listener.Addr().String()
	var lines []string
	req := newRequest(t, "nntps://example.com/", &lines)
	_, _, err := Dial(context.Background(), req, addr, req.TLSClientConfig("example.com"))
	var e *schemes.Error
	if !errors.As(err, &e) || e.Kind != schemes.ErrCertificate || e.Op != "TLS handshake" || !errors.Is(err, schemes.ErrConnect) {
		t.Fatalf("error %v, want a TLS handshake whose certificate was not verified", err)
	}
	var certErr *tls.CertificateVerificationError
	if !errors.As(err, &certErr) {
		t.Errorf("error %v does not carry the certificate's failure", err)
	}
}

// A server that speaks its protocol in clear on a port the client takes
// for implicit TLS fails to connect, not with a protocol error.
func TestDialTLSToPlainServer(t *testing.T) {
	ln := listen(t, func(c net.Conn) {
		c.Write([]byte("220 plain FTP here\r\n"))
		c.Read(make([]byte, 512))
	})
	var lines []string
	req := newRequest(t, "ftps://localhost/", &lines)
	_, _, err := Dial(context.Background(), req, ln.Addr().String(), req.TLSClientConfig("localhost"))
	if kindOf(err) != schemes.ErrTLSHandshake || !errors.Is(err, schemes.ErrConnect) {
		t.Fatalf("error %v, want kind %v", err, schemes.ErrTLSHandshake)
	}
}

// A handshake the server never answers ends when the context is
// cancelled, with the context's error.
func TestStartTLSCancelled(t *testing.T) {
	release := make(chan struct{})
	ln := listen(t, func(c net.Conn) { <-release })
	// After listen's own cleanup, so that it runs first.
	t.Cleanup(func() { close(release) })
	var lines []string
	req := newRequest(t, "ftp://localhost/", &lines)
	raw, _, err := Dial(context.Background(), req, ln.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := StartTLS(ctx, req, raw, req.TLSClientConfig("localhost"))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want %v", err, context.Canceled)
		}
	case <-time.After(bound):
		t.Fatal("the handshake went on after its context was cancelled")
	}
}

// TestHandshakeALPNAndResume checks that Handshake offers cfg's ALPN
// protocols and that Describe tells the one agreed, and a resumed session
// from a first one.
func TestHandshakeALPNAndResume(t *testing.T) {
	ts, trust, _ := tlsServer(t)
	cfg := trust.Clone()
	cfg.ServerName = "example.com"
	cfg.NextProtos = []string{"h2", "http/1.1"}
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	for i := 0; i < 2; i++ {
		raw, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		tc, err := Handshake(context.Background(), raw, cfg)
		if err != nil {
			raw.Close()
			t.Fatal(err)
		}
		line := Describe(tc.ConnectionState())
		if !strings.HasPrefix(line, "TLS TLS 1.3 ") || !strings.Contains(line, ` ALPN "http/1.1"`) {
			t.Errorf("handshake %d: %q, want TLS 1.3 and http/1.1 by ALPN", i, line)
		}
		if resumed := strings.HasSuffix(line, ", session resumed"); resumed != (i > 0) {
			t.Errorf("handshake %d: %q, resumed %v", i, line, resumed)
		}
		// A TLS 1.3 session ticket comes after the handshake: an
		// exchange reads it.
		if _, err := tc.Write([]byte("GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(tc), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		tc.Close()
	}
}

// TestHandshakeCancelled checks that a handshake whose context ends
// returns the context's error, unclassified.
func TestHandshakeCancelled(t *testing.T) {
	c := silent(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Handshake(ctx, c, &tls.Config{ServerName: "example.com"}); err != context.Canceled {
		t.Errorf("error %v, want %v", err, context.Canceled)
	}
}
