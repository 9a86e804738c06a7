package warc

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// FuzzReadCDX: any CDX file a user hands --warc-dedup reads without
// panicking, and each capture it yields can be written into a revisit's
// header as it is: no space or control byte in its URL or record ID, and
// it is found again by its digest and URL.
func FuzzReadCDX(f *testing.F) {
	f.Add(CDXHeader + "\nhttp://h/ 20260810203702 http://h/ text/html 200 ZHZVNSD7CHQFFQFY74ZTUDD5DD3YBW77 - - 2949 o.warc.gz <urn:uuid:1>\n")
	f.Add("CDX u k a b\n<x> 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ http://h/\x00\x01 99999999999999\n")
	f.Add(" CDX a a k u\r\nu1 u2 zhzvnsd7chqffqfy74ztudd5dd3ybw77 <\r\n>\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ReadCDX(strings.NewReader(s))
		if err != nil {
			return
		}
		for digest, cs := range d.byDigest {
			if raw, err := b32.DecodeString(digest); err != nil || len(raw) != sha1.Size {
				t.Fatalf("digest %q kept", digest)
			}
			for _, c := range cs {
				for _, v := range []string{c.URL, c.RecordID} {
					if strings.IndexFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f || unicode.IsSpace(r) }) >= 0 {
						t.Fatalf("capture %+v has a space or control byte", c)
					}
				}
				if !strings.HasPrefix(c.RecordID, "<") || !strings.HasSuffix(c.RecordID, ">") {
					t.Fatalf("record ID %q", c.RecordID)
				}
				if _, ok := d.Lookup(digest, c.URL); !ok {
					t.Fatalf("capture %+v not found by its digest and URL", c)
				}
			}
		}
	})
}

// FuzzReader: any bytes read back as WARC records do not panic, yield
// fields without line ends, and blocks no longer than their length.
func FuzzReader(f *testing.F) {
	f.Add([]byte("WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"))
	f.Add([]byte("WARC/1.0\r\nX: a\r\n  b\r\nContent-Length: 99\r\n\r\nabc"))
	f.Add([]byte("WARC/1.1\r\nContent-Length: -1\r\n\r\n"))
	var gz bytes.Buffer
	dir := f.TempDir()
	w, _ := Create(filepath.Join(dir, "seed"), Options{})
	r, _ := w.Begin(Header{Type: Response, TargetURI: "http://127.0.0.1/", ContentType: HTTPResponseType})
	r.Write([]byte("HTTP/1.1 200 OK\r\n\r\nbody"))
	r.Commit()
	w.Close()
	for _, rec := range readAllF(filepath.Join(dir, "seed.warc.gz")) {
		gz.Write(rec)
	}
	f.Add(gz.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(bytes.NewReader(b))
		for range 100 {
			h, body, err := r.Next()
			if err != nil {
				return
			}
			for _, fl := range h.Fields {
				if strings.ContainsAny(fl.Name+fl.Value, "\r\n") {
					t.Fatalf("field %q: %q", fl.Name, fl.Value)
				}
			}
			n, _ := io.Copy(io.Discard, body)
			if n > h.ContentLength {
				t.Fatalf("block of %d bytes, Content-Length %d", n, h.ContentLength)
			}
		}
	})
}

// readAllF returns the bytes of a file for a seed.
func readAllF(path string) [][]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return [][]byte{b}
}

// FuzzHeaderValues plays a server choosing a URL, a content type and an
// FTP reply that reach a record's header: the record reads back as one
// record with exactly the fields written, whatever the bytes.
func FuzzHeaderValues(f *testing.F) {
	f.Add("http://127.0.0.1/a\r\nWARC-Type: forged", "text/html\r\n\r\nWARC/1.1", "226 ok\x00\x85\u2028")
	f.Add("", "", "")
	f.Add("ftp://127.0.0.1/\xff\xfe <>", " \t", "\n")
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, uri, ctype, reply string) {
		n++
		name := filepath.Join(dir, fmt.Sprint(n))
		w, err := Create(name, Options{NoCompression: n%2 == 0, Info: []Field{{"robots", reply}}})
		if err != nil {
			t.Fatal(err)
		}
		if uri == "" {
			// A resource record must name what it holds (WARC 1.1 §5.14).
			if _, err := w.Begin(Header{Type: Resource, ContentType: ctype}); !errors.Is(err, ErrTargetURI) {
				t.Fatalf("a resource with no target URI: %v", err)
			}
			w.Close()
			return
		}
		e := record(t, w, Header{Type: Resource, TargetURI: uri, ContentType: ctype, IPAddress: reply,
			Fields: []Field{{"X-Reply", reply}}}, []byte(reply), 1<<20)
		w.Close()
		recs := readAll(t, FileName(name, 0, n%2 != 0, 0))
		if len(recs) != 2 {
			t.Fatalf("%d records", len(recs))
		}
		h := recs[1].head
		var names []string
		for _, fl := range h.Fields {
			names = append(names, fl.Name)
		}
		want := []string{"WARC-Type", "WARC-Record-ID", "WARC-Date", "WARC-Target-URI"}
		if reply != "" {
			want = append(want, "WARC-IP-Address")
		}
		want = append(want, "WARC-Warcinfo-ID")
		if ctype != "" {
			want = append(want, "Content-Type")
		}
		want = append(want, "WARC-Block-Digest", "WARC-Payload-Digest", "X-Reply", "Content-Length")
		if strings.Join(names, " ") != strings.Join(want, " ") {
			t.Fatalf("fields %v, want %v", names, want)
		}
		if h.Get("WARC-Type") != "resource" || h.Get("WARC-Record-ID") != e.ID || !bytes.Equal(recs[1].block, []byte(reply)) {
			t.Fatalf("record changed: %+v", h.Fields)
		}
		if u := h.Get("WARC-Target-URI"); strings.ContainsAny(u, " \t") {
			t.Fatalf("target URI %q has a space", u)
		}
	})
}

// FuzzHTTPPayload: a body sent chunked, in chunks and pieces the fuzzer
// chooses, has the digest of the body itself.
func FuzzHTTPPayload(f *testing.F) {
	f.Add([]byte("hello, world"), uint8(3), uint8(1))
	f.Add([]byte{}, uint8(0), uint8(0))
	f.Add([]byte("\r\n0\r\n\r\n"), uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, body []byte, chunk, piece uint8) {
		c := int(chunk) + 1
		var msg bytes.Buffer
		msg.WriteString("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
		for p := body; len(p) > 0; p = p[min(c, len(p)):] {
			fmt.Fprintf(&msg, "%x\r\n%s\r\n", min(c, len(p)), p[:min(c, len(p))])
		}
		msg.WriteString("0\r\n\r\n")
		m := newHTTPMessage()
		k := int(piece) + 1
		for p := msg.Bytes(); len(p) > 0; p = p[min(k, len(p)):] {
			m.Write(p[:min(k, len(p))])
		}
		if got := m.payloadDigest(); got != sha1Of(body) {
			t.Fatalf("digest %s, want %s", got, sha1Of(body))
		}
	})
}
