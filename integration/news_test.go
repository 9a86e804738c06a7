package integration

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/integration/nntptest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/news"
	"github.com/urlget/urlget/uri"
)

// newsArticles is the sample content of the in-process server's group.
func newsArticles() []nntptest.Article {
	return []nntptest.Article{
		{MessageID: "first@example.test", Header: [][2]string{
			{"From", "Ann <ann@example.test>"},
			{"Newsgroups", "test.urlget"},
			{"Subject", "first post"},
			{"Date", "Mon, 02 Jan 2006 15:04:05 +0000"},
		}, Body: "hello\n.leading dot\n..two dots\n.\nlast line\n"},
		{MessageID: "second@example.test", Header: [][2]string{
			{"From", "=?UTF-8?Q?J=C3=B6rg?= <joerg@example.test>"},
			{"Newsgroups", "test.urlget"},
			{"Subject", "=?UTF-8?B?R3LDvMOfZQ==?="},
			{"Date", "Tue, 03 Jan 2006 10:00:00 +0100"},
			{"References", "<first@example.test>"},
		}, Body: "second body\n"},
		{MessageID: "third/x@example.test", Header: [][2]string{
			{"From", "Bo <bo@example.test>"},
			{"Newsgroups", "test.urlget"},
			{"Subject", "third\twith tab"},
			{"Date", "Wed, 04 Jan 2006 12:00:00 GMT"},
		}, Body: ""},
	}
}

func newsConfig() nntptest.Config {
	return nntptest.Config{Groups: []nntptest.Group{
		{Name: "test.urlget", Description: "urlget test group", Low: 10, Articles: newsArticles()},
		{Name: "test.empty", Description: "nothing here", Low: 5},
		{Name: "test.other"},
	}}
}

func newNewsServer(t *testing.T, cfg nntptest.Config) *nntptest.Server {
	t.Helper()
	s := nntptest.NewServer(cfg)
	t.Cleanup(s.Close)
	return s
}

// newsRequest builds the request the fetch package would for rawURL.
func newsRequest(t testing.TB, rawURL string) *schemes.Request {
	t.Helper()
	u, err := uri.Parse(rawURL)
	if err != nil {
		t.Fatalf("parse %q: %v", rawURL, err)
	}
	return &schemes.Request{URL: u, Dialer: &net.Dialer{}, TLSConfig: &tls.Config{}}
}

// parseURLs parses URLs, such as a mirror's start URLs.
func parseURLs(t testing.TB, raws ...string) []uri.URL {
	t.Helper()
	urls := make([]uri.URL, len(raws))
	for i, raw := range raws {
		u, err := uri.Parse(raw)
		if err != nil {
			t.Fatalf("parse %q: %v", raw, err)
		}
		urls[i] = u
	}
	return urls
}

// expectAfter tells f (schemes.Expecter) that requests for raws follow
// req, in order, each with req's options and credentials, as the fetch
// package builds the requests of a run.
func expectAfter(t testing.TB, f *news.Fetcher, req *schemes.Request, raws ...string) {
	t.Helper()
	reqs := []*schemes.Request{req}
	for _, u := range parseURLs(t, raws...) {
		next := *req
		next.URL = u
		reqs = append(reqs, &next)
	}
	f.Expect(reqs, false)
}

// expectRun builds the requests of urls with opts, as prepare leaves
// each, and tells f of them as one run before they are made.
func expectRun(t testing.TB, f *news.Fetcher, urls []string, prepare func(*schemes.Request)) []*schemes.Request {
	t.Helper()
	reqs := make([]*schemes.Request, len(urls))
	for i, u := range urls {
		reqs[i] = newsRequest(t, u)
		if prepare != nil {
			prepare(reqs[i])
		}
	}
	f.Expect(reqs, false)
	return reqs
}

// newsFetcher is a news fetcher with the default settings, closed at
// the test's end.
func newsFetcher(t *testing.T) *news.Fetcher {
	return newsFetcherWith(t, &news.Fetcher{})
}

