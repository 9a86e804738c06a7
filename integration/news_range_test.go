package integration

import (
	"errors"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/news"
)

// TestNewsArticleRanges lists the articles of a group by number range, as
// Lynx takes nntp://host/group/first-last and news:group/first-last: the
// range is clipped to the group's articles, is not cut by MaxArticles, and
// "first-" runs to the newest. Every entry carries its group and number,
// and under nntp: its URL is the article's by number.
func TestNewsArticleRanges(t *testing.T) {
	s := newNewsServer(t, newsConfig())
	for _, tc := range []struct {
		url     string
		over    string // the OVER command, "" when none is sent
		numbers []string
		urls    []string
	}{
		{s.URL + "/test.urlget/11-12", "OVER 11-12", []string{"11", "12"}, []string{s.URL + "/test.urlget/11", s.URL + "/test.urlget/12"}},
		{s.URL + "/test.urlget/11-", "OVER 11-12", []string{"11", "12"}, nil},
		{s.URL + "/test.urlget/1-10", "OVER 10-10", []string{"10"}, []string{s.URL + "/test.urlget/10"}},
		{s.URL + "/test.urlget/12-12", "OVER 12-12", []string{"12"}, nil},
		{s.URL + "/test.urlget/20-30", "", nil, nil},
		{"news:test.urlget/10-11", "OVER 10-11", []string{"10", "11"}, []string{"news:first@example.test", "news:second@example.test"}},
	} {
		t.Run(tc.url, func(t *testing.T) {
			s.ResetCommands()
			es := newsFetchListing(t, newsFetcherWith(t, &news.Fetcher{Server: s.Addr, MaxArticles: 1}), newsRequest(t, tc.url))
			want := []string{"CAPABILITIES", "GROUP test.urlget"}
			if tc.over != "" {
				want = append(want, tc.over)
			}
			newsCommands(t, s, want...)
			if len(es) != len(tc.numbers) {
				t.Fatalf("%d entries, want %d: %+v", len(es), len(tc.numbers), es)
			}
			for i, e := range es {
				if e.Fields["number"] != tc.numbers[i] || e.Fields["group"] != "test.urlget" || e.Kind != schemes.KindArticle {
					t.Errorf("entry %d: number %q, group %q, kind %v", i, e.Fields["number"], e.Fields["group"], e.Kind)
				}
				if tc.urls != nil && e.URL != tc.urls[i] {
					t.Errorf("entry %d URL %s, want %s", i, e.URL, tc.urls[i])
				}
			}
		})
	}

	// Without a range, MaxArticles holds and entries carry their group too.
	s.ResetCommands()
	es := newsFetchListing(t, newsFetcherWith(t, &news.Fetcher{Server: s.Addr, MaxArticles: 1}), newsRequest(t, s.URL+"/test.urlget"))
	newsCommands(t, s, "CAPABILITIES", "GROUP test.urlget", "OVER 12-12")
	if len(es) != 1 || es[0].Fields["group"] != "test.urlget" || es[0].Fields["number"] != "12" {
		t.Errorf("entries %+v", es)
	}

	for _, bad := range []string{s.URL + "/test.urlget/12-11", s.URL + "/test.urlget/99999999999999999999-"} {
		_, err := newsFetcherWith(t, &news.Fetcher{Server: s.Addr, MaxArticles: 1}).Fetch(testCtx(t), newsRequest(t, bad))
		if !errors.Is(err, schemes.ErrBadURL) {
			t.Errorf("%s: %v, want a bad URL", bad, err)
		}
	}
}
