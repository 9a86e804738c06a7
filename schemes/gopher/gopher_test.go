package gopher

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

func TestTextReader(t *testing.T) {
	tests := []struct {
		name, in, want string
		dot, crlf      bool
	}{
		{"crlf and terminator", "a\r\nb\r\n.\r\n", "a\nb\n", true, true},
		{"data after terminator ignored", "a\r\n.\r\nb\r\n", "a\n", true, true},
		{"dot doubling undone", "..a\r\n...\r\n.\r\n", ".a\n..\n", true, true},
		{"undoubled dot kept", ".a\r\n.\r\n", ".a\n", true, true},
		{"no terminator", "a\r\nb", "a\nb", true, true},
		{"LF only", "a\n.\n", "a\n", true, true},
		{"lone CR kept", "a\rb\r\n\r", "a\rb\n\r", true, true},
		{"dot CR not LF", ".\rx\r\n.\r\n", ".\rx\n", true, true},
		{"dot at EOF ends", "a\r\n.", "a\n", true, true},
		{"dot inside a line", "a.\r\n. b\r\n.\r\n", "a.\n. b\n", true, true},
		{"no dot handling", "a\r\n.\r\n..b\r\n", "a\n.\n..b\n", false, true},
		{"dot framing, bytes kept", "a\r\n..b\r\n.\r\n", "a\r\n.b\r\n", true, false},
		{"dot CR in raw mode", ".\rx\n.\n", ".\rx\n", true, false},
		{"empty", "", "", true, true},
		{"only terminator", ".\r\n", "", true, true},
	}
	for _, tt := range tests {
		for _, mode := range []string{"whole", "onebyte", "smallbuf"} {
			var r io.Reader = strings.NewReader(tt.in)
			if mode == "onebyte" {
				r = iotest.OneByteReader(r)
			}
			tr := newTextReader(r, tt.dot, tt.crlf)
			var got []byte
			var err error
			if mode == "smallbuf" {
				buf := make([]byte, 1)
				for {
					var n int
					n, err = tr.Read(buf)
					got = append(got, buf[:n]...)
					if err != nil {
						break
					}
				}
				if err == io.EOF {
					err = nil
				}
			} else {
				got, err = io.ReadAll(tr)
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("%s/%s: got %q, %v; want %q", tt.name, mode, got, err, tt.want)
			}
		}
	}
}

func TestParsePlusHeader(t *testing.T) {
	tests := []struct {
		in     string
		ok     bool
		length int64
		valid  bool
	}{
		{"+-1", true, plusUntilDot, true},
		{"+-2", true, plusUntilClose, true},
		{"+0", true, 0, true},
		{"+12345", true, 12345, true},
		{"--1", false, plusUntilDot, true},
		{"--2", false, plusUntilClose, true},
		{"-17", false, 17, true},
		{"+-1 ", true, plusUntilDot, true},
		{"+", false, 0, false},
		{"+-3", false, 0, false},
		{"+12a", false, 0, false},
		{"+1234567890123456789", false, 0, false},
		{"hello", false, 0, false},
		{"", false, 0, false},
	}
	for _, tt := range tests {
		h, valid := parsePlusHeader([]byte(tt.in))
		if valid != tt.valid || valid && (h.ok != tt.ok || h.length != tt.length) {
			t.Errorf("parsePlusHeader(%q) = %+v, %v; want ok %v length %d valid %v", tt.in, h, valid, tt.ok, tt.length, tt.valid)
		}
	}
}

func TestParsePlusError(t *testing.T) {
	e := parsePlusError("1 Item not available  Admin <a@b>\r\nSorry.\r\n")
	if e.code != 1 || e.message != "1 Item not available  Admin <a@b>\nSorry." {
		t.Errorf("parsePlusError = %+v", e)
	}
	if e := parsePlusError("no code"); e.code != 0 {
		t.Errorf("code without digits = %d", e.code)
	}
}