// newsFetcherWith is f, closed at the test's end.
func newsFetcherWith(t *testing.T, f *news.Fetcher) *news.Fetcher {
	t.Cleanup(func() { f.Close() })
	return f
}

func newsFetchBody(t *testing.T, f *news.Fetcher, req *schemes.Request) string {
	t.Helper()
	return string(readBody(t, mustFetch(t, f, req)))
}

func newsFetchListing(t *testing.T, f *news.Fetcher, req *schemes.Request) []schemes.Entry {
	t.Helper()
	return readEntries(t, mustFetch(t, f, req))
}

func newsCommands(t *testing.T, s *nntptest.Server, want ...string) {
	t.Helper()
	if got := s.Commands(); !reflect.DeepEqual(got, want) {
		t.Errorf("commands sent:\n got %q\nwant %q", got, want)
	}
}

func TestNewsArticleByMessageID(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	for _, a := range newsArticles() {
		s.ResetCommands()
		u := "news:" + uri.EscapeSegment(a.MessageID)
		got := newsFetchBody(t, f, newsRequest(t, u))
		want := nntptest.Article{Header: append([][2]string{{"Message-ID", "<" + a.MessageID + ">"}}, a.Header...), Body: a.Body}.Text()
		if got != want {
			t.Errorf("%s:\n got %q\nwant %q", u, got, want)
		}
		if a.MessageID == "first@example.test" {
			newsCommands(t, s, "CAPABILITIES", "ARTICLE <first@example.test>")
		} else {
			newsCommands(t, s, "ARTICLE <"+a.MessageID+">")
		}
	}
	if n := s.Connections(); n != 1 {
		t.Errorf("%d connections for one server, want 1", n)
	}
}

func TestNewsAngleBracketsAndEnv(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	t.Setenv("NNTPSERVER", s.Addr)
	got := newsFetchBody(t, newsFetcher(t), newsRequest(t, "news:%3Csecond@example.test%3E"))
	if !strings.HasSuffix(got, "\n\nsecond body\n") {
		t.Errorf("article: %q", got)
	}
	newsCommands(t, s, "CAPABILITIES", "ARTICLE <second@example.test>")

	// RFC 5538 §2.1: news://server/... names its own server, over the
	// option and the environment.
	got = newsFetchBody(t, newsFetcherWith(t, &news.Fetcher{Server: "127.0.0.1:1"}), newsRequest(t, "news://"+s.Addr+"/first@example.test"))
	if !strings.HasSuffix(got, "last line\n") {
		t.Errorf("news://server/id: %q", got)
	}
}

func TestNewsNoServer(t *testing.T) {
	t.Setenv("NNTPSERVER", "")
	_, err := newsFetcher(t).Fetch(context.Background(), newsRequest(t, "news:test.urlget"))
	if !errors.Is(err, schemes.ErrBadURL) || !errors.Is(err, schemes.ErrNoNewsServer) || strings.Contains(err.Error(), "--") {
		t.Fatalf("err = %v, want a bad-URL error of ErrNoNewsServer that names no flag", err)
	}
}

