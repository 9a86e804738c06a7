package mirror

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

func newStore(t *testing.T) (*store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	s, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

// write creates rel through the store, writes data and commits it.
func write(t *testing.T, s *store, rel, data string, mod time.Time) {
	t.Helper()
	f, err := s.Create(rel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, data); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(mod); err != nil {
		t.Fatal(err)
	}
}

func wantFile(t *testing.T, name, want string) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("%s holds %q, want %q", name, b, want)
	}
}

func wantGone(t *testing.T, name string) {
	t.Helper()
	if _, err := os.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %v, want it gone", name, err)
	}
}

func TestStoreCreateCommit(t *testing.T) {
	s, dir := newStore(t)
	mod := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	f, err := s.Create("h/a b/c?x=1")
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	part := filepath.Join(dir, StateDir, "parts", partName("h/a b/c?x=1"))
	wantFile(t, part, "")
	wantGone(t, filepath.Join(dir, "h/a b/c?x=1"))
	io.WriteString(f, "hello")
	if err := f.Commit(mod); err != nil {
		t.Fatal(err)
	}
	wantFile(t, filepath.Join(dir, "h/a b/c?x=1"), "hello")
	wantGone(t, part)
	fi, err := s.Stat("h/a b/c?x=1")
	if err != nil || !fi.ModTime().Equal(mod) || fi.Size() != 5 {
		t.Errorf("Stat: %v, %v; want size 5, mtime %v", fi, err, mod)
	}
	// Abort after Commit leaves the file alone; a second Commit fails.
	if err := f.Abort(false); err != nil {
		t.Errorf("Abort after Commit: %v", err)
	}
	wantFile(t, filepath.Join(dir, "h/a b/c?x=1"), "hello")
	if err := f.Commit(time.Time{}); err == nil {
		t.Error("a second Commit succeeded")
	}

	// A new copy replaces the old one; a zero time leaves the mtime now.
	before := time.Now().Add(-time.Minute)
	write(t, s, "h/a b/c?x=1", "new", time.Time{})
	wantFile(t, filepath.Join(dir, "h/a b/c?x=1"), "new")
	if fi, err := s.Stat("h/a b/c?x=1"); err != nil || fi.ModTime().Before(before) {
		t.Errorf("Stat: %v, %v; want a current mtime", fi, err)
	}
	r, err := s.Open("h/a b/c?x=1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	r.Close()
	if string(b) != "new" {
		t.Errorf("Open read %q", b)
	}
}

func TestStoreResumeRestartAbort(t *testing.T) {
	s, dir := newStore(t)
	const url = "http://h/f"
	f, err := s.Create("f")
	if err != nil {
		t.Fatal(err)
	}
	f.SetResume(url, `"v1"`)
	io.WriteString(f, "abc")
	if err := f.Abort(true); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, StateDir, "parts", partName("f"))
	wantFile(t, part, "abc")
	wantGone(t, filepath.Join(dir, "f"))

	// The next run resumes at the end of what arrived, on the validator
	// recorded, for the same URL only.
	if p := s.Partial("f", "http://h/other"); p.Offset != 0 {
		t.Errorf("partial for another URL: %+v", p)
	}
	// That removed it: a part is resumed only for its own URL.
	wantGone(t, part)

	f, _ = s.Create("f")
	f.SetResume(url, `"v1"`)
	io.WriteString(f, "abc")
	f.Abort(true)
	p := s.Partial("f", url)
	if p.Offset != 3 || p.Validator != `"v1"` {
		t.Fatalf("partial: %+v, want offset 3 and the validator", p)
	}
	f, err = s.Resume("f", p)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "def")
	if err := f.Commit(time.Time{}); err != nil {
		t.Fatal(err)
	}
	wantFile(t, filepath.Join(dir, "f"), "abcdef")
	wantGone(t, part)
	wantGone(t, part+recordSuffix)

	// Without a validator nothing is kept: it could not be resumed.
	f, _ = s.Create("g")
	f.SetResume(url, "")
	io.WriteString(f, "stale data")
	f.Abort(true)
	wantGone(t, filepath.Join(dir, StateDir, "parts", partName("g")))
	if p := s.Partial("g", url); p.Offset != 0 {
		t.Errorf("partial of a part kept without a validator: %+v", p)
	}

	// Restart empties the part.
	f, _ = s.Create("g")
	io.WriteString(f, "stale data")
	if err := f.Restart(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "fresh")
	if err := f.Commit(time.Time{}); err != nil {
		t.Fatal(err)
	}
	wantFile(t, filepath.Join(dir, "g"), "fresh")

	// Abort(false) removes the part and leaves an older copy alone.
	f, _ = s.Create("g")
	f.SetResume(url, `"v"`)
	io.WriteString(f, "half")
	if err := f.Abort(false); err != nil {
		t.Fatal(err)
	}
	wantGone(t, filepath.Join(dir, StateDir, "parts", partName("g")))
	wantFile(t, filepath.Join(dir, "g"), "fresh")
}

