package integration

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/integration/nntptest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/news"
)

// newsReadAll fetches req and reads its body or listing to the end,
// returning the first error.
func newsReadAll(ctx context.Context, f interface {
	Fetch(context.Context, *schemes.Request) (*schemes.Resource, error)
}, req *schemes.Request) (string, error) {
	res, err := f.Fetch(ctx, req)
	if err != nil {
		return "", err
	}
	if res.Listing != nil {
		defer res.Listing.Close()
		var names []string
		for {
			e, err := res.Listing.Next()
			if err == io.EOF {
				return strings.Join(names, "\n"), nil
			}
			if err != nil {
				return strings.Join(names, "\n"), err
			}
			names = append(names, e.Name)
		}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

func TestNewsFaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		url   string
		fault nntptest.Fault
		kind  error
		got   string // what arrives before the failure
	}{
		{"dropped inside article", "news:first@example.test",
			nntptest.Fault{Command: "ARTICLE", Reply: "220 0 <first@example.test>\r\nSubject: x\r\n\r\npartial\r\nbo", Close: true},
			schemes.ErrTruncated, "Subject: x\n\npartial\nbo"},
		{"no terminating dot", "news:first@example.test",
			nntptest.Fault{Command: "ARTICLE", Reply: "220 0 <first@example.test>\r\nSubject: x\r\n\r\nall lines\r\n..but no end\r\n", Close: true},
			schemes.ErrTruncated, "Subject: x\n\nall lines\n.but no end\n"},
		{"dropped inside overview", "news:test.urlget",
			nntptest.Fault{Command: "OVER", Reply: "224 overview\r\n10\tone\ta\td\t<1@x>\t\t1\t1\r\n11\ttw", Close: true},
			schemes.ErrTruncated, "one"},
		{"dropped inside LIST", "news:*",
			nntptest.Fault{Command: "LIST ACTIVE", Reply: "215 list\r\ntest.urlget 12 10 y\r\n", Close: true},
			schemes.ErrTruncated, "test.urlget"},
		{"endless status line", "news:first@example.test",
			nntptest.Fault{Command: "ARTICLE", Reply: "220 ", Endless: true, Close: true},
			schemes.ErrProtocol, ""},
		{"endless header line", "news:first@example.test",
			nntptest.Fault{Command: "ARTICLE", Reply: "220 0 <first@example.test>\r\nSubject: ", Endless: true, Close: true},
			schemes.ErrProtocol, ""},
		{"endless overview line", "news:test.urlget",
			nntptest.Fault{Command: "OVER", Reply: "224 overview\r\n10\t", Endless: true, Close: true},
			schemes.ErrProtocol, ""},
		{"endless HEAD line", "news:test.urlget",
			nntptest.Fault{Command: "HEAD", Reply: "221 10 <first@example.test>\r\nSubject: ", Endless: true, Close: true},
			schemes.ErrProtocol, ""},
		{"status without code", "news:first@example.test",
			nntptest.Fault{Command: "ARTICLE", Reply: "hello there\r\n"},
			schemes.ErrProtocol, ""},
		{"malformed GROUP answer", "news:test.urlget",
			nntptest.Fault{Command: "GROUP", Reply: "211 many articles here\r\n"},
			schemes.ErrProtocol, ""},
		{"unexpected code", "news:first@example.test",
			nntptest.Fault{Command: "ARTICLE", Reply: "299 what\r\n"},
			schemes.ErrProtocol, ""},
		{"permission denied", "news:first@example.test",
			nntptest.Fault{Command: "ARTICLE", Reply: "502 not for you\r\n"},
			schemes.ErrAccessDenied, ""},
		{"authentication rejected", "news:first@example.test",
			nntptest.Fault{Command: "ARTICLE", Reply: "481 no\r\n"},
			schemes.ErrLoginFailed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := newsConfig()
			if strings.HasPrefix(tc.fault.Command, "HEAD") {
				cfg.Overview = nntptest.OverNone
			}
			cfg.Faults = []nntptest.Fault{tc.fault}
			s := newNewsServer(t, cfg)
			f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			got, err := newsReadAll(ctx, f, newsRequest(t, tc.url))
			if !errors.Is(err, tc.kind) {
				t.Fatalf("err = %v, want %v", err, tc.kind)
			}
			if !strings.Contains(err.Error(), tc.url) {
				t.Errorf("error %q does not name the URL", err)
			}
			if tc.got != "" && got != tc.got {
				t.Errorf("before the failure: %q, want %q", got, tc.got)
			}
		})
	}
}

