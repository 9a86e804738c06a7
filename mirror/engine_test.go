package mirror

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// writeTree creates files (slash-separated names to contents) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree returns the regular files under dir, slash-separated names to
// contents.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, StateDir+"/") && rel != ConflictDir && !strings.HasPrefix(rel, ConflictDir+"/") {
			// urlget's own record of the tree, not a copy; the
			// conflicting copies kept there are.
			if fi.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type recorder struct {
	mu      sync.Mutex
	reports []Report
}

func (r *recorder) add(rep Report) {
	r.mu.Lock()
	r.reports = append(r.reports, rep)
	r.mu.Unlock()
}

func (r *recorder) count(s Status) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rep := range r.reports {
		if rep.Status == s {
			n++
		}
	}
	return n
}

func run(t *testing.T, o Options, urls ...string) (Stats, *recorder, error) {
	t.Helper()
	rec := &recorder{}
	o.Report = rec.add
	var us []uri.URL
	for _, s := range urls {
		us = append(us, uri.MustParse(s))
	}
	c := &fetch.Client{Proxy: fetch.NoProxy}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := Run(ctx, c, o, us)
	return st, rec, err
}

func TestMirrorLocalTree(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{
		"a.txt":         "alpha\n",
		"sub/b.txt":     "beta\n",
		"sub/deep/c":    "gamma",
		"sub/deep/d.gz": "\x1f\x8b",
		"other/e.txt":   "",
	}
	writeTree(t, src, files)
	out := t.TempDir()
	o := Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true, CutDirs: 0}}
	st, rec, err := run(t, o, "file://"+src+"/")
	if err != nil {
		t.Fatalf("run: %v (%+v)", err, rec.reports)
	}
	if st.Failed != 0 {
		t.Fatalf("failed: %+v", rec.reports)
	}
	got := readTree(t, out)
	prefix := strings.TrimPrefix(src, "/") + "/"
	for name, data := range files {
		if got[prefix+name] != data {
			t.Errorf("%s: got %q, want %q (tree %v)", name, got[prefix+name], data, got)
		}
	}
	if len(got) != len(files) {
		t.Errorf("tree has %d files, want %d: %v", len(got), len(files), got)
	}

	// Again with -N: nothing changed, nothing is fetched.
	o.Timestamping = true
	_, rec2, err := run(t, o, "file://"+src+"/")
	if err != nil {
		t.Fatal(err)
	}
	if n := rec2.count(Unchanged); n != len(files) {
		t.Errorf("second run: %d unchanged, want %d: %+v", n, len(files), rec2.reports)
	}
	if n := rec2.count(Fetched); n != 4 { // the directories' listings
		t.Errorf("second run: %d fetched, want the 4 listings: %+v", n, rec2.reports)
	}
}

// site serves pages from a map, counting requests and the most that ran
// at once.
type site struct {
	pages   map[string]string
	mu      sync.Mutex
	hits    map[string]int
	now     atomic.Int32
	most    atomic.Int32
	holdFor time.Duration
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.now.Add(1)
	defer s.now.Add(-1)
	for {
		m := s.most.Load()
		if n <= m || s.most.CompareAndSwap(m, n) {
			break
		}
	}
	s.mu.Lock()
	s.hits[r.URL.RequestURI()]++
	s.mu.Unlock()
	time.Sleep(s.holdFor)
	body, ok := s.pages[r.URL.RequestURI()]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/") || strings.HasSuffix(r.URL.Path, ".html") {
		w.Header().Set("Content-Type", "text/html")
	} else {
		w.Header().Set("Content-Type", "text/plain")
	}
	fmt.Fprint(w, body)
}