func TestNewsGroupListing(t *testing.T) {
	for _, tc := range []struct {
		name string
		over nntptest.OverviewSupport
		cmds []string
	}{
		{"OVER", nntptest.OverRFC3977, []string{"CAPABILITIES", "GROUP test.urlget", "OVER 10-12"}},
		{"XOVER", nntptest.OverXOVER, []string{"CAPABILITIES", "GROUP test.urlget", "XOVER 10-12"}},
		{"HEAD", nntptest.OverNone, []string{"CAPABILITIES", "GROUP test.urlget", "XOVER 10-12", "HEAD 10", "HEAD 11", "HEAD 12"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := newsConfig()
			cfg.Overview = tc.over
			s := newNewsServer(t, cfg)
			f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
			got := newsFetchListing(t, f, newsRequest(t, "news:test.urlget"))
			newsCommands(t, s, tc.cmds...)
			if len(got) != 3 {
				t.Fatalf("%d entries, want 3: %+v", len(got), got)
			}
			want := []struct {
				url, name, author, number string
				date                      time.Time
			}{
				{"news:first@example.test", "first post", "Ann <ann@example.test>", "10", time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC)},
				{"news:second@example.test", "Grüße", "Jörg <joerg@example.test>", "11", time.Date(2006, 1, 3, 9, 0, 0, 0, time.UTC)},
				{"news:third%2Fx@example.test", "third with tab", "Bo <bo@example.test>", "12", time.Date(2006, 1, 4, 12, 0, 0, 0, time.UTC)},
			}
			for i, w := range want {
				e := got[i]
				if e.URL != w.url || e.Kind != schemes.KindArticle || e.Fields["author"] != w.author || e.Fields["number"] != w.number || !e.ModTime.Equal(w.date) {
					t.Errorf("entry %d = %+v, want %+v", i, e, w)
				}
				if tc.over != nntptest.OverNone && e.Name != w.name {
					t.Errorf("entry %d name %q, want %q", i, e.Name, w.name)
				}
				if tc.over != nntptest.OverNone {
					a := newsArticles()[i]
					a.Number = int64(10 + i)
					a.Header = append([][2]string{{"Message-ID", "<" + a.MessageID + ">"}}, a.Header...)
					if e.Raw != a.Overview() || e.Size != int64(len(a.Text())+strings.Count(a.Text(), "\n")) {
						t.Errorf("entry %d raw %q size %d, want %q", i, e.Raw, e.Size, a.Overview())
					}
				}
			}
			// Every entry's URL fetches its article over the same session.
			s.ResetCommands()
			body := newsFetchBody(t, f, newsRequest(t, got[2].URL))
			if !strings.HasPrefix(body, "Message-ID: <third/x@example.test>\n") {
				t.Errorf("article from entry URL: %q", body)
			}
			newsCommands(t, s, "ARTICLE <third/x@example.test>")
			if n := s.Connections(); n != 1 {
				t.Errorf("%d connections, want 1", n)
			}
		})
	}
}

func TestNewsMaxArticles(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	got := newsFetchListing(t, newsFetcherWith(t, &news.Fetcher{Server: s.Addr, MaxArticles: 2}), newsRequest(t, "news:test.urlget"))
	newsCommands(t, s, "CAPABILITIES", "GROUP test.urlget", "OVER 11-12")
	if len(got) != 2 || got[0].Fields["number"] != "11" {
		t.Errorf("entries %+v", got)
	}
	// A negative MaxArticles lists every article of the group.
	s.ResetCommands()
	all := newsFetchListing(t, newsFetcherWith(t, &news.Fetcher{Server: s.Addr, MaxArticles: -1}), newsRequest(t, "news:test.urlget"))
	newsCommands(t, s, "CAPABILITIES", "GROUP test.urlget", "OVER 10-12")
	if len(all) != 3 {
		t.Errorf("all entries %+v", all)
	}
}

func TestNewsEmptyGroup(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	got := newsFetchListing(t, newsFetcherWith(t, &news.Fetcher{Server: s.Addr}), newsRequest(t, "news:test.empty"))
	if len(got) != 0 {
		t.Errorf("entries %+v", got)
	}
	newsCommands(t, s, "CAPABILITIES", "GROUP test.empty")
}

func TestNewsAllGroups(t *testing.T) {
	for _, noDesc := range []bool{false, true} {
		cfg := newsConfig()
		cfg.NoNewsgroups = noDesc
		s := newNewsServer(t, cfg)
		got := newsFetchListing(t, newsFetcherWith(t, &news.Fetcher{Server: s.Addr}), newsRequest(t, "news:*"))
		newsCommands(t, s, "CAPABILITIES", "LIST NEWSGROUPS", "LIST ACTIVE")
		if len(got) != 3 {
			t.Fatalf("entries %+v", got)
		}
		wantDesc := "urlget test group"
		if noDesc {
			wantDesc = ""
		}
		e := got[0]
		if e.URL != "news:test.urlget" || e.Name != "test.urlget" || e.Kind != schemes.KindDirectory || e.Description != wantDesc ||
			e.Fields["low"] != "10" || e.Fields["high"] != "12" || e.Fields["status"] != "y" || e.Raw != "test.urlget 12 10 y" {
			t.Errorf("entry %+v", e)
		}
		if got[2].URL != "news:test.other" || got[2].Description != "" {
			t.Errorf("entry %+v", got[2])
		}
	}
}