func TestStoreRefusesNonLocal(t *testing.T) {
	s, _ := newStore(t)
	for _, rel := range []string{"", ".", "..", "../x", "/etc/x", "a/../../x", "a//b", "a/./b"} {
		if f, err := s.Create(rel); err == nil {
			f.Abort(false)
			t.Errorf("Create(%q) succeeded", rel)
		}
	}
}

func TestStoreCollision(t *testing.T) {
	s, dir := newStore(t)
	write(t, s, "h/foo", "file", time.Time{})

	// The remote has "foo" and "foo/bar": a file is where a directory goes.
	for _, rel := range []string{"h/foo/bar", "h/foo/x/y"} {
		_, err := s.Create(rel)
		var c *CollisionError
		if !errors.As(err, &c) || c.Path != rel || c.With != "h/foo" || !errors.Is(err, ErrCollision) {
			t.Errorf("Create(%s): %v, want a collision with h/foo", rel, err)
		}
	}
	wantFile(t, filepath.Join(dir, "h/foo"), "file")

	// The other way: "d/" came first, then "d" as a file.
	write(t, s, "h/d/inner", "in", time.Time{})
	_, err := s.Create("h/d")
	var c *CollisionError
	if !errors.As(err, &c) || c.Path != "h/d" || c.With != "h/d" {
		t.Errorf("Create(h/d): %v, want a collision with the directory", err)
	}
	wantFile(t, filepath.Join(dir, "h/d/inner"), "in")

	// A directory that appears while the file is written.
	f, err := s.Create("h/late")
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "h/late"), 0o755)
	if err := f.Commit(time.Time{}); !errors.Is(err, ErrCollision) {
		t.Errorf("Commit onto a directory: %v, want a collision", err)
	}
	late := filepath.Join(dir, StateDir, "parts", partName("h/late"))
	wantFile(t, late, "")
	if err := f.Abort(false); err != nil {
		t.Errorf("Abort after a failed Commit: %v", err)
	}
	wantGone(t, late)

	// The messages name both paths.
	if got := (&CollisionError{Path: "a/b", With: "a"}).Error(); got != "cannot write a/b: a is a file, where a directory is needed" {
		t.Errorf("message %q", got)
	}
}