func newSite(t *testing.T, pages map[string]string) (*site, string) {
	s := &site{pages: pages, hits: map[string]int{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func TestMirrorHTMLLinksLevelsAndFilters(t *testing.T) {
	pages := map[string]string{
		"/":                 `<a href="a.html">a</a> <a href="/">self</a> <a href="sub/">sub</a> <a href="x.zip">zip</a>`,
		"/a.html":           `<a href="/">top</a><img src="img.png"><a href="sub/b.txt#frag">b</a>`,
		"/img.png":          "PNG",
		"/x.zip":            "ZIP",
		"/sub/":             `<a href="b.txt">b</a><a href="../up.txt">up</a><a href="deeper/">d</a>`,
		"/sub/b.txt":        "B",
		"/up.txt":           "UP",
		"/sub/deeper/":      `<a href="z.txt">z</a>`,
		"/sub/deeper/z.txt": "Z",
	}
	s, base := newSite(t, pages)
	out := t.TempDir()
	_, rec, err := run(t, Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}, base+"/")
	if err != nil {
		t.Fatalf("run: %v %+v", err, rec.reports)
	}
	got := readTree(t, out)
	want := map[string]string{
		"index.html": pages["/"], "a.html": pages["/a.html"], "img.png": "PNG", "x.zip": "ZIP",
		"sub/index.html": pages["/sub/"], "sub/b.txt": "B", "up.txt": "UP",
		"sub/deeper/index.html": pages["/sub/deeper/"], "sub/deeper/z.txt": "Z",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("tree:\n got %v\nwant %v", got, want)
	}
	for p, n := range s.hits {
		if n != 1 {
			t.Errorf("%s fetched %d times", p, n)
		}
	}

	// --level 1, --no-parent from /sub/, -R zip, -A txt.
	out = t.TempDir()
	_, _, err = run(t, Options{Dir: out, Level: 1, NoParent: true, Layout: Layout{NoHostDirs: true}}, base+"/sub/")
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(readTree(t, out)); got != "[sub/b.txt sub/deeper/index.html sub/index.html]" {
		t.Errorf("--level 1 --no-parent: %s", got)
	}
	out = t.TempDir()
	_, _, err = run(t, Options{Dir: out, Level: -1, Reject: []string{"zip,png"}, Layout: Layout{NoHostDirs: true}}, base+"/")
	if err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, out); got["x.zip"] != "" || got["img.png"] != "" || got["up.txt"] != "UP" {
		t.Errorf("-R zip,png: %v", keys(got))
	}
	out = t.TempDir()
	_, _, err = run(t, Options{Dir: out, Level: -1, Accept: []string{"*.txt"}, Layout: Layout{NoHostDirs: true}}, base+"/")
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(readTree(t, out)); got != "[a.html index.html sub/b.txt sub/deeper/index.html sub/deeper/z.txt sub/index.html up.txt]" {
		t.Errorf("-A '*.txt': %s", got)
	}
}

func keys(m map[string]string) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return fmt.Sprint(ks)
}

func TestMirrorParallelCap(t *testing.T) {
	pages := map[string]string{"/": ""}
	var links strings.Builder
	for i := range 40 {
		fmt.Fprintf(&links, `<a href="f%d.txt">f</a>`, i)
		pages[fmt.Sprintf("/f%d.txt", i)] = fmt.Sprint(i)
	}
	pages["/"] = links.String()
	s, base := newSite(t, pages)
	s.holdFor = 20 * time.Millisecond
	out := t.TempDir()
	_, rec, err := run(t, Options{Dir: out, Level: -1, Parallel: 6, PerHost: 3, Layout: Layout{NoHostDirs: true}}, base+"/")
	if err != nil {
		t.Fatal(err)
	}
	if n := rec.count(Fetched); n != 41 {
		t.Errorf("fetched %d, want 41", n)
	}
	if m := s.most.Load(); m > 3 || m < 2 {
		t.Errorf("at most %d requests at once, want 2 or 3 (--parallel-host 3)", m)
	}
}

func TestMirrorFailuresCounted(t *testing.T) {
	pages := map[string]string{"/": `<a href="gone.txt">g</a><a href="ok.txt">o</a>`, "/ok.txt": "ok"}
	_, base := newSite(t, pages)
	out := t.TempDir()
	st, rec, err := run(t, Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}, base+"/")
	if err == nil || st.Failed != 1 {
		t.Fatalf("err %v, failed %d: %+v", err, st.Failed, rec.reports)
	}
	var se *schemes.Error
	if !asErr(err, &se) || se.Code != 404 {
		t.Errorf("first error %v, want the 404", err)
	}
	if got := readTree(t, out); got["ok.txt"] != "ok" {
		t.Errorf("ok.txt missing: %v", keys(got))
	}
}

