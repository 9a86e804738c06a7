package mirror

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/uri"
)

// hostileTree is a server's tree with a secret outside the directory a
// mirror is asked for.
func hostileTree() fstest.MapFS {
	t := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	return fstest.MapFS{
		"pub/a.txt":      {Data: []byte("a\n"), Mode: 0o644, ModTime: t},
		"pub/sub/b.txt":  {Data: []byte("b\n"), Mode: 0o644, ModTime: t},
		"etc/passwd":     {Data: []byte("root:x:0:0\n"), Mode: 0o644, ModTime: t},
		"secret/key.pem": {Data: []byte("KEY\n"), Mode: 0o644, ModTime: t},
	}
}

// checkStayedBelow fails the test when the server was asked for anything
// outside /pub, or the local tree holds anything but pub's files.
func checkStayedBelow(t *testing.T, cmds []string, out string) {
	t.Helper()
	for _, c := range cmds {
		if strings.Contains(c, "..") || strings.Contains(c, "etc") || strings.Contains(c, "secret") || strings.Contains(c, "passwd") {
			t.Errorf("the walk left the directory: %q", c)
		}
	}
	got := readTree(t, out)
	for k, v := range got {
		if strings.Contains(v, "root:") || strings.Contains(v, "KEY") {
			t.Errorf("%s holds a file from outside the start directory", k)
		}
	}
	if got["pub/a.txt"] != "a\n" || got["pub/sub/b.txt"] != "b\n" {
		t.Errorf("tree: %v", keys(got))
	}
}

// An MLSD listing whose entries are named "..", ".", "../../etc",
// "a/../../b" and "sub/../../secret", typed as directories and files, is
// not walked out of the start directory, with --no-parent and without.
func TestMirrorFTPHostileMLSDNames(t *testing.T) {
	for _, noParent := range []bool{true, false} {
		srv := startFTP(t, hostileTree(), true)
		srv.ListExtra = map[string][]string{
			"MLSD /pub": {
				"type=dir;modify=20250301120000; ..",
				"type=dir;modify=20250301120000; .",
				"type=dir;modify=20250301120000; ../../etc",
				"type=dir;modify=20250301120000; ../secret",
				"type=file;size=11;modify=20250301120000; a/../../etc/passwd",
				"type=file;size=11;modify=20250301120000; sub/../../etc/passwd",
				"type=file;size=11;modify=20250301120000; /etc/passwd",
				"type=file;size=1;modify=20250301120000; ",
				"type=file;size=11;modify=20250301120000; x\x00/../../etc/passwd",
			},
			"MLSD /pub/sub": {"type=dir;modify=20250301120000; ..", "type=dir;modify=20250301120000; ../../secret"},
		}
		out := t.TempDir()
		_, rec, err := run(t, Options{Dir: out, Level: -1, NoParent: noParent, Layout: Layout{NoHostDirs: true}}, srv.URL+"/pub/")
		if err != nil {
			t.Fatalf("no-parent %v: run: %v %+v", noParent, err, rec.reports)
		}
		checkStayedBelow(t, srv.Commands(), out)
	}
}

// The same names in a LIST listing (unix format) are not walked either.
func TestMirrorFTPHostileLISTNames(t *testing.T) {
	srv := startFTP(t, hostileTree(), false)
	srv.ListExtra = map[string][]string{
		"LIST /pub": {
			"drwxr-xr-x 2 ftp ftp 4096 Mar 01 2025 ..",
			"drwxr-xr-x 2 ftp ftp 4096 Mar 01 2025 ../../etc",
			"drwxr-xr-x 2 ftp ftp 4096 Mar 01 2025 ../secret",
			"-rw-r--r-- 1 ftp ftp   11 Mar 01 2025 a/../../etc/passwd",
			"-rw-r--r-- 1 ftp ftp   11 Mar 01 2025 /etc/passwd",
		},
	}
	out := t.TempDir()
	_, rec, err := run(t, Options{Dir: out, Level: -1, NoParent: true, Layout: Layout{NoHostDirs: true}}, srv.URL+"/pub/")
	if err != nil {
		t.Fatalf("run: %v %+v", err, rec.reports)
	}
	checkStayedBelow(t, srv.Commands(), out)
}

