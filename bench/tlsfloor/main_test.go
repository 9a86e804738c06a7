package main

import (
	"bytes"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestFetch fetches bodies from a TLS server on 127.0.0.1, one of many
// TLS records and of several buffers, one empty, and checks the bytes that
// came out; a status other than 200, a path that would break the request
// and an untrusted certificate are errors.
func TestFetch(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 200000)
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			// As nginx serves a file: with its length, not chunked.
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			w.Write(big)
		case "/empty":
		default:
			http.NotFound(w, r)
		}
	}))
	// The untrusted client below ends its handshake; that is the point.
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	defer s.Close()
	roots := x509.NewCertPool()
	roots.AddCert(s.Certificate())
	addr := strings.TrimPrefix(s.URL, "https://")
	for path, want := range map[string][]byte{"/big": big, "/empty": nil} {
		var out bytes.Buffer
		if err := fetch(addr, path, roots, &out); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: %d bytes, want %d", path, out.Len(), len(want))
		}
	}
	if err := fetch(addr, "/missing", roots, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing: %v", err)
	}
	if err := fetch(addr, "/big\r\nX: y", roots, &bytes.Buffer{}); err == nil {
		t.Error("a path with CR LF was sent")
	}
	if err := fetch(addr, "/big", x509.NewCertPool(), &bytes.Buffer{}); err == nil {
		t.Error("an untrusted certificate was accepted")
	}
}
