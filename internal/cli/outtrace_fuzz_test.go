package cli

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
)

// FuzzTraceExchange feeds a server's bytes, cut at any place, to the
// trace of an HTTP exchange: every byte is dumped once, in order, under
// a "<= Recv header" or "<= Recv data" heading that gives its count, and
// the trace holds nothing but headings and dump lines, whatever the
// bytes (a server must not write to the terminal through the trace).
func FuzzTraceExchange(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\nbody",
		"HTTP/1.0 200 OK\n\nbare LF",
		"HTTP/1.1 200 OK\r\nX: \x1b[2J\x00\r\n\r\n\x00\xff",
		"no header end",
	} {
		f.Add([]byte(s), uint8(3), true)
	}
	heading := regexp.MustCompile(`^<= Recv (header|data), (\d+) bytes \(0x([0-9a-f]+)\)$`)
	f.Fuzz(func(t *testing.T, in []byte, cut uint8, ascii bool) {
		var out bytes.Buffer
		tr := newTracer(&out, ascii, false)
		x := tr.Exchange("http://h/", nil).(*traceExchange)
		x.Request([]byte("GET / HTTP/1.1\r\nHost: h\r\n\r\n"))
		out.Reset()
		step := int(cut%16) + 1
		for i := 0; i < len(in); i += step {
			x.Response(in[i:min(i+step, len(in))])
		}
		x.End(nil)
		total := 0
		for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			for _, c := range line {
				if c < 0x20 || c >= 0x7f {
					t.Fatalf("a byte %#x in the trace: %q", c, line)
				}
			}
			if m := heading.FindSubmatch(line); m != nil {
				n, _ := strconv.Atoi(string(m[2]))
				if h, _ := strconv.ParseInt(string(m[3]), 16, 64); int(h) != n {
					t.Fatalf("heading %q: counts differ", line)
				}
				total += n
			}
		}
		if total != len(in) {
			t.Fatalf("%d bytes in, %d dumped:\n%s", len(in), total, out.String())
		}
	})
}
