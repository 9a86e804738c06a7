package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/integration/waistest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// A menu loop between two servers: each menu is fetched once, and both are
// saved as gophermaps.
func TestMirrorGopherLoopBetweenServers(t *testing.T) {
	var a, b *gophertest.Server
	var aPort, bPort atomic.Value
	muxA, muxB := gophertest.NewMux(), gophertest.NewMux()
	a, b = gophertest.NewServer(muxA), gophertest.NewServer(muxB)
	defer a.Close()
	defer b.Close()
	aPort.Store(a.Addr[strings.LastIndexByte(a.Addr, ':')+1:])
	bPort.Store(b.Addr[strings.LastIndexByte(b.Addr, ':')+1:])
	muxA.Handle("", gophertest.Menu(
		gophertest.Item{Type: '0', Display: "readme", Selector: "/readme"},
		gophertest.Item{Type: '1', Display: "to B", Selector: "", Host: "127.0.0.1", Port: bPort.Load().(string)},
		gophertest.Item{Type: '1', Display: "myself", Selector: ""},
	))
	muxA.Handle("/readme", gophertest.Text("from A\n"))
	muxB.Handle("", gophertest.Menu(
		gophertest.Item{Type: '1', Display: "back to A", Selector: "", Host: "127.0.0.1", Port: aPort.Load().(string)},
		gophertest.Item{Type: '0', Display: "notes", Selector: "/notes"},
	))
	muxB.Handle("/notes", gophertest.Text("from B\n"))
	out := t.TempDir()
	st, rec, err := run(t, Options{Dir: out, Level: -1}, a.URL+"/")
	if err != nil || st.Failed != 0 {
		t.Fatalf("run: %v %+v", err, rec.reports)
	}
	got := readTree(t, out)
	hostA, hostB := "127.0.0.1:"+aPort.Load().(string), "127.0.0.1:"+bPort.Load().(string)
	if got[hostA+"/readme"] != "from A\n" || got[hostB+"/notes"] != "from B\n" ||
		!strings.Contains(got[hostA+"/gophermap"], "to B") || !strings.Contains(got[hostB+"/gophermap"], "back to A") {
		t.Errorf("tree: %v", keys(got))
	}
	for _, s := range []*gophertest.Server{a, b} {
		menus := 0
		for _, r := range s.Requests() {
			if r.Selector == "" {
				menus++
			}
		}
		if menus != 1 {
			t.Errorf("%s: menu fetched %d times", s.URL, menus)
		}
	}
}

// A listing that never ends is cut at MaxEntries with a clear error; the
// entries taken before it are fetched whole.
func TestMirrorEndlessListing(t *testing.T) {
	var srv *gophertest.Server
	mux := gophertest.NewMux()
	srv = gophertest.NewServer(mux)
	defer srv.Close()
	// Ten million lines, written as the client reads them.
	mux.Handle("", gophertest.HandlerFunc(func(w io.Writer, r *gophertest.Request) {
		for i := range 10_000_000 {
			if _, err := fmt.Fprintf(w, "0file %d\t/f/%d\t%s\t%s\r\n", i, i, r.Host, r.Port); err != nil {
				return
			}
		}
		io.WriteString(w, ".\r\n")
	}))
	for i := range 60 {
		mux.Handle("/f/"+strconv.Itoa(i), gophertest.Text("file "+strconv.Itoa(i)+"\n"))
	}
	out := t.TempDir()
	st, rec, err := run(t, Options{Dir: out, Level: -1, MaxEntries: 50, Layout: Layout{NoHostDirs: true}}, srv.URL+"/")
	if !errors.Is(err, ErrTooManyEntries) || !errors.Is(err, schemes.ErrTooLarge) {
		t.Fatalf("err = %v, want the entry limit", err)
	}
	if !strings.Contains(err.Error(), srv.URL) {
		t.Errorf("error names no URL: %v", err)
	}
	got := readTree(t, out)
	for i := range 50 {
		if got["f/"+strconv.Itoa(i)] != "file "+strconv.Itoa(i)+"\n" {
			t.Fatalf("f/%d: %q (%d failed: %+v)", i, got["f/"+strconv.Itoa(i)], st.Failed, rec.reports)
		}
	}
	if _, ok := got["gophermap"]; ok {
		t.Errorf("a menu cut short was saved")
	}
	if len(got) != 50 {
		t.Errorf("%d files, want 50", len(got))
	}
}

