package mirror

import (
	"bytes"
	"context"
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
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/uri"
)

// The manifest is read as hostile input: whoever could write it could
// try to have --delete remove files outside the tree, through links, or
// urlget's own state. These tests tamper with it as such a writer would.

// manifestSetup mirrors a local directory (file:) into out, the output
// directory inside a parent of its own, with --mirror --delete, and
// returns the source, out, the options and the start URL.
func manifestSetup(t *testing.T, files map[string]string) (src, out string, o Options, start string) {
	t.Helper()
	src = t.TempDir()
	writeTree(t, src, files)
	out = filepath.Join(t.TempDir(), "out")
	cut := len(strings.Split(strings.Trim(src, "/"), "/"))
	o = Options{Dir: out, Level: -1, Timestamping: true, Delete: true, Layout: Layout{NoHostDirs: true, CutDirs: cut}}
	start = "file://" + src + "/"
	if _, rec, err := run(t, o, start); err != nil {
		t.Fatalf("first run: %v %+v", err, rec.reports)
	}
	if _, err := os.Stat(filepath.Join(out, "a.txt")); err != nil {
		t.Fatalf("the layout put the copy elsewhere: %v", err)
	}
	return src, out, o, start
}

// reports returns the paths of one status, with their reasons.
func (r *recorder) paths(s Status) map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := map[string]string{}
	for _, rep := range r.reports {
		if rep.Status == s {
			m[rep.Path] = rep.Reason
		}
	}
	return m
}