func TestNewsGreetingRefused(t *testing.T) {
	for _, tc := range []struct {
		greeting string
		kind     error
		temp     bool
	}{
		{"400 too busy, come back later", schemes.ErrNotRetrievable, true},
		{"502 you may not read here", schemes.ErrAccessDenied, false},
		{"SSH-2.0-OpenSSH_9.2", schemes.ErrProtocol, false},
	} {
		cfg := newsConfig()
		cfg.Greeting = tc.greeting
		s := newNewsServer(t, cfg)
		_, err := newsFetcher(t).Fetch(context.Background(), newsRequest(t, s.URL+"/test.urlget/10"))
		if !errors.Is(err, tc.kind) || schemes.IsTemporary(err) != tc.temp {
			t.Errorf("greeting %q: %v (temporary %v), want %v", tc.greeting, err, schemes.IsTemporary(err), tc.kind)
		}
	}
}

// A server that drops an idle session between two URLs costs one
// reconnection, not a failure.
func TestNewsStaleSession(t *testing.T) {
	cfg := newsConfig()
	cfg.Faults = []nntptest.Fault{{Command: "ARTICLE <second@example.test>", Close: true, Once: true}}
	s := newNewsServer(t, cfg)
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	newsFetchBody(t, f, newsRequest(t, "news:first@example.test"))
	if got := newsFetchBody(t, f, newsRequest(t, "news:second@example.test")); !strings.HasSuffix(got, "second body\n") {
		t.Errorf("article after reconnection %q", got)
	}
	if n := s.Connections(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
	newsCommands(t, s, "CAPABILITIES", "ARTICLE <first@example.test>", "ARTICLE <second@example.test>", "CAPABILITIES", "ARTICLE <second@example.test>")
}

// A body abandoned half way, or cut by the server, costs its connection;
// the next URL gets a fresh one.
func TestNewsAfterBrokenBody(t *testing.T) {
	cfg := newsConfig()
	cfg.Faults = []nntptest.Fault{{Command: "ARTICLE <first", Reply: "220 0 <first@example.test>\r\nX: y\r\n", Close: true, Once: true}}
	s := newNewsServer(t, cfg)
	f := newsFetcherWith(t, &news.Fetcher{Server: s.Addr})
	if _, err := newsReadAll(context.Background(), f, newsRequest(t, "news:first@example.test")); !errors.Is(err, schemes.ErrTruncated) {
		t.Fatalf("err = %v, want truncated", err)
	}
	res, err := f.Fetch(context.Background(), newsRequest(t, "news:second@example.test"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(res.Body, buf); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	res.Body.Close()
	if got := newsFetchBody(t, f, newsRequest(t, "news:first@example.test")); !strings.Contains(got, "..two dots") {
		t.Errorf("article %q", got)
	}
	if n := s.Connections(); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
}

// Cancelling the context stops a transfer the server has stalled, while
// the caller is reading the body.
func TestNewsCancelWhileReading(t *testing.T) {
	cfg := newsConfig()
	cfg.Faults = []nntptest.Fault{{Command: "ARTICLE", Reply: "220 0 <first@example.test>\r\nSubject: stalled\r\n\r\nfirst line\r\n", Hang: true}}
	s := newNewsServer(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	res, err := newsFetcherWith(t, &news.Fetcher{Server: s.Addr}).Fetch(ctx, newsRequest(t, "news:first@example.test"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	buf := make([]byte, len("Subject: stalled\n\nfirst line\n"))
	if _, err := io.ReadFull(res.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := res.Body.Read(buf); !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel: %v, want context.Canceled", err)
	}

	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = newsReadAll(ctx, newsFetcherWith(t, &news.Fetcher{Server: s.Addr}), newsRequest(t, "news:first@example.test"))
	if !errors.Is(err, schemes.ErrTimeout) {
		t.Errorf("stalled body past the deadline: %v, want timeout", err)
	}
}
