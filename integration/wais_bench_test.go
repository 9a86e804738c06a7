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
// test server in 64 KiB pieces. B/op and allocs/op cover client and server;
// peak-heap-MiB, the live heap's peak during the transfers, stays flat
// whatever the size.
func BenchmarkWAISRetrieve(b *testing.B) {
	for _, mib := range []int64{1, 10, 100} {
		b.Run(strconv.FormatInt(mib, 10)+"MiB", func(b *testing.B) {
			size := mib << 20
			s := waistest.NewServer(waistest.Config{Documents: []waistest.Document{
				{Name: "large.txt", Content: waisPattern{}, Size: size, Keywords: []string{"large"}},
			}})
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
