package cookies

import (
	"bytes"
	"io"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newJar() *Jar { return &Jar{Now: func() time.Time { return now }} }

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestSetAndSend follows RFC 6265's rules for which cookies a response
// may set and which a request carries, with curl's order.
func TestSetAndSend(t *testing.T) {
	tests := []struct {
		name string
		from string
		set  []string
		to   string
		want string
	}{
		{"host only", "http://www.example.com/", []string{"a=1"}, "http://www.example.com/x", "a=1"},
		{"host only not to sub", "http://example.com/", []string{"a=1"}, "http://www.example.com/", ""},
		{"domain to sub", "http://example.com/", []string{"a=1; Domain=example.com"}, "http://www.example.com/", "a=1"},
		{"leading dot", "http://www.example.com/", []string{"a=1; Domain=.EXAMPLE.com"}, "http://x.example.com/", "a=1"},
		{"other domain refused", "http://evil.example/", []string{"a=1; Domain=example.com"}, "http://example.com/", ""},
		{"sibling refused", "http://a.example.com/", []string{"a=1; Domain=b.example.com"}, "http://b.example.com/", ""},
		{"public suffix refused", "http://www.example.com/", []string{"a=1; Domain=com"}, "http://other.com/", ""},
		{"public suffix co.uk refused", "http://www.example.co.uk/", []string{"a=1; Domain=co.uk"}, "http://x.co.uk/", ""},
		{"suffix as own host", "http://co.uk/", []string{"a=1; Domain=co.uk"}, "http://co.uk/", "a=1"},
		{"suffix host only", "http://co.uk/", []string{"a=1; Domain=co.uk"}, "http://x.co.uk/", ""},
		{"ip domain", "http://10.0.0.1/", []string{"a=1; Domain=0.0.1"}, "http://10.0.0.1/", ""},
		{"default path", "http://h.example/dir/page", []string{"a=1"}, "http://h.example/other", ""},
		{"default path match", "http://h.example/dir/page", []string{"a=1"}, "http://h.example/dir/x", "a=1"},
		{"path prefix not segment", "http://h.example/", []string{"a=1; Path=/foo"}, "http://h.example/foobar", ""},
		{"path segment", "http://h.example/", []string{"a=1; Path=/foo"}, "http://h.example/foo/bar", "a=1"},
		{"secure over http refused", "http://h.example/", []string{"a=1; Secure"}, "https://h.example/", ""},
		{"secure over https", "https://h.example/", []string{"a=1; Secure"}, "https://h.example/", "a=1"},
		{"secure not sent over http", "https://h.example/", []string{"a=1; Secure"}, "http://h.example/", ""},
		{"secure loopback", "http://127.0.0.1/", []string{"a=1; Secure"}, "http://127.0.0.1/", "a=1"},
		{"expired deletes", "http://h.example/", []string{"a=1", "a=2; Max-Age=0"}, "http://h.example/", ""},
		{"expires past", "http://h.example/", []string{"a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT"}, "http://h.example/", ""},
		{"replaced", "http://h.example/", []string{"a=1", "a=2"}, "http://h.example/", "a=2"},
		{"no equals", "http://h.example/", []string{"a"}, "http://h.example/", ""},
		{"empty name", "http://h.example/", []string{"=1"}, "http://h.example/", ""},
		{"CR in value", "http://h.example/", []string{"a=1\r\nX-Evil: 1"}, "http://h.example/", ""},
		{"LF in attribute", "http://h.example/", []string{"a=1; Path=/\nx"}, "http://h.example/", ""},
		{"__Host- needs secure", "https://h.example/", []string{"__Host-a=1; Path=/"}, "https://h.example/", ""},
		{"__Host- ok", "https://h.example/", []string{"__Host-a=1; Secure; Path=/"}, "https://h.example/", "__Host-a=1"},
		{"__Host- no domain", "https://h.example/", []string{"__Host-a=1; Secure; Path=/; Domain=h.example"}, "https://h.example/", ""},
		{"order", "http://h.example/a/b", []string{"x=1; Path=/", "yy=2; Path=/a", "z=3; Path=/", "w=4; Path=/"}, "http://h.example/a/b", "yy=2; w=4; z=3; x=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newJar()
			j.SetCookies(mustURL(t, tt.from), tt.set)
			if got := j.Cookies(mustURL(t, tt.to)); got != tt.want {
				t.Errorf("Cookies = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestInsecureLeavesSecureAlone: plain http cannot replace a Secure
// cookie of the same name (RFC 6265bis §5.7).
func TestInsecureLeavesSecureAlone(t *testing.T) {
	j := newJar()
	j.SetCookies(mustURL(t, "https://h.example/"), []string{"id=good; Secure"})
	j.SetCookies(mustURL(t, "http://h.example/"), []string{"id=evil"})
	if got := j.Cookies(mustURL(t, "https://h.example/")); got != "id=good" {
		t.Errorf("Cookies = %q, want id=good", got)
	}
}

// TestBounds: a server cannot make a jar grow without bound, nor a
// request's Cookie field.
func TestBounds(t *testing.T) {
	j := newJar()
	u := mustURL(t, "http://h.example/")
	var many []string
	for i := 0; i < 200; i++ {
		many = append(many, "c"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+"="+strings.Repeat("v", 10))
	}
	j.SetCookies(u, many)
	if n := len(j.All()); n > MaxPerResponse {
		t.Errorf("%d cookies kept from one response, want at most %d", n, MaxPerResponse)
	}
	for i := 0; i < 10; i++ {
		var fields []string
		for k := 0; k < MaxPerResponse; k++ {
			fields = append(fields, "n"+strings.Repeat("1", i)+"_"+strings.Repeat("2", k)+"=v")
		}
		j.SetCookies(u, fields)
	}
	if n := len(j.All()); n > MaxPerDomain {
		t.Errorf("%d cookies for one domain, want at most %d", n, MaxPerDomain)
	}
	j.SetCookies(u, []string{"huge=" + strings.Repeat("x", MaxNameValue)})
	if strings.Contains(j.Cookies(u), "huge=") {
		t.Error("a cookie over MaxNameValue was kept")
	}
	big := newJar()
	for i := 0; i < 3; i++ {
		var fields []string
		for k := 0; k < 40; k++ {
			fields = append(fields, "k"+strings.Repeat("z", i)+strings.Repeat("q", k)+"="+strings.Repeat("v", 1000))
		}
		big.SetCookies(u, fields)
	}
	if n := len(big.Cookies(u)); n > MaxHeader {
		t.Errorf("Cookie field of %d bytes, want at most %d", n, MaxHeader)
	}
}

// TestFileRoundTrip: a jar written and read back sends the same cookies,
// keeps HttpOnly, subdomain matching, Secure and expiry, and -j drops the
// session cookies.
func TestFileRoundTrip(t *testing.T) {
	j := newJar()
	j.SetCookies(mustURL(t, "https://www.example.com/p/q"), []string{
		"a=1; Domain=example.com; Path=/; Max-Age=86400",
		"b=2; HttpOnly",
		"c=3; Secure; Path=/",
		"d=; Path=/",
	})
	var buf bytes.Buffer
	if _, err := j.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if !strings.HasPrefix(text, "# Netscape HTTP Cookie File\n") {
		t.Errorf("file does not start with curl's header:\n%s", text)
	}
	for _, want := range []string{
		".example.com\tTRUE\t/\tFALSE\t" + itoa(now.Add(24*time.Hour).Unix()) + "\ta\t1\n",
		"#HttpOnly_www.example.com\tFALSE\t/p\tFALSE\t0\tb\t2\n",
		"www.example.com\tFALSE\t/\tTRUE\t0\tc\t3\n",
		"www.example.com\tFALSE\t/\tFALSE\t0\td\t\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("file lacks %q:\n%s", want, text)
		}
	}
	back := newJar()
	if err := back.Load(strings.NewReader(text), false); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"https://www.example.com/p/q", "http://x.example.com/", "http://www.example.com/"} {
		if a, b := j.Cookies(mustURL(t, u)), back.Cookies(mustURL(t, u)); !sameSet(a, b) {
			t.Errorf("%s: read back sends %q, the jar sent %q", u, b, a)
		}
	}
	junk := newJar()
	junk.Load(strings.NewReader(text), true)
	if got := junk.Cookies(mustURL(t, "https://www.example.com/p/q")); got != "a=1" {
		t.Errorf("with -j: %q, want only the persistent a=1", got)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func sameSet(a, b string) bool {
	as, bs := strings.Split(a, "; "), strings.Split(b, "; ")
	if len(as) != len(bs) {
		return false
	}
	seen := map[string]int{}
	for _, x := range as {
		seen[x]++
	}
	for _, x := range bs {
		seen[x]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestHostileFile: lines a cookie file must not turn into cookies, or
// into header bytes.
func TestHostileFile(t *testing.T) {
	file := strings.Join([]string{
		"# Netscape HTTP Cookie File",
		"h.example\tFALSE\t/\tFALSE\t0\tok\tyes",
		"h.example\tFALSE\t/\tFALSE\t0\tcr\tx\ry",
		"h.example\tFALSE\t/\tFALSE\t0\tsemi\tx; evil=1",
		"h.example\tFALSE\t/\tFALSE\tnot-a-number\tn\tv",
		"h.example\tFALSE\t/\tFALSE\t-5\tneg\tv",
		"h.example\tFALSE\t/\tFALSE\t1\texpired\tv",
		"\tFALSE\t/\tFALSE\t0\tnodomain\tv",
		"h.example\tFALSE\trelative\tFALSE\t0\trel\tv",
		"h.example\tFALSE\t/\tFALSE\t0\tlong\t" + strings.Repeat("x", 7000),
		"h.example\tFALSE\t/\tFALSE\t0",
		"h.example\tFALSE\t/\tFALSE\t0\tsix",
		"Set-Cookie: hdr=1; Domain=h.example",
		"Set-Cookie: bad\x01=1; Domain=h.example",
		"too\tmany\tfields\there\tto\tbe\ta\tcookie",
	}, "\n")
	j := newJar()
	if err := j.Load(strings.NewReader(file), false); err != nil {
		t.Fatal(err)
	}
	got := j.Cookies(mustURL(t, "http://h.example/"))
	if !sameSet(got, "ok=yes; six=; hdr=1") {
		t.Errorf("Cookies = %q, want ok=yes; six=; hdr=1", got)
	}
}

// TestParseDate reads the forms curl's curl_getdate reads.
func TestParseDate(t *testing.T) {
	want := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)
	for _, s := range []string{
		"Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT",
		"Sun Nov  6 08:49:37 1994",
		"06 Nov 1994 08:49:37",
		"Nov 6 1994 08:49:37 UTC",
		"19941106 08:49:37",
		"Sun, 06 Nov 1994 09:49:37 +0100",
		"Sun, 06 Nov 1994 03:49:37 EST",
	} {
		got, ok := ParseDate(s)
		if !ok || !got.Equal(want) {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	if got, ok := ParseDate("20 Nov 2024"); !ok || !got.Equal(time.Date(2024, 11, 20, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("ParseDate(20 Nov 2024) = %v, %v", got, ok)
	}
	if got, ok := ParseDate("Jan 10, 2017"); !ok || !got.Equal(time.Date(2017, 1, 10, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("ParseDate(Jan 10, 2017) = %v, %v", got, ok)
	}
	for _, s := range []string{"", "yesterday", "31 Feb 2024", "Nov 2024", "10:00", "1 2 3 4", "file.txt"} {
		if got, ok := ParseDate(s); ok {
			t.Errorf("ParseDate(%q) = %v, want failure", s, got)
		}
	}
}

func parseTestURL(s string) (*url.URL, error) { return url.Parse(s) }

// TestConcurrent: a jar serves parallel transfers (-Z) at once.
func TestConcurrent(t *testing.T) {
	j := newJar()
	u := mustURL(t, "http://h.example/")
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 200; i++ {
				j.SetCookies(u, []string{"c" + strconv.Itoa(i%60) + "=v"})
				j.Cookies(u)
				j.WriteTo(io.Discard)
			}
			done <- true
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	if n := len(j.All()); n == 0 || n > MaxPerDomain {
		t.Errorf("%d cookies", n)
	}
}