// Whatever a fetcher made of a listing's names, the walk takes only
// entries below the listed directory: the check does not trust the
// scheme's own filtering.
func TestEntryBelow(t *testing.T) {
	dir := uri.MustParse("ftp://h/pub/")
	for s, want := range map[string]bool{
		"ftp://h/pub/a.txt":                 true,
		"ftp://h/pub/sub/":                  true,
		"ftp://h/pub/a%20b;type=i":          true,
		"ftp://h/pub/../":                   false,
		"ftp://h/pub/%2E%2E/":               false,
		"ftp://h/pub/./":                    false,
		"ftp://h/pub/../../etc/":            false,
		"ftp://h/pub/a/../../b":             false,
		"ftp://h/pub/a/../b":                false,
		"ftp://h/pub/a%2F..%2F..%2Fetc/":    false,
		"ftp://h/pub/x%00y":                 false,
		"ftp://h/pub/x%0D%0ADELE%20y":       false,
		"ftp://h/pub/":                      false,
		"ftp://h/etc/passwd":                false,
		"ftp://other/pub/a.txt":             false,
		"ftp://h:2121/pub/a.txt":            false,
		"file:///pub/a.txt":                 false,
		"ftp://h/pub/%252E%252E/":           true, // a name "%2E%2E", literally
		"ftp://h/pub/caf%C3%A9%3Fx%231.txt": true,
	} {
		if got := entryBelow(dir, uri.MustParse(s)); got != want {
			t.Errorf("entryBelow(%s) = %v, want %v", s, got, want)
		}
	}
	f := uri.MustParse("file:///srv/pub/")
	if entryBelow(f, uri.MustParse("file:///srv/pub/%2E%2E/")) || !entryBelow(f, uri.MustParse("file:///srv/pub/a")) {
		t.Errorf("file: entries")
	}
}

// --no-parent compares the resolved URL (RFC 3986 §5.2.4): an HTML link
// to "/pub/%2E%2E/etc/passwd" or "/pub/sub/../../etc/passwd", and a gopher
// menu's "/pub/../etc/passwd", do not lead above /pub/.
func TestNoParentResolvesDotSegments(t *testing.T) {
	sp := startOf(uri.MustParse("http://h/pub/"))
	for _, s := range []string{
		"http://h/pub/%2E%2E/etc/passwd",
		"http://h/pub/sub/../../etc/passwd",
		"http://h/pub/./../etc/",
		"http://h/pub/%2e%2e/",
	} {
		if sp.under(uri.MustParse(s)) {
			t.Errorf("%s counted as below /pub/", s)
		}
	}
	for _, s := range []string{"http://h/pub/a/../b.txt", "http://h/pub/./x"} {
		if !sp.under(uri.MustParse(s)) {
			t.Errorf("%s counted as outside /pub/", s)
		}
	}
	gp := startOf(uri.MustParse("gopher://h/1/pub/"))
	if gp.under(uri.MustParse("gopher://h/0/pub/../etc/passwd")) {
		t.Errorf("a gopher selector with .. counted as below /pub/")
	}
	fp := startOf(uri.MustParse("ftp://h/pub/"))
	if fp.under(uri.MustParse("ftp://h/pub/%2E%2E/etc/passwd")) {
		t.Errorf("an ftp path with %%2E%%2E counted as below /pub/")
	}
}

