package cli

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/schemes"
	httpscheme "github.com/urlget/urlget/schemes/http"
)

// --trace and --trace-ascii write what curl's do (tool_cb_dbg.c): a
// heading for each piece of the conversation, "== Info: " for the
// client's notes, "=> Send header, N bytes (0xN)" and "<= Recv header" for
// protocol lines, "<= Recv data" for a body, each followed by the bytes:
// in hex and text, 16 a line, for --trace; as text only, 64 a line and
// broken at CRLF, for --trace-ascii. --trace-time starts each heading with
// the time of day.
//
// HTTP/1.x exchanges come byte for byte from the http fetcher's Recorder
// (the request as written, each response header line, the body as it
// crossed the connection, chunk framing included, as curl's shows it);
// the line protocols (FTP, NNTP, gopher) come from the Tracer, each line
// with its CRLF, and their bodies from the body as it is read. Passwords
// are masked, where curl shows them: FTP's PASS and NNTP's AUTHINFO PASS
// by their fetchers, HTTP's Authorization and Proxy-Authorization here.

// tracer writes a --trace or --trace-ascii file.
type tracer struct {
	mu    sync.Mutex
	w     io.Writer
	ascii bool
	stamp bool
	now   func() time.Time
}

func newTracer(w io.Writer, ascii, stamp bool) *tracer {
	return &tracer{w: w, ascii: ascii, stamp: stamp, now: time.Now}
}

// line is the Client's Tracer: a note, or a protocol line of a scheme
// the Recorder does not see (the http fetcher gives it none of its lines:
// TraceNotesOnly).
func (t *tracer) line(dir schemes.Direction, line string) {
	switch dir {
	case schemes.Info:
		t.mu.Lock()
		defer t.mu.Unlock()
		fmt.Fprintf(t.w, "%s== Info: %s\n", t.timestamp(), line)
	case schemes.Sent:
		t.dump("=> Send header", []byte(line+"\r\n"))
	case schemes.Received:
		t.dump("<= Recv header", []byte(line+"\r\n"))
	}
}

// timestamp is --trace-time's prefix: the local time of day to the
// microsecond, as curl writes it.
func (t *tracer) timestamp() string {
	if !t.stamp {
		return ""
	}
	return t.now().Format("15:04:05.000000 ")
}

// dump writes one heading and its bytes, in curl's layout.
func (t *tracer) dump(text string, p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b bytes.Buffer
	writeDump(&b, t.timestamp(), text, p, t.ascii)
	t.w.Write(b.Bytes())
}

// writeDump is curl's dump(): the heading with the size in decimal and
// hex, then lines of an offset and the bytes, hex and text (16 a line),
// or text only (64 a line, a CRLF ending the line early). A byte outside
// printable ASCII shows as '.'.
func writeDump(b *bytes.Buffer, stamp, text string, p []byte, ascii bool) {
	width := 0x10
	if ascii {
		width = 0x40
	}
	fmt.Fprintf(b, "%s%s, %d bytes (0x%x)\n", stamp, text, len(p), len(p))
	size := len(p)
	for i := 0; i < size; i += width {
		fmt.Fprintf(b, "%04x: ", i)
		if !ascii {
			for c := 0; c < width; c++ {
				if i+c < size {
					fmt.Fprintf(b, "%02x ", p[i+c])
				} else {
					b.WriteString("   ")
				}
			}
		}
		for c := 0; c < width && i+c < size; c++ {
			if ascii && i+c+1 < size && p[i+c] == '\r' && p[i+c+1] == '\n' {
				i += c + 2 - width
				break
			}
			ch := p[i+c]
			if ch < 0x20 || ch >= 0x7f { // curl lets DEL through; a terminal need not see it
				ch = '.'
			}
			b.WriteByte(ch)
			if ascii && i+c+2 < size && p[i+c+1] == '\r' && p[i+c+2] == '\n' {
				i += c + 3 - width
				break
			}
		}
		b.WriteByte('\n')
	}
}

// Exchange makes the tracer the http fetcher's Recorder.
func (t *tracer) Exchange(target string, remote net.Addr) httpscheme.Exchange {
	return &traceExchange{t: t, header: true}
}

// traceExchange traces one HTTP/1.x exchange: the request as one "Send
// header", each response header line as a "Recv header" of its own, then
// the body's bytes as "Recv data", as curl does. An interim (1xx)
// response's header is followed by another header.
type traceExchange struct {
	t       *tracer
	header  bool   // the response's header is being read
	partial []byte // a header line read in part
	interim bool   // the response whose header is read is a 1xx one
	first   bool   // the next line is a status line
}

func (x *traceExchange) Request(p []byte) {
	x.t.dump("=> Send header", maskAuthorization(p))
	x.first = true
}

func (x *traceExchange) Response(p []byte) {
	for x.header && len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			x.partial = append(x.partial, p...)
			return
		}
		line := append(x.partial, p[:i+1]...)
		x.partial = nil
		p = p[i+1:]
		x.t.dump("<= Recv header", line)
		if x.first {
			// RFC 9112 §4: HTTP-version SP status-code; 1xx is interim.
			f := strings.Fields(string(line))
			x.interim = len(f) > 1 && len(f[1]) == 3 && f[1][0] == '1'
			x.first = false
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			// The header ends: an interim one is followed by the next.
			x.header, x.first = x.interim, x.interim
		}
	}
	if len(p) > 0 {
		x.t.dump("<= Recv data", p)
	}
}

func (x *traceExchange) End(err error) {
	if len(x.partial) > 0 {
		x.t.dump("<= Recv header", x.partial)
		x.partial = nil
	}
}

// maskAuthorization returns a request's bytes with the credentials of
// its Authorization and Proxy-Authorization fields masked, the scheme's
// name kept ("Authorization: Basic ****").
func maskAuthorization(p []byte) []byte {
	var out []byte
	rest := p
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		line := rest
		if i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		name, value, ok := bytes.Cut(line, []byte(":"))
		n := strings.ToLower(string(bytes.TrimSpace(name)))
		if ok && (n == "authorization" || n == "proxy-authorization") {
			v := bytes.TrimSpace(value)
			scheme, _, _ := bytes.Cut(v, []byte(" "))
			masked := string(name) + ": " + string(scheme) + " ****"
			if bytes.HasSuffix(line, []byte("\r\n")) {
				masked += "\r\n"
			} else if bytes.HasSuffix(line, []byte("\n")) {
				masked += "\n"
			}
			out = append(out, masked...)
			continue
		}
		out = append(out, line...)
	}
	return out
}

// dataReader traces a body's bytes as "Recv data" as they are read; an
// http body is left as it is, the Recorder seeing its bytes.
func (t *tracer) dataReader(scheme string, body io.ReadCloser) io.ReadCloser {
	if scheme == "http" || scheme == "https" {
		return body
	}
	return &tracedBody{ReadCloser: body, t: t}
}

// tracedBody is a body whose reads are traced.
type tracedBody struct {
	io.ReadCloser
	t *tracer
}

func (b *tracedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.t.dump("<= Recv data", p[:n])
	}
	return n, err
}
