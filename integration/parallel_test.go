package integration

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// directClient is a fetch.Client whose connections all go straight to the
// servers on 127.0.0.1, whatever proxy the environment names.
func directClient() *fetch.Client {
	return &fetch.Client{Proxy: func(uri.URL) (*fetch.Proxy, error) { return nil, nil }}
}

// inParallel runs work(g, i) for i from 0 to each-1 on each of workers
// goroutines at once, and fails the test with the errors they return.
func inParallel(t *testing.T, workers, each int, work func(g, i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := work(g, i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// fetchText fetches url through c and returns its body, or its listing's
// entries when it is one.
func fetchText(t *testing.T, c *fetch.Client, url string) (string, []schemes.Entry, error) {
	res, err := c.Fetch(testCtx(t), url)
	if err != nil {
		return "", nil, err
	}
	if res.Listing != nil {
		es, err := drainEntries(res.Listing)
		return "", es, err
	}
	body, err := readResource(res)
	return body, nil, err
}

// drainEntries reads a listing to its end (at most maxTestEntries) and
// closes it.
func drainEntries(l schemes.Listing) ([]schemes.Entry, error) {
	defer l.Close()
	var es []schemes.Entry
	for range maxTestEntries {
		e, err := l.Next()
		if errors.Is(err, io.EOF) {
			return es, nil
		}
		if err != nil {
			return es, err
		}
		es = append(es, e)
	}
	return es, fmt.Errorf("listing longer than %d entries", maxTestEntries)
}

// parallelTree holds 100 files in ten directories, half of them two levels
// deep, each file's content its own path.
func parallelTree(mod time.Time) fstest.MapFS {
	fsys := fstest.MapFS{}
	for n := range 100 {
		p := parallelPath(n)
		fsys[p] = &fstest.MapFile{Data: []byte(p + "\n"), Mode: 0o644, ModTime: mod}
	}
	return fsys
}

// parallelPath is the path of file n of parallelTree: consecutive numbers
// lie in different directories, so that a connection walks elsewhere for
// each.
func parallelPath(n int) string {
	dir := fmt.Sprintf("par/d%d", n%10)
	if n%2 == 1 {
		dir += "/sub dir"
	}
	return fmt.Sprintf("%s/f%03d", dir, n)
}

// TestFTPParallelThroughClient fetches 100 files in ten directories, four
// goroutines at a time through one fetch.Client: the Fetcher keeps each
// control connection logged in and reuses it, so the server sees at most
// four logins, and each connection's walk (RFC 1738 §3.2.2: CWD from the
// login directory, one per segment) brings every file whole from its own
// directory. Then the ten directories are listed the same way, by MLSD and
// by LIST, and every entry carries the file's exact size and time.
func TestFTPParallelThroughClient(t *testing.T) {
	const workers, each = 4, 25
	// Recent and on a whole minute, so that "ls -l" shows it exactly.
	mod := time.Now().UTC().Add(-time.Hour).Truncate(time.Minute)
	for _, mlsd := range []bool{true, false} {
		t.Run(fmt.Sprintf("mlsd=%v", mlsd), func(t *testing.T) {
			s := ftptest.NewUnstartedServer(parallelTree(mod))
			s.Anonymous = true
			s.MLSD = mlsd
			s.Start()
			t.Cleanup(s.Close)
			c := directClient()
			defer c.Close()
			inParallel(t, workers, each, func(g, i int) error {
				p := parallelPath(g + workers*i)
				body, _, err := fetchText(t, c, s.URL+"/"+uri.EscapePath(p))
				if err != nil {
					return err
				}
				if body != p+"\n" {
					return fmt.Errorf("%s: got %q", p, body)
				}
				return nil
			})
			inParallel(t, workers, 10/workers+1, func(g, i int) error {
				d := g + workers*i
				if d >= 10 {
					return nil
				}
				dir := fmt.Sprintf("par/d%d/", d)
				if d%2 == 1 {
					dir += "sub dir/"
				}
				_, es, err := fetchText(t, c, s.URL+"/"+uri.EscapePath(dir))
				if err != nil {
					return err
				}
				files := 0
				for _, e := range es {
					if e.Kind != schemes.KindFile {
						continue
					}
					files++
					if e.Size != int64(len(dir+e.Name)+1) || !e.ModTime.Equal(mod) || e.URL != s.URL+"/"+uri.EscapePath(dir+e.Name) {
						return fmt.Errorf("%s: %s, size %d, time %v; want size %d, time %v", dir, e.URL, e.Size, e.ModTime, len(dir+e.Name)+1, mod)
					}
				}
				if files != 10 {
					return fmt.Errorf("%s: %d files listed, want 10", dir, files)
				}
				return nil
			})
			logins := 0
			for _, cmd := range s.Commands() {
				if strings.HasPrefix(cmd, "USER ") {
					logins++
				}
			}
			if logins > workers || s.Conns() > workers {
				t.Errorf("%d logins on %d connections for %d goroutines", logins, s.Conns(), workers)
			}
		})
	}
}
