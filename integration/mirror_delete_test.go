package integration

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/integration/nntptest"
	"github.com/urlget/urlget/mirror"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/news"
)

// --delete, tried as an unlucky user and as a hostile server would try
// it: the user's files beside the mirror, another mirror in the same -nH
// tree, a file the user changed, listings that are empty, cut short or
// never ended, a start URL that redirects elsewhere, a tampered manifest.

// deleteRun is one --mirror --delete -nH run into out; it returns the
// reports and the run's error, which the test judges.
func deleteRun(t *testing.T, c *fetch.Client, o mirror.Options, start string) ([]mirror.Report, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var reports []mirror.Report
	o.Report = func(r mirror.Report) { reports = append(reports, r) }
	_, err := mirror.Run(ctx, c, o, parseURLs(t, start))
	for _, r := range reports {
		if (r.Status == mirror.Deleted || r.Status == mirror.Kept || r.Status == mirror.WouldDelete) && (r.URL == "" || r.Reason == "") {
			t.Errorf("a %s report without its URL or reason: %+v", r.Status, r)
		}
	}
	return reports, err
}

func deleteOptions(out string) mirror.Options {
	return mirror.Options{Dir: out, Level: -1, Timestamping: true, Delete: true, Parallel: 2, Layout: mirror.Layout{NoHostDirs: true}}
}

// byStatus returns the paths of the reports of one status.
func byStatus(reports []mirror.Report, s mirror.Status) map[string]string {
	m := map[string]string{}
	for _, r := range reports {
		if r.Status == s {
			m[r.Path] = r.Reason
		}
	}
	return m
}

