package integration

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/gophertest"
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

// TestClientConcurrentSchemes fetches file:, http:, ftp:, gopher: and
// nntp: URLs, bodies and listings, from eight goroutines at once through
// one fetch.Client, so that the race detector sees every fetcher's pool
// and the Client's own state shared: each fetch must bring exactly what
// it names.
func TestClientConcurrentSchemes(t *testing.T) {
	const workers, each = 8, 20
	mod := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "local.txt"), []byte("local file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "http "+r.URL.Path+"\n")
	}))
	t.Cleanup(hs.Close)
	fs := ftptest.NewUnstartedServer(parallelTree(mod))
	fs.Anonymous, fs.MLSD = true, true
	fs.Start()
	t.Cleanup(fs.Close)
	mux := gophertest.NewMux()
	mux.Handle("/text", gophertest.Text("gopher text\n"))
	mux.Handle("/menu", gophertest.Menu(gophertest.Item{Type: '0', Display: "Text", Selector: "/text"}))
	gs := gopherServer(t, mux)
	ns := newNewsServer(t, newsConfig())

	c := directClient()
	defer c.Close()
	type job struct {
		url     string
		body    string // the body wanted, or
		entries int    // the number of entries a listing must have
	}
	jobs := []job{
		{url: "file://" + filepath.ToSlash(dir) + "/local.txt", body: "local file\n"},
		{url: "file://" + filepath.ToSlash(dir) + "/", entries: 1},
		{url: hs.URL + "/x", body: "http /x\n"},
		{url: fs.URL + "/" + uri.EscapePath(parallelPath(3)), body: parallelPath(3) + "\n"},
		{url: fs.URL + "/par/d2/", entries: 10},
		{url: gs.URL + "/0/text", body: "gopher text\n"},
		{url: gs.URL + "/1/menu", entries: 1},
		{url: ns.URL + "/test.urlget/11", body: ""},
		{url: ns.URL + "/test.urlget", entries: 3},
	}
	inParallel(t, workers, each, func(g, i int) error {
		j := jobs[(g+i)%len(jobs)]
		body, es, err := fetchText(t, c, j.url)
		switch {
		case err != nil:
			return err
		case j.entries > 0 && len(es) != j.entries:
			return fmt.Errorf("%s: %d entries, want %d", j.url, len(es), j.entries)
		case j.entries == 0 && j.body != "" && body != j.body:
			return fmt.Errorf("%s: got %q", j.url, body)
		case j.entries == 0 && j.body == "" && !strings.HasSuffix(body, "\n\nsecond body\n"):
			return fmt.Errorf("%s: got %q", j.url, body)
		}
		return nil
	})
	if n := ns.Connections(); n > workers {
		t.Errorf("%d NNTP connections for %d goroutines", n, workers)
	}
}
