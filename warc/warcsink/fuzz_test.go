package warcsink

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/warc"
)

func sha1Of(s string) string { return warc.DigestOf([]byte(s)) }

// FuzzWarcSink feeds the sink a server's bytes, an HTTP response in two
// pieces and a resource's content type and body, and reads the archive
// back: whatever the bytes, every record reads back whole, its block the
// bytes given, and no server byte makes a header field of its own.
func FuzzWarcSink(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), 17, "text/plain", []byte("body"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"), 40, "text/html\r\nWARC-Type: x", []byte(""))
	f.Add([]byte("\r\n\r\n"), 1, "\x00\n", []byte("\r\n\r\nWARC/1.1\r\n"))
	cdx := warc.CDXHeader + "\nhttp://h/ 20260101000000 http://h/ text/plain 200 " + strings.TrimPrefix(sha1Of("ok"), "sha1:") + " - - 0 x.warc.gz <urn:uuid:1>\n"
	f.Fuzz(func(t *testing.T, resp []byte, cut int, ctype string, body []byte) {
		name := filepath.Join(t.TempDir(), "z")
		w, err := warc.Create(name, warc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d, err := warc.ReadCDX(strings.NewReader(cdx))
		if err != nil {
			t.Fatal(err)
		}
		s := New(w, Options{Dedup: d})
		c := s.Begin("http://h/")
		x := c.Exchange("http://h/", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80})
		x.Request([]byte("GET / HTTP/1.1\r\nHost: h\r\n\r\n"))
		cut = min(max(cut, 0), len(resp))
		x.Response(resp[:cut])
		x.Response(resp[cut:])
		x.End(nil)
		c.End(nil)
		cf := s.Begin("gopher://h/0x").(*warcCapture)
		cf.Line(schemes.Received, ctype)
		cf.Fetched(&schemes.Resource{ContentType: ctype, Body: io.NopCloser(bytes.NewReader(body))}, nil)
		cf.Body(body)
		cf.End(nil)
		// A proxy's answer to a CONNECT, the tunnel refused: one
		// metadata record of the conversation, every line of it one of
		// the exchange's.
		ct := s.Begin("https://h/")
		tx := ct.Exchange("h:443", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 3128})
		tx.Request([]byte("CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n"))
		tx.Response(resp)
		tx.End(nil)
		ct.End(schemes.ErrTruncated)
		if err := errors.Join(s.Err(), w.Close()); err != nil {
			t.Fatal(err)
		}
		known := map[string]bool{}
		for _, n := range []string{"WARC-Type", "WARC-Record-ID", "WARC-Date", "WARC-Target-URI", "WARC-IP-Address", "WARC-Warcinfo-ID",
			"WARC-Concurrent-To", "Content-Type", "WARC-Block-Digest", "WARC-Payload-Digest", "Content-Length", "WARC-Filename",
			"WARC-Profile", "WARC-Refers-To", "WARC-Refers-To-Target-URI", "WARC-Refers-To-Date", "WARC-Truncated"} {
			known[n] = true
		}
		f, err := os.Open(name + ".warc.gz")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r := warc.NewReader(f)
		var types []string
		for {
			h, b, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			block, _ := io.ReadAll(b)
			typ := h.Get("WARC-Type")
			types = append(types, typ)
			for _, fl := range h.Fields {
				if !known[fl.Name] {
					t.Fatalf("field %q in a %s record", fl.Name, typ)
				}
				// Every transfer here ended whole: the one record cut
				// short is a revisit's response, its payload left out
				// (WARC 1.1 §6.7.2).
				if fl.Name == "WARC-Truncated" && (typ != "revisit" || fl.Value != warc.TruncatedLength) {
					t.Fatalf("WARC-Truncated: %s in a %s record", fl.Value, typ)
				}
			}
			switch {
			case typ == "response" && len(resp) > 0 && !bytes.Equal(block, resp):
				t.Fatalf("response block %q, sent %q", block, resp)
			case typ == "resource" && !bytes.Equal(block, body):
				t.Fatalf("resource block %q, read %q", block, body)
			case typ == "request" && len(resp) == 0 && h.Get("WARC-Concurrent-To") != "":
				t.Fatalf("a request with no answer names a response: %v", h.Fields)
			case typ == "metadata" && h.Get("WARC-Target-URI") == "https://h/":
				for _, l := range strings.SplitAfter(string(block), "\r\n") {
					if l != "" && (!strings.HasSuffix(l, "\r\n") || strings.IndexByte("><*", l[0]) < 0 || strings.ContainsAny(l[:len(l)-2], "\r\n")) {
						t.Fatalf("the tunnel's record has a line of no exchange: %q", l)
					}
				}
			}
		}
		// After the warcinfo: request, response (or revisit), resource,
		// metadata, and the tunnel's metadata; with no answer, the
		// request alone.
		want := 5
		if len(resp) == 0 {
			want = 4
		}
		if len(types) != want+1 {
			t.Fatalf("records %v", types)
		}
	})
}
