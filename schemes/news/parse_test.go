package news

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

func TestParseOverview(t *testing.T) {
	for _, tc := range []struct {
		line string
		want overview
		err  error
	}{
		// RFC 3977 §8.3.2's example.
		{"3000234\tI am just a test article\t\"Demo User\" <nobody@example.com>\t6 Oct 1998 04:38:40 -0500\t<45223423@example.com>\t<45454@example.net>\t1234\t17\tXref: news.example.com misc.test:3000363",
			overview{Number: 3000234, Subject: "I am just a test article", From: "\"Demo User\" <nobody@example.com>", Date: "6 Oct 1998 04:38:40 -0500",
				MessageID: "45223423@example.com", References: "<45454@example.net>", Bytes: 1234, Lines: 17,
				Extra: [][2]string{{"xref", "news.example.com misc.test:3000363"}}}, nil},
		{"7\ts\tf\td\t<a@b>\t\t\t", overview{Number: 7, Subject: "s", From: "f", Date: "d", MessageID: "a@b", Bytes: -1, Lines: -1}, nil},
		{"7\ts\tf\td\t<a@b>", overview{Number: 7, Subject: "s", From: "f", Date: "d", MessageID: "a@b", Bytes: -1, Lines: -1}, nil},
		{"7\ts\tf\td\t<a@b>\t\tx\t-3\t\tnocolon", overview{Number: 7, Subject: "s", From: "f", Date: "d", MessageID: "a@b", Bytes: -1, Lines: -1}, nil},
		{"7\ts\tf\td", overview{}, errOverviewShort},
		{"x\ts\tf\td\t<a@b>", overview{}, errOverviewNumber},
		{"-1\ts\tf\td\t<a@b>", overview{}, errOverviewNumber},
		{"1\ts\tf\td\t", overview{}, errOverviewID},
		{"1\ts\tf\td\t@>", overview{}, errOverviewID},
		{"1\ts\tf\td\t<a b@c>", overview{}, errOverviewID},
		{"1\ts\tf\td\t<nobrackets>", overview{}, errOverviewID},
		{"1\ts\tf\td\ta@b", overview{}, errOverviewID},
	} {
		got, err := parseOverview(tc.line)
		if err != tc.err {
			t.Errorf("%q: err %v, want %v", tc.line, err, tc.err)
			continue
		}
		if err == nil && !equalOverview(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.line, got, tc.want)
		}
	}
}

func equalOverview(a, b overview) bool {
	if len(a.Extra) != len(b.Extra) {
		return false
	}
	for i := range a.Extra {
		if a.Extra[i] != b.Extra[i] {
			return false
		}
	}
	a.Extra, b.Extra = nil, nil
	return a.Number == b.Number && a.Subject == b.Subject && a.From == b.From && a.Date == b.Date &&
		a.MessageID == b.MessageID && a.References == b.References && a.Bytes == b.Bytes && a.Lines == b.Lines
}

func TestParseGroupAndRange(t *testing.T) {
	for _, tc := range []struct {
		msg             string
		max             int64
		low, high       int64
		ok, parseFailed bool
	}{
		{"1234 3000234 3002322 misc.test", 100, 3002223, 3002322, true, false},
		{"1234 3000234 3002322 misc.test", 0, 3000234, 3002322, true, false},
		{"3 10 12 test", 100, 10, 12, true, false},
		{"0 5 4 test.empty", 100, 0, 0, false, false},
		{"0 0 0 test.empty", 100, 0, 0, false, false},
		{"2 0 2 test", 100, 1, 2, true, false},
		{"3 10", 100, 0, 0, false, true},
		{"3 ten 12 x", 100, 0, 0, false, true},
		{"-3 10 12 x", 100, 0, 0, false, true},
		{"3 10 99999999999999999999 x", 100, 0, 0, false, true},
	} {
		g, err := parseGroup(tc.msg)
		if (err != nil) != tc.parseFailed {
			t.Errorf("%q: err %v", tc.msg, err)
			continue
		}
		if err != nil {
			continue
		}
		low, high, ok := g.articleRange(tc.max)
		if low != tc.low || high != tc.high || ok != tc.ok {
			t.Errorf("%q max %d: range %d-%d %v, want %d-%d %v", tc.msg, tc.max, low, high, ok, tc.low, tc.high, tc.ok)
		}
	}
}

