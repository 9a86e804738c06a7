package integration

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/urlget/urlget/integration/nntptest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/news"
	"github.com/urlget/urlget/uri"
)

// newsArticleURL is the news: URL of a sample article.
func newsArticleURL(id string) string {
	return "news:" + uri.EscapeSegment(id)
}

// wantArticle is the text the fetcher gives for a sample article.
func wantArticle(t *testing.T, id string) string {
	t.Helper()
	for _, a := range newsArticles() {
		if a.MessageID == id {
			return nntptest.Article{Header: append([][2]string{{"Message-ID", "<" + a.MessageID + ">"}}, a.Header...), Body: a.Body}.Text()
		}
	}
	t.Fatalf("no sample article %q", id)
	return ""
}

// fetchInOrder fetches ids one after the other on f, told of them as one
// run first (schemes.Expecter) as the command does, and returns each body
// or error text.
func fetchInOrder(t *testing.T, f *news.Fetcher, s *nntptest.Server, head bool, ids ...string) []string {
	t.Helper()
	urls := make([]string, len(ids))
	for i, id := range ids {
		urls[i] = newsArticleURL(id)
	}
	reqs := expectRun(t, f, urls, func(req *schemes.Request) { req.Head = head })
	var got []string
	for _, req := range reqs {
		res, err := f.Fetch(testCtx(t), req)
		if err != nil {
			got = append(got, "error: "+err.Error())
			continue
		}
		if head {
			var b strings.Builder
			for _, h := range res.Header {
				b.WriteString(h[0] + ": " + h[1] + "\n")
			}
			got = append(got, b.String())
			continue
		}
		got = append(got, string(readBody(t, res)))
	}
	return got
}

// wantConnections checks how many connections the server accepted.
func wantConnections(t *testing.T, s *nntptest.Server, want int) {
	t.Helper()
	if n := s.Connections(); n != want {
		t.Errorf("%d connections, want %d", n, want)
	}
}

// RFC 3977 §3.5: articles named by message-id are pipelined when the
// caller says which come next, and each fetch still gets its own reply.
func TestNewsPipelined(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	ids := []string{"first@example.test", "second@example.test", "third/x@example.test", "missing@example.test", "first@example.test"}
	got := fetchInOrder(t, f, s, false, ids...)
	for i, id := range ids {
		if id == "missing@example.test" {
			if !strings.HasPrefix(got[i], "error: ") || !strings.Contains(got[i], "430") {
				t.Errorf("%s: %q, want the 430 error", id, got[i])
			}
			continue
		}
		if want := wantArticle(t, id); got[i] != want {
			t.Errorf("%s:\n got %q\nwant %q", id, got[i], want)
		}
	}
	newsCommands(t, s, "CAPABILITIES", "ARTICLE <first@example.test>", "ARTICLE <second@example.test>",
		"ARTICLE <third/x@example.test>", "ARTICLE <missing@example.test>", "ARTICLE <first@example.test>")
	if n := s.Pipelined(); n == 0 {
		t.Error("no command was sent before the previous reply was read")
	}
	wantConnections(t, s, 1)

	// -I: HEAD pipelined the same way.
	s.ResetCommands()
	heads := fetchInOrder(t, f, s, true, "second@example.test", "first@example.test")
	if !strings.Contains(heads[0], "Subject: =?UTF-8?B?R3LDvMOfZQ==?=") || !strings.Contains(heads[1], "Subject: first post") {
		t.Errorf("headers %q", heads)
	}
	newsCommands(t, s, "HEAD <second@example.test>", "HEAD <first@example.test>")
}

