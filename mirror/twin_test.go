package mirror

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"testing"

	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/schemes"
)

// A server that serves the empty selector and "/" as one menu, as
// gophernicus does, and links to both: the two URLs map to one gophermap,
// and since the same bytes arrive it is one resource, saved once, not a
// failure. The second run (--timestamping) is the same.
func TestMirrorGopherRootTwins(t *testing.T) {
	mux := gophertest.NewMux()
	srv := gophertest.NewServer(mux)
	defer srv.Close()
	menu := gophertest.Menu(
		gophertest.Item{Type: '1', Display: "home", Selector: "/"},
		gophertest.Item{Type: '1', Display: "top", Selector: ""},
		gophertest.Item{Type: '0', Display: "readme", Selector: "/readme.txt"},
	)
	mux.Handle("", menu)
	mux.Handle("/", menu)
	mux.Handle("/readme.txt", gophertest.Text("hello\n"))
	out := t.TempDir()
	for _, o := range []Options{{Dir: out, Level: -1}, {Dir: out, Level: -1, Timestamping: true}} {
		st, rec, err := run(t, o, srv.URL+"/")
		if err != nil || st.Failed != 0 {
			t.Fatalf("-N %v: %v %+v", o.Timestamping, err, rec.reports)
		}
		reasons := rec.reasons()
		if !strings.Contains(reasons[srv.URL+"/1/"], "the same resource as "+srv.URL+"/") {
			t.Errorf("the twin was not reported as one resource: %v", reasons)
		}
	}
	got := readTree(t, out)
	host := strings.TrimPrefix(srv.URL, "gopher://")
	if got[host+"/readme.txt"] != "hello\n" || !strings.Contains(got[host+"/gophermap"], "readme") {
		t.Errorf("tree: %v", keys(got))
	}
	for k := range got {
		if strings.HasPrefix(k, ".urlget/conflicts") {
			t.Errorf("a conflict copy was kept: %s", k)
		}
	}
}

// The same two URLs with different menus: a conflict, reported naming
// both URLs, the first menu kept under the name and the second under
// ConflictDir, neither written over the other.
func TestMirrorGopherTwinsDiffer(t *testing.T) {
	mux := gophertest.NewMux()
	srv := gophertest.NewServer(mux)
	defer srv.Close()
	mux.Handle("", gophertest.Menu(
		gophertest.Item{Type: '1', Display: "other", Selector: "/"},
		gophertest.Item{Type: '0', Display: "first", Selector: "/first.txt"},
	))
	mux.Handle("/", gophertest.Menu(gophertest.Item{Type: '0', Display: "second", Selector: "/second.txt"}))
	mux.Handle("/first.txt", gophertest.Text("1\n"))
	mux.Handle("/second.txt", gophertest.Text("2\n"))
	out := t.TempDir()
	st, rec, err := run(t, Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}, srv.URL+"/")
	if !errors.Is(err, ErrConflict) || !errors.Is(err, schemes.ErrWrite) {
		t.Fatalf("err = %v, want a conflict: %+v", err, rec.reports)
	}
	if st.Failed != 1 {
		t.Errorf("%d failed, want 1", st.Failed)
	}
	if msg := err.Error(); !strings.Contains(msg, srv.URL+"/1/") || !strings.Contains(msg, srv.URL+"/ ") {
		t.Errorf("the error does not name both URLs: %s", msg)
	}
	got := readTree(t, out)
	kept := path.Join(ConflictDir, "1", "gophermap")
	if !strings.Contains(got["gophermap"], "first") || !strings.Contains(got[kept], "second") {
		t.Errorf("a copy was lost: %v", keys(got))
	}
	// Neither menu's links are lost either.
	if got["first.txt"] != "1\n" || got["second.txt"] != "2\n" {
		t.Errorf("tree: %v", keys(got))
	}
}

