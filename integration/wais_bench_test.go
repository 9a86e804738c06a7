package integration

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/integration/waistest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/wais"
	"github.com/urlget/urlget/uri"
)

// waisPattern is a document of any size generated on the fly, so that the
// test server holds none of it in memory.
type waisPattern struct{}

func (waisPattern) ReadAt(p []byte, off int64) (int, error) {
	for i := range p {
		p[i] = "0123456789abcdef\n"[(off+int64(i))%17]
	}
	return len(p), nil
}

// heapPeak samples the live heap until stop is called and returns the
// largest value seen.
func heapPeak() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

// BenchmarkWAISRetrieve fetches documents of 1, 10 and 100 MiB from the
// test server in pieces of wais.DefaultPieceSize. B/op and allocs/op cover
// client and server; peak-heap-MiB is the peak of the heap's objects, the
// garbage not yet collected included, so it grows with what a run
// allocates until the collector's goal bounds it, not with the document
// (0.6 / 1.9 / 3.6 MiB, and 3.6 for 1 GiB). The server keeps no record of
// the requests, which would count. urlget fetching 1 GiB from waisd, a
// process of its own, peaks at 8.3 MiB resident (bench/wais.sh).
func BenchmarkWAISRetrieve(b *testing.B) {
	for _, mib := range []int64{1, 10, 100} {
		b.Run(strconv.FormatInt(mib, 10)+"MiB", func(b *testing.B) {
			size := mib << 20
			s := waistest.NewServer(waistest.Config{Documents: []waistest.Document{
				{Name: "large.txt", Content: waisPattern{}, Size: size, Keywords: []string{"large"}},
			}, KeepRequests: -1})
			defer s.Close()
			u := waisHit(b, &wais.Fetcher{}, s.URL+"?large", "large.txt")
			parsed := uri.MustParse(u)
			f := &wais.Fetcher{}
			buf := make([]byte, 32<<10)
			b.SetBytes(size)
			b.ReportAllocs()
			stop := heapPeak()
			b.ResetTimer()
			for b.Loop() {
				req := &schemes.Request{URL: parsed, Dialer: &net.Dialer{}, TLSConfig: &tls.Config{}}
				res, err := f.Fetch(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{res.Body}, buf)
				res.Body.Close()
				if err != nil || n != size {
					b.Fatalf("%d bytes, %v", n, err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MiB")
		})
	}
}
