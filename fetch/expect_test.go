package fetch

import (
	"context"
	"net/url"
	"sync"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// expectingFetcher records the runs Expect tells it, and serves every
// fetch with an empty body.
type expectingFetcher struct {
	mu   sync.Mutex
	runs [][]*schemes.Request
	ends []bool
}

func (f *expectingFetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	return bodyResource(""), nil
}

func (f *expectingFetcher) Expect(reqs []*schemes.Request, end bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs = append(f.runs, reqs)
	f.ends = append(f.ends, end)
}

// TestExpectTellsEachFetcherItsOwn: Client.Expect hands each fetcher that
// can be told (schemes.Expecter) the requests of its schemes, in order,
// built as Do builds them: the host in ASCII form and each URL's own
// credentials, never another's; a fetcher that cannot be told and a URL
// Do would refuse are left out, and end reaches every fetcher told.
func TestExpectTellsEachFetcherItsOwn(t *testing.T) {
	x, y := &expectingFetcher{}, &expectingFetcher{}
	plain := &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
		return bodyResource(""), nil
	}}
	c := &Client{
		Fetchers: map[string]schemes.Fetcher{"x-test": x, "x-other": y, "x-plain": plain},
		User:     url.UserPassword("cli", "clipw"),
	}
	c.Expect([]Request{
		{URL: uri.MustParse("x-test://alice:apw@host/a")},
		{URL: uri.MustParse("x-plain://host/p")},
		{URL: uri.MustParse("x-test://host/b"), IfNoneMatch: `"b1"`},
		{URL: uri.MustParse("x-nobody://host/n")},
		{URL: uri.MustParse("x-other://b%C3%BCcher.example/o")},
		{URL: uri.MustParse("x-test://bob@host/c"), Offset: 7},
	}, true)
	if plain.calls.Load() != 0 {
		t.Errorf("Expect fetched %d times", plain.calls.Load())
	}
	if len(x.runs) != 1 || len(y.runs) != 1 || !x.ends[0] || !y.ends[0] {
		t.Fatalf("runs %d and %d, ends %v %v: want one each, ending", len(x.runs), len(y.runs), x.ends, y.ends)
	}
	run := x.runs[0]
	if len(run) != 3 {
		t.Fatalf("x-test run of %d, want 3", len(run))
	}
	type cred struct {
		url, user, pw string
	}
	want := []cred{
		{"x-test://alice:apw@host/a", "alice", "apw"},
		{"x-test://host/b", "cli", "clipw"},
		{"x-test://bob@host/c", "bob", ""},
	}
	for i, w := range want {
		r := run[i]
		pw, _ := r.User.Password()
		if r.URL.String() != w.url || r.User.Username() != w.user || pw != w.pw {
			t.Errorf("%d: %s as %q:%q, want %s as %q:%q", i, r.URL, r.User.Username(), pw, w.url, w.user, w.pw)
		}
	}
	if run[1].IfNoneMatch != `"b1"` || run[0].IfNoneMatch != "" || run[2].Offset != 7 {
		t.Errorf("conditions %q %q, offset %d: each request's own", run[0].IfNoneMatch, run[1].IfNoneMatch, run[2].Offset)
	}
	if got := y.runs[0][0].URL.String(); got != "x-other://xn--bcher-kva.example/o" {
		t.Errorf("x-other told %s, want the host in ASCII form", got)
	}
}

// TestExpectKeepsCredentialsHome plays a server whose page links to a host
// of its choosing: a URL a recursion tells ahead (Expect) under a start on
// another origin gets none of the credentials given for the start (-u, the
// start URL's .netrc default entry), and is marked Foreign so that the
// user's -H Authorization and Cookie stay home too, exactly as Do builds
// it; with LocationTrusted they go along, as curl's --location-trusted.
func TestExpectKeepsCredentialsHome(t *testing.T) {
	netrc, err := ParseNetrc("default login dflt password dfltpw\n")
	if err != nil {
		t.Fatal(err)
	}
	start := uri.MustParse("x-test://home.example/")
	for _, trusted := range []bool{false, true} {
		x := &expectingFetcher{}
		c := &Client{
			Fetchers:        map[string]schemes.Fetcher{"x-test": x},
			User:            url.UserPassword("cli", "clipw"),
			Netrc:           netrc,
			LocationTrusted: trusted,
		}
		c.Expect([]Request{
			{URL: uri.MustParse("x-test://home.example/a"), Start: start},
			{URL: uri.MustParse("x-test://evil.example/b"), Start: start},
			{URL: uri.MustParse("x-test://home.example:8080/c"), Start: start},
		}, false)
		if len(x.runs) != 1 || len(x.runs[0]) != 3 {
			t.Fatalf("trusted %v: runs %v", trusted, x.runs)
		}
		run := x.runs[0]
		if pw, _ := run[0].User.Password(); run[0].User.Username() != "cli" || pw != "clipw" || run[0].Foreign {
			t.Errorf("trusted %v: the start's origin got %v, foreign %v", trusted, run[0].User, run[0].Foreign)
		}
		for _, r := range run[1:] {
			switch {
			case !trusted && (r.User != nil || !r.Foreign):
				t.Errorf("%s: told ahead with %v, foreign %v: credentials left their origin", r.URL, r.User, r.Foreign)
			case trusted && (r.User.Username() != "cli" || r.Foreign):
				t.Errorf("%s with --location-trusted: %v, foreign %v", r.URL, r.User, r.Foreign)
			}
		}
	}
}