// forged returns a manifest line for rel as it is on disk now, as a
// writer who knows the format would make it.
func forged(t *testing.T, out, rel, scope string) string {
	t.Helper()
	fi, err := os.Lstat(filepath.Join(out, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return newRecord(fi, rel, "file:///x/"+rel, scope, "", fi.ModTime()).line()
}

func appendFile(t *testing.T, name, text string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// Entries with "..", absolute paths, the state directory's own files, or
// written twice are ignored; the honest entries still work.
func TestManifestTampered(t *testing.T) {
	src, out, o, start := manifestSetup(t, map[string]string{"a.txt": "a", "b.txt": "b", "keep.txt": "k"})
	victim := filepath.Join(filepath.Dir(out), "victim")
	os.WriteFile(victim, []byte("outside"), 0o644)
	scope := "file://" + src + "/"
	mf := filepath.Join(out, StateDir, manifestName)
	fi, _ := os.Lstat(victim)
	evil := newRecord(fi, "../victim", "file:///x/victim", scope, "", fi.ModTime()).line()
	abs := newRecord(fi, victim, "file:///x/victim", scope, "", fi.ModTime()).line()
	state := forged(t, out, StateDir+"/"+manifestName, scope)
	dup := forged(t, out, "b.txt", scope)
	appendFile(t, mf, evil+abs+state+dup)
	os.Remove(filepath.Join(src, "a.txt"))
	os.Remove(filepath.Join(src, "b.txt"))
	_, rec, err := run(t, o, start)
	if err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	if d := rec.paths(Deleted); len(d) != 1 || d["a.txt"] == "" {
		t.Errorf("deleted %v, want a.txt only", d)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "outside" {
		t.Errorf("the file outside the tree: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(out, "b.txt")); err != nil {
		t.Errorf("b.txt, recorded twice, was deleted: %v", err)
	}
	if _, err := os.Stat(mf); err != nil {
		t.Errorf("the manifest: %v", err)
	}
}

// A state directory that is a symbolic link is neither read nor written
// through: nothing is deleted, and the link's target is left as it was.
func TestManifestSymlinkedStateDir(t *testing.T) {
	src, out, o, start := manifestSetup(t, map[string]string{"a.txt": "a", "keep.txt": "k"})
	elsewhere := filepath.Join(filepath.Dir(out), "elsewhere")
	if err := os.Rename(filepath.Join(out, StateDir), elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(out, StateDir)); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(elsewhere, manifestName))
	os.Remove(filepath.Join(src, "a.txt"))
	_, rec, err := run(t, o, start)
	if err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	if d := rec.paths(Deleted); len(d) != 0 {
		t.Errorf("deleted %v", d)
	}
	if n := rec.paths(Notice); !strings.Contains(n[""], "symbolic link") {
		t.Errorf("notices: %v", n)
	}
	if after, _ := os.ReadFile(filepath.Join(elsewhere, manifestName)); string(after) != string(before) {
		t.Error("the manifest was written through the link")
	}
}

// A file reached through a directory that has become a symbolic link is
// not deleted, wherever the link leads.
func TestManifestPathThroughSymlink(t *testing.T) {
	src, out, o, start := manifestSetup(t, map[string]string{"a.txt": "a", "sub/x.txt": "x", "sub/keep.txt": "k"})
	real := filepath.Join(out, "real")
	if err := os.Rename(filepath.Join(out, "sub"), real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(out, "sub")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(src, "sub", "x.txt"))
	os.WriteFile(filepath.Join(src, "sub", "keep.txt"), []byte("server's new k"), 0o644)
	_, rec, err := run(t, o, start)
	// Nothing is written through the link either (openDir): the
	// directory's files fail, named.
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("err = %v, want the link in the way: %+v", err, rec.reports)
	}
	if d := rec.paths(Deleted); len(d) != 0 {
		t.Errorf("deleted %v", d)
	}
	if _, err := os.Stat(filepath.Join(real, "x.txt")); err != nil {
		t.Errorf("the file behind the link: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(real, "keep.txt")); err != nil || string(b) != "k" {
		t.Errorf("the file behind the link was written: %q, %v", b, err)
	}
}

// A manifest that cannot be parsed deletes nothing and says so; a
// journal or manifest that is a link, or hard-linked to another file, is
// not read, and is replaced rather than written through.
func TestManifestUnreadable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, out, victim string)
	}{
		{"garbage", func(t *testing.T, out, victim string) {
			os.WriteFile(filepath.Join(out, StateDir, manifestName), []byte("f\tgarbage\n"), 0o644)
		}},
		{"cut short", func(t *testing.T, out, victim string) {
			mf := filepath.Join(out, StateDir, manifestName)
			b, _ := os.ReadFile(mf)
			os.WriteFile(mf, b[:len(b)-3], 0o644)
		}},
		{"journal link", func(t *testing.T, out, victim string) {
			os.Symlink(victim, filepath.Join(out, StateDir, journalName))
		}},
		{"manifest hard link", func(t *testing.T, out, victim string) {
			mf := filepath.Join(out, StateDir, manifestName)
			os.Remove(mf)
			if err := os.Link(victim, mf); err != nil {
				t.Skipf("no hard links here: %v", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, out, o, start := manifestSetup(t, map[string]string{"a.txt": "a", "keep.txt": "k"})
			victim := filepath.Join(filepath.Dir(out), "victim")
			// A well-formed manifest of its own, naming a.txt.
			good, _ := os.ReadFile(filepath.Join(out, StateDir, manifestName))
			os.WriteFile(victim, good, 0o644)
			tc.tamper(t, out, victim)
			os.Remove(filepath.Join(src, "a.txt"))
			_, rec, err := run(t, o, start)
			if err != nil {
				t.Fatalf("%v %+v", err, rec.reports)
			}
			if d := rec.paths(Deleted); len(d) != 0 {
				t.Errorf("deleted %v", d)
			}
			if n := rec.paths(Notice); !strings.Contains(n[""], "cannot be read") {
				t.Errorf("notices: %v", n)
			}
			if b, _ := os.ReadFile(victim); string(b) != string(good) {
				t.Errorf("the file a link led to was written: %q", b)
			}
			if fi, err := os.Lstat(filepath.Join(out, StateDir, manifestName)); err != nil || !fi.Mode().IsRegular() || linkCount(fi) != 1 {
				t.Errorf("the manifest was not written anew: %v", err)
			}
		})
	}
}

// A run killed after committing files leaves its journal; the next run
// merges it, so that what was written is never lost from the record. A
// journal line cut short by the kill is left out, the rest kept.
func TestManifestJournalAfterKill(t *testing.T) {
	_, out, _, start := manifestSetup(t, map[string]string{"a.txt": "a", "keep.txt": "k"})
	root, err := os.OpenRoot(out)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	writeTree(t, out, map[string]string{"late.txt": "written just before the kill"})
	m := loadManifest(root)
	if m.bad != nil || !m.found || m.old["a.txt"] == nil {
		t.Fatalf("manifest: %v, %v, %v", m.bad, m.found, m.old)
	}
	fi, _ := os.Lstat(filepath.Join(out, "late.txt"))
	m.add(newRecord(fi, "late.txt", start+"late.txt", start, `"tag"`, fi.ModTime()))
	m.close() // killed: no write
	appendFile(t, filepath.Join(out, StateDir, journalName), "f\t\"half")

	m = loadManifest(root)
	if m.bad != nil || m.old["late.txt"] == nil || m.old["late.txt"].etag != `"tag"` || m.old["a.txt"] == nil {
		t.Fatalf("after the kill: %v, %v", m.bad, m.old)
	}
	if err := m.settle(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(out, StateDir, journalName)); !os.IsNotExist(err) {
		t.Errorf("the journal is still there: %v", err)
	}
	if m = loadManifest(root); m.old["late.txt"] == nil {
		t.Errorf("merged manifest: %v", m.old)
	}
}

// A --mirror run that writes nothing leaves the manifest as it is (no
// parse, no rewrite); one that writes a file adds it to the records of
// the earlier runs, which it keeps.
func TestManifestUnchangedRun(t *testing.T) {
	src, out, o, start := manifestSetup(t, map[string]string{"a.txt": "a", "keep.txt": "k"})
	o.Delete = false
	mf := filepath.Join(out, StateDir, manifestName)
	before, _ := os.Stat(mf)
	if _, rec, err := run(t, o, start); err != nil || rec.count(Fetched) != 1 {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	if after, _ := os.Stat(mf); !os.SameFile(before, after) {
		t.Error("an unchanged run wrote the manifest anew")
	}
	writeTree(t, src, map[string]string{"new.txt": "n"})
	if _, rec, err := run(t, o, start); err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	root, err := os.OpenRoot(out)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	m := loadManifest(root)
	if m.bad != nil || m.old["a.txt"] == nil || m.old["keep.txt"] == nil || m.old["new.txt"] == nil {
		t.Errorf("manifest: %v %v", m.bad, m.old)
	}
	if _, err := os.Lstat(filepath.Join(out, StateDir, journalName)); !os.IsNotExist(err) {
		t.Errorf("journal left: %v", err)
	}
}

// --timestamping's If-None-Match comes from the manifest where the file has no
// user.etag extended attribute (a file system without them), and only
// while the file is the one recorded.
func TestManifestETag(t *testing.T) {
	var inm []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inm = append(inm, r.URL.Path+" "+r.Header.Get("If-None-Match"))
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, "body")
	}))
	defer srv.Close()
	out := t.TempDir()
	o := Options{Dir: out, Level: 0, Timestamping: true, Parallel: 1, Layout: Layout{NoHostDirs: true}}
	defer func(read func(*os.File, string) ([]byte, error)) { readETagAttr = read }(readETagAttr)
	for i := range 3 {
		if i > 0 {
			// A file system that keeps no extended attributes.
			readETagAttr = func(*os.File, string) ([]byte, error) {
				return nil, errors.New("no user extended attributes here")
			}
		}
		if i == 2 {
			// Changed by hand since: the recorded tag is not its own.
			os.WriteFile(filepath.Join(out, "f.txt"), []byte("edited"), 0o644)
		}
		if _, rec, err := run(t, o, srv.URL+"/f.txt"); err != nil {
			t.Fatalf("%v %+v", err, rec.reports)
		}
	}
	want := []string{"/f.txt ", `/f.txt "v1"`, "/f.txt "}
	if strings.Join(inm, "|") != strings.Join(want, "|") {
		t.Errorf("requests %q, want %q", inm, want)
	}
}

