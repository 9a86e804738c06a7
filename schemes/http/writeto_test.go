package http

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// TestWriteToHandsSocket copies a large body of known length into a file
// through body.WriteTo, which hands the file the socket once the
// connection's buffer is written: the file gets the body's bytes and none
// past them, the connection goes back to the pool, and the next request
// on the Fetcher reuses it and is served.
func TestWriteToHandsSocket(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), (3<<20+777)/16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/small" {
			w.Write([]byte("small"))
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(big)))
		w.Write(big)
	}))
	defer srv.Close()
	f := &Fetcher{}
	defer f.Close()
	get := func(path string) *body {
		t.Helper()
		res, err := f.Fetch(context.Background(), &schemes.Request{URL: uri.MustParse(srv.URL + path), Dialer: &net.Dialer{}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Body.(*body)
	}
	b := get("/big")
	if b.lengthBody() == nil {
		t.Fatal("a plain body of known length has no connection to take")
	}
	dst, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	n, err := b.WriteTo(dst)
	if err != nil || n != int64(len(big)) {
		t.Fatalf("wrote %d of %d bytes: %v", n, len(big), err)
	}
	b.Close()
	if n := f.pool().Len("http://" + strings.TrimPrefix(srv.URL, "http://")); n != 1 {
		t.Errorf("%d idle connections after the body, want 1", n)
	}
	got, err := os.ReadFile(dst.Name())
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("the file holds %d bytes, want the body's %d", len(got), len(big))
	}
	small := get("/small")
	data, err := io.ReadAll(small)
	small.Close()
	if err != nil || string(data) != "small" {
		t.Fatalf("next response: %q, %v", data, err)
	}
}