// TestStoreSymlinkEscape: links inside the store that lead out of it are
// never followed, and nothing outside changes.
func TestStoreSymlinkEscape(t *testing.T) {
	s, dir := newStore(t)
	outside := filepath.Join(filepath.Dir(dir), "outside")
	os.Mkdir(outside, 0o755)
	secret := filepath.Join(outside, "secret")
	os.WriteFile(secret, []byte("keep"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"+partSuffix), []byte("part"), 0o644)
	mustLink := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	mustLink(outside, "abs")         // a directory, absolute
	mustLink("../outside", "rel")    // a directory, relative
	mustLink(secret, "file")         // a file
	mustLink(secret, "p"+partSuffix) // a partial file
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	mustLink("../../outside", "sub/up")

	for _, rel := range []string{"abs/x", "rel/x", "sub/up/x", "abs/new/x", "abs/secret", "rel/secret"} {
		if f, err := s.Create(rel); err == nil {
			f.Abort(false)
			t.Errorf("Create(%s) succeeded through a link out of the store", rel)
		}
	}
	for _, rel := range []string{"abs/secret", "rel/secret", "sub/up/secret"} {
		if _, err := s.Stat(rel); err == nil {
			t.Errorf("Stat(%s) followed a link out of the store", rel)
		}
		if r, err := s.Open(rel); err == nil {
			r.Close()
			t.Errorf("Open(%s) followed a link out of the store", rel)
		}
		if err := s.SetETag(rel, `"x"`); err == nil {
			t.Errorf("SetETag(%s) followed a link out of the store", rel)
		}
		if got := s.ETag(rel); got != "" {
			t.Errorf("ETag(%s) = %q", rel, got)
		}
	}
	if _, err := s.Prune("abs", func(string) bool { return false }); err == nil {
		t.Error("Prune(abs) followed a link out of the store")
	}
	if _, err := s.Prune("sub/up", func(string) bool { return false }); err == nil {
		t.Error("Prune(sub/up) followed a link out of the store")
	}

	// Commit: the directory the part is in turns into a link out.
	f, err := s.Create("d/x")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "data")
	os.Rename(filepath.Join(dir, "d"), filepath.Join(dir, "d2"))
	mustLink(outside, "d")
	// The file is written through its directory's open handle, which the
	// link does not change: it lands in that directory, now d2, inside the
	// store, and never where the link leads.
	if err := f.Commit(time.Time{}); err != nil {
		t.Errorf("Commit: %v", err)
	}
	f.Abort(false)
	wantGone(t, filepath.Join(outside, "x"))
	if b, err := os.ReadFile(filepath.Join(dir, "d2", "x")); err != nil || string(b) != "data" {
		t.Errorf("d2/x: %q, %v", b, err)
	}

	// Commit onto a link replaces the link, never what it points to.
	write(t, s, "file", "mine", time.Time{})
	if fi, err := os.Lstat(filepath.Join(dir, "file")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("file after Commit: %v, %v; want a regular file", fi, err)
	}

	// Prune removes links, not their targets.
	removed, err := s.Prune(".", func(name string) bool { return name == "file" || name == "d2" })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"abs", "d", "p" + partSuffix, "rel", "sub"}
	if !slices.Equal(removed, want) {
		t.Errorf("Prune removed %q, want %q", removed, want)
	}

	wantFile(t, secret, "keep")
	wantFile(t, filepath.Join(outside, "secret"+partSuffix), "part")
	if entries, _ := os.ReadDir(outside); len(entries) != 2 {
		t.Errorf("outside holds %d entries, want 2", len(entries))
	}
}

func TestStorePrune(t *testing.T) {
	s, dir := newStore(t)
	for _, rel := range []string{"h/d/a", "h/d/b", "h/d/sub/x", "h/d/sub/deeper/y", "h/keep/z"} {
		write(t, s, rel, rel, time.Time{})
	}
	os.Symlink("a", filepath.Join(dir, "h/d/link"))
	listed := map[string]bool{"a": true, "c": true}
	removed, err := s.Prune("h/d", func(name string) bool { return listed[name] })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"h/d/b", "h/d/link", "h/d/sub"}
	if !slices.Equal(removed, want) {
		t.Errorf("Prune removed %q, want %q", removed, want)
	}
	wantFile(t, filepath.Join(dir, "h/d/a"), "h/d/a")
	wantGone(t, filepath.Join(dir, "h/d/sub"))
	wantFile(t, filepath.Join(dir, "h/keep/z"), "h/keep/z")

	// A directory the run never made has nothing to prune.
	if removed, err := s.Prune("h/none", func(string) bool { return false }); err != nil || removed != nil {
		t.Errorf("Prune of a missing directory: %q, %v", removed, err)
	}
}