// A symbolic link urlget made is deleted when the listing drops it, as a
// file is; one the user pointed elsewhere since is kept.
func TestManifestLinks(t *testing.T) {
	src, out, o, start := manifestSetup(t, map[string]string{"a.txt": "a", "real.txt": "r"})
	for _, l := range []string{"alias.txt", "other.txt"} {
		if err := os.Symlink("real.txt", filepath.Join(src, l)); err != nil {
			t.Fatal(err)
		}
	}
	if _, rec, err := run(t, o, start); err != nil || rec.count(Linked) != 2 {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	os.Remove(filepath.Join(out, "other.txt"))
	os.Symlink("a.txt", filepath.Join(out, "other.txt"))
	os.Remove(filepath.Join(src, "alias.txt"))
	os.Remove(filepath.Join(src, "other.txt"))
	_, rec, err := run(t, o, start)
	if err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	if d := rec.paths(Deleted); len(d) != 1 || d["alias.txt"] == "" {
		t.Errorf("deleted %v, want alias.txt", d)
	}
	if k := rec.paths(Kept); !strings.Contains(k["other.txt"], "changed") {
		t.Errorf("kept %v", k)
	}
	if got, err := os.Readlink(filepath.Join(out, "other.txt")); err != nil || got != "a.txt" {
		t.Errorf("other.txt -> %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(out, "real.txt")); err != nil {
		t.Errorf("the link's target: %v", err)
	}
}

// Ctrl-C (the run's context cancelled) mid-run: the files committed before
// it are in the manifest once Run returns, and no journal is left.
func TestManifestInterrupted(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<a href="a.txt">a</a> <a href="b.txt">b</a> <a href="slow.txt">s</a>`)
		case "/slow.txt":
			w.Header().Set("Content-Length", "10")
			io.WriteString(w, "part")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-release:
			}
		default:
			io.WriteString(w, r.URL.Path)
		}
	}))
	defer srv.Close()
	defer close(release)
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	fetched := 0
	o := Options{Dir: out, Level: -1, Timestamping: true, Delete: true, Parallel: 1, Layout: Layout{NoHostDirs: true}}
	o.Report = func(r Report) {
		mu.Lock()
		defer mu.Unlock()
		if r.Status == Fetched && strings.HasSuffix(r.Path, ".txt") {
			if fetched++; fetched == 2 {
				// a.txt and b.txt are in; slow.txt is under way.
				time.AfterFunc(50*time.Millisecond, cancel)
			}
		}
	}
	c := &fetch.Client{Proxy: fetch.NoProxy}
	defer c.Close()
	if _, err := Run(ctx, c, o, []uri.URL{uri.MustParse(srv.URL + "/")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the interruption", err)
	}
	root, err := os.OpenRoot(out)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	m := loadManifest(root)
	if m.bad != nil || m.old["a.txt"] == nil || m.old["b.txt"] == nil || m.old["index.html"] == nil || m.old["slow.txt"] != nil {
		t.Errorf("manifest after the interruption: %v %v", m.bad, m.old)
	}
	if _, err := os.Lstat(filepath.Join(out, StateDir, journalName)); !os.IsNotExist(err) {
		t.Errorf("journal left: %v", err)
	}
}

// --dry-run changes nothing in the tree: no file, link, directory or
// manifest is written, no page converted, nothing deleted; what --delete
// would remove is reported.
func TestDryRunChangesNothing(t *testing.T) {
	src, out, o, start := manifestSetup(t, map[string]string{"a.txt": "a", "gone.txt": "g", "page.html": `<a href="a.txt">a</a>`})
	os.Remove(filepath.Join(src, "gone.txt"))
	writeTree(t, src, map[string]string{"new.txt": "n", "newdir/x.txt": "x"})
	os.Symlink("a.txt", filepath.Join(src, "link.txt"))
	snapshot := func() string {
		var b strings.Builder
		filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
			if err == nil {
				data, _ := os.ReadFile(p)
				fmt.Fprintf(&b, "%s %v %d %q\n", p, fi.Mode(), fi.ModTime().UnixNano(), data)
			}
			return nil
		})
		return b.String()
	}
	before := snapshot()
	o.DryRun, o.ConvertLinks = true, true
	_, rec, err := run(t, o, start)
	if err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	if after := snapshot(); after != before {
		t.Errorf("the dry run changed the tree:\n%s\nwas\n%s", after, before)
	}
	if w := rec.paths(WouldDelete); len(w) != 1 || w["gone.txt"] == "" {
		t.Errorf("would delete %v", w)
	}
	for _, r := range rec.reports {
		if r.Status == Deleted || r.Status == Linked || r.Status == Fetched && r.Path != "" {
			t.Errorf("dry run: %s %s", r.Status, r.Path)
		}
	}
}

// FuzzManifest reads arbitrary bytes as a manifest and as a journal: no
// panic, and no record it keeps names a path outside the tree or in the
// state directory, or lacks its URL and scope.
func FuzzManifest(f *testing.F) {
	rec := &record{path: "pub/a.txt", url: "ftp://h/pub/a.txt", scope: "ftp://h/", size: 2, mtime: 1, dev: 3, ino: 4, etag: `"e"`, lmod: "2024-01-01T00:00:00Z"}
	link := &record{path: "pub/l", url: "ftp://h/pub/l", scope: "ftp://h/", mtime: 1, dev: 3, ino: 5, link: "a.txt"}
	f.Add([]byte(manifestHead + "\n" + rec.line() + link.line() + dirLine("pub", "")))
	f.Add([]byte(manifestHead + "\nf\t\"../x\"\t\"u\"\t\"s\"\t1\t1\t1\t1\t\"\"\t\"\"\n"))
	f.Add([]byte(manifestHead + "\nf\t\"/etc/passwd\"\t\"u\"\t\"s\"\t1\t1\t1\t1\t\"\"\t\"\"\n"))
	f.Add([]byte(manifestHead + "\n" + rec.line() + rec.line()))
	f.Add([]byte(manifestHead + "\nf\t\"a\\x00b\"\t\"u\"\t\"s\"\t1\t1\t1\t1\t\"\"\t\"\"\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, journal := range []bool{false, true} {
			m := &manifest{old: map[string]*record{}, dirs: map[string]string{}}
			m.parse(bytes.NewReader(data), journal, map[entryKey]bool{})
			for p, r := range m.old {
				if p != r.path || !validRel(p) || r.url == "" || r.scope == "" {
					t.Fatalf("kept %q: %+v", p, r)
				}
			}
			for d := range m.dirs {
				if !validRel(d) {
					t.Fatalf("kept directory %q", d)
				}
			}
		}
	})
}

// A run that only adds to the manifest (--timestamping without --delete) copies the
// earlier lines through instead of reading them all: each file is still
// recorded once, what it fetched again with its new record; a line whose
// path leads outside the tree is left out; two lines of one path are
// kept as they were, so that the next --delete run still refuses both;
// and a manifest with a line not of the format is read whole instead,
// which replaces it with this run's records.
func TestManifestMergedByCopy(t *testing.T) {
	src, out, o, start := manifestSetup(t, map[string]string{"a.txt": "a", "b.txt": "b", "c.txt": "c"})
	scope := "file://" + src + "/"
	mf := filepath.Join(out, StateDir, manifestName)
	fi, _ := os.Lstat(filepath.Join(out, "a.txt"))
	evil := newRecord(fi, "../victim", "file:///x/victim", scope, "", fi.ModTime()).line()
	dup := forged(t, out, "b.txt", scope)
	appendFile(t, mf, evil+dup)
	count := func() map[string]int {
		t.Helper()
		b, err := os.ReadFile(mf)
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
			kind, rec, _, err := parseLine(line)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if kind != 'd' {
				n[rec.path]++
			}
		}
		return n
	}
	writeTree(t, src, map[string]string{"c.txt": "c, longer now", "new.txt": "n"})
	lazy := o
	lazy.Delete = false
	if _, rec, err := run(t, lazy, start); err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	if n := count(); n["a.txt"] != 1 || n["b.txt"] != 2 || n["c.txt"] != 1 || n["new.txt"] != 1 || n["../victim"] != 0 || len(n) != 4 {
		t.Errorf("records after the copy: %v", n)
	}
	// The next --delete run refuses both of b.txt's lines, and deletes
	// by the others.
	os.Remove(filepath.Join(src, "b.txt"))
	os.Remove(filepath.Join(src, "new.txt"))
	_, rec, err := run(t, o, start)
	if err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	if d := rec.paths(Deleted); len(d) != 1 || d["new.txt"] == "" {
		t.Errorf("deleted %v, want new.txt only", d)
	}

	// A line not of the format: the manifest is read whole, found bad,
	// and replaced by this run's records.
	appendFile(t, mf, "garbage\n")
	writeTree(t, src, map[string]string{"d.txt": "d"})
	if _, rec, err := run(t, lazy, start); err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	if n := count(); n["d.txt"] != 1 || n["a.txt"] != 0 {
		t.Errorf("records after a bad manifest: %v, want this run's alone", n)
	}
}

// TestRecordRewrittenInPlace: a file written again with its old size and
// time, in its old inode (cp -p onto it, or a copy that got the freed
// inode number back), is not the file urlget recorded, and so not
// urlget's to delete. Only the change time tells, where the platform
// gives it; a record from a manifest line without one (an earlier
// version's) still compares, by size, time, device and inode.
func TestRecordRewrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("urlget wrote this\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	r := newRecord(fi, "f", "http://h/f", "http://h/", "", time.Time{})
	if now, _ := os.Lstat(p); !r.unchanged(now) {
		t.Fatal("the file as recorded counts as changed")
	}
	_, back, _, err := parseLine(strings.TrimSuffix(r.line(), "\n"))
	if err != nil || back.ctime != r.ctime || !back.unchanged(fi) {
		t.Fatalf("the record read back: %+v, %v", back, err)
	}
	time.Sleep(10 * time.Millisecond) // a change time of its own
	if err := os.WriteFile(p, []byte("the user wrote this\n"[:18]), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	now, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(fi, now) || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
		t.Fatal("the test did not keep inode, size and time")
	}
	if ctimeOf(now) != 0 && r.unchanged(now) {
		t.Error("a file rewritten in place with its old size and time counts as unchanged")
	}
	old := strings.TrimSuffix(r.line(), "\n")
	old = old[:strings.LastIndexByte(old, '\t')]
	_, legacy, _, err := parseLine(old)
	if err != nil || legacy.ctime != 0 || legacy.path != "f" {
		t.Fatalf("a line without the change time: %+v, %v", legacy, err)
	}
}