// A URL that redirects to one already saved under its own name is that
// resource: skipped, not a collision. Two URLs whose bodies are the same
// for one name are one; two whose bodies differ keep both.
func TestMirrorHTTPTwins(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.EscapedPath() {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<a href="new.txt">n</a> <a href="old.txt">o</a> <a href="same%3Fx">s1</a> <a href="same?x">s2</a>`)
		case "/old.txt":
			http.Redirect(w, r, "/new.txt", http.StatusMovedPermanently)
		case "/new.txt":
			io.WriteString(w, "new\n")
		case "/same%3Fx", "/same":
			io.WriteString(w, "same\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	out := t.TempDir()
	st, rec, err := run(t, Options{Dir: out, Level: -1, Parallel: 1, Layout: Layout{NoHostDirs: true}}, srv.URL+"/")
	if err != nil || st.Failed != 0 {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	reasons := rec.reasons()
	if !strings.Contains(reasons[srv.URL+"/old.txt"], "redirected to "+srv.URL+"/new.txt") {
		t.Errorf("the redirect was not taken as one resource: %v", reasons)
	}
	if !strings.Contains(reasons[srv.URL+"/same?x"], "the same resource as "+srv.URL+"/same%3Fx") {
		t.Errorf("the same bytes were not taken as one resource: %v", reasons)
	}
	got := readTree(t, out)
	if got["new.txt"] != "new\n" || got["same?x"] != "same\n" {
		t.Errorf("tree: %v", keys(got))
	}
}

// A menu that spells one name many ways ("/a", "//a", "///a", …, all the
// local name "a") gets at most maxTwins of them fetched and compared; the
// rest are collisions, reported and not fetched.
func TestMirrorTwinsBounded(t *testing.T) {
	defer func(n int) { maxTwins = n }(maxTwins)
	maxTwins = 3
	mux := gophertest.NewMux()
	srv := gophertest.NewServer(mux)
	defer srv.Close()
	var items []gophertest.Item
	for i := 1; i <= 8; i++ {
		sel := strings.Repeat("/", i) + "a"
		items = append(items, gophertest.Item{Type: '0', Display: sel, Selector: sel})
		mux.Handle(sel, gophertest.Text("same\n"))
	}
	mux.Handle("", gophertest.Menu(items...))
	out := t.TempDir()
	st, rec, err := run(t, Options{Dir: out, Level: -1, Parallel: 1, Layout: Layout{NoHostDirs: true}}, srv.URL+"/")
	if !errors.Is(err, ErrCollided) {
		t.Fatalf("err = %v, want a collision: %+v", err, rec.reports)
	}
	if st.Failed != 4 {
		t.Errorf("%d failed, want the 4 past the bound: %+v", st.Failed, rec.reports)
	}
	fetched := 0
	for _, r := range srv.Requests() {
		if strings.HasSuffix(r.Selector, "a") {
			fetched++
		}
	}
	if fetched != 4 {
		t.Errorf("%d fetched, want the first and 3 twins", fetched)
	}
	if got := readTree(t, out); got["a"] != "same\n" {
		t.Errorf("tree: %v", keys(got))
	}
}

// A directory's URL and its index.html are one local name: one page when
// the server sends the same bytes for both, and a conflict that keeps both
// when it does not (a server can answer them differently; wget keeps
// the first and drops the second unseen).
func TestMirrorIndexTwins(t *testing.T) {
	for _, same := range []bool{true, false} {
		pages := map[string]string{
			"/":   `<a href="d/">d</a> <a href="d/index.html">again</a>`,
			"/d/": "the directory\n",
		}
		pages["/d/index.html"] = pages["/d/"]
		if !same {
			pages["/d/index.html"] = "a page of its own\n"
		}
		_, base := newSite(t, pages)
		out := t.TempDir()
		st, rec, err := run(t, Options{Dir: out, Level: -1, Parallel: 1, Layout: Layout{NoHostDirs: true}}, base+"/")
		got := readTree(t, out)
		if same {
			if err != nil || st.Failed != 0 || rec.count(Skipped) != 1 {
				t.Errorf("same bytes: %v %+v", err, rec.reports)
			}
			continue
		}
		if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), base+"/d/ ") || !strings.Contains(err.Error(), base+"/d/index.html") {
			t.Errorf("different bytes: err = %v", err)
		}
		if got["d/index.html"] != "the directory\n" || got[ConflictDir+"/1/d/index.html"] != "a page of its own\n" {
			t.Errorf("different bytes: a copy was lost: %v", got)
		}
	}
}

// The links of a twin page whose bytes differ are followed too: what it
// links to is not lost with it.
func TestMirrorTwinPageLinks(t *testing.T) {
	pages := map[string]string{
		"/":             `<a href="d/">d</a> <a href="d/index.html">again</a>`,
		"/d/":           `<a href="one.txt">1</a>`,
		"/d/index.html": `<a href="two.txt">2</a>`,
		"/d/one.txt":    "1",
		"/d/two.txt":    "2",
	}
	_, base := newSite(t, pages)
	out := t.TempDir()
	_, rec, err := run(t, Options{Dir: out, Level: -1, Parallel: 1, Layout: Layout{NoHostDirs: true}}, base+"/")
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("err = %v, want the conflict: %+v", err, rec.reports)
	}
	if got := readTree(t, out); got["d/one.txt"] != "1" || got["d/two.txt"] != "2" {
		t.Errorf("tree: %v", keys(got))
	}
}
