package uri

import (
	"strings"
	"testing"
)

func TestOrigin(t *testing.T) {
	same := [][2]string{
		{"http://Example.COM/a", "HTTP://example.com:80/b"},
		{"https://h/", "https://h:443/x?y"},
		{"ftp://u:p@h/", "ftp://h:21/"},
		{"http://h:080/", "http://h/"},
		{"http://B%C3%BCcher.example/", "http://xn--bcher-kva.example/"},
		{"http://b%C3%BCcher.example/", "http://xn--bcher-kva.example:80/"},
		{"http://[::1]:8080/", "http://[::1]:8080/x"},
	}
	for _, p := range same {
		a, b := MustParse(p[0]), MustParse(p[1])
		if a.Origin() != b.Origin() {
			t.Errorf("Origin(%s) = %q, Origin(%s) = %q, want equal", p[0], a.Origin(), p[1], b.Origin())
		}
	}
	differ := [][2]string{
		{"http://h/", "https://h/"},
		{"http://h/", "http://h:8080/"},
		{"http://h/", "http://h.evil/"},
		{"http://127.0.0.1/", "http://localhost/"},
		{"http://127.0.0.1/", "http://127.0.0.2/"},
		{"ftp://h/", "ftps://h/"},
		{"ftp://h/", "http://h:21/"},
	}
	for _, p := range differ {
		a, b := MustParse(p[0]), MustParse(p[1])
		if a.Origin() == b.Origin() {
			t.Errorf("Origin(%s) = Origin(%s) = %q, want different", p[0], p[1], a.Origin())
		}
	}
}

func TestRedactText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ftp://u:pw@host/", "ftp://u:****@host/"},
		{" ftp://u:pw@host/ ", " ftp://u:****@host/ "},
		{"\tftp://u:pw@host/\t", "\tftp://u:****@host/\t"},
		{"<URL:ftp://u:pw@host/x>", "<URL:ftp://u:****@host/x>"},
		{"<ftp://u:pw@host>", "<ftp://u:****@host>"},
		{"ftp://u:pw@host", "ftp://u:****@host"},
		{"ftp://u:p\n   w@host/", "ftp://u:****@host/"},
		{"ftp://u:p w@host/", "ftp://u:****@host/"},
		{"ftp://u:pw@host:bad/", "ftp://u:****@host:bad/"},
		{"ftp://u:pw@ho st/", "ftp://u:****@ho st/"},
		{"ftp://u:pa/ss@host/", "ftp://u:****@host/"},
		{"ftp://u:pa:ss@host/", "ftp://u:****@host/"},
		{"http://u:pw@h/?next=ftp://a:b@c/", "http://u:****@h/?next=ftp://a:b@c/"},
		{" http://u:pw@h/?next=ftp://a:b@c/", " http://u:****@h/?next=ftp://a:****@c/"},
		// Nothing to hide: returned as given.
		{"ftp://u@host/", "ftp://u@host/"},
		{" http://h:80/~a@b ", " http://h:80/~a@b "},
		{"http://h/a@b", "http://h/a@b"},
		{"not a url", "not a url"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := RedactText(tc.in); got != tc.want {
			t.Errorf("RedactText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzRedactText: whatever the text, a password FromText and Parse find in
// it is not in what RedactText returns, read the same way.
func FuzzRedactText(f *testing.F) {
	for _, s := range []string{
		"ftp://u:pw@host/", " ftp://u:pw@host/ ", "<URL:ftp://u:pw@h/>", "ftp://u:p\n w@h/",
		"http://u:pw@h/?x=ftp://a:b@c", "ftp://u:pa/ss@h/", "http://a:b@c@d/", "gopher://u:@h/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := RedactText(s)
		text, err := FromText(s)
		if err != nil {
			return
		}
		u, err := Parse(text)
		if err != nil {
			return
		}
		pw, ok := u.RawPassword()
		if !ok || pw == "" || pw == "****" {
			return
		}
		if t2, err := FromText(out); err == nil {
			if v, err := Parse(t2); err == nil {
				if got, ok := v.RawPassword(); ok && got != "****" {
					t.Fatalf("RedactText(%q) = %q, which still holds the password %q", s, out, got)
				}
			}
		}
		if strings.Contains(out, "@") && !strings.Contains(out, "****") {
			t.Fatalf("RedactText(%q) = %q: the password %q is not masked", s, out, pw)
		}
	})
}