// A fetch that is not the one the hint announced reads and drops the
// replies sent ahead, and gets its own.
func TestNewsPipelineHintNotFollowed(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	first := newsRequest(t, newsArticleURL("first@example.test"))
	expectAfter(t, f, first, newsArticleURL("second@example.test"), newsArticleURL("third/x@example.test"))
	if got, want := newsFetchBody(t, f, first), wantArticle(t, "first@example.test"); got != want {
		t.Errorf("first: %q", got)
	}
	if got, want := newsFetchBody(t, f, newsRequest(t, newsArticleURL("third/x@example.test"))), wantArticle(t, "third/x@example.test"); got != want {
		t.Errorf("third, out of the announced order: %q, want %q", got, want)
	}
	// A command of another kind waits for the replies sent ahead too.
	expectAfter(t, f, first, newsArticleURL("second@example.test"))
	newsFetchBody(t, f, first)
	entries := newsFetchListing(t, f, newsRequest(t, "news:test.urlget"))
	if len(entries) != 3 {
		t.Errorf("listing after replies sent ahead: %d entries", len(entries))
	}
	newsCommands(t, s, "CAPABILITIES", "ARTICLE <first@example.test>", "ARTICLE <second@example.test>", "ARTICLE <third/x@example.test>",
		"ARTICLE <third/x@example.test>", "ARTICLE <first@example.test>", "ARTICLE <second@example.test>", "GROUP test.urlget", "OVER 10-12")
	wantConnections(t, s, 1)

	// Closing the Fetcher with replies still on their way does not wait
	// for them.
	expectAfter(t, f, first, newsArticleURL("second@example.test"), newsArticleURL("third/x@example.test"))
	newsFetchBody(t, f, first)
	if err := f.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// A body closed before its end drops the session and what was sent ahead
// on it; the next article comes on a new connection.
func TestNewsPipelineBodyClosedEarly(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	req := newsRequest(t, newsArticleURL("first@example.test"))
	expectAfter(t, f, req, newsArticleURL("second@example.test"))
	res := mustFetch(t, f, req)
	res.Body.Close()
	if got, want := newsFetchBody(t, f, newsRequest(t, newsArticleURL("second@example.test"))), wantArticle(t, "second@example.test"); got != want {
		t.Errorf("second: %q, want %q", got, want)
	}
	wantConnections(t, s, 2)
}

// A server that wants authentication and does not say so up front refuses
// the whole pipeline with 480: the replies are read, the client logs in
// and asks again.
func TestNewsPipelineAuthRequired(t *testing.T) {
	cfg := newsConfig()
	cfg.User, cfg.Password = "reader", "pw"
	cfg.NoCapabilities = true
	s := newNewsServer(t, cfg)
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	ids := []string{"first@example.test", "second@example.test", "third/x@example.test"}
	urls := []string{newsArticleURL(ids[0]), newsArticleURL(ids[1]), newsArticleURL(ids[2])}
	reqs := expectRun(t, f, urls, func(req *schemes.Request) {
		req.User = url.UserPassword("reader", "pw")
	})
	for i, req := range reqs {
		if got, want := newsFetchBody(t, f, req), wantArticle(t, ids[i]); got != want {
			t.Errorf("%s: %q, want %q", ids[i], got, want)
		}
	}
	newsCommands(t, s, "CAPABILITIES", "MODE READER",
		"ARTICLE <first@example.test>", "ARTICLE <second@example.test>", "ARTICLE <third/x@example.test>",
		"AUTHINFO USER reader", "AUTHINFO PASS pw", "ARTICLE <first@example.test>",
		"ARTICLE <second@example.test>", "ARTICLE <third/x@example.test>")
}

// A server that drops the connection in the middle of a pipeline: the
// replies that came are used, the fetch whose reply did not goes again on
// a new connection.
func TestNewsPipelineServerCloses(t *testing.T) {
	cfg := newsConfig()
	cfg.Faults = []nntptest.Fault{{Command: "ARTICLE <second@example.test>", Reply: "", Close: true, Once: true}}
	s := newNewsServer(t, cfg)
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	ids := []string{"first@example.test", "second@example.test", "third/x@example.test"}
	got := fetchInOrder(t, f, s, false, ids...)
	for i, id := range ids {
		if want := wantArticle(t, id); got[i] != want {
			t.Errorf("%s:\n got %q\nwant %q", id, got[i], want)
		}
	}
	wantConnections(t, s, 2)
}

// Only articles by message-id on the same server go ahead; the hint stops
// at the first URL that is anything else, and a bad message-id in it is
// never sent.
func TestNewsPipelineOnlyArticlesByID(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	req := newsRequest(t, newsArticleURL("first@example.test"))
	expectAfter(t, f, req, newsArticleURL("second@example.test"), "news:test.urlget", newsArticleURL("third/x@example.test"))
	newsFetchBody(t, f, req)
	req = newsRequest(t, newsArticleURL("first@example.test"))
	expectAfter(t, f, req, "news:bad%0d%0aQUIT@x", newsArticleURL("second@example.test"))
	newsFetchBody(t, f, req)
	req = newsRequest(t, newsArticleURL("first@example.test"))
	expectAfter(t, f, req, "news://other.example:119/second@example.test", "http://x/")
	newsFetchBody(t, f, req)
	newsCommands(t, s, "CAPABILITIES", "ARTICLE <first@example.test>", "ARTICLE <second@example.test>",
		"ARTICLE <first@example.test>", "ARTICLE <first@example.test>")
	var e *schemes.Error
	if _, err := f.Fetch(testCtx(t), newsRequest(t, "news:bad%0d%0aQUIT@x")); !errors.As(err, &e) || !errors.Is(err, schemes.ErrBadURL) {
		t.Errorf("bad message-id: %v", err)
	}
}
