package integration

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/urlget/urlget/integration/nntptest"
	"github.com/urlget/urlget/schemes/news"
	"github.com/urlget/urlget/uri"
)

// BenchmarkNewsArticles fetches 1000 articles of about 2 KiB by message-id
// over one session, as one invocation of the command does: each request
// told of the 32 that follow, which it pipelines.
func BenchmarkNewsArticles(b *testing.B) {
	var articles []nntptest.Article
	body := strings.Repeat("Line of an article: the quick brown fox jumps over the lazy dog.\n", 28)
	for i := 0; i < 1000; i++ {
		articles = append(articles, nntptest.Article{
			MessageID: fmt.Sprintf("bench-%d@urlget.bench", i),
			Header:    [][2]string{{"From", "b@urlget.bench"}, {"Subject", fmt.Sprint("bench ", i)}},
			Body:      body,
		})
	}
	s := nntptest.NewServer(nntptest.Config{Groups: []nntptest.Group{{Name: "bench", Articles: articles}}})
	defer s.Close()
	newsBench(b, s, 1000, func(i int) string { return "news:" + uri.EscapeSegment(articles[i].MessageID) })
}

// BenchmarkNewsBigArticle fetches one 10 MiB article.
func BenchmarkNewsBigArticle(b *testing.B) {
	line := strings.Repeat("x", 75) + "\n"
	a := nntptest.Article{MessageID: "big@urlget.bench", Header: [][2]string{{"Subject", "big"}},
		Body: ".dot\n" + strings.Repeat(line, (10<<20)/len(line))}
	s := nntptest.NewServer(nntptest.Config{Groups: []nntptest.Group{{Name: "bench", Articles: []nntptest.Article{a}}}})
	defer s.Close()
	b.SetBytes(int64(len(a.Body)))
	newsBench(b, s, 1, func(int) string { return "news:big@urlget.bench" })
}

func newsBench(b *testing.B, s *nntptest.Server, n int, url func(int) string) {
	b.ReportAllocs()
	urls := make([]string, n)
	for i := range urls {
		urls[i] = url(i)
	}
	for b.Loop() {
		f := &news.Fetcher{Server: s.Addr}
		// The run told before it is made, as the command tells it.
		reqs := expectRun(b, f, urls, nil)
		for _, req := range reqs {
			res, err := f.Fetch(context.Background(), req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, res.Body); err != nil {
				b.Fatal(err)
			}
			res.Body.Close()
		}
		f.Close()
	}
}
