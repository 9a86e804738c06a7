package integration

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/schemes/ftp"
)

// benchFetchAll fetches every URL once per iteration through one Fetcher,
// as one urlget invocation with many URLs does.
func benchFetchAll(b *testing.B, urls []string, size int64) {
	benchFetchLanes(b, urls, size, 1)
}

// benchFetchLanes is benchFetchAll with the URLs dealt round-robin to
// lanes goroutines sharing the Fetcher, each on a control connection of
// its own: what a caller that knows the URLs ahead could do.
func benchFetchLanes(b *testing.B, urls []string, size int64, lanes int) {
	f := &ftp.Fetcher{}
	defer f.Close()
	ctx := context.Background()
	reqs := make([]*ftpBenchReq, len(urls))
	for i, u := range urls {
		reqs[i] = &ftpBenchReq{u}
	}
	b.SetBytes(size * int64(len(urls)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		errs := make(chan error, lanes)
		for l := 0; l < lanes; l++ {
			wg.Add(1)
			go func(l int) {
				defer wg.Done()
				for j := l; j < len(reqs); j += lanes {
					r := reqs[j]
					res, err := f.Fetch(ctx, ftpRequest(b, r.url))
					if err != nil {
						errs <- err
						return
					}
					n, err := io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if err != nil || n != size {
						errs <- fmt.Errorf("%s: %d bytes, %v", r.url, n, err)
						return
					}
				}
			}(l)
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
}

type ftpBenchReq struct{ url string }

// BenchmarkFTPSmallFiles fetches 100 files of 4 KiB interleaved over ten
// directories from the in-process server.
func BenchmarkFTPSmallFiles(b *testing.B) {
	fsys := fstest.MapFS{}
	data := make([]byte, 4096)
	var urls []string
	for i := 0; i < 100; i++ {
		p := "d" + strconv.Itoa(i%10) + "/f" + strconv.Itoa(i)
		fsys[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		urls = append(urls, "/"+p)
	}
	s := ftptest.NewServer(fsys)
	defer s.Close()
	for i := range urls {
		urls[i] = s.URL + urls[i]
	}
	benchFetchAll(b, urls, 4096)
}

// BenchmarkVsftpdSmallFiles does the same against vsftpd, when running,
// on one control connection and on two at once.
func BenchmarkVsftpdSmallFiles(b *testing.B) {
	env := realServer(b, "URLGET_VSFTPD_ADDR", "URLGET_VSFTPD_ROOT")
	addr, root := env[0], env[1]
	data := make([]byte, 4096)
	var urls []string
	for i := 0; i < 100; i++ {
		d := filepath.Join(root, "gobench", "d"+strconv.Itoa(i%10))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f"+strconv.Itoa(i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
		urls = append(urls, "ftp://"+addr+"/gobench/d"+strconv.Itoa(i%10)+"/f"+strconv.Itoa(i))
	}
	b.Cleanup(func() { os.RemoveAll(filepath.Join(root, "gobench")) })
	for _, lanes := range []int{1, 2} {
		b.Run("lanes="+strconv.Itoa(lanes), func(b *testing.B) { benchFetchLanes(b, urls, 4096, lanes) })
	}
}

// BenchmarkVsftpdLarge fetches one 64 MiB file from vsftpd, when running.
func BenchmarkVsftpdLarge(b *testing.B) {
	env := realServer(b, "URLGET_VSFTPD_ADDR", "URLGET_VSFTPD_ROOT")
	addr, root := env[0], env[1]
	const size = 64 << 20
	p := filepath.Join(root, "gobench-large.bin")
	if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.Remove(p) })
	benchFetchAll(b, []string{"ftp://" + addr + "/gobench-large.bin"}, size)
}