func TestQueueSpillsInOrder(t *testing.T) {
	var q queue
	defer q.close()
	const n = 3*memQueue + 17
	next := 0
	for i := range n {
		if err := q.push(item{url: fmt.Sprintf("http://h/%d", i), depth: i % 7, size: int64(i), mod: time.Unix(int64(i), 5), path: "p\t" + fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 { // take while adding, as a run does
			it, ok, err := q.pop()
			if err != nil || !ok || it.url != fmt.Sprintf("http://h/%d", next) {
				t.Fatalf("pop %d: %v %v %+v", next, ok, err, it)
			}
			next++
		}
	}
	for ; next < n; next++ {
		it, ok, err := q.pop()
		if err != nil || !ok || it.url != fmt.Sprintf("http://h/%d", next) || it.size != int64(next) || it.depth != next%7 ||
			!it.mod.Equal(time.Unix(int64(next), 5)) || it.path != "p\t"+fmt.Sprint(next) {
			t.Fatalf("pop %d: %v %v %+v", next, ok, err, it)
		}
	}
	if _, ok, _ := q.pop(); ok {
		t.Fatal("queue not empty")
	}
	// Used again after draining.
	q.push(item{url: "x"})
	if it, ok, _ := q.pop(); !ok || it.url != "x" {
		t.Fatal("queue unusable after draining")
	}
}

// TestQueueGrowsWhileRead: items pushed while the file is being read back
// come back too. A refill that stops short of the file's end after its
// read-ahead met that end (a file of fewer than 64 KiB) leaves that end of
// file in the reader; the items pushed after it must still be read, not
// taken for a damaged file.
func TestQueueGrowsWhileRead(t *testing.T) {
	var q queue
	defer q.close()
	pushed, taken := 0, 0
	push := func(n int) {
		for range n {
			if err := q.push(item{url: fmt.Sprintf("http://h/%d", pushed)}); err != nil {
				t.Fatal(err)
			}
			pushed++
		}
	}
	take := func(n int) {
		for range n {
			it, ok, err := q.pop()
			if err != nil || !ok || it.url != fmt.Sprintf("http://h/%d", taken) {
				t.Fatalf("pop %d of %d: %v %v %+v", taken, pushed, ok, err, it)
			}
			taken++
		}
	}
	// Memory full, and a file of 2,000 short lines, under 64 KiB.
	push(memQueue + 2*refill - 48)
	// Memory taken, and one refill from the file: the reader has read
	// the whole file ahead, and met its end.
	take(memQueue + 1)
	// More items go to the file, behind the ones still there.
	push(3 * refill)
	take(pushed - taken)
	if _, ok, err := q.pop(); ok || err != nil {
		t.Fatalf("queue not empty: %v %v", ok, err)
	}
}

func TestURLSet(t *testing.T) {
	s := newURLSet()
	for i := range 100000 {
		if !s.add(fmt.Sprint("u", i)) {
			t.Fatalf("%d reported seen", i)
		}
	}
	for i := range 100000 {
		if s.add(fmt.Sprint("u", i)) || !s.has(fmt.Sprint("u", i)) {
			t.Fatalf("%d not seen", i)
		}
	}
	if s.has("v1") || s.len() != 100000 {
		t.Fatal("wrong contents")
	}
	if b := len(s.slots) * 8; b > 100000*22 {
		t.Errorf("%d bytes for 100000 URLs", b)
	}
}

func asErr(err error, target **schemes.Error) bool { return errors.As(err, target) }
func TestMirrorRobots(t *testing.T) {
	pages := map[string]string{
		"/robots.txt":    "User-agent: *\nDisallow: /private/\n",
		"/":              `<a href="private/x.txt">x</a><a href="pub.txt">p</a>`,
		"/private/x.txt": "secret",
		"/pub.txt":       "pub",
	}
	s, base := newSite(t, pages)
	out := t.TempDir()
	_, rec, err := run(t, Options{Dir: out, Level: -1, Robots: true, Layout: Layout{NoHostDirs: true}}, base+"/")
	if err != nil {
		t.Fatal(err)
	}
	if s.hits["/private/x.txt"] != 0 {
		t.Errorf("robots.txt ignored")
	}
	if rec.count(Skipped) != 1 {
		t.Errorf("want one skipped report: %+v", rec.reports)
	}
}

func TestMirrorConvertLinks(t *testing.T) {
	pages := map[string]string{
		"/":          `<a href="sub/">sub</a> <a href="/sub/b.txt">b</a> <a href="nowhere.txt">n</a>`,
		"/sub/":      `<a href="../">up</a> <a href="b.txt#top">b</a>`,
		"/sub/b.txt": "B",
	}
	_, base := newSite(t, pages)
	out := t.TempDir()
	_, rec, err := run(t, Options{Dir: out, Level: -1, ConvertLinks: true, Layout: Layout{NoHostDirs: true}}, base+"/")
	if err == nil {
		t.Fatalf("the missing page did not fail the run: %+v", rec.reports)
	}
	got := readTree(t, out)
	if want := `<a href="sub/index.html">sub</a> <a href="sub/b.txt">b</a> <a href="` + base + `/nowhere.txt">n</a>`; got["index.html"] != want {
		t.Errorf("index.html:\n got %s\nwant %s", got["index.html"], want)
	}
	if want := `<a href="../index.html">up</a> <a href="b.txt#top">b</a>`; got["sub/index.html"] != want {
		t.Errorf("sub/index.html:\n got %s\nwant %s", got["sub/index.html"], want)
	}
}

// Over http --delete removes, after a run in which nothing failed, the
// files no page of the run linked to; a directory's URL and its
// index.html, which the server answers with the same bytes, are one page,
// not a collision.
func TestMirrorDeleteHTTP(t *testing.T) {
	pages := map[string]string{
		"/":           `<a href="a.txt">a</a> <a href="b.txt">b</a> <a href="index.html">again</a> <a href="d/">d</a>`,
		"/a.txt":      "A",
		"/b.txt":      "B",
		"/d/":         `<a href="c.txt">c</a>`,
		"/d/c.txt":    "C",
		"/robots.txt": "User-agent: *\nDisallow: /secret\n",
		"/secret.txt": "S",
	}
	pages["/"] += ` <a href="secret.txt">s</a>`
	pages["/index.html"] = pages["/"]
	_, base := newSite(t, pages)
	out := t.TempDir()
	o := Options{Dir: out, Level: -1, Timestamping: true, Delete: true, Robots: true, Layout: Layout{NoHostDirs: true}}
	_, rec, err := run(t, o, base+"/")
	if err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	if n := rec.count(Skipped); n != 2 {
		t.Errorf("%d skipped, want index.html and secret.txt: %+v", n, rec.reports)
	}
	writeTree(t, out, map[string]string{"secret.txt": "kept from before"})
	delete(pages, "/b.txt")
	delete(pages, "/d/c.txt")
	pages["/"] = strings.Replace(pages["/"], `<a href="b.txt">b</a>`, "", 1)
	pages["/index.html"] = pages["/"]
	pages["/d/"] = ""
	_, rec, err = run(t, o, base+"/")
	if err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	if got := keys(readTree(t, out)); got != "[a.txt d/index.html index.html secret.txt]" {
		t.Errorf("after --delete: %s", got)
	}
	if n := rec.count(Deleted); n != 2 {
		t.Errorf("%d deleted, want b.txt and d/c.txt: %+v", n, rec.reports)
	}
}

func TestMirrorRegexDomainsAndWait(t *testing.T) {
	var mu sync.Mutex
	var times []time.Time
	pages := map[string]string{
		"/":           `<a href="keep/a.txt">a</a> <a href="drop/b.txt">b</a> <a href="http://other.invalid/x">x</a> <a href="c.txt">c</a>`,
		"/keep/a.txt": "A",
		"/drop/b.txt": "B",
		"/c.txt":      "C",
	}
	_, base := newSite(t, pages)
	// localhost is another host than 127.0.0.1 to the recursion.
	pages["/"] += ` <a href="` + strings.Replace(base, "127.0.0.1", "localhost", 1) + `/span.txt">s</a>`
	pages["/span.txt"] = "S"
	out := t.TempDir()
	_, rec, err := run(t, Options{Dir: out, Level: -1, RejectRegex: regexp.MustCompile(`/drop/`), SpanHosts: true, Domains: []string{"localhost", "example.org"},
		Layout: Layout{NoHostDirs: true}}, base+"/")
	if err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	if got := keys(readTree(t, out)); got != "[c.txt index.html keep/a.txt span.txt]" {
		t.Errorf("--reject-regex /drop/ --span-hosts --domains localhost,example.org: %s", got)
	}
	out = t.TempDir()
	if _, _, err = run(t, Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}, base+"/"); err != nil {
		t.Fatal(err)
	}
	if got := keys(readTree(t, out)); got != "[c.txt drop/b.txt index.html keep/a.txt]" {
		t.Errorf("without --span-hosts: %s", got)
	}
	out = t.TempDir()
	_, _, err = run(t, Options{Dir: out, Level: -1, AcceptRegex: regexp.MustCompile(`(/|/keep/.*)$`), Layout: Layout{NoHostDirs: true}}, base+"/")
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(readTree(t, out)); got != "[index.html keep/a.txt]" {
		t.Errorf("--accept-regex: %s", got)
	}

	// --wait spaces the requests to one server, even with many workers.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<a href="1">1</a><a href="2">2</a><a href="3">3</a><a href="4">4</a>`)
		}
	}))
	defer srv.Close()
	const wait = 60 * time.Millisecond
	out = t.TempDir()
	start := time.Now()
	if _, rec, err := run(t, Options{Dir: out, Level: -1, Wait: wait, Parallel: 4, Layout: Layout{NoHostDirs: true}}, srv.URL+"/"); err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(times) != 5 {
		t.Fatalf("%d requests, want 5", len(times))
	}
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	// The gap between two arrivals says nothing: a loaded machine may
	// hand one request to the server late and the next on time. What
	// --wait promises is where each request may leave at the earliest:
	// the page no sooner than the run's start, its links one --wait
	// after the page's answer and one more each, so the k-th arrival
	// is at least k waits after the start and k-1 after the page.
	for k := 1; k < len(times); k++ {
		if since := times[k].Sub(start); since < time.Duration(k)*wait {
			t.Errorf("request %d %v after the start, want at least %d × --wait's %v", k+1, since, k, wait)
		}
		if since := times[k].Sub(times[0]); since < time.Duration(k-1)*wait {
			t.Errorf("request %d %v after the page, want at least %d × --wait's %v", k+1, since, k-1, wait)
		}
	}
}

