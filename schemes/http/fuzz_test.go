package http

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// FuzzDispositionName checks the file name -J takes from
// Content-Disposition (RFC 6266): whatever the value, it is one path
// segment, with no '/' or '\', or "" when there is none.
func FuzzDispositionName(f *testing.F) {
	for _, s := range []string{
		`attachment; filename="report.pdf"`,
		`attachment; filename*=UTF-8''%E2%82%AC%20rates.txt`,
		`attachment; filename="../../etc/passwd"`,
		`attachment; filename="..\\..\\boot.ini"`,
		`attachment; filename*=UTF-8''..%2F..%2F.bashrc`,
		`attachment; filename*=UTF-8''a%00b`,
		`attachment; filename=".."`,
		`attachment; filename="/"`,
		`inline; filename=`,
		`attachment; filename="a"; filename*=UTF-8''b`,
		`attachment; filename*=ISO-8859-1''%E9t%E9.txt`,
		`attachment; filename*0="a/b"; filename*1="/c"`,
		`attachment; filename="x.urlget-part"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		name := DispositionName(v)
		if strings.ContainsAny(name, `/\`) {
			t.Fatalf("%q: name %q holds a path separator", v, name)
		}
	})
}

// FuzzRedirect follows a Location as the fetcher does: resolved against
// the request's URL (RFC 9110 §10.2.2, RFC 3986 §5), its host brought to
// ASCII, its origin compared for the credentials and its Referer made.
// The origin does not depend on the host's case, the host is ASCII after
// asciiHost, and the Referer never carries userinfo or a fragment
// (RFC 9110 §10.1.3).
func FuzzRedirect(f *testing.F) {
	for _, s := range []string{
		"/next", "next?x=1", "//other.example/", "https://OTHER.example:443/p#f",
		"http://bücher.example/", "http://xn--bcher-kva.example/", "file:///etc/passwd",
		"ftp://u:p@h/", "http://evil@example.com:8080/", "http://example.com:8080@evil/",
		"HTTP://Example.COM:08080/", "http://[::1]:80/", "../../..", "?", "#frag", "",
		"http://a%40b:c@d/", "http:\\\\evil\\", "http://example.com:8080\t/",
	} {
		f.Add(s)
	}
	const start = "http://alice:secret@example.com:8080/a/b?q#top"
	f.Fuzz(func(t *testing.T, loc string) {
		base, err := url.Parse(start)
		if err != nil {
			t.Fatal(err)
		}
		next, err := base.Parse(loc)
		if err != nil {
			return
		}
		// A host asciiHost refuses is never followed (the redirect fails
		// with ErrBadURL before any origin is compared); one it takes is
		// ASCII, whose case folds both ways. (Unicode's does not: 'ϕ'
		// upper-cases to 'Φ', which lower-cases to 'φ'.)
		if err := asciiHost(next); err == nil {
			for _, c := range []byte(next.Hostname()) {
				if c >= 0x80 {
					t.Fatalf("%q: host %q not ASCII after asciiHost", loc, next.Hostname())
				}
			}
			upper := *next
			upper.Host = strings.ToUpper(next.Host)
			if originOf(&upper) != originOf(next) {
				t.Fatalf("%q: origin %q, upper-cased %q", loc, originOf(next), originOf(&upper))
			}
		}
		f := &Fetcher{AutoReferer: true}
		for _, hop := range [][2]*url.URL{{next, base}, {base, next}} {
			ref := f.referer("", hop[0], hop[1])
			if ref == "" {
				continue
			}
			// A host net/http cannot dial ("//::") may not parse again;
			// the text still must not hold the password or a fragment.
			if strings.Contains(ref, "secret") || strings.Contains(ref, "#") {
				t.Fatalf("%q: Referer %q", loc, ref)
			}
			if r, err := url.Parse(ref); err == nil && r.User != nil {
				t.Fatalf("%q: Referer %q carries userinfo", loc, ref)
			}
		}
	})
}

// FuzzReadResponse checks the response reader on any bytes a server may
// send: it never panics; a response it accepts has fields whose names are
// tokens and whose values hold no CR, LF or NUL (RFC 9112 §5), the same
// fields in its map as in its list; and every byte it consumed, header and
// body framing alike, reached the exchange's record in order, so that a
// Recorder sees exactly what crossed the connection.
func FuzzReadResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-T: 1\r\n\r\n",
		"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.0 200 OK\r\nX-Fold: a\r\n b\r\n\r\nrest",
		"HTTP/1.1 200 OK\r\nContent-Length: 1, 1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
		"HTTP/1.1 200\nContent-Length: 0\n\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, head bool) {
		x := &recorded{}
		c := &conn{br: bufio.NewReaderSize(bytes.NewReader(data), readBufferSize), rx: x}
		method := http.MethodGet
		if head {
			method = http.MethodHead
		}
		resp, err := readResponse(c, method)
		if err == nil {
			h := http.Header{}
			for _, kv := range resp.fields {
				if !isToken(kv[0]) || strings.ContainsAny(kv[1], "\r\n\x00") {
					t.Fatalf("field %q", kv)
				}
				h.Add(kv[0], kv[1])
			}
			if !reflect.DeepEqual(h, resp.Header) || resp.ContentLength < -1 {
				t.Fatalf("map %q, fields %q, length %d", resp.Header, resp.fields, resp.ContentLength)
			}
			io.Copy(io.Discard, resp.Body)
		}
		if c.nread > int64(len(data)) || !bytes.Equal(x.resp.Bytes(), data[:c.nread]) {
			t.Fatalf("recorded %q of %q, consumed %d", x.resp.Bytes(), data, c.nread)
		}
	})
}

// FuzzRawBody checks curl's --raw framing on any bytes a server may send:
// the body read is exactly the bytes consumed after the header, the
// chunk framing and trailer of a chunked one included, so that nothing is
// lost or made up, and the chunked reader under it still finds the end.
func FuzzRawBody(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;e=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\nnext",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nzz\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokmore",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &conn{br: bufio.NewReaderSize(bytes.NewReader(data), readBufferSize), rawBody: true}
		resp, err := readResponse(c, http.MethodGet)
		if err != nil {
			return
		}
		start := c.nread
		body, _ := io.ReadAll(resp.Body)
		if c.nread > int64(len(data)) || !bytes.Equal(body, data[start:c.nread]) {
			t.Fatalf("body %q, consumed %q", body, data[start:c.nread])
		}
	})
}

// FuzzBodyComplete checks how a body closed by its caller is found whole
// (framed.complete) on any bytes a server may send, read in part: it is
// whole only when the caller had read every byte of the body, and then
// ends where reading it to its end ends, having taken nothing of what
// follows the message from the connection.
func FuzzBodyComplete(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;e=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\nnext",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokmore",
		"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the end",
	} {
		f.Add([]byte(s), uint16(5))
	}
	f.Fuzz(func(t *testing.T, data []byte, part uint16) {
		whole := &conn{br: bufio.NewReaderSize(bytes.NewReader(data), readBufferSize)}
		resp, err := readResponse(whole, http.MethodGet)
		if err != nil {
			return
		}
		body, err := io.ReadAll(resp.Body)
		end := whole.nread
		if err != nil {
			end = -1 // the message has no end in data
		}
		x := &recorded{}
		c := &conn{br: bufio.NewReaderSize(bytes.NewReader(data), readBufferSize), rx: x}
		resp, err = readResponse(c, http.MethodGet)
		if err != nil {
			t.Fatalf("read again: %v", err)
		}
		got := make([]byte, min(int(part), len(body)+1))
		n, _ := io.ReadFull(resp.Body, got)
		fr, ok := resp.Body.(framed)
		if !ok {
			return
		}
		if fr.complete() {
			if n != len(body) || c.nread != end {
				t.Fatalf("whole after %d of %d bytes, at %d where the message ends at %d", n, len(body), c.nread, end)
			}
		}
		if c.nread > int64(len(data)) || !bytes.Equal(x.resp.Bytes(), data[:c.nread]) {
			t.Fatalf("recorded %q of %q, consumed %d", x.resp.Bytes(), data, c.nread)
		}
	})
}