func TestNewsRaw(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	// MaxArticles bounds the group's OVER; LIST ACTIVE lists every group.
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr, MaxArticles: 1})
	req := newsRequest(t, "news:*")
	req.Raw = true
	if got := newsFetchBody(t, f, req); got != "test.urlget 12 10 y\ntest.empty 4 5 y\ntest.other 0 1 y\n" {
		t.Errorf("raw LIST ACTIVE: %q", got)
	}
	req = newsRequest(t, "news:test.urlget")
	req.Raw = true
	a := newsArticles()[2]
	a.Number = 12
	a.Header = append([][2]string{{"Message-ID", "<" + a.MessageID + ">"}}, a.Header...)
	if got := newsFetchBody(t, f, req); got != a.Overview()+"\n" {
		t.Errorf("raw OVER: %q, want %q", got, a.Overview())
	}
	newsCommands(t, s, "CAPABILITIES", "LIST ACTIVE", "GROUP test.urlget", "OVER 12-12")
}

func TestNewsRawHEAD(t *testing.T) {
	cfg := newsConfig()
	cfg.Overview = nntptest.OverNone
	s := newNewsServer(t, cfg)
	req := newsRequest(t, "news:test.urlget")
	req.Raw = true
	got := newsFetchBody(t, newsFetcherWith(t, &news.Fetcher{Server: s.Addr, MaxArticles: 2}), req)
	want := "Message-ID: <second@example.test>\nFrom: =?UTF-8?Q?J=C3=B6rg?= <joerg@example.test>\nNewsgroups: test.urlget\n" +
		"Subject: =?UTF-8?B?R3LDvMOfZQ==?=\nDate: Tue, 03 Jan 2006 10:00:00 +0100\nReferences: <first@example.test>\n\n" +
		"Message-ID: <third/x@example.test>\nFrom: Bo <bo@example.test>\nNewsgroups: test.urlget\nSubject: third\twith tab\nDate: Wed, 04 Jan 2006 12:00:00 GMT\n\n"
	if got != want {
		t.Errorf("raw HEAD listing:\n got %q\nwant %q", got, want)
	}
}

