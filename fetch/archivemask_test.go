package fetch

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/urlget/urlget/schemes"
)

// headRecorder is an Exchange that keeps the request bytes it gets.
type headRecorder struct {
	req   bytes.Buffer
	calls int
	ended bool
}

func (h *headRecorder) Request(p []byte) { h.req.Write(p); h.calls++ }
func (h *headRecorder) Response([]byte)  {}
func (h *headRecorder) End(error)        { h.ended = true }

const credentialHead = "GET /x HTTP/1.1\r\nHost: h\r\nAuthorization: Basic dXNlcjpwYXNz\r\n" +
	"Cookie: a=1; session=s3cret\r\nproxy-authorization:Digest username=\"u\", response=\"abc\"\r\n" +
	"X-Authorization: kept\r\n\r\n"

const maskedHead = "GET /x HTTP/1.1\r\nHost: h\r\nAuthorization: Basic ****\r\n" +
	"Cookie: a=****; session=****\r\nproxy-authorization:Digest ****\r\n" +
	"X-Authorization: kept\r\n\r\n"

// TestMaskingExchange: the credential fields of a request head are
// masked however its bytes are split between calls, and a body after the
// head is passed on as it is, though it looks like a field.
func TestMaskingExchange(t *testing.T) {
	body := "Cookie: not a field\r\n"
	whole := credentialHead + body
	for _, size := range []int{1, 3, 7, 16, len(whole)} {
		rec := &headRecorder{}
		m := &maskingExchange{Exchange: rec}
		for p := whole; p != ""; {
			n := min(size, len(p))
			m.Request([]byte(p[:n]))
			p = p[n:]
		}
		m.End(nil)
		if got := rec.req.String(); got != maskedHead+body || !rec.ended {
			t.Errorf("in pieces of %d: %q", size, got)
		}
	}
	// A head cut within a line is passed on as far as it went, masked.
	rec := &headRecorder{}
	m := &maskingExchange{Exchange: rec}
	m.Request([]byte("GET / HTTP/1.1\r\nAuthorization: Bearer tok"))
	m.End(nil)
	if got := rec.req.String(); got != "GET / HTTP/1.1\r\nAuthorization: Bearer ****" {
		t.Errorf("cut head: %q", got)
	}
}

// TestMaskingCapture: a Capture wrapped for masking masks its exchanges'
// requests and passes the rest on.
func TestMaskingCapture(t *testing.T) {
	rec := &headRecorder{}
	m := maskingCapture{oneExchange{rec}}
	x := m.Exchange("http://h/x", &net.TCPAddr{})
	x.Request([]byte(credentialHead))
	x.End(nil)
	if rec.req.String() != maskedHead {
		t.Errorf("%q", rec.req.String())
	}
}

// oneExchange is a Capture whose every exchange is x.
type oneExchange struct{ x schemes.Exchange }

func (o oneExchange) Exchange(string, net.Addr) schemes.Exchange { return o.x }
func (o oneExchange) Connected(net.Addr)                         {}
func (o oneExchange) Line(schemes.Direction, string)             {}
func (o oneExchange) Listing([]byte)                             {}
func (o oneExchange) Fetched(*schemes.Resource, error)           {}
func (o oneExchange) Body([]byte)                                {}
func (o oneExchange) End(error)                                  {}

// FuzzMaskField: a line comes back one line with the same line end, a
// line that names no credential field unchanged, and a credential
// field's value never whole.
func FuzzMaskField(f *testing.F) {
	for _, l := range strings.SplitAfter(credentialHead, "\r\n") {
		f.Add([]byte(l))
	}
	f.Add([]byte("Cookie:\r\n"))
	f.Add([]byte("Authorization:\n"))
	f.Fuzz(func(t *testing.T, line []byte) {
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		got := maskField(line)
		if bytes.Count(got, []byte("\n")) != bytes.Count(line, []byte("\n")) || !bytes.HasSuffix(got, line[len(bytes.TrimRight(line, "\r\n")):]) {
			t.Fatalf("%q became %q", line, got)
		}
		name, _, ok := bytes.Cut(line, []byte(":"))
		isCred := ok && (bytes.EqualFold(name, []byte("Authorization")) || bytes.EqualFold(name, []byte("Proxy-Authorization")) || bytes.EqualFold(name, []byte("Cookie")))
		if !isCred && !bytes.Equal(got, line) {
			t.Fatalf("%q changed to %q", line, got)
		}
		if isCred && !bytes.Contains(got, []byte(credentialMask)) {
			t.Fatalf("%q not masked: %q", line, got)
		}
	})
}
