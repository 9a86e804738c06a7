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
// would wait for bytes that never come. Over TLS no mark is set at all:
// crypto/tls reads ahead of its reader by an amount it does not tell.
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
	switch {
	case overTLS && b.raw != nil:
		t.Fatal("a body over TLS offers its socket for batching")
	case !overTLS && b.raw == nil:
		t.Fatal("a body of known length offers no socket")
	}
	b.BatchReceive(batch)
	if !overTLS {
		if v := lowat(b); v != batch {
			t.Errorf("SO_RCVLOWAT = %d, want %d", v, batch)
		}
	}
	if data := readAll(b); !bytes.Equal(data, big) {
		t.Fatalf("got %d bytes, want %d, or different ones", len(data), len(big))
	}
	if !overTLS {
		if v := lowat(b); v != 1 {
			t.Errorf("SO_RCVLOWAT after the body = %d, want 1", v)
		}
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