// userFiles writes the user's own files into out and returns a check
// that every one is still there, unchanged.
func userFiles(t *testing.T, out string) func() {
	t.Helper()
	files := map[string]string{
		".ssh/id_rsa":     "-----BEGIN OPENSSH PRIVATE KEY-----\n",
		"notes.txt":       "mine\n",
		"pub/mine.txt":    "mine too\n",
		"pub/sub/own.txt": "and this\n",
		"gone.txt.orig":   "a name like a mirrored one\n",
	}
	for p, data := range files {
		full := filepath.Join(out, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		t.Helper()
		for p, data := range files {
			b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
			if err != nil || string(b) != data {
				t.Errorf("the user's %s: %q, %v", p, b, err)
			}
		}
	}
}

func ftpDeleteTree() fstest.MapFS {
	mod := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	return fstest.MapFS{
		"pub/a.txt":       {Data: []byte("a\n"), Mode: 0o644, ModTime: mod},
		"pub/gone.txt":    {Data: []byte("gone\n"), Mode: 0o644, ModTime: mod},
		"pub/sub/b.txt":   {Data: []byte("b\n"), Mode: 0o644, ModTime: mod},
		"pub/sub/c.txt":   {Data: []byte("c\n"), Mode: 0o644, ModTime: mod},
		"pub/old/x.txt":   {Data: []byte("x\n"), Mode: 0o644, ModTime: mod},
		"pub/old/y/z.txt": {Data: []byte("z\n"), Mode: 0o644, ModTime: mod},
	}
}

// ftpMirrored starts an FTP server on ftpDeleteTree and mirrors it once
// with --delete, which writes the manifest.
func ftpMirrored(t *testing.T) (fstest.MapFS, *ftptest.Server, *fetch.Client, string) {
	t.Helper()
	fsys := ftpDeleteTree()
	srv := ftptest.NewServer(fsys)
	t.Cleanup(srv.Close)
	c := &fetch.Client{}
	t.Cleanup(func() { c.Close() })
	out := t.TempDir()
	if reports, err := deleteRun(t, c, deleteOptions(out), srv.URL+"/"); err != nil {
		t.Fatalf("%v %+v", err, reports)
	}
	return fsys, srv, c, out
}

func exists(out, p string) bool {
	_, err := os.Lstat(filepath.Join(out, filepath.FromSlash(p)))
	return err == nil
}

// A tree that holds the user's files (a .ssh directory among them) and
// no manifest: the first run deletes nothing and says so; the second
// deletes what the server dropped, only that, and the directories it
// made that this emptied.
func TestMirrorDeleteOnlyWhatItWrote(t *testing.T) {
	fsys := ftpDeleteTree()
	srv := ftptest.NewServer(fsys)
	t.Cleanup(srv.Close)
	var c fetch.Client
	defer c.Close()
	out := t.TempDir()
	check := userFiles(t, out)
	// The tree of an older urlget, or made by hand: no manifest.
	os.WriteFile(filepath.Join(out, "pub", "stale.txt"), []byte("from before\n"), 0o644)

	delete(fsys, "pub/gone.txt") // gone before urlget ever wrote it
	reports, err := deleteRun(t, &c, deleteOptions(out), srv.URL+"/")
	if err != nil {
		t.Fatalf("first run: %v %+v", err, reports)
	}
	if d := byStatus(reports, mirror.Deleted); len(d) != 0 {
		t.Errorf("first run deleted %v", d)
	}
	if n := byStatus(reports, mirror.Notice); len(n) != 1 || !strings.Contains(n[""], "no manifest") {
		t.Errorf("first run: no notice of the missing manifest: %v", n)
	}
	check()
	if !exists(out, "pub/stale.txt") {
		t.Error("a file of no manifest was deleted")
	}
	if !exists(out, mirror.StateDir+"/manifest") {
		t.Fatal("no manifest written")
	}

	delete(fsys, "pub/sub/c.txt")
	delete(fsys, "pub/old/x.txt")
	delete(fsys, "pub/old/y/z.txt")
	reports, err = deleteRun(t, &c, deleteOptions(out), srv.URL+"/")
	if err != nil {
		t.Fatalf("second run: %v %+v", err, reports)
	}
	want := map[string]bool{"pub/sub/c.txt": true, "pub/old/x.txt": true, "pub/old/y/z.txt": true}
	d := byStatus(reports, mirror.Deleted)
	if len(d) != len(want) {
		t.Errorf("deleted %v, want %v", d, want)
	}
	for p := range want {
		if _, ok := d[p]; !ok || exists(out, p) {
			t.Errorf("%s not deleted: %v", p, d)
		}
	}
	for _, r := range reports {
		if r.Status == mirror.Deleted && (!strings.HasPrefix(r.URL, srv.URL+"/pub/") || !strings.Contains(r.Reason, "no longer listed by")) {
			t.Errorf("deletion of %s: url %q, reason %q", r.Path, r.URL, r.Reason)
		}
	}
	check()
	if !exists(out, "pub/stale.txt") || !exists(out, "pub/a.txt") || !exists(out, "pub/sub/b.txt") {
		t.Error("a file still listed, or never written by urlget, was deleted")
	}
	if exists(out, "pub/old") {
		t.Error("pub/old, made by urlget and emptied, is still there")
	}
	if !exists(out, "pub/sub") {
		t.Error("pub/sub removed")
	}
}

// Two mirrors share one -nH tree: neither deletes the other's files,
// though each one's listing of the top names nothing of the other's.
func TestMirrorDeleteSharedTree(t *testing.T) {
	mod := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	one := fstest.MapFS{"pub/one.txt": {Data: []byte("1\n"), Mode: 0o644, ModTime: mod}, "top1.txt": {Data: []byte("t1\n"), Mode: 0o644, ModTime: mod}}
	two := fstest.MapFS{"pub/two.txt": {Data: []byte("2\n"), Mode: 0o644, ModTime: mod}, "top2.txt": {Data: []byte("t2\n"), Mode: 0o644, ModTime: mod}}
	s1, s2 := ftptest.NewServer(one), ftptest.NewServer(two)
	t.Cleanup(s1.Close)
	t.Cleanup(s2.Close)
	var c fetch.Client
	defer c.Close()
	out := t.TempDir()
	for range 2 {
		for _, s := range []*ftptest.Server{s1, s2} {
			reports, err := deleteRun(t, &c, deleteOptions(out), s.URL+"/")
			if err != nil {
				t.Fatalf("%s: %v %+v", s.URL, err, reports)
			}
			if d := byStatus(reports, mirror.Deleted); len(d) != 0 {
				t.Errorf("%s deleted %v", s.URL, d)
			}
		}
	}
	for _, p := range []string{"pub/one.txt", "pub/two.txt", "top1.txt", "top2.txt"} {
		if !exists(out, p) {
			t.Errorf("%s deleted by the other mirror", p)
		}
	}
	// Its own dropped file each still deletes.
	delete(one, "top1.txt")
	reports, err := deleteRun(t, &c, deleteOptions(out), s1.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if d := byStatus(reports, mirror.Deleted); len(d) != 1 || exists(out, "top1.txt") || !exists(out, "top2.txt") {
		t.Errorf("deleted %v", d)
	}
}

// A file the user changed since urlget wrote it (its bytes, or only its
// inode: a copy with the same size and time) is kept, reported, and
// never deleted later either.
func TestMirrorDeleteKeepsChangedFiles(t *testing.T) {
	fsys, srv, c, out := ftpMirrored(t)
	edited := filepath.Join(out, "pub", "gone.txt")
	fi, _ := os.Stat(edited)
	os.WriteFile(edited, []byte("gone, but edited\n"), 0o644)
	copied := filepath.Join(out, "pub", "sub", "c.txt")
	ci, _ := os.Stat(copied)
	data, _ := os.ReadFile(copied)
	os.Remove(copied)
	os.WriteFile(copied, data, 0o644)
	os.Chtimes(copied, ci.ModTime(), ci.ModTime())
	_ = fi
	delete(fsys, "pub/gone.txt")
	delete(fsys, "pub/sub/c.txt")
	for run := range 2 {
		reports, err := deleteRun(t, c, deleteOptions(out), srv.URL+"/")
		if err != nil {
			t.Fatalf("%v %+v", err, reports)
		}
		if d := byStatus(reports, mirror.Deleted); len(d) != 0 {
			t.Errorf("run %d deleted %v", run, d)
		}
		k := byStatus(reports, mirror.Kept)
		if run == 0 && (!strings.Contains(k["pub/gone.txt"], "changed") || !strings.Contains(k["pub/sub/c.txt"], "changed")) {
			t.Errorf("kept reports: %v", k)
		}
	}
	if b, _ := os.ReadFile(edited); string(b) != "gone, but edited\n" {
		t.Errorf("the edited file: %q", b)
	}
	if !exists(out, "pub/sub/c.txt") {
		t.Error("the copied file was deleted")
	}
}

// vsftpd answers 226 and no data for a directory it cannot open: an
// empty listing where the manifest has files deletes nothing, unless
// --delete-emptied.
func TestMirrorDeleteEmptyListing(t *testing.T) {
	_, srv, c, out := ftpMirrored(t)
	srv.EmptyList = map[string]bool{"/pub/sub": true}
	reports, err := deleteRun(t, c, deleteOptions(out), srv.URL+"/")
	if err != nil {
		t.Fatalf("%v %+v", err, reports)
	}
	if d := byStatus(reports, mirror.Deleted); len(d) != 0 {
		t.Errorf("an empty listing deleted %v", d)
	}
	if k := byStatus(reports, mirror.Kept); !strings.Contains(k["pub/sub/b.txt"], "empty") {
		t.Errorf("kept: %v", k)
	}
	if !exists(out, "pub/sub/b.txt") || !exists(out, "pub/sub/c.txt") {
		t.Error("files deleted")
	}

	o := deleteOptions(out)
	o.DeleteEmptied = true
	reports, err = deleteRun(t, c, o, srv.URL+"/")
	if err != nil {
		t.Fatalf("%v %+v", err, reports)
	}
	if d := byStatus(reports, mirror.Deleted); len(d) != 2 || exists(out, "pub/sub/b.txt") {
		t.Errorf("--delete-emptied deleted %v", d)
	}
}

// A listing cut short (the data connection closed mid-listing, then 426,
// or the control connection closed with no final reply) deletes nothing
// and fails the run.
func TestMirrorDeleteCutListing(t *testing.T) {
	for _, reply := range []string{"426 Connection closed; transfer aborted.", ""} {
		t.Run(reply, func(t *testing.T) {
			_, srv, c, out := ftpMirrored(t)
			srv.CutList, srv.CutListReply = 1, reply
			reports, err := deleteRun(t, c, deleteOptions(out), srv.URL+"/pub/")
			if !errors.Is(err, schemes.ErrTruncated) && !errors.Is(err, schemes.ErrProtocol) && !errors.Is(err, schemes.ErrConnect) {
				t.Errorf("err = %v, want the listing's failure", err)
			}
			if d := byStatus(reports, mirror.Deleted); len(d) != 0 {
				t.Errorf("a cut listing deleted %v", d)
			}
			for _, p := range []string{"pub/a.txt", "pub/gone.txt", "pub/sub/b.txt", "pub/old/x.txt"} {
				if !exists(out, p) {
					t.Errorf("%s deleted", p)
				}
			}
		})
	}
}

// A gopher menu that ends without its "." line is cut short, not whole:
// the run fails and nothing is deleted.
func TestMirrorDeleteGopherMenuWithoutDot(t *testing.T) {
	whole := true
	mux := gophertest.NewMux()
	srv := gophertest.NewServer(mux)
	t.Cleanup(srv.Close)
	host, port := "127.0.0.1", srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	item := func(typ byte, name string) string {
		return string(typ) + name + "\t/" + name + "\t" + host + "\t" + port + "\r\n"
	}
	mux.Handle("", gophertest.HandlerFunc(func(w io.Writer, r *gophertest.Request) {
		io.WriteString(w, item('0', "a.txt"))
		if whole {
			io.WriteString(w, item('0', "b.txt")+item('0', "c.txt")+".\r\n")
		}
		// Else the connection drops here: no "." line.
	}))
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		mux.Handle("/"+n, gophertest.Text(n+"\n"))
	}
	var c fetch.Client
	defer c.Close()
	out := t.TempDir()
	o := deleteOptions(out)
	o.Timestamping = false // plain menus say nothing to compare
	if reports, err := deleteRun(t, &c, o, srv.URL+"/"); err != nil {
		t.Fatalf("%v %+v", err, reports)
	}
	whole = false
	reports, err := deleteRun(t, &c, o, srv.URL+"/")
	if !errors.Is(err, schemes.ErrTruncated) {
		t.Errorf("err = %v, want %v", err, schemes.ErrTruncated)
	}
	if d := byStatus(reports, mirror.Deleted); len(d) != 0 {
		t.Errorf("a menu cut short deleted %v", d)
	}
	if !exists(out, "b.txt") || !exists(out, "c.txt") || !exists(out, "gophermap") {
		t.Error("files deleted")
	}
}

// A start URL that now redirects to another server (another port): the
// files of the old one are not judged by the new one's pages.
func TestMirrorDeleteRedirectElsewhere(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<a href="new.txt">new</a>`)
	}))
	t.Cleanup(other.Close)
	moved := false
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if moved {
			http.Redirect(w, r, other.URL+"/", http.StatusMovedPermanently)
			return
		}
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<a href="a.txt">a</a> <a href="b.txt">b</a>`)
		case "/a.txt", "/b.txt":
			io.WriteString(w, r.URL.Path)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	var c fetch.Client
	defer c.Close()
	out := t.TempDir()
	o := deleteOptions(out)
	o.Layout.NoHostDirs = false
	if reports, err := deleteRun(t, &c, o, site.URL+"/"); err != nil {
		t.Fatalf("%v %+v", err, reports)
	}
	moved = true
	reports, err := deleteRun(t, &c, o, site.URL+"/")
	if err != nil {
		t.Fatalf("%v %+v", err, reports)
	}
	if d := byStatus(reports, mirror.Deleted); len(d) != 0 {
		t.Errorf("after a redirect elsewhere: deleted %v", d)
	}
	if n := byStatus(reports, mirror.Notice); !strings.Contains(n[""], "redirected") {
		t.Errorf("notices: %v", n)
	}
	hd := strings.TrimPrefix(site.URL, "http://")
	for _, p := range []string{"a.txt", "b.txt", "index.html"} {
		if !exists(out, hd+"/"+p) {
			t.Errorf("%s deleted", p)
		}
	}
	// A plain -r, which keeps no manifest, follows the redirect too.
	plain := mirror.Options{Dir: t.TempDir(), Level: 1}
	if reports, err := deleteRun(t, &c, plain, site.URL+"/"); err != nil || !exists(plain.Dir, strings.TrimPrefix(other.URL, "http://")+"/index.html") {
		t.Errorf("-r: %v %+v", err, reports)
	}
}

