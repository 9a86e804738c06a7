package uri

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"testing"
)

// opt is an optional component in a table: "-" means undefined.
func opt(s string, ok bool) string {
	if !ok {
		return "-"
	}
	return s
}

func TestParseComponents(t *testing.T) {
	tests := []struct {
		in                                            string
		scheme, user, pass, host, port, path, q, frag string
	}{
		// RFC 1738 §3.1: empty user versus no user versus empty password.
		{"ftp://@host.com/", "ftp", "", "-", "host.com", "-", "/", "-", "-"},
		{"ftp://host.com/", "ftp", "-", "-", "host.com", "-", "/", "-", "-"},
		{"ftp://foo:@host.com/", "ftp", "foo", "", "host.com", "-", "/", "-", "-"},
		// RFC 1738 §3.2.2: logging in as "myname", with no password.
		{"ftp://myname@host.dom/%2Fetc/motd", "ftp", "myname", "-", "host.dom", "-", "/%2Fetc/motd", "-", "-"},
		{"ftp://myname@host.dom/etc/motd", "ftp", "myname", "-", "host.dom", "-", "/etc/motd", "-", "-"},
		{"ftp://myname@host.dom//etc/motd", "ftp", "myname", "-", "host.dom", "-", "//etc/motd", "-", "-"},
		// RFC 1738 §1, §3.10, §3.11 and appendix.
		{"http://www.acl.lanl.gov/URI/archive/uri-archive.index.html", "http", "-", "-", "www.acl.lanl.gov", "-", "/URI/archive/uri-archive.index.html", "-", "-"},
		{"file://vms.host.edu/disk$user/my/notes/note12345.txt", "file", "-", "-", "vms.host.edu", "-", "/disk$user/my/notes/note12345.txt", "-", "-"},
		{"prospero://host.dom//pros/name", "prospero", "-", "-", "host.dom", "-", "//pros/name", "-", "-"},
		{"ftp://info.cern.ch/pub/www/doc;type=d", "ftp", "-", "-", "info.cern.ch", "-", "/pub/www/doc;type=d", "-", "-"},
		{"http://ds.internic.net/instructions/overview.html#WARNING", "http", "-", "-", "ds.internic.net", "-", "/instructions/overview.html", "-", "WARNING"},
		{"ftp://foo:bar:baz@host.com/", "ftp", "foo", "bar:baz", "host.com", "-", "/", "-", "-"},
		{"http://h:/", "http", "-", "-", "h", "", "/", "-", "-"},
		{"http://h/?", "http", "-", "-", "h", "-", "/", "", "-"},
		{"http://h/#", "http", "-", "-", "h", "-", "/", "-", ""},
		{"http://h", "http", "-", "-", "h", "-", "", "-", "-"},
		{"HTTP://User:P%40ss@Example.COM:8080/a/b?x=1&y=%2F#Frag", "http", "User", "P%40ss", "Example.COM", "8080", "/a/b", "x=1&y=%2F", "Frag"},
		{"http://[2001:db8::7]:443/c=GB?objectClass?one", "http", "-", "-", "[2001:db8::7]", "443", "/c=GB", "objectClass?one", "-"},
		{"http://[v7.host+x:1]/", "http", "-", "-", "[v7.host+x:1]", "-", "/", "-", "-"},
		{"http://[::ffff:192.0.2.1]/", "http", "-", "-", "[::ffff:192.0.2.1]", "-", "/", "-", "-"},
		{"http://192.0.2.16:80/", "http", "-", "-", "192.0.2.16", "80", "/", "-", "-"},
		// RFC 3986 §1.1.2 examples.
		{"ftp://ftp.is.co.za/rfc/rfc1808.txt", "ftp", "-", "-", "ftp.is.co.za", "-", "/rfc/rfc1808.txt", "-", "-"},
		{"http://www.ietf.org/rfc/rfc2396.txt", "http", "-", "-", "www.ietf.org", "-", "/rfc/rfc2396.txt", "-", "-"},
		{"ldap://[2001:db8::7]/c=GB?objectClass?one", "ldap", "-", "-", "[2001:db8::7]", "-", "/c=GB", "objectClass?one", "-"},
		{"mailto:John.Doe@example.com", "mailto", "-", "-", "", "-", "John.Doe@example.com", "-", "-"},
		{"news:comp.infosystems.www.servers.unix", "news", "-", "-", "", "-", "comp.infosystems.www.servers.unix", "-", "-"},
		{"tel:+1-816-555-1212", "tel", "-", "-", "", "-", "+1-816-555-1212", "-", "-"},
		{"telnet://192.0.2.16:80/", "telnet", "-", "-", "192.0.2.16", "80", "/", "-", "-"},
		{"urn:oasis:names:specification:docbook:dtd:xml:4.1.2", "urn", "-", "-", "", "-", "oasis:names:specification:docbook:dtd:xml:4.1.2", "-", "-"},
		{"file:///etc/motd", "file", "-", "-", "", "-", "/etc/motd", "-", "-"},
		{"file:/etc/motd", "file", "-", "-", "", "-", "/etc/motd", "-", "-"},
		{"a:", "a", "-", "-", "", "-", "", "-", "-"},
	}
	for _, tt := range tests {
		u, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		got := []string{u.Scheme(), opt(u.RawUser()), opt(u.RawPassword()), u.RawHost(), opt(u.Port()), u.Path(), opt(u.Query()), opt(u.Fragment())}
		want := []string{tt.scheme, tt.user, tt.pass, tt.host, tt.port, tt.path, tt.q, tt.frag}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("Parse(%q)\n got %q\nwant %q", tt.in, got, want)
		}
		if u.String() != tt.in {
			t.Errorf("Parse(%q).String() = %q", tt.in, u.String())
		}
		if !u.IsAbs() {
			t.Errorf("Parse(%q).IsAbs() = false", tt.in)
		}
	}
}