func TestRequestLines(t *testing.T) {
	tests := []struct {
		url        string
		search     string
		hasSearch  bool
		want       []string
		wantErrSub string
	}{
		{url: "gopher://h/", want: []string{""}},
		{url: "gopher://h", want: []string{""}},
		{url: "gopher://h/0/a%20b?c", want: []string{"/a b?c"}},
		{url: "gopher://h/00/x", want: []string{"0/x"}},
		{url: "gopher://h/7s%09a%20b", want: []string{"s\ta b"}},
		{url: "gopher://h/7s", search: "t", hasSearch: true, want: []string{"s\tt"}},
		{url: "gopher://h/7s%09", want: []string{"s\t"}},
		{url: "gopher://h/7s", wantErrSub: "no search terms"},
		{url: "gopher://h/1s", search: "ignored", hasSearch: true, want: []string{"s"}},
		{url: "gopher://h/1s%09q", want: []string{"s\tq"}},
		{url: "gopher://h/0s%09%09+", want: []string{"s\t+"}},
		{url: "gopher://h/7s%09%09!", want: []string{"s\t!"}},
		{url: "gopher://h/7s%09q%09+", want: []string{"s\tq\t+"}},
		{url: "gopher://h/0s%09%09$", want: []string{"s\t$"}},
		{url: "gopher://h/0s%09%09+%091%0D%0A+-1%0D%0Av%0D%0A.%0D%0A", want: []string{"s\t+\t1", "+-1", "v", "."}},
		{url: "gopher://h/0s%0D", wantErrSub: "CR"},
		{url: "gopher://h/0s%09%09+%0Ax", wantErrSub: "Gopher+"},
		{url: "gopher://h/0s%09%09+%091%0D%0A.%0D%0A", wantErrSub: "Gopher+"},
	}
	for _, tt := range tests {
		u := uri.MustParse(tt.url)
		req := &schemes.Request{URL: u}
		if tt.hasSearch {
			req.Search = &tt.search
		}
		g, err := u.Gopher()
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		got, err := requestLines(req, g)
		if tt.wantErrSub == "no search terms" && !errors.Is(err, schemes.ErrNoSearchTerms) {
			t.Errorf("%s: err = %v, want ErrNoSearchTerms", tt.url, err)
		}
		if tt.wantErrSub != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErrSub) {
				t.Errorf("%s: err = %v, want one mentioning %q", tt.url, err, tt.wantErrSub)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: got %q, %v; want %q", tt.url, got, err, tt.want)
		}
	}
}

func TestParseMenuLine(t *testing.T) {
	srv := server{scheme: "gopher", host: "h.example", port: "70"}
	tests := []struct {
		line string
		kind schemes.Kind
		url  string
		name string
	}{
		{"0Doc\t/d.txt\th.example\t70", schemes.KindFile, "gopher://h.example/0/d.txt", "Doc"},
		{"1Dir\t\th.example\t7070", schemes.KindDirectory, "gopher://h.example:7070/1", "Dir"},
		{"9x\t/a b\t::1\t70", schemes.KindFile, "gopher://[::1]/9/a%20b", "x"},
		{"<x\tsnd\th\t70", schemes.KindFile, "gopher://h/%3Csnd", "x"},
		{"8t\tu:s@x\tbbs\t0", schemes.KindOther, "telnet://u%3As%40x@bbs/", "t"},
		{"hw\tURL:ftp://f/x\th\t70", schemes.KindLink, "ftp://f/x", "w"},
		{"hw\tURL:not a url\th\t70", schemes.KindFile, "gopher://h/hURL:not%20a%20url", "w"},
		{"itext only", schemes.KindInfo, "", "text only"},
		{"", schemes.KindInfo, "", ""},
		{"0bad host\t/x\th/x\t70", schemes.KindInfo, "", "0bad host\t/x\th/x\t70"},
		{"0bad port\t/x\th\t70000", schemes.KindInfo, "", "0bad port\t/x\th\t70000"},
		{"0few\t/x", schemes.KindInfo, "", "0few\t/x"},
	}
	for _, tt := range tests {
		e := entryFor(parseMenuLine(tt.line), tt.line, srv, 0)
		if e.Kind != tt.kind || e.URL != tt.url || e.Name != tt.name {
			t.Errorf("%q: got {%v %q %q}, want {%v %q %q}", tt.line, e.Kind, e.URL, e.Name, tt.kind, tt.url, tt.name)
		}
	}
}

func TestErrorMenu(t *testing.T) {
	tests := []struct {
		in    string
		msg   string
		isErr bool
	}{
		{"3Not here\terror\terror.host\t1\r\n.\r\n", "Not here", true},
		{"iSorry\tf\th\t0\r\n3A\te\th\t1\r\n3B\te\th\t1\r\n", "A; B", true},
		{"iJust text\tf\th\t0\r\n.\r\n", "", false},
		{"3Not here\terror\terror.host\t1\r\n0But this\t/x\th\t70\r\n", "", false},
		{"3 no tabs\r\n", "", false},
	}
	for _, tt := range tests {
		msg, isErr := errorMenu([]byte(tt.in))
		if msg != tt.msg || isErr != tt.isErr {
			t.Errorf("errorMenu(%q) = %q, %v; want %q, %v", tt.in, msg, isErr, tt.msg, tt.isErr)
		}
	}
}

func TestContentType(t *testing.T) {
	for _, tt := range []struct {
		t    byte
		sel  string
		want string
	}{
		{'0', "/x", "text/plain"},
		{'9', "/x.bin", "application/octet-stream"},
		{'9', "/x", "application/octet-stream"},
		{'g', "/x", "image/gif"},
		{'I', "/a.png", "image/png"},
		{'1', "", "application/gopher-menu"},
	} {
		if got := contentType(tt.t, tt.sel); got != tt.want {
			t.Errorf("contentType(%q, %q) = %q, want %q", tt.t, tt.sel, got, tt.want)
		}
	}
}