// --max-delete bounds a run's deletions: past it the rest is kept, said,
// and the run ends with ErrMaxDelete. --dry-run transfers nothing and
// deletes nothing, and says what it would delete.
func TestMirrorDeleteBoundAndDryRun(t *testing.T) {
	fsys, srv, c, out := ftpMirrored(t)
	for _, p := range []string{"pub/a.txt", "pub/gone.txt", "pub/sub/b.txt", "pub/sub/c.txt"} {
		delete(fsys, p)
	}
	fsys["pub/new.txt"] = &fstest.MapFile{Data: []byte("new\n"), Mode: 0o644, ModTime: time.Now()}
	manifest, _ := os.ReadFile(filepath.Join(out, mirror.StateDir, "manifest"))

	o := deleteOptions(out)
	o.DryRun = true
	srv.ResetCommands()
	reports, err := deleteRun(t, c, o, srv.URL+"/")
	if err != nil {
		t.Fatalf("dry run: %v %+v", err, reports)
	}
	if w := byStatus(reports, mirror.WouldDelete); len(w) != 4 {
		t.Errorf("dry run: would delete %v, want 4", w)
	}
	for _, cmd := range srv.Commands() {
		if strings.HasPrefix(cmd, "RETR") {
			t.Errorf("dry run transferred: %s", cmd)
		}
	}
	if exists(out, "pub/new.txt") || !exists(out, "pub/a.txt") || !exists(out, "pub/sub/c.txt") {
		t.Error("the dry run changed the tree")
	}
	if m, _ := os.ReadFile(filepath.Join(out, mirror.StateDir, "manifest")); string(m) != string(manifest) {
		t.Error("the dry run changed the manifest")
	}

	o = deleteOptions(out)
	o.MaxDelete = 3
	reports, err = deleteRun(t, c, o, srv.URL+"/")
	if !errors.Is(err, mirror.ErrMaxDelete) {
		t.Errorf("err = %v, want %v", err, mirror.ErrMaxDelete)
	}
	d, k := byStatus(reports, mirror.Deleted), byStatus(reports, mirror.Kept)
	if len(d) != 3 || len(k) != 1 {
		t.Errorf("deleted %v, kept %v", d, k)
	}
	for p, why := range k {
		if !strings.Contains(why, "max-delete") || !exists(out, p) {
			t.Errorf("kept %s: %s", p, why)
		}
	}
	reports, err = deleteRun(t, c, deleteOptions(out), srv.URL+"/")
	if err != nil || len(byStatus(reports, mirror.Deleted)) != 1 {
		t.Errorf("the next run: %v, deleted %v", err, byStatus(reports, mirror.Deleted))
	}
}

