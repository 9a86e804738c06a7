package cookies

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzSetCookie feeds a server's Set-Cookie fields to a jar: whatever
// they hold, the Cookie field it sends back holds no control character
// that would split the request, and stays within its bounds.
func FuzzSetCookie(f *testing.F) {
	for _, s := range []string{
		"a=1", "a=1; Domain=example.com; Path=/; Secure; HttpOnly", "a=1; Max-Age=-1",
		"a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT", "__Host-a=1; Secure; Path=/",
		"a=1\r\nX: y", "a=\"quoted\"; Domain=.com", "=", ";;;", "a=1; Max-Age=99999999999999999999",
	} {
		f.Add(s, "http://www.example.com/a/b")
	}
	// A host too long for a cookie file's line.
	f.Add("a=1", "http://"+strings.Repeat("h", 6000)+"/")
	f.Fuzz(func(t *testing.T, field, rawURL string) {
		u, err := parseTestURL(rawURL)
		if err != nil {
			return
		}
		j := newJar()
		j.SetCookies(u, strings.Split(field, "\n"))
		got := j.Cookies(u)
		if strings.ContainsAny(got, "\r\n\x00") {
			t.Fatalf("Cookie field %q holds a control character", got)
		}
		if len(got) > MaxHeader {
			t.Fatalf("Cookie field of %d bytes", len(got))
		}
		var buf bytes.Buffer
		j.WriteTo(&buf)
		back := newJar()
		if err := back.Load(&buf, false); err != nil {
			t.Fatal(err)
		}
		if again := back.Cookies(u); !sameSet(again, got) {
			t.Fatalf("read back, the jar sends %q; before, %q", again, got)
		}
	})
}

// FuzzLoad reads cookie files: nothing read turns into a Cookie field
// with a control character, and what is read survives a write and a
// read unchanged.
func FuzzLoad(f *testing.F) {
	f.Add("# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tFALSE\t0\ta\t1\n#HttpOnly_www.example.com\tFALSE\t/p\tTRUE\t2000000000\tb\t2\n")
	f.Add("Set-Cookie: a=1; Domain=www.example.com\n")
	f.Add("www.example.com\tFALSE\tTRUE\t0\tname\tvalue\r\n")
	f.Fuzz(func(t *testing.T, file string) {
		j := newJar()
		if err := j.Load(strings.NewReader(file), false); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		j.WriteTo(&buf)
		back := newJar()
		if err := back.Load(bytes.NewReader(buf.Bytes()), false); err != nil {
			t.Fatal(err)
		}
		for _, raw := range []string{"https://www.example.com/p/q", "http://example.com/", "http://h.example/"} {
			u, _ := parseTestURL(raw)
			got := j.Cookies(u)
			if strings.ContainsAny(got, "\r\n\x00") {
				t.Fatalf("Cookie field %q holds a control character", got)
			}
			if again := back.Cookies(u); !sameSet(again, got) {
				t.Fatalf("%s: read back, the jar sends %q; before, %q\nfile:\n%s", raw, again, got, buf.String())
			}
		}
	})
}
