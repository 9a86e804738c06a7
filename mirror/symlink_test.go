package mirror

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/urlget/urlget/uri"
)

// readLinks returns the symbolic links under dir, slash-separated names
// to what each holds.
func readLinks(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		target, err := os.Readlink(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = target
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// reasons returns the URLs skipped, each with its reason.
func (r *recorder) reasons() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]string{}
	for _, rep := range r.reports {
		if rep.Status == Skipped {
			out[rep.URL] = rep.Reason
		}
	}
	return out
}

// An FTP directory's symbolic links, in LIST and in MLSD, are made again
// locally, each leading where its target's copy is: relative and absolute
// targets, one a directory below, one to the directory itself (which a
// walk would follow without end). A link out of the tree is skipped with
// a reason. A second -N run finds every link unchanged, and no link is
// retrieved.
func TestMirrorFTPSymlinks(t *testing.T) {
	for _, mlsd := range []bool{false, true} {
		name := "LIST"
		if mlsd {
			name = "MLSD"
		}
		t.Run(name, func(t *testing.T) { testMirrorFTPSymlinks(t, mlsd) })
	}
}

func testMirrorFTPSymlinks(t *testing.T, mlsd bool) {
	mod := time.Date(2025, 4, 1, 10, 0, 0, 0, time.UTC)
	link := func(target string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink | 0o777, ModTime: mod}
	}
	fsys := fstest.MapFS{
		"pub/real.txt":     {Data: []byte("real\n"), Mode: 0o644, ModTime: mod},
		"pub/sub/deep.txt": {Data: []byte("deep\n"), Mode: 0o644, ModTime: mod},
		"pub/alias.txt":    link("real.txt"),
		"pub/abs.txt":      link("/pub/real.txt"),
		"pub/sub/up.txt":   link("../real.txt"),
		"pub/into":         link("sub"),
		"pub/loop":         link("."),
		"pub/odd name":     link("sub/deep.txt"),
		"pub/passwd":       link("/etc/passwd"),
		"pub/above":        link("../.."),
		"etc/passwd":       {Data: []byte("root\n"), Mode: 0o644, ModTime: mod},
	}
	srv := startFTP(t, fsys, mlsd)
	out := t.TempDir()
	o := Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}
	st, rec, err := run(t, o, srv.URL+"/pub/")
	if err != nil || st.Failed != 0 {
		t.Fatalf("run: %v %+v", err, rec.reports)
	}
	files := readTree(t, out)
	if want := "map[pub/real.txt:real\n pub/sub/deep.txt:deep\n]"; fmt.Sprint(files) != want {
		t.Errorf("files %q, want %q", files, want)
	}
	links := readLinks(t, out)
	want := map[string]string{
		"pub/alias.txt":  "real.txt",
		"pub/abs.txt":    "real.txt",
		"pub/sub/up.txt": "../real.txt",
		"pub/into":       "sub",
		"pub/loop":       ".",
		"pub/odd name":   "sub/deep.txt",
	}
	if fmt.Sprint(links) != fmt.Sprint(want) {
		t.Errorf("links %q, want %q", links, want)
	}
	// Each leads to the copy of its target.
	for name, data := range map[string]string{"pub/alias.txt": "real\n", "pub/sub/up.txt": "real\n", "pub/odd name": "deep\n", "pub/into/deep.txt": "deep\n", "pub/loop/real.txt": "real\n"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != data {
			t.Errorf("%s: %q, %v; want %q", name, b, err, data)
		}
	}
	skipped := rec.reasons()
	for _, n := range []string{"passwd", "above"} {
		if r := skipped[srv.URL+"/pub/"+n]; !strings.Contains(r, "outside the directory mirrored") {
			t.Errorf("%s: skipped for %q (all: %q)", n, r, skipped)
		}
	}
	if n := rec.count(Linked); n != len(want) {
		t.Errorf("%d reported linked, want %d", n, len(want))
	}
	for _, c := range srv.Commands() {
		if strings.HasPrefix(c, "RETR") && !strings.HasSuffix(c, "real.txt") && !strings.HasSuffix(c, "deep.txt") {
			t.Errorf("a link was retrieved: %s", c)
		}
	}

	// Again with -N: nothing is retrieved, every link is unchanged.
	srv.ResetCommands()
	o.Timestamping = true
	st, rec, err = run(t, o, srv.URL+"/pub/")
	if err != nil || st.Failed != 0 {
		t.Fatalf("second run: %v %+v", err, rec.reports)
	}
	for _, c := range srv.Commands() {
		if strings.HasPrefix(c, "RETR") {
			t.Errorf("second run retrieved %s", c)
		}
	}
	if n := rec.count(Unchanged); n != len(want)+2 {
		t.Errorf("second run: %d unchanged, want %d: %+v", n, len(want)+2, rec.reports)
	}
}

