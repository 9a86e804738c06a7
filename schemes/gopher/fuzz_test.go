package gopher

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// FuzzMenuLine checks that every entry a menu line yields either is
// information with no URL or carries a URL that parses and names exactly
// the item the line named.
func FuzzMenuLine(f *testing.F) {
	f.Add("0About\t/about.txt\tgopher.example\t70")
	f.Add("1Dir\t/a b/?#%\texample.org\t7070\t+")
	f.Add("7Search\t/s\t::1\t70\t?")
	f.Add("8Login\tguest@x\tbbs\t0")
	f.Add("hWeb\tURL:http://example.org/\th\t70")
	f.Add("iInfo line")
	f.Add("+Mirror\t/x\tm\t70")
	f.Add("3Error\terror\terror.host\t1")
	f.Fuzz(func(t *testing.T, line string) {
		srv := server{scheme: "gophers", host: "gopher.example", port: "70"}
		it := parseMenuLine(line)
		e := entryFor(it, line, srv, '9')
		if (e.URL == "") != (e.Kind == schemes.KindInfo) {
			t.Fatalf("%q: kind %v with URL %q", line, e.Kind, e.URL)
		}
		if e.URL == "" {
			return
		}
		u, err := uri.Parse(e.URL)
		if err != nil {
			t.Fatalf("%q: URL %q does not parse: %v", line, e.URL, err)
		}
		if s, ok := hURL(it.selector); ok && it.typ == typeHTML && it.valid {
			if e.URL != s {
				t.Fatalf("%q: URL %q, want the selector's %q", line, e.URL, s)
			}
			return
		}
		switch u.Scheme() {
		case "gopher", "gophers":
			g, err := u.Gopher()
			if err != nil {
				t.Fatalf("%q: URL %q has no gopher view: %v", line, e.URL, err)
			}
			wantType := it.typ
			if wantType == typeMirror {
				wantType = '9'
			}
			if g.Type != wantType || g.Selector != it.selector || g.HasSearch {
				t.Fatalf("%q: URL %q names type %q selector %q (search %v), want %q %q", line, e.URL, g.Type, g.Selector, g.HasSearch, wantType, it.selector)
			}
			if !strings.EqualFold(u.Hostname(), strings.Trim(it.host, "[]")) {
				t.Fatalf("%q: URL %q names host %q, want %q", line, e.URL, u.Hostname(), it.host)
			}
		case "telnet":
			tn, err := u.Telnet()
			if err != nil {
				t.Fatalf("%q: telnet URL %q: %v", line, e.URL, err)
			}
			if tn.User != it.selector {
				t.Fatalf("%q: telnet URL %q names user %q, want %q", line, e.URL, tn.User, it.selector)
			}
		default:
			if it.typ != typeHTML {
				t.Fatalf("%q: unexpected URL %q", line, e.URL)
			}
		}
	})
}

// FuzzMenu reads a whole reply as a menu: it must end (with io.EOF or an
// error of the taxonomy) within the line limit, whatever the bytes.
func FuzzMenu(f *testing.F) {
	f.Add([]byte("iHi\tf\th\t0\r\n1Dir\t/d\th\t70\r\n.\r\n"))
	f.Add([]byte("3Gone\terror\terror.host\t1\r\n"))
	f.Add([]byte("no line end"))
	f.Add([]byte(".\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 50
		l := fuzzMenuListing(data, 64, max)
		if _, _, err := l.lookahead(); err != nil {
			var e *schemes.Error
			if !errors.As(err, &e) {
				t.Fatalf("lookahead error outside the taxonomy: %v", err)
			}
			return
		}
		for n := 0; ; n++ {
			_, err := l.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var e *schemes.Error
				if !errors.As(err, &e) {
					t.Fatalf("error outside the taxonomy: %v", err)
				}
				break
			}
			if n > max+lookaheadLines {
				t.Fatalf("more than %d entries", n)
			}
		}
		errorMenu(data)
	})
}

// fuzzMenuListing reads data as a menu from server h:70 through a buffer
// of size bytes, at most max lines, its errors those of the taxonomy.
func fuzzMenuListing(data []byte, size, max int) *menuListing {
	return &menuListing{
		br:  bufio.NewReaderSize(bytes.NewReader(data), size),
		srv: server{scheme: "gopher", host: "h", port: "70"},
		max: max,
		fail: func(op string, err error) error {
			return &schemes.Error{Kind: schemes.ErrProtocol, Op: op, Err: err}
		},
		tooLarge: func(err error) error { return &schemes.Error{Kind: schemes.ErrTooLarge, Err: err} },
		closer:   io.NopCloser(nil),
	}
}

// FuzzPlusHeader checks the Gopher+ header reader: what it accepts it
// reads back exactly, and peekLine never consumes or overruns its limit.
func FuzzPlusHeader(f *testing.F) {
	for _, s := range []string{"+-1\r\n", "+-2\r\n", "+1234\r\n", "--1\r\n1 Not found\r\n.\r\n", "+\r\n", "hello\r\n", "+99999999999999999999\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		br := bufio.NewReaderSize(bytes.NewReader(data), 64)
		line, _ := peekLine(br, maxPlusHeader)
		if len(line) > maxPlusHeader {
			t.Fatalf("peekLine returned %d bytes, over the limit", len(line))
		}
		if !bytes.HasPrefix(data, line) || br.Buffered() < len(line) {
			t.Fatalf("peekLine consumed or invented bytes")
		}
		h, ok := parsePlusHeader(bytes.TrimRight(line, "\r\n"))
		if !ok {
			return
		}
		if h.length < plusUntilClose {
			t.Fatalf("length %d", h.length)
		}
		sign := "-"
		if h.ok {
			sign = "+"
		}
		want := strings.TrimLeft(strings.TrimRight(string(line), "\r\n \t")[1:], "0")
		if got := fmt.Sprint(h.length); got != want && !(h.length == 0 && want == "") {
			t.Fatalf("%q read as %s%d", line, sign, h.length)
		}
	})
}

// FuzzTextReader holds the streaming text decoder against a line-at-a-time
// reading of RFC 1436 §3.8.
func FuzzTextReader(f *testing.F) {
	f.Add([]byte("a\r\n..b\r\n.\r\nc"), true, true)
	f.Add([]byte(".\r\r\n.\r"), true, false)
	f.Add([]byte("x\ry\r\n"), false, true)
	f.Fuzz(func(t *testing.T, data []byte, dot, crlf bool) {
		got, err := io.ReadAll(newTextReader(bytes.NewReader(data), dot, crlf))
		if err != nil {
			t.Fatal(err)
		}
		if want := decodeLines(data, dot, crlf); !bytes.Equal(got, want) {
			t.Fatalf("decode(%q, dot %v, crlf %v) = %q, want %q", data, dot, crlf, got, want)
		}
	})
}

// decodeLines is the reference decoder: split into lines, look at each.
func decodeLines(data []byte, dot, crlf bool) []byte {
	var out []byte
	for len(data) > 0 {
		line, rest, terminated := bytes.Cut(data, []byte{'\n'})
		data = rest
		content := line
		if crlf && terminated && bytes.HasSuffix(content, []byte{'\r'}) {
			content = content[:len(content)-1]
		}
		if dot {
			if string(line) == "." || string(line) == ".\r" {
				return out
			}
			if bytes.HasPrefix(content, []byte("..")) {
				content = content[1:]
			}
		}
		out = append(out, content...)
		if terminated {
			out = append(out, '\n')
		}
	}
	return out
}
