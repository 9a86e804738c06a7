package uri

import (
	"errors"
	"strings"
	"testing"
)

func TestFromText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://a/b", "http://a/b"},
		{"  http://a/b \n", "http://a/b"},
		// RFC 3986 appendix C (appendix E of draft-fielding-uri-rfc2396bis-01)
		// and the RFC 1738 appendix: delimiters.
		{"<URL:ftp://host/x>", "ftp://host/x"},
		{"<url: ftp://host/x >", "ftp://host/x"},
		{"<http://a/b>", "http://a/b"},
		{" <http://a/b> ", "http://a/b"},
		// Line breaks, with the white space next to them, are removed.
		{"<http://www.w3.org/Addressing/\n   uri-rel-test.html>", "http://www.w3.org/Addressing/uri-rel-test.html"},
		{"http://a/very/long/\r\n\tpath", "http://a/very/long/path"},
		{"http://a/b  \n  c", "http://a/bc"},
		// The examples of RFC 3986 appendix C, broken across lines as there.
		{"<ftp://foo.example.\n      com/rfc/>", "ftp://foo.example.com/rfc/"},
		{"<http://www.ics.uci.edu/pub/\n      ietf/uri/historical.html#WARNING>", "http://www.ics.uci.edu/pub/ietf/uri/historical.html#WARNING"},
		// The examples of the RFC 1738 appendix and of its reference [2].
		{"<URL:ftp://info.cern.ch/pub/www/doc;\n      type=d>", "ftp://info.cern.ch/pub/www/doc;type=d"},
		{"<URL:ftp://ds.in\n      ternic.net/rfc>", "ftp://ds.internic.net/rfc"},
		{"<URL:http://ds.internic.\n      net/instructions/overview.html#WARNING>", "http://ds.internic.net/instructions/overview.html#WARNING"},
		{"<URL:ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol\n       /Gopher+/Gopher+.txt>", "ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol/Gopher+/Gopher+.txt"},
		// A hyphen before a line break stays: it may be part of the URL
		// (RFC 3986 appendix C).
		{"<http://a/b-\n   c>", "http://a/b-c"},
		// Other white space stays, for Parse to reject.
		{"http://a/b c", "http://a/b c"},
		// An IRI becomes a URI (RFC 3987 §3.1).
		{"http://a/r\u00e9sum\u00e9?q=\u2713#\u00e0", "http://a/r%C3%A9sum%C3%A9?q=%E2%9C%93#%C3%A0"},
		{"http://J\u00f6rg@a/", "http://J%C3%B6rg@a/"},
		// Only one wrapper is removed.
		{"<<http://a/>>", "<http://a/>"},
		{"URL:http://a/", "URL:http://a/"},
		{"<http://b\u00fccher.example/>", "http://b%C3%BCcher.example/"},
		{"http://u@b\u00fccher.example/\u00e9", "http://u@b%C3%BCcher.example/%C3%A9"},
	}
	for _, tt := range tests {
		got, err := FromText(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("FromText(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	errTests := []struct {
		in, msg string
		col     int
	}{
		{"", "empty URL", 1},
		{"  <URL: > ", "empty URL", 8},
		{"http://a/\xff", "invalid UTF-8", 10},
	}
	for _, tt := range errTests {
		_, err := FromText(tt.in)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, tt.msg) || e.Col != tt.col {
			t.Errorf("FromText(%q) = %v, want %q at column %d", tt.in, err, tt.msg, tt.col)
		}
	}
}

func TestFromTextThenParse(t *testing.T) {
	s, err := FromText("<URL:http://a/b\n  c d>")
	if err != nil {
		t.Fatal(err)
	}
	var e *Error
	if _, err := Parse(s); !errors.As(err, &e) || e.Msg != "space" || e.Col != 12 {
		t.Errorf("Parse(%q) = %v, want a space at column 12", s, err)
	}
}
