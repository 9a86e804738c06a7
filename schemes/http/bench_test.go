package http

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// BenchmarkKeepAlive measures one fetch of a small body over a kept-alive
// connection: its allocations are the per-URL cost of the ordinary path.
func BenchmarkKeepAlive(b *testing.B) {
	s := newPipeServer(b, echoPath)
	f := &Fetcher{}
	defer f.Close()
	req := &schemes.Request{URL: uri.MustParse(s.url + "/small"), Dialer: &net.Dialer{}}
	b.ReportAllocs()
	for b.Loop() {
		fetchDrain(b, f, req)
	}
}

// BenchmarkPipelined measures a run of pipelineDepth fetches told of
// ahead (Expect), as the mirror makes them: its allocations are the
// pipelined path's per-run cost.
func BenchmarkPipelined(b *testing.B) {
	s := newPipeServer(b, echoPath)
	f := &Fetcher{}
	defer f.Close()
	var urls []uri.URL
	for i := range pipelineDepth {
		urls = append(urls, uri.MustParse(fmt.Sprintf("%s/f%d", s.url, i)))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, req := range expectRun(f, urls, nil) {
			fetchDrain(b, f, req)
		}
	}
	if _, behind, _ := s.counts(); behind == 0 {
		b.Fatal("no request had another behind it: not pipelined")
	}
}

// fetchDrain fetches req and reads its body to the end.
func fetchDrain(b *testing.B, f *Fetcher, req *schemes.Request) {
	res, err := f.Fetch(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		b.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b.Fatalf("status %d", res.StatusCode)
	}
}