// Gopher menus are no directory listings: a menu names items anywhere on
// its server, so a file is deleted when no menu of a whole run names it
// any more, never because the menu of its local directory does not. A
// menu that comes back empty deletes nothing, unless --delete-emptied.
func TestMirrorDeleteGopherMenus(t *testing.T) {
	mux := gophertest.NewMux()
	srv := gophertest.NewServer(mux)
	t.Cleanup(srv.Close)
	host, port := "127.0.0.1", srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	line := func(typ byte, name, sel string) string {
		return string(typ) + name + "\t" + sel + "\t" + host + "\t" + port + "\r\n"
	}
	index := []string{line('0', "y", "/x/y.txt"), line('0', "z", "/x/z.txt")}
	mux.Handle("", gophertest.HandlerFunc(func(w io.Writer, r *gophertest.Request) {
		io.WriteString(w, line('1', "index of x", "/x-index")+line('0', "top", "/top.txt")+".\r\n")
	}))
	mux.Handle("/x-index", gophertest.HandlerFunc(func(w io.Writer, r *gophertest.Request) {
		io.WriteString(w, strings.Join(index, "")+".\r\n")
	}))
	for _, n := range []string{"/top.txt", "/x/y.txt", "/x/z.txt"} {
		mux.Handle(n, gophertest.Text(n+"\n"))
	}
	var c fetch.Client
	defer c.Close()
	out := t.TempDir()
	o := deleteOptions(out)
	for run := range 2 {
		reports, err := deleteRun(t, &c, o, srv.URL+"/")
		if err != nil {
			t.Fatalf("run %d: %v %+v", run, err, reports)
		}
		if d := byStatus(reports, mirror.Deleted); len(d) != 0 {
			t.Errorf("run %d deleted %v", run, d)
		}
	}
	for _, p := range []string{"top.txt", "x/y.txt", "x/z.txt", "x-index/gophermap"} {
		if !exists(out, p) {
			t.Errorf("%s missing", p)
		}
	}
	index = index[:1]
	reports, err := deleteRun(t, &c, o, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if d := byStatus(reports, mirror.Deleted); len(d) != 1 || d["x/z.txt"] != "no menu of the run links to it" {
		t.Errorf("deleted %v, want x/z.txt: %+v", d, reports)
	}
	index = nil
	reports, err = deleteRun(t, &c, o, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if d := byStatus(reports, mirror.Deleted); len(d) != 0 || !exists(out, "x/y.txt") {
		t.Errorf("an empty menu deleted %v", d)
	}
	o.DeleteEmptied = true
	reports, err = deleteRun(t, &c, o, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if d := byStatus(reports, mirror.Deleted); len(d) != 1 || exists(out, "x/y.txt") || exists(out, "x") {
		t.Errorf("--delete-emptied deleted %v", d)
	}
}

// A server that serves urlget's own state (.urlget/manifest and its
// journal, forging entries for the user's files with their true size and
// time) cannot have them deleted: the inode is never the one recorded,
// and the run's own manifest replaces what the server sent.
func TestMirrorDeleteForgedState(t *testing.T) {
	out := t.TempDir()
	check := userFiles(t, out)
	key := filepath.Join(out, ".ssh", "id_rsa")
	fi, err := os.Stat(key)
	if err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	fsys := fstest.MapFS{"pub/a.txt": {Data: []byte("a\n"), Mode: 0o644, ModTime: mod}}
	srv := ftptest.NewServer(fsys)
	t.Cleanup(srv.Close)
	// The server knows its own start URL, the layout, and here even the
	// key's size and time; never its inode.
	scope := srv.URL + "/"
	forged := fmt.Sprintf("urlget-manifest 1\nf\t%q\t%q\t%q\t%d\t%d\t0\t0\t\"\"\t\"\"\nf\t%q\t%q\t%q\t6\t%d\t0\t0\t\"\"\t\"\"\n",
		".ssh/id_rsa", scope+".ssh/id_rsa", scope, fi.Size(), fi.ModTime().UnixNano(),
		"../outside", scope+"outside", scope, fi.ModTime().UnixNano())
	fsys[".urlget/manifest"] = &fstest.MapFile{Data: []byte(forged), Mode: 0o644, ModTime: mod}
	fsys[".urlget/manifest.journal"] = &fstest.MapFile{Data: []byte(forged), Mode: 0o644, ModTime: mod}
	var c fetch.Client
	defer c.Close()
	for run := range 3 {
		o := deleteOptions(out)
		reports, _ := deleteRun(t, &c, o, srv.URL+"/")
		if d := byStatus(reports, mirror.Deleted); len(d) != 0 {
			t.Errorf("run %d deleted %v", run, d)
		}
		check()
	}
}

// A newsgroup's overview cut short (no terminating ".", RFC 3977 §3.1.1)
// deletes none of the articles it did not get to; a whole one that no
// longer holds an article deletes it. news:GROUP URLs name no server, so
// the three runs, each against a server of its own, are one mirror.
func TestMirrorDeleteNewsOverview(t *testing.T) {
	out := t.TempDir()
	start := "news:test.urlget"
	runWith := func(cfg nntptest.Config) ([]mirror.Report, error) {
		s := newNewsServer(t, cfg)
		c := fetch.Client{Fetchers: registryWith(&news.Fetcher{Server: s.Addr})}
		defer c.Close()
		return deleteRun(t, &c, deleteOptions(out), start)
	}
	if reports, err := runWith(newsConfig()); err != nil {
		t.Fatalf("%v %+v", err, reports)
	}
	for _, n := range []string{"10", "11", "12"} {
		if !exists(out, "test.urlget/"+n) {
			t.Fatalf("article %s not mirrored", n)
		}
	}
	cut := newsConfig()
	cut.Faults = []nntptest.Fault{{Command: "OVER", Reply: "224 overview\r\n10\tfirst post\ta\td\t<first@example.test>\t\t1\t1\r\n", Close: true}}
	reports, err := runWith(cut)
	if !errors.Is(err, schemes.ErrTruncated) {
		t.Errorf("err = %v, want %v", err, schemes.ErrTruncated)
	}
	if d := byStatus(reports, mirror.Deleted); len(d) != 0 || !exists(out, "test.urlget/11") || !exists(out, "test.urlget/12") {
		t.Errorf("a cut overview deleted %v", d)
	}
	fewer := newsConfig()
	fewer.Groups[0].Articles = fewer.Groups[0].Articles[:2]
	reports, err = runWith(fewer)
	if err != nil {
		t.Fatalf("%v %+v", err, reports)
	}
	if d := byStatus(reports, mirror.Deleted); len(d) != 1 || !strings.HasPrefix(d["test.urlget/12"], "no longer listed by news:test.urlget") {
		t.Errorf("deleted %v, want test.urlget/12", d)
	}
}
