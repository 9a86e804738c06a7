package ftp

import (
	"bufio"
	"bytes"
	"errors"
	"net/textproto"
	"strings"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// FuzzReadReply reads a control connection's bytes as a series of replies
// (RFC 959 §4.2), as readReply assembles them. Every reply it returns has
// a code of 1yz to 5yz that its first line starts with, a multi-line reply
// ends on a line "xyz " or "xyz" of the same code, the bounds on lines and
// bytes hold, and every failure is an error of the taxonomy.
func FuzzReadReply(f *testing.F) {
	for _, s := range []string{
		"220 (vsFTPd 3.0.3)\r\n",
		"220-Welcome\r\n220-to Pure-FTPd\r\n220 ready\r\n331 Please specify the password.\r\n",
		"211-Features:\r\n EPSV\r\n MDTM\r\n SIZE\r\n211 End\r\n",
		"150-Opening\r\n150\r\n226 Transfer complete\r\n",
		"230-a\r\n231 not the end\r\n230-still not\r\n230 end\r\n",
		"220-unterminated\r\n",
		"600 out of range\r\n",
		"22\r\n",
		"220x\r\n",
		"421 Timeout.\r\n",
		"220-" + strings.Repeat("x", 300) + "\r\n220 \r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &conn{
			r:   textproto.NewReader(bufio.NewReaderSize(schemes.LineLimitReader(bytes.NewReader(data), schemes.MaxLineLength), 4096)),
			req: &schemes.Request{URL: uri.MustParse("ftp://u:secret@h/f")},
		}
		// Each reply takes at least one line, so the loop ends.
		for n := 0; n <= bytes.Count(data, []byte("\n"))+1; n++ {
			r, err := c.readReply("RETR f")
			if err != nil {
				var e *schemes.Error
				if !errors.As(err, &e) {
					t.Fatalf("error outside the taxonomy: %v", err)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Fatalf("error shows the password: %v", err)
				}
				return
			}
			if r.code < 100 || r.code > 599 {
				t.Fatalf("reply code %d", r.code)
			}
			lines := strings.Split(r.text, "\n")
			code := r.text[:3]
			if len(lines) > maxReplyLines || len(r.text) > maxReplyBytes+schemes.MaxLineLength {
				t.Fatalf("reply of %d lines, %d bytes, over the bounds", len(lines), len(r.text))
			}
			if got, _, ok := replyCode(lines[0]); !ok || got != r.code {
				t.Fatalf("reply %q: first line does not carry code %d", r.text, r.code)
			}
			if len(lines) > 1 {
				last := lines[len(lines)-1]
				if last != code && !strings.HasPrefix(last, code+" ") {
					t.Fatalf("multi-line reply %q does not end on its code", r.text)
				}
				if !strings.HasPrefix(lines[0], code+"-") {
					t.Fatalf("multi-line reply %q does not start with %s-", r.text, code)
				}
			}
			if !strings.HasSuffix(r.text, r.last()) || strings.Contains(r.last(), "\n") {
				t.Fatalf("last() of %q is %q", r.text, r.last())
			}
		}
		t.Fatalf("more replies than lines in %q", data)
	})
}