func TestParseReference(t *testing.T) {
	tests := []struct {
		in, host, path, q, frag string
		auth                    bool
	}{
		{"", "", "", "-", "-", false},
		{"g", "", "g", "-", "-", false},
		{"./g:h", "", "./g:h", "-", "-", false},
		{"//g", "g", "", "-", "-", true},
		{"//u@g:1/x", "g", "/x", "-", "-", true},
		{"?y", "", "", "y", "-", false},
		{"#s", "", "", "-", "s", false},
		{"/a/b;p?q#f", "", "/a/b;p", "q", "f", false},
		{"a/b:c", "", "a/b:c", "-", "-", false},
	}
	for _, tt := range tests {
		u, err := ParseReference(tt.in)
		if err != nil {
			t.Errorf("ParseReference(%q): %v", tt.in, err)
			continue
		}
		if u.IsAbs() || u.Scheme() != "" || u.HasAuthority() != tt.auth || u.RawHost() != tt.host || u.Path() != tt.path || opt(u.Query()) != tt.q || opt(u.Fragment()) != tt.frag {
			t.Errorf("ParseReference(%q) = auth %v host %q path %q query %q fragment %q", tt.in, u.HasAuthority(), u.RawHost(), u.Path(), opt(u.Query()), opt(u.Fragment()))
		}
		if u.String() != tt.in {
			t.Errorf("ParseReference(%q).String() = %q", tt.in, u.String())
		}
	}
	if _, err := Parse("g"); err == nil {
		t.Error(`Parse("g") accepted a relative reference`)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in  string
		col int
		msg string
	}{
		{"", 1, "empty URL"},
		{"http://a b/", 9, "space"},
		{"http://a/b c", 11, "space"},
		{"http://a/\tb", 10, "TAB"},
		{"http://a/\r\nb", 10, "CR"},
		{"http://a/\nb", 10, "LF"},
		{"http://a/\x00", 10, "NUL"},
		{"http://a/\x7f", 10, "control byte 0x7F"},
		{"http://a/\x01", 10, "control byte 0x01"},
		{"http://a/caf\xc3\xa9", 13, "non-ASCII byte 0xC3"},
		{"http://h\xc3\xa9/", 9, "non-ASCII byte 0xC3"},
		{"http://a/%zz", 10, `"%zz" is not a percent-escape`},
		{"http://a/%4", 10, `"%4" is not a percent-escape`},
		{"http://a/?q=%", 13, `"%" is not a percent-escape`},
		{"http://a/#%g0", 11, `"%g0" is not a percent-escape`},
		{"http://us%er@a/", 10, "percent-escape"},
		{"http://a:8x/", 11, "port is not a number"},
		{"http://a:-1/", 10, "port is not a number"},
		{"http://a:65536/", 10, "port exceeds 65535"},
		{"http://a:99999999999999999999/", 10, "port exceeds 65535"},
		{"http://a:1:2/", 11, "port is not a number"},
		{"http://[::1/", 8, "unbalanced '['"},
		{"http://[::1", 8, "unbalanced '['"},
		{"http://::1]/", 11, "unbalanced ']'"},
		{"http://a]/", 9, "unbalanced ']'"},
		{"http://a/]", 10, "']' not allowed"},
		{"http://a[::1]/", 9, "'[' not at the start"},
		{"http://[::1]x/", 13, "after ']'"},
		{"http://[]/", 8, "empty IP literal"},
		{"http://[1.2.3.4]/", 9, "malformed IPv6"},
		{"http://[::g]/", 11, "'g' not allowed"},
		{"http://[1:2:3:4:5:6:7:8:9]/", 9, "malformed IPv6"},
		{"http://[fe80::1%25eth0]/", 16, "zone identifiers"},
		{"http://[fe80::1%eth0]/", 16, "zone identifiers"},
		{"http://[v1]/", 9, "IPvFuture"},
		{"http://[vz.x]/", 9, "IPvFuture"},
		{"http://a@b@c/", 11, "second '@'"},
		{"http://a/#b#c", 12, "second '#'"},
		{"1http://a/", 1, "scheme does not start with a letter"},
		{"+http://a/", 1, "scheme does not start with a letter"},
		{"://a/", 1, "missing scheme before ':'"},
		{"ht_tp://a/", 3, "'_' not allowed in a scheme"},
		{"_a:b", 1, "scheme does not start with a letter"},
		{":b", 1, "missing scheme"},
		{"//a/b", 1, "missing scheme"},
		{"http://a/<b>", 10, "'<' not allowed"},
		{"http://a/\"", 10, "'\"' not allowed"},
		{"http://a/{}", 10, "'{' not allowed"},
		{"http://a/|", 10, "'|' not allowed"},
		{"http://a/\\", 10, `'\\' not allowed`},
		{"http://a/^", 10, "'^' not allowed"},
		{"http://a/`", 10, "'`' not allowed"},
		{"http://a/?q=<", 13, "'<' not allowed"},
		{"http://a/#<", 11, "'<' not allowed"},
		{"http://a</", 9, "'<' not allowed"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v, want *Error", tt.in, err)
			continue
		}
		if e.Col != tt.col || !strings.Contains(e.Msg, tt.msg) || e.Input != tt.in {
			t.Errorf("Parse(%q): col %d msg %q, want col %d msg containing %q", tt.in, e.Col, e.Msg, tt.col, tt.msg)
		}
		if msg := e.Error(); strings.ContainsAny(msg, "\r\n") {
			t.Errorf("Parse(%q): error message spans lines: %q", tt.in, msg)
		}
	}
	// A relative reference cannot start with a segment holding ':'.
	for _, in := range []string{":a", "@:b", "a_b:c"} {
		if _, err := ParseReference(in); err == nil {
			t.Errorf("ParseReference(%q) accepted it", in)
		}
	}
}