func TestParseActiveAndNewsgroups(t *testing.T) {
	a, err := parseActive("misc.test 3002322 3000234 y")
	if err != nil || a != (activeLine{"misc.test", 3002322, 3000234, "y"}) {
		t.Errorf("active %+v %v", a, err)
	}
	if _, err := parseActive("misc.test 12"); err == nil {
		t.Error("short active line accepted")
	}
	g, d, ok := parseNewsgroups("misc.test\t\tGeneral   Usenet testing ")
	if !ok || g != "misc.test" || d != "General   Usenet testing" {
		t.Errorf("newsgroups %q %q %v", g, d, ok)
	}
	if _, _, ok := parseNewsgroups("lonely"); ok {
		t.Error("line without description accepted")
	}
}

func TestDecodeHeaderAndDate(t *testing.T) {
	if got := decodeHeader("=?ISO-8859-1?Q?J=F6rg?= <j@x>"); got != "Jörg <j@x>" {
		t.Errorf("decode %q", got)
	}
	if got := decodeHeader("=?bogus?Q?x?="); got != "=?bogus?Q?x?=" {
		t.Errorf("undecodable kept: %q", got)
	}
	if got := parseDate("6 Oct 1998 04:38:40 -0500"); !got.Equal(time.Date(1998, 10, 6, 9, 38, 40, 0, time.UTC)) {
		t.Errorf("date %v", got)
	}
	if got := parseDate("yesterday"); !got.IsZero() {
		t.Errorf("bad date %v", got)
	}
	for _, d := range dateSamples {
		checkDate(t, d)
	}
}

// dateSamples are Date fields in the forms RFC 5322 §3.3 allows and in some
// it does not.
var dateSamples = []string{
	"Mon, 23 Nov 2026 09:44:12 +0000",
	" Tue, 3 Feb 2004 23:59:59 -1130 ",
	"3 Feb 2004 23:59:59 +0100",
	"Tue, 03 Feb 04 23:59:59 +0100",
	"Tue, 3 Feb 2004 23:59 +0100",
	"Tue, 3 Feb 2004 23:59:59 GMT",
	"Tue, 3 Feb 2004 23:59:59 +0100 (CET)",
	"Tue, 3 Feb 2004 23:59:59 EST",
	"Tue, 3 Feb 2004 23:59:59",
	"Tue, 3 Feb 2004 24:00:00 +0100",
	"Tue, 3 Feb 2004\r\n 23:59:59 +0100",
	"Sun, 31 Feb 2004 10:00:00 +0000",
}

// checkDate compares parseDate with mail.ParseDate, which it must agree
// with: the same instant, or both failing.
func checkDate(t *testing.T, s string) {
	t.Helper()
	want, err := mail.ParseDate(strings.TrimSpace(s))
	got := parseDate(s)
	if err != nil {
		if !got.IsZero() {
			t.Errorf("parseDate(%q) = %v, mail.ParseDate fails: %v", s, got, err)
		}
		return
	}
	if !got.Equal(want) {
		t.Errorf("parseDate(%q) = %v, mail.ParseDate %v", s, got, want)
	}
}

func FuzzParseDate(f *testing.F) {
	for _, d := range dateSamples {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, s string) { checkDate(t, s) })
}

// BenchmarkParseDate is a Date field as INN's overview gives it.
func BenchmarkParseDate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		parseDate("Mon, 23 Nov 2026 09:44:12 +0000")
	}
}

func TestReplyKind(t *testing.T) {
	for code, want := range map[int]error{
		411: schemes.ErrNotFound, 423: schemes.ErrNotFound, 430: schemes.ErrNotFound,
		480: schemes.ErrLoginFailed, 481: schemes.ErrLoginFailed, 502: schemes.ErrAccessDenied,
		483: schemes.ErrAccessDenied, 400: schemes.ErrNotRetrievable, 500: schemes.ErrNotRetrievable,
		501: schemes.ErrBadURL, 299: schemes.ErrProtocol,
	} {
		if got, _ := replyKind(code); got != want {
			t.Errorf("%d: %v, want %v", code, got, want)
		}
	}
}