// startFTP serves fsys to anonymous logins over FTP, with MLSD or with
// LIST only, until the test ends.
func startFTP(t *testing.T, fsys fstest.MapFS, mlsd bool) *ftptest.Server {
	srv := ftptest.NewServer(fsys)
	srv.Anonymous = true
	srv.MLSD = mlsd
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// A file the listing shows and the server then refuses (550) fails alone:
// the others arrive, and the run ends with that error and a count.
func TestMirrorFTPListedThenRefused(t *testing.T) {
	fsys := fstest.MapFS{
		"pub/a.txt":      {Data: []byte("a\n"), Mode: 0o644, ModTime: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)},
		"pub/locked.txt": {Data: []byte("no\n"), Mode: 0o200},
		"pub/sub/b.bin":  {Data: []byte{0, 1, 2}, Mode: 0o644, ModTime: time.Date(2025, 3, 2, 12, 0, 0, 0, time.UTC)},
	}
	srv := startFTP(t, fsys, true)
	out := t.TempDir()
	st, rec, err := run(t, Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}, srv.URL+"/pub/")
	if !errors.Is(err, schemes.ErrNotFound) && !errors.Is(err, schemes.ErrAccessDenied) {
		t.Fatalf("err = %v, want the 550", err)
	}
	if st.Failed != 1 {
		t.Errorf("%d failed, want 1: %+v", st.Failed, rec.reports)
	}
	got := readTree(t, out)
	if got["pub/a.txt"] != "a\n" || got["pub/sub/b.bin"] != "\x00\x01\x02" {
		t.Errorf("tree: %v", keys(got))
	}
	if _, ok := got["pub/locked.txt"+partSuffix]; ok {
		t.Errorf("an empty partial file was left")
	}
	fi, err := os.Stat(filepath.Join(out, "pub/a.txt"))
	if err != nil || !fi.ModTime().Equal(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("a.txt's time: %v %v", fi.ModTime(), err)
	}

	// --timestamping: nothing changed, no file is retrieved again.
	srv.ResetCommands()
	_, rec, _ = run(t, Options{Dir: out, Level: -1, Timestamping: true, Layout: Layout{NoHostDirs: true}}, srv.URL+"/pub/")
	for _, c := range srv.Commands() {
		if strings.HasPrefix(c, "RETR") && !strings.Contains(c, "locked") {
			t.Errorf("-N retrieved again: %s", c)
		}
	}
	if n := rec.count(Unchanged); n != 2 {
		t.Errorf("%d unchanged, want 2: %+v", n, rec.reports)
	}
}