func TestErrorMasksPassword(t *testing.T) {
	_, err := Parse("ftp://joe:s3cret@host/a b")
	if err == nil {
		t.Fatal("no error")
	}
	if msg := err.Error(); strings.Contains(msg, "s3cret") || !strings.Contains(msg, "joe:****@host") || !strings.Contains(msg, "column 24") {
		t.Errorf("error = %q", msg)
	}
}

func TestRedacted(t *testing.T) {
	for in, want := range map[string]string{
		"ftp://joe:s3cret@host/x": "ftp://joe:****@host/x",
		"ftp://joe:@host/x":       "ftp://joe:****@host/x",
		"ftp://joe@host/x":        "ftp://joe@host/x",
		"http://host/a:b@c":       "http://host/a:b@c",
	} {
		if got := MustParse(in).Redacted(); got != want {
			t.Errorf("Redacted(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecodedAccessors(t *testing.T) {
	u := MustParse("FTP://J%6Fe:p%40ss%3Aword@Host.EXAMPLE:2121/x")
	if s, ok := u.User(); s != "Joe" || !ok {
		t.Errorf("User() = %q, %v", s, ok)
	}
	if s, ok := u.Password(); s != "p@ss:word" || !ok {
		t.Errorf("Password() = %q, %v", s, ok)
	}
	if s, ok := u.RawUserinfo(); s != "J%6Fe:p%40ss%3Aword" || !ok {
		t.Errorf("RawUserinfo() = %q, %v", s, ok)
	}
	if u.Hostname() != "host.example" || u.RawScheme() != "FTP" || u.Scheme() != "ftp" {
		t.Errorf("Hostname() = %q, RawScheme() = %q, Scheme() = %q", u.Hostname(), u.RawScheme(), u.Scheme())
	}
	if u.Addr() != "host.example:2121" {
		t.Errorf("Addr() = %q", u.Addr())
	}
	for in, want := range map[string]string{
		"ftp://h/":          "h:21",
		"gopher://h:/":      "h:70",
		"http://[::1]/":     "[::1]:80",
		"https://[FE80::A]": "[fe80::a]:443",
		"nntp://h/g":        "h:119",
		"news://h/g":        "h:119",
		"wais://h/d":        "h:210",
		"telnet://h":        "h:23",
		"prospero://h/x":    "h:1525",
		"snews://h/x":       "h:563",
		"nntps://h/x":       "h:563",
		"foo://h/x":         "h:",
	} {
		if got := MustParse(in).Addr(); got != want {
			t.Errorf("Addr(%q) = %q, want %q", in, got, want)
		}
	}
	if s := MustParse("Mailto:x@y").Scheme(); s != "mailto" {
		t.Errorf("Scheme() = %q", s)
	}
	if s := MustParse("X-Custom:x").Scheme(); s != "x-custom" {
		t.Errorf("Scheme() = %q", s)
	}
}

func TestWithoutFragment(t *testing.T) {
	u := MustParse("http://a/b?c#d").WithoutFragment()
	if u.String() != "http://a/b?c" || opt(u.Fragment()) != "-" || opt(u.Query()) != "c" {
		t.Errorf("WithoutFragment() = %q", u.String())
	}
	u = MustParse("http://a/b").WithoutFragment()
	if u.String() != "http://a/b" {
		t.Errorf("WithoutFragment() = %q", u.String())
	}
}

func TestZeroURL(t *testing.T) {
	var u URL
	if u.String() != "" || u.IsAbs() || u.HasAuthority() || u.Path() != "" || opt(u.Query()) != "-" || opt(u.Fragment()) != "-" || opt(u.RawUser()) != "-" {
		t.Errorf("zero URL is not the empty reference: %#v", u)
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse did not panic")
		}
	}()
	MustParse("no scheme")
}

func TestEscapes(t *testing.T) {
	if s, err := Unescape("a%2Fb%20c%e2%9c%93+"); s != "a/b c✓+" || err != nil {
		t.Errorf("Unescape = %q, %v", s, err)
	}
	for _, bad := range []string{"%", "%4", "%zz", "a%4g"} {
		var e *Error
		if _, err := Unescape(bad); !errors.As(err, &e) {
			t.Errorf("Unescape(%q) = %v, want *Error", bad, err)
		}
	}
	if got := EscapeSegment("a b/c;d?e#f%g:h@i!$&'()*+,=~\x00é"); got != "a%20b%2Fc%3Bd%3Fe%23f%25g:h@i!$&'()*+,=~%00%C3%A9" {
		t.Errorf("EscapeSegment = %q", got)
	}
	if got := EscapePath("/a b/c;d/"); got != "/a%20b/c%3Bd/" {
		t.Errorf("EscapePath = %q", got)
	}
	if got := EscapeSegment("plain"); got != "plain" {
		t.Errorf("EscapeSegment = %q", got)
	}
	for _, tt := range [][3]string{
		{"h", "21", "h:21"},
		{"h", "", "h"},
		{"::1", "80", "[::1]:80"},
		{"::1", "", "[::1]"},
		{"[::1]", "", "[::1]"},
		{"[::1]", "80", "[::1]:80"},
	} {
		if got := JoinHostPort(tt[0], tt[1]); got != tt[2] {
			t.Errorf("JoinHostPort(%q, %q) = %q, want %q", tt[0], tt[1], got, tt[2])
		}
	}
}

func TestDefaultPort(t *testing.T) {
	for s, p := range map[string]string{"ftp": "21", "FTP": "21", "gopher": "70", "http": "80", "https": "443", "nntp": "119", "news": "119", "nntps": "563", "snews": "563", "wais": "210", "telnet": "23", "prospero": "1525", "mailto": "", "urn": "", "": ""} {
		if got := DefaultPort(s); got != p {
			t.Errorf("DefaultPort(%q) = %q, want %q", s, got, p)
		}
	}
}

// corpus returns the URLs of testdata/uri/corpus.txt.
func corpus(tb testing.TB) []string {
	f, err := os.Open("../testdata/uri/corpus.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var urls []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			urls = append(urls, l)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(urls) < 200 {
		tb.Fatalf("corpus has %d URLs, want at least 200", len(urls))
	}
	return urls
}

func TestCorpusParses(t *testing.T) {
	for _, s := range corpus(t) {
		u, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(%q): %v", s, err)
			continue
		}
		if u.String() != s {
			t.Errorf("String() = %q, want %q", u.String(), s)
		}
		checkNetURL(t, s, u)
	}
}

func TestParseAllocs(t *testing.T) {
	urls := corpus(t)
	n := testing.AllocsPerRun(20, func() {
		for _, s := range urls {
			if _, err := Parse(s); err != nil {
				t.Fatal(err)
			}
		}
	})
	if n != 0 {
		t.Errorf("Parse allocates %v times over the corpus, want 0", n)
	}
}