// A local directory's links inside the tree are made again as links; a
// link to a file outside it is copied as the file, one to a directory
// outside it skipped. A file that stands where a link now goes is
// replaced by the link, not written through.
func TestMirrorLocalSymlinks(t *testing.T) {
	src := t.TempDir()
	elsewhere := t.TempDir()
	writeTree(t, src, map[string]string{"real.txt": "real\n", "sub/deep.txt": "deep\n"})
	writeTree(t, elsewhere, map[string]string{"far.txt": "far\n"})
	for name, target := range map[string]string{
		"alias.txt":  "real.txt",
		"sub/up.txt": "../real.txt",
		"into":       "sub",
		"far.txt":    filepath.Join(elsewhere, "far.txt"),
		"fardir":     elsewhere,
	} {
		if err := os.Symlink(target, filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	o := Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}
	prefix := strings.TrimPrefix(src, "/") + "/"
	// A file of a run before stands where a link goes.
	writeTree(t, out, map[string]string{prefix + "alias.txt": "stale\n"})
	st, rec, err := run(t, o, "file://"+src+"/")
	if err != nil || st.Failed != 0 {
		t.Fatalf("run: %v %+v", err, rec.reports)
	}
	links := readLinks(t, out)
	want := map[string]string{prefix + "alias.txt": "real.txt", prefix + "sub/up.txt": "../real.txt", prefix + "into": "sub"}
	if fmt.Sprint(links) != fmt.Sprint(want) {
		t.Errorf("links %q, want %q", links, want)
	}
	files := readTree(t, out)
	if files[prefix+"far.txt"] != "far\n" {
		t.Errorf("the link to a file outside: %q, want its copy (tree %q)", files[prefix+"far.txt"], files)
	}
	if b, err := os.ReadFile(filepath.Join(src, "real.txt")); err != nil || string(b) != "real\n" {
		t.Errorf("the source was written through: %q %v", b, err)
	}
	if r := rec.reasons()["file://"+src+"/fardir/"]; !strings.Contains(r, "outside") {
		t.Errorf("fardir: skipped for %q: %+v", r, rec.reports)
	}
	var names []string
	for name := range files {
		names = append(names, strings.TrimPrefix(name, prefix))
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "far.txt real.txt sub/deep.txt" {
		t.Errorf("files: %s", got)
	}
}

func TestLinkTargetURL(t *testing.T) {
	base := uri.MustParse("ftp://h.example/pub/dir/link")
	for target, want := range map[string]string{
		"file.txt":      "ftp://h.example/pub/dir/file.txt",
		"../up":         "ftp://h.example/pub/up",
		"/abs/x":        "ftp://h.example/abs/x",
		"a b?c#d":       "ftp://h.example/pub/dir/a%20b%3Fc%23d",
		"x:y":           "ftp://h.example/pub/dir/x:y",
		"../../../../z": "ftp://h.example/z",
		"sub/":          "ftp://h.example/pub/dir/sub/",
	} {
		got, err := linkTargetURL(base, target)
		if err != nil || got.String() != want {
			t.Errorf("%q: %v %v, want %s", target, got, err, want)
		}
	}
	// A local link to a directory is listed as one, with its "/".
	dirLink := uri.MustParse("file:///src/into/")
	if got, err := linkTargetURL(dirLink, "sub"); err != nil || got.String() != "file:///src/sub" {
		t.Errorf("a directory's link: %v %v, want file:///src/sub", got, err)
	}
}

// The store makes a link under a temporary name and renames it into
// place: a link already there is replaced, never followed, and a
// directory in the way is a collision.
func TestStoreSymlink(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(outside, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "evil")); err != nil {
		t.Fatal(err)
	}
	s, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Symlink("evil", "a/b"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Readlink("evil"); err != nil || got != "a/b" {
		t.Errorf("evil -> %q, %v", got, err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep\n" {
		t.Errorf("the file outside became %q", b)
	}
	if err := s.Symlink("x/y/l", "../../evil"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	var ce *CollisionError
	if err := s.Symlink("d", "x"); !errors.As(err, &ce) {
		t.Errorf("a link over a directory: %v, want a collision", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "d"+linkSuffix)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the temporary link was left: %v", err)
	}
}

// A directory of the tree that is a symbolic link is never written
// through: a user's link beside the mirror, or one an earlier run made
// from a listing whose name is a directory now, would have the server's
// files land where the link leads (here, over another mirrored file).
// The file is reported, and what the link leads to stays as it was.
func TestStoreNeverWritesThroughDirectoryLinks(t *testing.T) {
	s, dir := newStore(t)
	if err := os.MkdirAll(filepath.Join(dir, "pub", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "pub", "sub", "x"), []byte("mine\n"), 0o644)
	os.Symlink("sub", filepath.Join(dir, "pub", "d"))
	os.Symlink("pub/sub", filepath.Join(dir, "top"))
	for _, rel := range []string{"pub/d/x", "pub/d/new", "top/x", "top/deeper/y"} {
		f, err := s.Create(rel)
		if err == nil {
			io.WriteString(f, "server\n")
			err = f.Commit(time.Time{})
		}
		var c *CollisionError
		if !errors.As(err, &c) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s: %v; want a link in the way", rel, err)
		}
		if _, err := s.Stat(rel); err == nil {
			t.Errorf("%s: found through the link", rel)
		}
	}
	files := readTree(t, dir)
	if len(files) != 1 || files["pub/sub/x"] != "mine\n" {
		t.Errorf("tree %q: written through a link", files)
	}
}

// An FTP name that was a link on one run and is a directory on the next
// does not have its files written through the link the first run made.
func TestMirrorFTPLinkThenDirectory(t *testing.T) {
	mod := time.Date(2025, 4, 1, 10, 0, 0, 0, time.UTC)
	fsys := fstest.MapFS{
		"pub/sub/x": {Data: []byte("sub's x\n"), Mode: 0o644, ModTime: mod},
		"pub/d":     {Data: []byte("sub"), Mode: fs.ModeSymlink | 0o777, ModTime: mod},
	}
	srv := startFTP(t, fsys, false)
	out := t.TempDir()
	o := Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}
	if _, rec, err := run(t, o, srv.URL+"/pub/"); err != nil {
		t.Fatalf("first run: %v %+v", err, rec.reports)
	}
	delete(fsys, "pub/d")
	fsys["pub/d/x"] = &fstest.MapFile{Data: []byte("evil\n"), Mode: 0o644, ModTime: mod}
	st, _, _ := run(t, o, srv.URL+"/pub/")
	if st.Failed == 0 {
		t.Error("the file under the link was not reported")
	}
	if b, err := os.ReadFile(filepath.Join(out, "pub", "sub", "x")); err != nil || string(b) != "sub's x\n" {
		t.Errorf("pub/sub/x: %q, %v: written through the link", b, err)
	}
}
