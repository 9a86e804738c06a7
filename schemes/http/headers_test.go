package http

import (
	"net/url"
	"testing"
)

func TestDispositionName(t *testing.T) {
	for in, want := range map[string]string{
		`attachment; filename="report.pdf"`:                             "report.pdf",
		`attachment; filename=plain.txt`:                                "plain.txt",
		`attachment; filename="a.txt"; filename*=UTF-8''na%C3%AFve.txt`: "naïve.txt",
		`attachment; filename*=UTF-8''na%C3%AFve.txt; filename="a.txt"`: "naïve.txt",
		`attachment; filename="../../etc/passwd"`:                       "passwd",
		`attachment; filename="C:\\dir\\x.exe"`:                         "x.exe",
		`attachment; filename="dir/"`:                                   "",
		`attachment; filename=".."`:                                     "..",
		`inline`:                                                        "",
		`attachment; filename="unterminated`:                            "",
	} {
		if got := DispositionName(in); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

func TestRefererAcrossSchemes(t *testing.T) {
	hop := func(s string) *url.URL {
		u, _ := url.Parse(s)
		return u
	}
	auto := &Fetcher{AutoReferer: true}
	fixed := &Fetcher{}
	for _, tc := range []struct {
		f          *Fetcher
		from, to   string
		first, out string
	}{
		{auto, "http://u:p@a/x?q#f", "http://b/", "", "http://a/x?q"},
		{auto, "https://a/x", "https://b/", "", "https://a/x"},
		// RFC 9110 §10.1.3: nothing of an https page goes to http.
		{auto, "https://a/x", "http://b/", "", ""},
		{fixed, "http://a/x", "http://b/", "http://given/", "http://given/"},
		{fixed, "http://a/x", "http://b/", "", ""},
	} {
		if got := tc.f.referer(tc.first, hop(tc.from), hop(tc.to)); got != tc.out {
			t.Errorf("%s → %s: Referer %q, want %q", tc.from, tc.to, got, tc.out)
		}
	}
}
