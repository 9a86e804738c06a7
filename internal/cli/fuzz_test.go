package cli

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"

	"github.com/urlget/urlget/schemes"
)

// FuzzHeaderName checks the file name -J takes from a response's
// Content-Disposition (RFC 6266): none, or one -O would take itself: a
// single path segment, no '/', '\', NUL or other control character, not
// "." or "..", never empty.
func FuzzHeaderName(f *testing.F) {
	// schemes/http's FuzzDispositionName has the path separators; these
	// are the names -O refuses on top.
	for _, s := range []string{
		`attachment; filename="report.pdf"`,
		`attachment; filename*=UTF-8''%2E%2E`,
		`attachment; filename*=UTF-8''a%0D%0Ab`,
		`attachment; filename*=UTF-8''%1B%5B2J`,
		`attachment; filename="dir/."`,
		`attachment; filename="a\\"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		name := headerName(&schemes.Resource{Header: [][2]string{{"content-disposition", v}}})
		if name == "" {
			return
		}
		if name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") ||
			strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Fatalf("%q: -J takes the name %q", v, name)
		}
	})
}

// FuzzParseSize checks the sizes of --limit-rate and --max-filesize: never
// negative, never overflowed, the number times its suffix's power of 1024,
// and written back in decimal it reads the same.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"0", "10k", "10K", "1M", "3G", "-1", "+5", "k", "", "9223372036854775807", "4611686018427387904", "4294967296G", "8589934591G", "1.5M", " 1k", "1T", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err != nil {
			if n != 0 {
				t.Fatalf("%q: %d with error %v", s, n, err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("%q: negative size %d", s, n)
		}
		mult := int64(1)
		switch s[len(s)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		}
		digits := s
		if mult > 1 {
			digits = s[:len(s)-1]
		}
		d, err := strconv.ParseInt(digits, 10, 64)
		if err != nil || d > math.MaxInt64/mult || d*mult != n {
			t.Fatalf("%q: %d, not %q times %d", s, n, digits, mult)
		}
		if again, err := parseSize(strconv.FormatInt(n, 10)); err != nil || again != n {
			t.Fatalf("%q: %d reads back as %d, %v", s, n, again, err)
		}
		var limit int64
		if err := (rateValue{&limit}).Set(s); err != nil || limit != n {
			t.Fatalf("--limit-rate %q: %d, %v; parseSize %d", s, limit, err, n)
		}
	})
}

// FuzzWriteOut renders -w formats: any format renders, text with no '%'
// and no '\' comes out as it is, nothing but the warnings of unknown
// variables goes to standard error before a %{stderr}, and a variable's
// value (an error message) keeps to one line.
func FuzzWriteOut(f *testing.F) {
	for _, s := range []string{
		"%{http_code}\\n", "%{url} %{url_effective}\\n", "%{stderr}err%{stdout}out", "%%{url}", "%{", "%{unknown}",
		"%{" + strings.Repeat("x", 60) + "}", "\\", "\\q\\t\\r", "plain text", "%{size_download}/%{time_total}/%{speed_download}",
		"%{errormsg}|%{exitcode}|%{filename_effective}|%{content_type}|%{response_code}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, format string) {
		var stdout, stderr bytes.Buffer
		c := &command{opts: &options{writeOut: format}, stdout: &stdout, stderr: &stderr}
		c.writeOut(transfer{url: "ftp://h/f", effective: "ftp://h/g", err: errors.New("line\r\nbreak"), size: 10})
		// The warnings, wherever they stand: after %{stderr} they may
		// follow the format's own text on one line.
		rest := unknownVarWarning.ReplaceAllString(stderr.String(), "")
		stderr.Reset()
		stderr.WriteString(rest)
		if !strings.ContainsAny(format, "%\\") && (stdout.String() != format || stderr.Len() != 0) {
			t.Fatalf("%q rendered as %q, %q", format, stdout.String(), stderr.String())
		}
		if !strings.Contains(strings.ToLower(format), "%{stderr}") && stderr.Len() != 0 {
			t.Fatalf("%q wrote %q to standard error", format, stderr.String())
		}
		if !strings.ContainsAny(format, "\\\r\n") && strings.ContainsAny(stdout.String()+stderr.String(), "\r\n") {
			t.Fatalf("%q rendered a line end: %q %q", format, stdout.String(), stderr.String())
		}
	})
}

// unknownVarWarning is the line -w writes to standard error for a
// variable it does not know.
var unknownVarWarning = regexp.MustCompile(`urlget: unknown --write-out variable: '[^\r\n]*'\n`)

// FuzzMaskedText checks the masking of a URL argument that need not parse
// (--json-lines's "url", a list's bad line): however it is written — with
// blanks around it, in <URL:…>, or not parsing at all — a
// "scheme://user:password@host" text shows no password.
func FuzzMaskedText(f *testing.F) {
	f.Add("", "", "u", "secret", "h", "/f")
	f.Add(" ", " ", "u", "pw", "host", "")
	f.Add("\t<URL:", ">", "u", "pw", "host", "/a b")
	f.Add("", "", "", "p w", "h", "/%zz")
	f.Add("", "", "u", "pw", "h", "?q=@x")
	f.Add("", "\n", "user", "pass", "[::1]:21", "/")
	f.Fuzz(func(t *testing.T, before, after, user, pass, host, tail string) {
		if len(pass) < 2 || strings.ContainsAny(user, ":@/?#") || strings.ContainsAny(pass, "@/?#") || strings.ContainsAny(host, "@/?#") {
			return
		}
		// Around the URL: blanks, and a "<" or "<URL:" with its ">"
		// (RFC 3986 Appendix C); anything else would make other text
		// of the URL, "a:ftp://u:p@h" a URL of scheme "a" and no password.
		switch strings.TrimLeft(before, " \t\r\n") {
		case "", "<", "<URL:":
		default:
			return
		}
		if a := strings.TrimRight(after, " \t\r\n"); a != "" && a != ">" {
			return
		}
		if tail != "" && !strings.ContainsAny(tail[:1], "/?#") {
			return
		}
		raw := before + "ftp://" + user + ":" + pass + "@" + host + tail + after
		m := maskedText(raw)
		if strings.Contains(m, ":"+pass+"@") {
			t.Fatalf("maskedText(%q) = %q", raw, m)
		}
	})
}

// FuzzURLList reads a URL list (--url @file): each URL given is a line of
// the file without its blanks, never empty or a comment, and holds no
// line end; a line too long is an error, and reading ends.
func FuzzURLList(f *testing.F) {
	for _, s := range []string{
		"http://h/a\n# comment\n\n  ftp://h/b  \r\ngopher://h/\n", "no newline at end", "\n\n\n", "#\n#x\n",
		"\xef\xbb\xbfhttp://h/\n", "a\x00b\n", "\r\r\r", "\t http://h/ \t",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := &urlList{name: "list", r: bufio.NewReaderSize(bytes.NewReader(data), maxListLine)}
		lines := bytes.Count(data, []byte("\n")) + 1
		for n := 0; ; n++ {
			if n > lines {
				t.Fatalf("more URLs than lines in %q", data)
			}
			raw, err, ok := l.next(true)
			if !ok {
				break
			}
			if err != nil {
				var le *listError
				if !errors.As(err, &le) {
					t.Fatalf("error %v", err)
				}
				continue
			}
			if raw == "" || raw[0] == '#' || raw != strings.TrimSpace(raw) || strings.Contains(raw, "\n") || !bytes.Contains(data, []byte(raw)) {
				t.Fatalf("%q: URL %q", data, raw)
			}
		}
		if !l.end {
			t.Fatalf("%q: not read to its end", data)
		}
	})
}

// FuzzParseHeader checks -H's reader: a field it accepts has a token for
// a name (RFC 9110 §5.1), no CR, LF or NUL anywhere (which would split the
// request, RFC 9112 §2.2), and reads back the same from "Name: value".
func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{
		"X-A: b", "Accept:", "X-Empty;", "Host: h:8080", "User-Agent:", " Spaced : value ",
		"X: a\r\nInjected: 1", "X: a\x00b", "Bad Name: v", ": v", "X-A;b", "no colon",
		"Authorization: Bearer tok", "X:\tv\t",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		name, value, remove, err := parseHeaderLine(line)
		if err != nil {
			return
		}
		if !httpguts.ValidHeaderFieldName(name) || strings.ContainsAny(name+value, "\r\n\x00") {
			t.Fatalf("%q: name %q value %q", line, name, value)
		}
		if value != strings.TrimSpace(value) || remove && value != "" {
			t.Fatalf("%q: value %q, remove %v", line, value, remove)
		}
		if remove {
			return
		}
		// An empty value is written "Name;" (curl's way to send one).
		again := name + ": " + value
		if value == "" {
			again = name + ";"
		}
		n2, v2, r2, err := parseHeaderLine(again)
		if err != nil || n2 != name || v2 != value || r2 {
			t.Fatalf("%q: %q %q read back as %q %q %v, %v", line, name, value, n2, v2, r2, err)
		}
	})
}
