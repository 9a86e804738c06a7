package news

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/textproto"
	"strings"
	"testing"
)

// decodeDot reads a data block with dotReader over a buffer of size bytes,
// asking for step bytes at a time, and returns the decoded bytes, what the
// connection still holds after it and the error that ended it.
func decodeDot(in string, size, step int) (string, string, error) {
	br := bufio.NewReaderSize(strings.NewReader(in), size)
	d := newDotReader(br)
	var out bytes.Buffer
	p := make([]byte, step)
	var err error
	for {
		var n int
		n, err = d.Read(p)
		out.Write(p[:n])
		if err != nil {
			break
		}
		if n == 0 {
			return out.String(), "", errors.New("Read returned 0, nil")
		}
	}
	rest, _ := io.ReadAll(br)
	return out.String(), string(rest), err
}

// decodeTextproto is the same through textproto's DotReader, the reference.
func decodeTextproto(in string) (string, string, error) {
	br := bufio.NewReader(strings.NewReader(in))
	out, err := io.ReadAll(textproto.NewReader(br).DotReader())
	if err == nil {
		err = io.EOF
	}
	rest, _ := io.ReadAll(br)
	return string(out), string(rest), err
}

func TestDotReader(t *testing.T) {
	long := strings.Repeat("y", 40)
	tests := []struct{ name, in, want, rest string }{
		{"empty block", ".\r\n", "", ""},
		{"lines", "a\r\nb\r\n.\r\n", "a\nb\n", ""},
		{"stuffed dots", "..a\r\n..\r\n...\r\n.\r\n", ".a\n.\n..\n", ""},
		{"bare LF ends lines and the block", "a\nb\n.\n", "a\nb\n", ""},
		{"lone CR kept", "a\rb\r\n\r\r\n.\r\n", "a\rb\n\r\n", ""},
		{"dot CR not the end", ".\rx\r\n.\r\n", "\rx\n", ""},
		{"next reply untouched", "a\r\n.\r\n205 bye\r\n", "a\n", "205 bye\r\n"},
		{"line longer than the buffer", long + "\r\n.\r\n", long + "\n", ""},
		{"CRLF split by the buffer", strings.Repeat("z", 15) + "\r\n.\r\n", strings.Repeat("z", 15) + "\n", ""},
		{"dotted long line", "." + long + "\r\n.\r\n", long + "\n", ""},
		{"empty bare-LF line then a stuffed one", "a\n\n..b\n.\n", "a\n\n.b\n", ""},
	}
	for _, tt := range tests {
		for _, size := range []int{16, 17, 4096} {
			for _, step := range []int{1, 3, 64, 1 << 16} {
				got, rest, err := decodeDot(tt.in, size, step)
				if got != tt.want || err != io.EOF || rest != tt.rest {
					t.Errorf("%s (buffer %d, reads of %d): got %q, %v, rest %q; want %q, EOF, rest %q",
						tt.name, size, step, got, err, rest, tt.want, tt.rest)
				}
			}
		}
	}
}

func TestDotReaderCutShort(t *testing.T) {
	for _, in := range []string{"", "a\r\n", "a\r\nb", ".", "..x", "a\r"} {
		got, _, err := decodeDot(in, 16, 5)
		want, _, _ := decodeTextproto(in)
		if err != io.ErrUnexpectedEOF || got != want {
			t.Errorf("%q: got %q, %v; want %q, unexpected EOF", in, got, err, want)
		}
	}
}

// FuzzDotReader checks the decoder against textproto's DotReader for any
// input, buffer size and read size.
func FuzzDotReader(f *testing.F) {
	f.Add("..a\r\nb\rc\r\n\r\r\n.\r\n250 ok\r\n", uint8(0), uint8(1))
	f.Add(".\rx\n.\n", uint8(3), uint8(200))
	f.Add(strings.Repeat("q", 30)+"\r\r\n.\r\n", uint8(1), uint8(7))
	f.Fuzz(func(t *testing.T, in string, size, step uint8) {
		if strings.HasPrefix(in, "\n") || strings.Contains(in, "\n\n") {
			// textproto takes a bare LF opening a line for data and then
			// does not unstuff the next line's dot; an empty line is a
			// line here (the "empty bare-LF line" case of TestDotReader).
			return
		}
		want, wrest, werr := decodeTextproto(in)
		got, rest, err := decodeDot(in, 16+int(size), 1+int(step))
		if got != want || err != werr || (err == io.EOF && rest != wrest) {
			t.Fatalf("%q (buffer %d, reads of %d):\n got %q, %v, rest %q\nwant %q, %v, rest %q",
				in, 16+int(size), 1+int(step), got, err, rest, want, werr, wrest)
		}
	})
}