func TestRedirected(t *testing.T) {
	u := uri.MustParse("http://alice:secret@h:8080/a/b")
	for _, c := range []struct{ masked, want string }{
		{"http://alice:****@h:8080/a/b/", "http://alice:secret@h:8080/a/b/"},
		{"http://alice:****@h:8080/c?x=1", "http://alice:secret@h:8080/c?x=1"},
		{"http://alice:****@other/c", "http://other/c"},
		{"http://h:8080/d", "http://h:8080/d"},
	} {
		got, ok := redirected(u, c.masked)
		if !ok || got.String() != c.want {
			t.Errorf("%s: got %s %v, want %s", c.masked, got, ok, c.want)
		}
	}
}

// A robots.txt that fails with 5xx keeps the walk out; one that is not
// there (404, as newSite answers) lets it in (RFC 9309 §2.3.1).
func TestMirrorRobotsUnreachable(t *testing.T) {
	var child atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<a href="x.txt">x</a>`)
		default:
			child.Add(1)
		}
	}))
	defer srv.Close()
	_, rec, err := run(t, Options{Dir: t.TempDir(), Level: -1, Robots: true}, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if child.Load() != 0 || rec.count(Skipped) != 1 {
		t.Errorf("robots.txt answered 503: %d fetched, %+v", child.Load(), rec.reports)
	}
	_, base := newSite(t, map[string]string{"/": `<a href="x.txt">x</a>`, "/x.txt": "X"})
	_, rec, err = run(t, Options{Dir: t.TempDir(), Level: -1, Robots: true}, base+"/")
	if err != nil || rec.count(Fetched) != 2 {
		t.Errorf("robots.txt absent: %v %+v", err, rec.reports)
	}
}

// TestBatchSize: a worker's batch is the queue shared among the workers
// (counting the item it took), so that a few links keep every worker
// busy, and never more than batchMax.
func TestBatchSize(t *testing.T) {
	for _, c := range []struct{ queued, parallel, want int }{
		{0, 4, 1}, {3, 4, 1}, {4, 4, 2}, {39, 4, 10}, {39, 6, 7}, {1000, 4, batchMax}, {10, 1, 11},
	} {
		e := &engine{o: Options{Parallel: c.parallel}}
		for i := range c.queued {
			if err := e.q.push(item{url: fmt.Sprintf("http://h/f%d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		if got := e.batchSize(); got != c.want {
			t.Errorf("%d queued, %d workers: batches of %d, want %d", c.queued, c.parallel, got, c.want)
		}
		e.q.close()
	}
}