func TestNewsServerOption(t *testing.T) {
	for _, tc := range []struct {
		opt, env, scheme, addr string
		bad                    bool
	}{
		{"news.example:1119", "", "news", "news.example:1119", false},
		{"news.example", "", "news", "news.example:119", false},
		{"news.example", "", "snews", "news.example:563", false},
		{"", "news.env.example", "news", "news.env.example:119", false},
		{"[::1]:1119", "", "news", "[::1]:1119", false},
		{"::1", "", "news", "[::1]:119", false},
		{"news.example:port", "", "news", "", true},
		{"news.example:0", "", "news", "", true},
		{"a b", "", "news", "", true},
		{"", "", "news", "", true},
	} {
		t.Setenv("NNTPSERVER", tc.env)
		req := &schemes.Request{URL: uri.MustParse(tc.scheme + ":misc.test")}
		_, addr, err := newsServer(req, tc.opt, tc.scheme)
		if (err != nil) != tc.bad || addr != tc.addr {
			t.Errorf("%q/%q: %q %v", tc.opt, tc.env, addr, err)
		}
		if err != nil && !errors.Is(err, schemes.ErrBadURL) {
			t.Errorf("%q: %v is not a bad-URL error", tc.opt, err)
		}
		// No server at all is told apart, so that a program can say how
		// to configure one; the message names no command-line flag.
		if none := tc.opt == "" && tc.env == ""; errors.Is(err, schemes.ErrNoNewsServer) != none {
			t.Errorf("%q/%q: %v: ErrNoNewsServer %v, want %v", tc.opt, tc.env, err, !none, none)
		}
		if err != nil && strings.Contains(err.Error(), "--") {
			t.Errorf("%q/%q: %v names a flag", tc.opt, tc.env, err)
		}
	}
}

// TestMaxArticles checks the meaning of Fetcher.MaxArticles: zero is
// the default, a negative value lists every article.
func TestMaxArticles(t *testing.T) {
	for _, tc := range []struct {
		opt  int
		want int64
	}{{0, DefaultMaxArticles}, {1, 1}, {250, 250}, {-1, 0}} {
		if got := maxArticles(tc.opt); got != tc.want {
			t.Errorf("MaxArticles %d: %d, want %d", tc.opt, got, tc.want)
		}
	}
}

func TestLineBound(t *testing.T) {
	long := strings.Repeat("x", schemes.MaxLineLength+10) + "\n"
	b := newLineBound(strings.NewReader(long + long))
	buf := make([]byte, 64<<10)
	if _, err := io.ReadFull(b, buf[:len(long)]); !errors.Is(err, schemes.ErrLineTooLong) {
		t.Errorf("bounded: %v", err)
	}
	b = newLineBound(strings.NewReader(long + "ok\n"))
	b.bound(false)
	if _, err := io.ReadFull(b, buf[:len(long)]); err != nil {
		t.Errorf("unbounded: %v", err)
	}
	b.bound(true)
	if n, err := b.Read(buf); err != nil || string(buf[:n]) != "ok\n" {
		t.Errorf("bounded again: %q %v", buf[:n], err)
	}
}

// scriptConn is a connection whose peer's bytes are fixed in advance;
// what the client writes is discarded.
type scriptConn struct {
	r *bytes.Reader
}

func (c *scriptConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *scriptConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *scriptConn) Close() error                     { return nil }
func (c *scriptConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *scriptConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *scriptConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptConn) SetWriteDeadline(time.Time) error { return nil }

type scriptDialer []byte

func (d scriptDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	return &scriptConn{r: bytes.NewReader(d)}, nil
}

// fetchScript runs one URL against a server that answers with script, and
// reads the result to its end.
func fetchScript(rawURL string, raw bool, script []byte) (string, error) {
	req := &schemes.Request{
		URL:    uri.MustParse(rawURL),
		Dialer: scriptDialer(script),
		Raw:    raw,
		User:   url.UserPassword("u", "p"),
	}
	f := Fetcher{Server: "news.invalid"}
	defer f.Close()
	res, err := f.Fetch(context.Background(), req)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	if res.Listing != nil {
		defer res.Listing.Close()
		for {
			e, err := res.Listing.Next()
			if err == io.EOF {
				return out.String(), nil
			}
			if err != nil {
				return out.String(), err
			}
			out.WriteString(e.URL + " " + e.Name + "\n")
		}
	}
	if res.Body != nil {
		defer res.Body.Close()
		_, err = io.Copy(&out, res.Body)
	}
	return out.String(), err
}

func TestScriptedSessions(t *testing.T) {
	caps := "200 hi\r\n101 caps\r\nVERSION 2\r\nREADER\r\nOVER\r\n.\r\n"
	for _, tc := range []struct {
		url, script, want string
		raw               bool
	}{
		{"news:a@b", caps + "220 0 <a@b>\r\nSubject: s\r\n\r\n..dot\r\nx\r\n.\r\n", "Subject: s\n\n.dot\nx\n", false},
		{"news:a@b", caps + "480 auth\r\n381 pass\r\n281 ok\r\n101 caps\r\nREADER\r\n.\r\n220 0 <a@b>\r\n\r\nb\r\n.\r\n", "\nb\n", false},
		{"news:g", caps + "211 2 1 2 g\r\n224 ov\r\n1\ts1\tf\td\t<1@x>\t\t10\t1\r\n2\ts2\tf\td\t<2@x>\r\n.\r\n", "news:1@x s1\nnews:2@x s2\n", false},
		{"news:g", caps + "211 2 1 2 g\r\n224 ov\r\n1\ts1\tf\td\t<1@x>\t\t10\t1\r\n.\r\n", "1\ts1\tf\td\t<1@x>\t\t10\t1\n", true},
		{"news:*", caps + "215 d\r\ng one\r\n.\r\n215 a\r\ng 2 1 y\r\nbad\r\n.\r\n", "news:g g\n bad\n", false},
	} {
		got, err := fetchScript(tc.url, tc.raw, []byte(tc.script))
		if err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.url, got, err, tc.want)
		}
	}
}

