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
		// Text that does not parse as a whole: only its password goes.
		{"ftp://u:pw@h/x y", "ftp://u:****@h/x y"},
		{"ftp://u@h/x y", "ftp://u@h/x y"},
		{"http://h/a:b@c", "http://h/a:b@c"},
		{"no scheme u:p@h", "no scheme u:p@h"},
		{"ftp://u:p:q@h@i/ x", "ftp://u:****@i/ x"},
		{"gopher://h:70/1 a b c", "gopher://h:70/1 a b c"},
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

// FuzzRedactTextUserinfo checks the masking of URL text that need not
// parse: a URL that parses with a password is masked as Redacted masks it, a
// "scheme://user:password@host" text loses its password however odd the
// rest, and masking twice changes nothing more.
func FuzzRedactTextUserinfo(f *testing.F) {
	f.Add("ftp://u:secret@h/", "u", "secret", "h", "/p")
	f.Add("http://a:b:c@h/x@y", "", "p@ss", "h", "?q@r")
	f.Add(" ftp://u:pw@host/ ", "u", "pw", "[::1]:21", "#f")
	f.Add("<URL:ftp://u:pw@host/>", "user name", "pass word", "h\x00st", "")
	f.Add("http://%zz:pw@h/", "%zz", "\t", "", "/")
	f.Fuzz(func(t *testing.T, raw, user, pass, host, tail string) {
		m := RedactText(raw)
		if RedactText(m) != m {
			t.Fatalf("RedactText(%q) = %q, then %q", raw, m, RedactText(m))
		}
		if u, err := Parse(raw); err == nil {
			if _, ok := u.RawPassword(); ok && m != u.Redacted() {
				t.Fatalf("RedactText(%q) = %q, Redacted %q", raw, m, u.Redacted())
			}
		}
		if strings.ContainsAny(user, ":@/?#") || strings.ContainsAny(pass, "@/?#") || strings.ContainsAny(host, "@/?#") {
			return
		}
		if tail != "" && !strings.ContainsAny(tail[:1], "/?#") {
			return
		}
		s := "ftp://" + user + ":" + pass + "@" + host + tail
		got := RedactText(s)
		if strings.ContainsAny(s, "\r\n") {
			// A URL wrapped over lines is given as it reads, joined
			// (uri.FromText): masked, but not in the text's own shape.
			if !strings.Contains(got, ":****@") || pass != "" && pass != "****" && strings.Contains(got, ":"+pass+"@") {
				t.Fatalf("RedactText(%q) = %q: the password shows", s, got)
			}
			return
		}
		if want := "ftp://" + user + ":****@" + host + tail; got != want {
			t.Fatalf("RedactText(%q) = %q, want %q", s, got, want)
		}
	})
}
