package http

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// TestBatchReceiveKeepsConnectionUsable reads a body of known length in
// batches, with a pause that leaves less than a batch waiting, and then
// fetches again on the same connection: the mark must come down to one
// byte before the body's end, or the last bytes and the next response
// would wait for bytes that never come. Over plain TCP and over TLS,
// where crypto/tls holds bytes of its own read from the socket.
func TestBatchReceiveKeepsConnectionUsable(t *testing.T) {
	for _, overTLS := range []bool{false, true} {
		t.Run("tls="+strconv.FormatBool(overTLS), func(t *testing.T) { testBatchReceive(t, overTLS) })
	}
}

func testBatchReceive(t *testing.T, overTLS bool) {
	const batch = 256 << 10
	big := bytes.Repeat([]byte("0123456789abcdef"), (2<<20)/16)
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			w.Write(big[:len(big)-1000])
			w.(http.Flusher).Flush()
			time.Sleep(200 * time.Millisecond)
			w.Write(big[len(big)-1000:])
		case "/chunked":
			w.Write([]byte("no length"))
			w.(http.Flusher).Flush()
			w.Write([]byte(" given"))
		default:
			w.Write([]byte("small"))
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	var tc *tls.Config
	if overTLS {
		srv.StartTLS()
		roots := x509.NewCertPool()
		roots.AddCert(srv.Certificate())
		tc = &tls.Config{RootCAs: roots}
	} else {
		srv.Start()
	}
	defer srv.Close()
	f := &Fetcher{}
	defer f.Close()
	fetch := func(path string) *body {
		t.Helper()
		req := &schemes.Request{URL: uri.MustParse(srv.URL + path), Dialer: &net.Dialer{}, TLSConfig: tc}
		res, err := f.Fetch(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Body.(*body)
	}
	lowat := func(b *body) int {
		t.Helper()
		var v int
		var gerr error
		b.raw.Control(func(fd uintptr) {
			v, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT)
		})
		if gerr != nil {
			t.Fatal(gerr)
		}
		return v
	}
	readAll := func(b *body) []byte {
		t.Helper()
		got := make(chan []byte, 1)
		go func() {
			data, _ := io.ReadAll(b)
			got <- data
		}()
		select {
		case data := <-got:
			return data
		case <-time.After(10 * time.Second):
			t.Fatal("the body did not end")
		}
		return nil
	}

	b := fetch("/big")
	if b.raw == nil {
		t.Fatal("a body of known length offers no socket")
	}
	b.BatchReceive(batch)
	if v := lowat(b); v != batch {
		t.Errorf("SO_RCVLOWAT = %d, want %d", v, batch)
	}
	if data := readAll(b); !bytes.Equal(data, big) {
		t.Fatalf("got %d bytes, want %d, or different ones", len(data), len(big))
	}
	if v := lowat(b); v != 1 {
		t.Errorf("SO_RCVLOWAT after the body = %d, want 1", v)
	}
	b.Close()

	small := fetch("/small")
	if data := readAll(small); string(data) != "small" {
		t.Fatalf("next response on the connection: %q", data)
	}
	small.Close()
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections, want the first one reused", n)
	}

	c := fetch("/chunked")
	c.BatchReceive(batch) // no length: nothing to set, nothing to wait for
	if c.raw != nil {
		t.Error("a chunked body offers its socket for batching")
	}
	if data := readAll(c); string(data) != "no length given" {
		t.Fatalf("chunked body: %q", data)
	}
	c.Close()
}

// TestBatchReceiveTLSPartialRecord makes crypto/tls hold part of a record
// while the server pauses, near the body's end: the mark must account for
// bytes crypto/tls has taken from the socket (socketOf's slack), or the
// reader waits for more than is still to come. The server pauses in the
// middle of its writes at a run of positions 1 KiB apart, so that one of
// them cuts a record where the partial record held is largest.
func TestBatchReceiveTLSPartialRecord(t *testing.T) {
	const batch = 256 << 10
	big := bytes.Repeat([]byte("fedcba9876543210"), (2<<20)/16)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(big)))
		w.Write(big)
	})
	srv := httptest.NewUnstartedServer(handler)
	pl := &pausingListener{Listener: srv.Listener}
	srv.Listener = pl
	srv.StartTLS()
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	get := func() {
		t.Helper()
		f := &Fetcher{} // a new connection, with a full handshake
		defer f.Close()
		req := &schemes.Request{URL: uri.MustParse(srv.URL + "/big"), Dialer: &net.Dialer{}, TLSConfig: &tls.Config{RootCAs: roots}}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := f.Fetch(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		b := res.Body.(*body)
		defer b.Close()
		b.BatchReceive(batch)
		data, err := io.ReadAll(b)
		if err != nil || !bytes.Equal(data, big) {
			t.Fatalf("%d bytes, %v", len(data), err)
		}
	}
	get()
	total := pl.written()
	// Pauses where between 255 and 246 KiB are still to come: below a
	// batch, while the reader, holding part of a record, may still have
	// more than a batch of the body left to read.
	var at []int64
	for j := int64(1); j <= 10; j++ {
		at = append(at, total-(256-j)<<10)
	}
	pl.pauseAt(at, 50*time.Millisecond)
	get()
}

// pausingListener counts what the server writes on its connections, and
// can make the next connection pause its writes at given offsets.
type pausingListener struct {
	net.Listener
	mu    sync.Mutex
	last  *pausingConn
	at    []int64
	pause time.Duration
}

func (l *pausingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = &pausingConn{Conn: c, at: l.at, pause: l.pause}
	return l.last, nil
}

// written returns what the server wrote on the last connection.
func (l *pausingListener) written() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last.mu.Lock()
	defer l.last.mu.Unlock()
	return l.last.n
}

func (l *pausingListener) pauseAt(at []int64, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.at, l.pause = at, d
}

type pausingConn struct {
	net.Conn
	mu    sync.Mutex
	n     int64
	at    []int64
	pause time.Duration
}

func (c *pausingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	done := 0
	for len(p) > 0 {
		k := len(p)
		if len(c.at) > 0 && c.n+int64(k) > c.at[0] {
			k = int(c.at[0] - c.n)
		}
		m, err := c.Conn.Write(p[:k])
		done += m
		c.n += int64(m)
		p = p[m:]
		if err != nil {
			return done, err
		}
		if len(c.at) > 0 && c.n == c.at[0] {
			c.at = c.at[1:]
			time.Sleep(c.pause)
		}
	}
	return done, nil
}