// A gopher menu that links to "/pub/../secret" on its own server is not
// followed under --no-parent.
func TestMirrorGopherNoParentDotSegments(t *testing.T) {
	mux := gophertest.NewMux()
	srv := gophertest.NewServer(mux)
	defer srv.Close()
	mux.Handle("/pub/", gophertest.Menu(
		gophertest.Item{Type: '0', Display: "a", Selector: "/pub/a.txt"},
		gophertest.Item{Type: '0', Display: "up", Selector: "/pub/../secret/key.pem"},
		gophertest.Item{Type: '1', Display: "up menu", Selector: "/pub/sub/../../secret/"},
	))
	mux.Handle("/pub/a.txt", gophertest.Text("a\n"))
	mux.Handle("/pub/../secret/key.pem", gophertest.Text("KEY\n"))
	mux.Handle("/secret/key.pem", gophertest.Text("KEY\n"))
	out := t.TempDir()
	_, rec, err := run(t, Options{Dir: out, Level: -1, NoParent: true, Layout: Layout{NoHostDirs: true}}, srv.URL+"/1/pub/")
	if err != nil {
		t.Fatalf("run: %v %+v", err, rec.reports)
	}
	for _, r := range srv.Requests() {
		if strings.Contains(r.Selector, "secret") {
			t.Errorf("asked for %q", r.Selector)
		}
	}
	got := readTree(t, out)
	if got["pub/a.txt"] != "a\n" {
		t.Errorf("tree: %v", keys(got))
	}
}

// Empty remote directories are made locally, over FTP (MLSD and LIST)
// and file:, nested ones too; a directory's name that a local file of
// the tree already holds is reported, and the file is not touched.
func TestMirrorEmptyDirs(t *testing.T) {
	tm := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	fsys := fstest.MapFS{
		"pub/a.txt":        {Data: []byte("a\n"), Mode: 0o644, ModTime: tm},
		"pub/empty":        {Mode: fs.ModeDir | 0o755, ModTime: tm},
		"pub/outer/inner":  {Mode: fs.ModeDir | 0o755, ModTime: tm},
		"pub/only-dirs/x/": {Mode: fs.ModeDir | 0o755, ModTime: tm},
	}
	for _, mlsd := range []bool{true, false} {
		srv := startFTP(t, fsys, mlsd)
		out := t.TempDir()
		_, rec, err := run(t, Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}, srv.URL+"/pub/")
		if err != nil {
			t.Fatalf("mlsd %v: %v %+v", mlsd, err, rec.reports)
		}
		for _, d := range []string{"pub/empty", "pub/outer/inner", "pub/only-dirs/x"} {
			if fi, err := os.Stat(filepath.Join(out, d)); err != nil || !fi.IsDir() {
				t.Errorf("mlsd %v: %s not made: %v", mlsd, d, err)
			}
		}
	}

	src := t.TempDir()
	for _, d := range []string{"e1", "e2/e3"} {
		if err := os.MkdirAll(filepath.Join(src, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	o := Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true, CutDirs: strings.Count(src, "/")}}
	if _, rec, err := run(t, o, "file://"+src+"/"); err != nil {
		t.Fatalf("file: %v %+v", err, rec.reports)
	}
	for _, d := range []string{"e1", "e2/e3"} {
		if fi, err := os.Stat(filepath.Join(out, d)); err != nil || !fi.IsDir() {
			t.Errorf("file: %s not made: %v", d, err)
		}
	}

	// A file of the user's where a remote empty directory goes: a
	// reported failure, the file left as it was.
	out = t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "e1"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Dir = out
	_, rec, err := run(t, o, "file://"+src+"/")
	if err == nil || rec.count(Failed) != 1 {
		t.Errorf("a file in the way: %v %+v", err, rec.reports)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "e1")); string(b) != "mine" {
		t.Errorf("the file in the way became %q", b)
	}
}

// An http server's empty directory listing (an autoindex page) is saved
// as the directory's index.html, and so makes the directory.
func TestMirrorEmptyDirHTTP(t *testing.T) {
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "empty", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(src)))
	defer srv.Close()
	out := t.TempDir()
	if _, rec, err := run(t, Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}, srv.URL+"/"); err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	if fi, err := os.Stat(filepath.Join(out, "empty", "deeper")); err != nil || !fi.IsDir() {
		t.Errorf("empty/deeper not made: %v", err)
	}
}