func TestNNTPURLs(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	f := newsFetcher(t)
	got := newsFetchBody(t, f, newsRequest(t, s.URL+"/test.urlget/10"))
	if !strings.HasSuffix(got, "\n\nhello\n.leading dot\n..two dots\n.\nlast line\n") {
		t.Errorf("article 10: %q", got)
	}
	entries := newsFetchListing(t, f, newsRequest(t, s.URL+"/test.urlget"))
	if len(entries) != 3 || entries[1].URL != s.URL+"/test.urlget/11" {
		t.Fatalf("entries %+v", entries)
	}
	body := newsFetchBody(t, f, newsRequest(t, entries[1].URL))
	if !strings.HasSuffix(body, "\n\nsecond body\n") {
		t.Errorf("article 11: %q", body)
	}
	newsCommands(t, s, "CAPABILITIES", "GROUP test.urlget", "ARTICLE 10", "GROUP test.urlget", "OVER 10-12", "GROUP test.urlget", "ARTICLE 11")
	if n := s.Connections(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

func TestNewsHead(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	req := newsRequest(t, "news:second@example.test")
	req.Head = true
	res, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Body != nil || res.Listing != nil || len(res.Header) != 6 || res.Header[3] != [2]string{"Subject", "=?UTF-8?B?R3LDvMOfZQ==?="} ||
		!res.ModTime.Equal(time.Date(2006, 1, 3, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("head %+v", res)
	}
	req = newsRequest(t, s.URL+"/test.urlget")
	req.Head = true
	if res, err = f.Fetch(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Header, [][2]string{{"Group", "test.urlget"}, {"Count", "3"}, {"Low", "10"}, {"High", "12"}}) {
		t.Errorf("group head %+v", res.Header)
	}
	newsCommands(t, s, "CAPABILITIES", "HEAD <second@example.test>", "GROUP test.urlget")
}

func TestNewsNotFound(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	for _, u := range []string{"news:missing@example.test", "news:no.such.group", s.URL + "/no.such.group", s.URL + "/test.urlget/99"} {
		_, err := f.Fetch(context.Background(), newsRequest(t, u))
		var e *schemes.Error
		if !errors.Is(err, schemes.ErrNotFound) || !errors.As(err, &e) || e.Code == 0 {
			t.Errorf("%s: %v, want not found with the server's code", u, err)
		}
	}
	newsCommands(t, s, "CAPABILITIES", "ARTICLE <missing@example.test>", "GROUP no.such.group", "GROUP no.such.group", "GROUP test.urlget", "ARTICLE 99")
	if n := s.Connections(); n != 1 {
		t.Errorf("%d connections, want 1 (errors keep the session)", n)
	}
}

func TestNewsRefusesUnsendable(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	for _, u := range []string{
		"news:a%0D%0AQUIT@example.test",
		"news:a%00b@example.test",
		"news:a%20b@example.test",
		"news:a%09b@example.test",
		"news:a%3Eb@example.test",
		"news:" + strings.Repeat("a", 250) + "@example.test",
	} {
		_, err := f.Fetch(context.Background(), newsRequest(t, u))
		if !errors.Is(err, schemes.ErrBadURL) {
			t.Errorf("%s: %v, want bad URL", u, err)
		}
	}
	if n := s.Connections(); n != 0 {
		t.Errorf("%d connections made for refused URLs", n)
	}
}

func TestNewsAuthinfo(t *testing.T) {
	cfg := newsConfig()
	cfg.User, cfg.Password = "reader", "s3cret pass"
	s := newNewsServer(t, cfg)
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	req := newsRequest(t, "news:first@example.test")
	req.User = url.UserPassword("reader", "s3cret pass")
	var trace []string
	req.Trace = func(dir schemes.Direction, line string) { trace = append(trace, string(dir)+" "+line) }
	if got := newsFetchBody(t, f, req); !strings.Contains(got, ".leading dot") {
		t.Errorf("article %q", got)
	}
	// RFC 4643 §2.1: the server offers AUTHINFO USER, and the user and
	// password are given: they are sent before any command is refused.
	newsCommands(t, s, "CAPABILITIES", "AUTHINFO USER reader", "AUTHINFO PASS s3cret pass", "CAPABILITIES", "ARTICLE <first@example.test>")
	for _, l := range trace {
		if strings.Contains(l, "s3cret") {
			t.Errorf("trace shows the password: %q", l)
		}
	}

	for _, tc := range []struct {
		user, pass string
		has        bool
	}{{"", "", false}, {"reader", "wrong", true}} {
		req := newsRequest(t, "news:first@example.test")
		if tc.has {
			req.User = url.UserPassword(tc.user, tc.pass)
		}
		_, err := newsFetcherWith(t, &news.Fetcher{Server: s.Addr}).Fetch(context.Background(), req)
		if !errors.Is(err, schemes.ErrLoginFailed) {
			t.Errorf("user %q: %v, want login failed", tc.user, err)
		}
		if errors.Is(err, schemes.ErrNoCredentials) != !tc.has || strings.Contains(err.Error(), "-u") {
			t.Errorf("user %q: %v: ErrNoCredentials should tell only a missing user, and no flag be named", tc.user, err)
		}
	}

	// A password still to be asked for is asked only once the server
	// refuses a command (480).
	s.ResetCommands()
	req = newsRequest(t, "news:first@example.test")
	req.User = url.User("reader")
	req.Prompt = func(string) (string, error) { return "s3cret pass", nil }
	if got := newsFetchBody(t, newsFetcherWith(t, &news.Fetcher{Server: s.Addr}), req); !strings.Contains(got, "last line") {
		t.Errorf("article with prompted password %q", got)
	}
	newsCommands(t, s, "CAPABILITIES", "ARTICLE <first@example.test>", "AUTHINFO USER reader", "AUTHINFO PASS s3cret pass", "CAPABILITIES", "ARTICLE <first@example.test>")

	// A server that does not say it offers AUTHINFO is asked only after
	// its 480.
	cfg.NoCapabilities = true
	s = newNewsServer(t, cfg)
	req = newsRequest(t, "news:first@example.test")
	req.User = url.UserPassword("reader", "s3cret pass")
	if got := newsFetchBody(t, newsFetcherWith(t, &news.Fetcher{Server: s.Addr}), req); !strings.Contains(got, "last line") {
		t.Errorf("article from a server without CAPABILITIES %q", got)
	}
	newsCommands(t, s, "CAPABILITIES", "MODE READER", "ARTICLE <first@example.test>", "AUTHINFO USER reader", "AUTHINFO PASS s3cret pass", "ARTICLE <first@example.test>")
}

func TestNewsModeReader(t *testing.T) {
	cfg := newsConfig()
	cfg.ModeSwitching = true
	s := newNewsServer(t, cfg)
	newsFetchListing(t, newsFetcher(t), newsRequest(t, s.URL+"/test.urlget"))
	newsCommands(t, s, "CAPABILITIES", "MODE READER", "CAPABILITIES", "GROUP test.urlget", "OVER 10-12")

	cfg = newsConfig()
	cfg.NoCapabilities = true
	s = newNewsServer(t, cfg)
	newsFetchListing(t, newsFetcher(t), newsRequest(t, s.URL+"/test.urlget"))
	newsCommands(t, s, "CAPABILITIES", "MODE READER", "GROUP test.urlget", "XOVER 10-12")
}

func TestNewsTLS(t *testing.T) {
	s := nntptest.NewTLSServer(newsConfig())
	t.Cleanup(s.Close)
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	req := newsRequest(t, s.URL+"/test.urlget/11")
	req.TLSConfig = s.ClientTLSConfig()
	if got := newsFetchBody(t, f, req); !strings.HasSuffix(got, "second body\n") {
		t.Errorf("nntps article %q", got)
	}
	req = newsRequest(t, "snews:first@example.test")
	req.TLSConfig = s.ClientTLSConfig()
	if got := newsFetchBody(t, f, req); !strings.Contains(got, "..two dots") {
		t.Errorf("snews article %q", got)
	}
	entries := newsFetchListing(t, f, func() *schemes.Request {
		r := newsRequest(t, "snews:test.urlget")
		r.TLSConfig = s.ClientTLSConfig()
		return r
	}())
	if len(entries) != 3 || entries[0].URL != "snews:first@example.test" {
		t.Errorf("snews entries %+v", entries)
	}
	if n := s.Connections(); n != 1 {
		t.Errorf("%d TLS connections, want 1", n)
	}
	// A server the client does not trust is a connect failure.
	_, err := newsFetcherWith(t, &news.Fetcher{Server: s.Addr}).Fetch(context.Background(), newsRequest(t, s.URL+"/test.urlget/11"))
	if !errors.Is(err, schemes.ErrConnect) {
		t.Errorf("untrusted certificate: %v", err)
	}
}

func TestNewsConcurrent(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			res, err := f.Fetch(context.Background(), newsRequest(t, "news:first@example.test"))
			if err == nil {
				var b []byte
				b, err = io.ReadAll(res.Body)
				res.Body.Close()
				if err == nil && !strings.Contains(string(b), "last line") {
					err = errors.New("short article")
				}
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := s.Connections(); n > 8 {
		t.Errorf("%d connections for 8 fetches", n)
	}
}
