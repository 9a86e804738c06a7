package uri

import (
	"errors"
	"strings"
	"testing"
)

// TestHostASCII checks the UTS #46 processing of host names: non-transitional
// (ß and ς keep A-labels of their own), the mappings (upper case, fullwidth
// forms, compatibility ligatures, the ideographic full stop), and the labels
// IDNA rejects.
func TestHostASCII(t *testing.T) {
	tests := []struct{ in, want string }{
		{"bücher.example", "xn--bcher-kva.example"},
		{"BÜCHER.Example", "xn--bcher-kva.example"},
		{"ＢÜＣＨＥＲ.example", "xn--bcher-kva.example"}, // fullwidth letters
		{"bücher。example", "xn--bcher-kva.example"}, // U+3002 is a dot
		{"faß.de", "xn--fa-hia.de"},                 // transitional would give fass.de
		{"βόλος.example", "xn--nxasmm1c.example"},   // final sigma kept
		{"ΒΌΛΟΣ.example", "xn--nxasmq6b.example"},   // upper case maps to σ
		{"ﬁü.example", "xn--fi-yka.example"},        // the ligature maps to "fi"
		{"ü.example.", "xn--tda.example."},          // the root's dot stays
		{"☃.example", "xn--n3h.example"},
		// ASCII names are not touched, as curl leaves them.
		{"xn--bcher-kva.example", "xn--bcher-kva.example"},
		{"under_score.example", "under_score.example"},
		{"127.0.0.1", "127.0.0.1"},
		{"::1", "::1"},
	}
	for _, tt := range tests {
		got, err := HostASCII(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("HostASCII(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	bad := []struct{ in, reason string }{
		{"\u0301a.example", `invalid label`},       // starts with a combining mark
		{"bü-.example", `invalid label "bü-"`},     // ends with a hyphen
		{"ab--ü.example", `invalid label "ab--ü"`}, // "--" in the third and fourth place
		{"xn--ü.example", `invalid label`},         // an A-label prefix on a U-label
		{"ü_.example", "disallowed rune U+005F"},   // STD3 rules
		{"a\u2028b.ü", "disallowed rune U+2028"},
		{"ü\u200d.example", "invalid label"}, // a joiner out of context (RFC 5892 A.2)
		{"1ا.example", "invalid label"},      // RFC 5893 Bidi rule
		{"\xff\xfe.example", "not UTF-8"},
	}
	for _, tt := range bad {
		got, err := HostASCII(tt.in)
		var he *HostError
		if !errors.As(err, &he) || he.Host != tt.in || !strings.Contains(err.Error(), tt.reason) ||
			!strings.HasPrefix(err.Error(), "bad host name ") || !strings.Contains(err.Error(), "idna: ") {
			t.Errorf("HostASCII(%q) = %q, %v; want a bad host name error with %q", tt.in, got, err, tt.reason)
		}
	}
}

// TestURLASCII checks the URL's ASCII view: the host typed in Unicode (after
// FromText) or %-encoded as UTF-8 (RFC 3986 §3.2.2) becomes its A-labels,
// and everything else stays as written.
func TestURLASCII(t *testing.T) {
	tests := []struct{ in, host, ascii, hostASCII string }{
		{"http://bücher.example:8080/a?q#f", "bücher.example", "http://xn--bcher-kva.example:8080/a?q#f", "xn--bcher-kva.example"},
		{"https://u:p@B%C3%9Ccher.example/", "bÜcher.example", "https://u:p@xn--bcher-kva.example/", "xn--bcher-kva.example"},
		{"ftp://faß.de/pub/ü", "faß.de", "ftp://xn--fa-hia.de/pub/%C3%BC", "xn--fa-hia.de"},
		{"gopher://ＢÜＣＨＥＲ.example:70/1", "ＢÜＣＨＥＲ.example", "gopher://xn--bcher-kva.example:70/1", "xn--bcher-kva.example"},
		{"nntp://bücher.example/comp.lang.go", "bücher.example", "nntp://xn--bcher-kva.example/comp.lang.go", "xn--bcher-kva.example"},
		{"wais://bücher.example/db?x", "bücher.example", "wais://xn--bcher-kva.example/db?x", "xn--bcher-kva.example"},
		// ASCII hosts are returned exactly as written, case included.
		{"http://Under_Score.EXAMPLE/", "under_score.example", "http://Under_Score.EXAMPLE/", "under_score.example"},
		{"http://%41.example/", "a.example", "http://%41.example/", "a.example"},
		{"http://[::1]:80/", "::1", "http://[::1]:80/", "::1"},
		{"news:comp.lang.go", "", "news:comp.lang.go", ""},
	}
	for _, tt := range tests {
		text, err := FromText(tt.in)
		if err != nil {
			t.Fatalf("FromText(%q): %v", tt.in, err)
		}
		u := MustParse(text)
		if got := u.Hostname(); got != tt.host {
			t.Errorf("%q: Hostname = %q, want %q", tt.in, got, tt.host)
		}
		h, err := u.HostASCII()
		if err != nil || h != tt.hostASCII {
			t.Errorf("%q: HostASCII = %q, %v; want %q", tt.in, h, err, tt.hostASCII)
		}
		a, err := u.ASCII()
		if err != nil || a.String() != tt.ascii {
			t.Errorf("%q: ASCII = %q, %v; want %q", tt.in, a, err, tt.ascii)
		}
		if p, _ := u.Port(); err == nil {
			if q, _ := a.Port(); p != q || a.Path() != u.Path() || a.Redacted() == "" {
				t.Errorf("%q: ASCII changed the port or path: %q", tt.in, a)
			}
		}
	}

	// A name IDNA rejects is a bad URL whose column points at the host.
	u := MustParse("http://u@b%C3%BC-.example/")
	_, err := u.ASCII()
	var e *Error
	if !errors.As(err, &e) || e.Col != 10 || !strings.HasPrefix(e.Msg, `bad host name "bü-.example": idna: invalid label`) {
		t.Errorf("ASCII of %q = %v, want a bad host name at column 10", u, err)
	}
	if _, err := MustParse("http://%FF.example/").ASCII(); err == nil || !strings.Contains(err.Error(), "not UTF-8") {
		t.Errorf("ASCII of a host that is not UTF-8 = %v, want an error", err)
	}
}
