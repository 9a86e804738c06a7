package http

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/urlget/urlget/uri"
)

func TestContentRange(t *testing.T) {
	for _, tc := range []struct {
		in           string
		start, total int64
		ok           bool
	}{
		{"bytes 0-9/10", 0, 10, true},
		{"bytes 995-999/1000", 995, 1000, true},
		{"bytes 5-9/*", 5, -1, true},
		{"bytes 5-9/9", 0, 0, false},
		{"bytes 9-5/10", 0, 0, false},
		{"bytes */10", 0, 0, false},
		{"items 0-1/2", 0, 0, false},
		{"bytes -1-5/10", 0, 0, false},
		{"", 0, 0, false},
	} {
		start, total, ok := contentRange(tc.in)
		if start != tc.start || total != tc.total || ok != tc.ok {
			t.Errorf("contentRange(%q) = %d, %d, %v; want %d, %d, %v", tc.in, start, total, ok, tc.start, tc.total, tc.ok)
		}
	}
}

func FuzzContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-9/10", "bytes 5-9/*", "bytes */10", "bytes 1-2/3 ", "bytes 9223372036854775807-9223372036854775807/*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start, total, ok := contentRange(s)
		if !ok {
			return
		}
		if start < 0 || (total != -1 && total <= start) {
			t.Errorf("contentRange(%q) = %d, %d: an impossible range accepted", s, start, total)
		}
	})
}

func TestRequestURLKeepsBytes(t *testing.T) {
	for in, want := range map[string]string{
		"http://h/":                  "/",
		"http://h":                   "/",
		"http://h/a%2Fb/c;p?q=%20#f": "/a%2Fb/c;p?q=%20",
		"http://h/x?":                "/x?",
		"https://[::1]:8443/%7Euser": "/%7Euser",
	} {
		u, err := requestURL(uri.MustParse(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := u.RequestURI(); got != want {
			t.Errorf("%s: request-target %q, want %q", in, got, want)
		}
	}
	u, _ := requestURL(uri.MustParse("https://[::1]:8443/"))
	if u.Host != "[::1]:8443" {
		t.Errorf("host %q", u.Host)
	}
}

func TestOrigin(t *testing.T) {
	same := [][2]string{
		{"http://Example.com/a", "http://example.com:80/b"},
		{"https://h/", "https://h:443/x"},
	}
	differ := [][2]string{
		{"http://h/", "https://h/"},
		{"http://h:8080/", "http://h/"},
		{"http://h/", "http://h.evil/"},
	}
	parse := func(s string) *url.URL { u, _ := url.Parse(s); return u }
	for _, p := range same {
		if originOf(parse(p[0])) != originOf(parse(p[1])) {
			t.Errorf("%s and %s should share an origin", p[0], p[1])
		}
	}
	for _, p := range differ {
		if originOf(parse(p[0])) == originOf(parse(p[1])) {
			t.Errorf("%s and %s should not share an origin", p[0], p[1])
		}
	}
}

func TestFileNameFromURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h/dir/na%C3%AFve%20file.txt": "naïve file.txt",
		"http://h/dir/":                      "",
		"http://h/a%2Fb":                     "",
	} {
		u, _ := requestURL(uri.MustParse(in))
		resp := &http.Response{Header: http.Header{}, Request: &http.Request{URL: u}}
		if got := fileName(resp); got != want {
			t.Errorf("%s: name %q, want %q", in, got, want)
		}
	}
}