// TestStorePruneMany goes past one batch of directory entries.
func TestStorePruneMany(t *testing.T) {
	s, dir := newStore(t)
	os.Mkdir(filepath.Join(dir, "m"), 0o755)
	const n = pruneBatch + pruneBatch/2
	for i := range n {
		os.WriteFile(filepath.Join(dir, "m", strconv.Itoa(i)), nil, 0o644)
	}
	removed, err := s.Prune("m", func(name string) bool {
		i, _ := strconv.Atoi(name)
		return i%3 == 0
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != n-(n+2)/3 || !slices.IsSorted(removed) {
		t.Errorf("removed %d entries (sorted: %v), want %d", len(removed), slices.IsSorted(removed), n-(n+2)/3)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "m")); len(left) != (n+2)/3 {
		t.Errorf("%d entries left, want %d", len(left), (n+2)/3)
	}
}

func TestStoreETag(t *testing.T) {
	s, dir := newStore(t)
	write(t, s, "probe", "", time.Time{})
	probe, err := os.Open(filepath.Join(dir, "probe"))
	if err != nil {
		t.Fatal(err)
	}
	perr := setXattr(probe, "user.urlget-probe", []byte("1"))
	probe.Close()
	supported := perr == nil
	if perr != nil && !noXattrs(perr) {
		t.Fatalf("probing user extended attributes: %v", perr)
	}
	tag := func(v string) string {
		if supported {
			return v
		}
		return "" // no user attributes here: SetETag keeps nothing
	}

	write(t, s, "a/page.html", "<p>", time.Time{})
	if got := s.ETag("a/page.html"); got != "" {
		t.Errorf("ETag of a new file = %q", got)
	}
	if err := s.SetETag("a/page.html", `W/"abc-123"`); err != nil {
		t.Fatal(err)
	}
	if got := s.ETag("a/page.html"); got != tag(`W/"abc-123"`) {
		t.Errorf("ETag = %q, want %q", got, tag(`W/"abc-123"`))
	}
	if err := s.SetETag("a/page.html", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.SetETag("a/page.html", ""); err != nil {
		t.Errorf("forgetting a missing tag: %v", err)
	}
	if got := s.ETag("a/page.html"); got != "" {
		t.Errorf("ETag after forgetting = %q", got)
	}

	// A tag set while the file is written survives Commit's rename.
	f, err := s.Create("b")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.SetETag(`"v2"`); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if got := s.ETag("b"); got != tag(`"v2"`) {
		t.Errorf("ETag after Commit = %q, want %q", got, tag(`"v2"`))
	}
	if err := s.SetETag("missing", `"x"`); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SetETag of a missing file: %v", err)
	}
	if got := s.ETag("missing"); got != "" {
		t.Errorf("ETag of a missing file = %q", got)
	}
}

// The store keeps a bounded number of directories open, and a directory
// Prune removes is not written through again.
func TestStoreDirCache(t *testing.T) {
	s, dir := newStore(t)
	for i := range dirCacheSize * 2 {
		rel := fmt.Sprintf("h/d%03d/f", i)
		f, err := s.Create(rel)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, rel)
		if err := f.Commit(time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.dirs.dirs); n > dirCacheSize {
		t.Errorf("%d directories open, at most %d wanted", n, dirCacheSize)
	}
	for i := range dirCacheSize * 2 {
		rel := fmt.Sprintf("h/d%03d/f", i)
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); err != nil || string(b) != rel {
			t.Fatalf("%s: %q %v", rel, b, err)
		}
	}
	last := fmt.Sprintf("d%03d", dirCacheSize*2-1)
	if _, err := s.Prune("h", func(name string) bool { return name != last }); err != nil {
		t.Fatal(err)
	}
	f, err := s.Create("h/" + last + "/again")
	if err != nil {
		t.Fatal(err)
	}
	f.Commit(time.Time{})
	if _, err := os.Stat(filepath.Join(dir, "h", last, "again")); err != nil {
		t.Errorf("a file created after its directory was pruned is not in the tree: %v", err)
	}
}