// A transfer cut by a signal keeps its part; the next run asks for the
// rest only, on the entity tag the part began with (If-Range), and the
// file ends whole.
func TestMirrorResumesPartial(t *testing.T) {
	body := strings.Repeat("0123456789", 10000)
	var cut atomic.Bool
	cut.Store(true)
	var ranges atomic.Value
	ranges.Store("")
	started := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<a href="big.txt">big</a>`)
		case "/big.txt":
			w.Header().Set("ETag", `"v1"`)
			if cut.Load() {
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				io.WriteString(w, body[:40000])
				w.(http.Flusher).Flush()
				started <- struct{}{}
				<-r.Context().Done()
				return
			}
			ranges.Store(r.Header.Get("Range") + " " + r.Header.Get("If-Range"))
			http.ServeContent(w, r, "big.txt", time.Time{}, strings.NewReader(body))
		}
	}))
	defer srv.Close()
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	c := &fetch.Client{Proxy: fetch.NoProxy}
	_, err := Run(ctx, c, Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}, []uri.URL{uri.MustParse(srv.URL + "/")})
	c.Close()
	if err == nil {
		t.Fatal("the interrupted run reported success")
	}
	partFile := filepath.Join(out, StateDir, "parts", partName("big.txt"))
	part, err := os.ReadFile(partFile)
	if err != nil || string(part) != body[:len(part)] || len(part) == 0 {
		t.Fatalf("part: %d bytes, %v", len(part), err)
	}
	cut.Store(false)
	_, rec, err := run(t, Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}, srv.URL+"/")
	if err != nil {
		t.Fatalf("second run: %v %+v", err, rec.reports)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "big.txt")); string(got) != body {
		t.Errorf("big.txt: %d bytes, want %d", len(got), len(body))
	}
	if r := ranges.Load().(string); r != fmt.Sprintf(`bytes=%d- "v1"`, len(part)) {
		t.Errorf("Range and If-Range = %q, want from %d if \"v1\"", r, len(part))
	}
	if _, err := os.Stat(partFile); !os.IsNotExist(err) {
		t.Errorf("the part is still there: %v", err)
	}
}

// Names that collide once made safe: the first URL keeps the name, the
// second fails with a write error naming both, and nothing is overwritten:
// the second's bytes are kept under ConflictDir.
func TestMirrorNamesCollide(t *testing.T) {
	pages := map[string]string{
		"/":        `<a href="x">file x</a> <a href="x/">dir x</a> <a href="a%2Fb">one</a> <a href="a%252Fb">two</a>`,
		"/x":       "X",
		"/x/":      `<a href="y.txt">y</a>`,
		"/x/y.txt": "Y",
		"/a%2Fb":   "slash",
		"/a%252Fb": "percent",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.EscapedPath()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/") {
			w.Header().Set("Content-Type", "text/html")
		}
		io.WriteString(w, body)
	}))
	defer srv.Close()
	out := t.TempDir()
	st, rec, err := run(t, Options{Dir: out, Level: -1, Parallel: 1, Layout: Layout{NoHostDirs: true}}, srv.URL+"/")
	if !errors.Is(err, schemes.ErrWrite) {
		t.Fatalf("err = %v, want a write error: %+v", err, rec.reports)
	}
	if st.Failed != 2 {
		t.Errorf("%d failed, want 2: %+v", st.Failed, rec.reports)
	}
	got := readTree(t, out)
	if got["x"] != "X" || got["a%2Fb"] != "slash" {
		t.Errorf("the first URLs' files were not kept: %v", got)
	}
	if got[ConflictDir+"/1/a%2Fb"] != "percent" {
		t.Errorf("the second URL's file was lost: %v", keys(got))
	}
	for _, r := range rec.reports {
		if r.Status == Failed && !strings.Contains(r.Err.Error(), r.URL) {
			t.Errorf("error names no URL: %v", r.Err)
		}
	}
}

// --delete removes what the server no longer lists, and nothing else.
func TestMirrorDelete(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, map[string]string{"keep.txt": "k", "gone.txt": "g", "old/x.txt": "x", "sub/y.txt": "y"})
	out := t.TempDir()
	o := Options{Dir: out, Level: -1, Timestamping: true, Delete: true, Layout: Layout{NoHostDirs: true}}
	if _, rec, err := run(t, o, "file://"+src+"/"); err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	writeTree(t, out, map[string]string{"unrelated.txt": "mine"})
	os.Remove(filepath.Join(src, "gone.txt"))
	os.RemoveAll(filepath.Join(src, "old"))
	_, rec, err := run(t, o, "file://"+src+"/")
	if err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	prefix := strings.TrimPrefix(src, "/") + "/"
	got := readTree(t, out)
	if got[prefix+"keep.txt"] != "k" || got[prefix+"sub/y.txt"] != "y" || got["unrelated.txt"] != "mine" {
		t.Errorf("too much deleted: %v", keys(got))
	}
	if _, ok := got[prefix+"gone.txt"]; ok {
		t.Errorf("gone.txt kept")
	}
	if _, err := os.Stat(filepath.Join(out, prefix, "old")); !os.IsNotExist(err) {
		t.Errorf("old/ kept: %v", err)
	}
	if n := rec.count(Deleted); n != 2 {
		t.Errorf("%d deleted, want 2: %+v", n, rec.reports)
	}
}

// A WAIS search mirrors its hits, each document under the database's
// directory.
func TestMirrorWAISSearch(t *testing.T) {
	srv := waistest.NewServer(waistest.Config{Documents: []waistest.Document{
		{Name: "lighthouse.txt", Text: []byte("the lighthouse keeper\n")},
		{Name: "river.txt", Text: []byte("a river and a lighthouse\n")},
		{Name: "other.txt", Text: []byte("nothing to see\n")},
	}})
	defer srv.Close()
	out := t.TempDir()
	_, rec, err := run(t, Options{Dir: out, Level: 1, Layout: Layout{NoHostDirs: true}}, srv.URL+"?lighthouse")
	if err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	got := readTree(t, out)
	var bodies []string
	for _, v := range got {
		bodies = append(bodies, v)
	}
	sort.Strings(bodies)
	if fmt.Sprint(bodies) != fmt.Sprint([]string{"a river and a lighthouse\n", "the lighthouse keeper\n"}) {
		t.Errorf("tree %v", got)
	}
	for p := range got {
		if !strings.HasPrefix(p, "test/") {
			t.Errorf("%s is not under the database's directory", p)
		}
	}
}

// A gopher menu's h item with a URL: selector leads to another scheme's
// URL: followed when --schemes lets the run into it, and not otherwise.
// --no-parent does not hold on the other server, as wget's does not: the
// page is not below the start's selector, and is fetched.
func TestMirrorGopherURLItem(t *testing.T) {
	web, webURL := newSite(t, map[string]string{"/page.txt": "on the web\n"})
	mux := gophertest.NewMux()
	srv := gophertest.NewServer(mux)
	defer srv.Close()
	mux.Handle("/sub", gophertest.Menu(
		gophertest.Item{Type: '0', Display: "readme", Selector: "/sub/readme"},
		gophertest.Item{Type: 'h', Display: "on the web", Selector: "URL:" + webURL + "/page.txt"},
	))
	mux.Handle("/sub/readme", gophertest.Text("readme\n"))
	start := srv.URL + "/1/sub"

	out := t.TempDir()
	if _, rec, err := run(t, Options{Dir: out, Level: -1, NoParent: true}, start); err != nil {
		t.Fatalf("run: %v %+v", err, rec.reports)
	}
	web.mu.Lock()
	hits := web.hits["/page.txt"]
	web.mu.Unlock()
	if hits != 0 {
		t.Errorf("the http: URL was followed with the default schemes")
	}

	out = t.TempDir()
	st, rec, err := run(t, Options{Dir: out, Level: -1, NoParent: true, Schemes: []string{"gopher", "http"}}, start)
	if err != nil || st.Failed != 0 {
		t.Fatalf("run: %v %+v", err, rec.reports)
	}
	got := readTree(t, out)
	webHost := strings.TrimPrefix(webURL, "http://")
	// Two protocols: each has its scheme directory.
	if got["http/"+webHost+"/page.txt"] != "on the web\n" {
		t.Errorf("the h item's page was not mirrored: %v", keys(got))
	}
	if got["gopher/"+strings.TrimPrefix(srv.URL, "gopher://")+"/sub/readme"] != "readme\n" {
		t.Errorf("the menu's own file: %v", keys(got))
	}
}