func FuzzParseOverview(f *testing.F) {
	f.Add("3000234\tI am just a test article\t\"Demo User\" <nobody@example.com>\t6 Oct 1998 04:38:40 -0500\t<45223423@example.com>\t<45454@example.net>\t1234\t17\tXref: news.example.com misc.test:3000363")
	f.Add("7\ts\tf\td\t<a@b>")
	f.Add("1\t=?UTF-8?B?R3LDvMOfZQ==?=\tx\ty\t<a@b>\t\t-1\t")
	f.Fuzz(func(t *testing.T, line string) {
		o, err := parseOverview(line)
		if err != nil {
			return
		}
		if o.Number < 0 || o.MessageID == "" || o.Bytes < -1 || o.Lines < -1 {
			t.Fatalf("%q parsed to %+v", line, o)
		}
		e := target{newsScheme: "news"}.articleEntry(o)
		// Every entry URL names exactly the article's message-id.
		u, err := uri.Parse(e.URL)
		if err != nil {
			t.Fatalf("entry URL %q: %v", e.URL, err)
		}
		if v, err := u.News(); err != nil || v.MessageID != o.MessageID {
			t.Fatalf("entry URL %q names %q (%v), want %q", e.URL, v.MessageID, err, o.MessageID)
		}
	})
}

func FuzzParseReplies(f *testing.F) {
	f.Add("1234 3000234 3002322 misc.test", "misc.test 3002322 3000234 y")
	f.Add("0 5 4 x", "x 4 5 m")
	f.Fuzz(func(t *testing.T, group, active string) {
		if g, err := parseGroup(group); err == nil {
			if low, high, ok := g.articleRange(100); ok && (low > high || high-low >= 100 || low < 1) {
				t.Fatalf("%q: range %d-%d", group, low, high)
			}
		}
		if a, err := parseActive(active); err == nil && (a.Group == "" || a.High < 0 || a.Low < 0) {
			t.Fatalf("%q parsed to %+v", active, a)
		}
		parseNewsgroups(active)
		parseCapability(active)
	})
}

// FuzzSession feeds arbitrary server bytes to whole fetches: whatever a
// server sends, the fetcher returns an error of the taxonomy or a result,
// never a panic or an error outside it.
func FuzzSession(f *testing.F) {
	caps := "200 hi\r\n101 caps\r\nVERSION 2\r\nREADER\r\nOVER\r\n.\r\n"
	f.Add(uint8(0), caps+"220 0 <a@b>\r\nSubject: s\r\n\r\n..dot\r\n.\r\n")
	f.Add(uint8(1), caps+"211 2 1 2 g\r\n224 ov\r\n1\ts1\tf\td\t<1@x>\t\t10\t1\r\n.\r\n")
	f.Add(uint8(2), caps+"215 d\r\ng one\r\n.\r\n215 a\r\ng 2 1 y\r\n.\r\n")
	f.Add(uint8(5), "200 hi\r\n500 no\r\n200 r\r\n211 3 1 3 g\r\n500 no\r\n500 no\r\n221 1 <1@x>\r\nSubject: a\r\n .b\r\n.\r\n423 gone\r\n480 who\r\n381 pass\r\n281 ok\r\n221 3 <3@x>\r\n.\r\n")
	f.Add(uint8(4), caps+"211 1 1 1 g\r\n220 1 <x@y>\r\nA: b\r\n\r\nbody")
	f.Fuzz(func(t *testing.T, which uint8, script string) {
		urls := []string{"news:a@b", "news:g", "news:*", "nntp://h/g/1", "nntp://h/g"}
		u := urls[int(which)%len(urls)]
		_, err := fetchScript(u, which&8 != 0, []byte(script))
		if err == nil {
			return
		}
		var e *schemes.Error
		if !errors.As(err, &e) || e.Kind == nil {
			t.Fatalf("%s: error outside the taxonomy: %v", u, err)
		}
	})
}
