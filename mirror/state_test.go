//go:build unix

package mirror

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// keepPart leaves rel's part holding data, kept with a validator for url,
// as a run cut short leaves it.
func keepPart(t *testing.T, s *store, rel, url, data string) {
	t.Helper()
	f, err := s.Create(rel)
	if err != nil {
		t.Fatal(err)
	}
	f.SetResume(url, `"v1"`)
	io.WriteString(f, data)
	if err := f.Abort(true); err != nil {
		t.Fatal(err)
	}
}

// The state directory, or its parts directory, replaced by a link (to a
// directory of the user's inside the tree, or one outside) or a file:
// nothing is written, the error says why, and what the link leads to
// stays as it was.
func TestStoreStateDirLinks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(dir, outside string) error
	}{
		{"state dir links inside", func(dir, _ string) error {
			os.Mkdir(filepath.Join(dir, "mine"), 0o755)
			return os.Symlink("mine", filepath.Join(dir, StateDir))
		}},
		{"state dir links outside", func(dir, outside string) error {
			return os.Symlink(outside, filepath.Join(dir, StateDir))
		}},
		{"parts dir links inside", func(dir, _ string) error {
			os.Mkdir(filepath.Join(dir, "mine"), 0o755)
			os.Mkdir(filepath.Join(dir, StateDir), 0o755)
			return os.Symlink("../mine", filepath.Join(dir, StateDir, "parts"))
		}},
		{"state dir is a file", func(dir, _ string) error {
			return os.WriteFile(filepath.Join(dir, StateDir), []byte("user"), 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newStore(t)
			outside := filepath.Join(filepath.Dir(dir), "outside")
			os.Mkdir(outside, 0o755)
			if err := tc.plant(dir, outside); err != nil {
				t.Fatal(err)
			}
			f, err := s.Create("a.txt")
			if err == nil {
				f.Abort(false)
				t.Fatal("Create succeeded with a hostile state directory")
			}
			if !errors.Is(err, ErrStateDir) && !strings.Contains(err.Error(), "escape") {
				t.Errorf("Create: %v, want ErrStateDir", err)
			}
			if p := s.Partial("a.txt", "http://h/a.txt"); p.Offset != 0 {
				t.Errorf("partial: %+v", p)
			}
			for _, d := range []string{outside, filepath.Join(dir, "mine")} {
				if ents, _ := os.ReadDir(d); len(ents) != 0 {
					t.Errorf("%s holds %d entries, want none", d, len(ents))
				}
			}
		})
	}
}

// A part file that is not the one urlget kept is never written into: a
// symbolic link planted under its name, a hard link to a file outside the
// tree with a record forged to match it, a record naming another path or
// URL, a record of garbage, a part swapped after Partial looked at it.
// Each is removed and the file is written afresh.
func TestStoreHostileParts(t *testing.T) {
	const url = "http://h/x"
	setup := func(t *testing.T) (*store, string, string, string) {
		s, dir := newStore(t)
		outside := filepath.Join(filepath.Dir(dir), "outside")
		os.Mkdir(outside, 0o755)
		secret := filepath.Join(outside, "secret")
		os.WriteFile(secret, []byte("keep me"), 0o644)
		keepPart(t, s, "x", url, "abc") // makes the state directory
		return s, dir, filepath.Join(dir, StateDir, "parts", partName("x")), secret
	}
	rewrite := func(t *testing.T, rec string, f func(string) string) {
		t.Helper()
		b, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(rec, []byte(f(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// forge makes the record describe the file at name, as an attacker
	// who can read its inode would.
	forge := func(t *testing.T, rec, name string) {
		t.Helper()
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		id, ok := statID(fi)
		if !ok {
			t.Fatal("no inode")
		}
		os.WriteFile(rec, []byte(formatRecord("x", url, `"v1"`, id)), 0o644)
	}
	finish := func(t *testing.T, s *store, dir, part, secret string) {
		t.Helper()
		if p := s.Partial("x", url); p.Offset != 0 {
			if f, err := s.Resume("x", p); err == nil {
				io.WriteString(f, "EVIL")
				f.Commit(time.Time{})
				t.Errorf("resumed a part urlget did not keep: %+v", p)
			}
		}
		write(t, s, "x", "fresh", time.Time{})
		wantFile(t, filepath.Join(dir, "x"), "fresh")
		wantFile(t, secret, "keep me")
		wantGone(t, part)
	}

	t.Run("symlink", func(t *testing.T) {
		s, dir, part, secret := setup(t)
		os.Remove(part)
		os.Symlink(secret, part)
		forge(t, part+recordSuffix, secret)
		finish(t, s, dir, part, secret)
	})
	t.Run("symlink inside", func(t *testing.T) {
		s, dir, part, secret := setup(t)
		os.WriteFile(filepath.Join(dir, "mine"), []byte("mine"), 0o644)
		os.Remove(part)
		os.Symlink("../../mine", part)
		forge(t, part+recordSuffix, filepath.Join(dir, "mine"))
		finish(t, s, dir, part, secret)
		wantFile(t, filepath.Join(dir, "mine"), "mine")
	})
	t.Run("hard link", func(t *testing.T) {
		s, dir, part, secret := setup(t)
		os.Remove(part)
		if err := os.Link(secret, part); err != nil {
			t.Skip("no hard links here:", err)
		}
		forge(t, part+recordSuffix, part)
		finish(t, s, dir, part, secret)
	})
	t.Run("record of another path", func(t *testing.T) {
		s, dir, part, secret := setup(t)
		rewrite(t, part+recordSuffix, func(r string) string {
			return strings.Replace(r, `path "x"`, `path "../../x"`, 1)
		})
		finish(t, s, dir, part, secret)
	})
	t.Run("record of another URL", func(t *testing.T) {
		s, dir, part, secret := setup(t)
		rewrite(t, part+recordSuffix, func(r string) string {
			return strings.Replace(r, `url "http://h/x"`, `url "http://evil/x"`, 1)
		})
		finish(t, s, dir, part, secret)
	})
	t.Run("record without validator", func(t *testing.T) {
		s, dir, part, secret := setup(t)
		rewrite(t, part+recordSuffix, func(r string) string {
			return strings.Replace(r, `validator "\"v1\""`, `validator ""`, 1)
		})
		finish(t, s, dir, part, secret)
	})
	t.Run("record grown", func(t *testing.T) {
		s, dir, part, secret := setup(t)
		// The part grew behind urlget's back: not the bytes it kept.
		os.WriteFile(part, []byte("abcdef"), 0o644)
		finish(t, s, dir, part, secret)
	})
	t.Run("garbage record", func(t *testing.T) {
		s, dir, part, secret := setup(t)
		os.WriteFile(part+recordSuffix, []byte(strings.Repeat("path x\n", 100000)), 0o644)
		finish(t, s, dir, part, secret)
	})
	t.Run("record is a link", func(t *testing.T) {
		s, dir, part, secret := setup(t)
		os.Remove(part + recordSuffix)
		os.Symlink(secret, part+recordSuffix)
		finish(t, s, dir, part, secret)
	})
	t.Run("swapped after partial", func(t *testing.T) {
		s, dir, part, secret := setup(t)
		p := s.Partial("x", url)
		if p.Offset != 3 {
			t.Fatalf("partial: %+v, want the kept part", p)
		}
		os.Remove(part)
		os.Symlink(secret, part)
		if f, err := s.Resume("x", p); err == nil {
			io.WriteString(f, "EVIL")
			f.Abort(false)
			t.Error("Resume opened a part swapped for a link")
		}
		finish(t, s, dir, part, secret)
	})
	t.Run("kept part resumes", func(t *testing.T) {
		s, dir, part, _ := setup(t)
		p := s.Partial("x", url)
		f, err := s.Resume("x", p)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, "def")
		if err := f.Commit(time.Time{}); err != nil {
			t.Fatal(err)
		}
		wantFile(t, filepath.Join(dir, "x"), "abcdef")
		wantGone(t, part)
	})
}

// Commit replaces a name by rename: a hard link to a file outside the
// tree, standing where the file goes, is replaced as a name, and the file
// outside keeps its bytes.
func TestStoreCommitOverHardLink(t *testing.T) {
	s, dir := newStore(t)
	outside := filepath.Join(filepath.Dir(dir), "secret")
	os.WriteFile(outside, []byte("keep me"), 0o644)
	if err := os.Link(outside, filepath.Join(dir, "x")); err != nil {
		t.Skip("no hard links here:", err)
	}
	write(t, s, "x", "remote", time.Time{})
	wantFile(t, filepath.Join(dir, "x"), "remote")
	wantFile(t, outside, "keep me")
}

// Two names that the file system takes for one file (here made so by a
// hard link, as a case-insensitive or normalizing file system makes
// "A.txt" and "a.txt" one): the second Commit of the run is refused as a
// collision naming the first, and the first file keeps its bytes. A file
// of an earlier run is replaced as usual.
func TestStoreSameFileTwoNames(t *testing.T) {
	s, dir := newStore(t)
	write(t, s, "d/A.txt", "upper", time.Time{})
	if err := os.Link(filepath.Join(dir, "d/A.txt"), filepath.Join(dir, "d/a.txt")); err != nil {
		t.Skip("no hard links here:", err)
	}
	f, err := s.Create("d/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "lower")
	err = f.Commit(time.Time{})
	var c *CollisionError
	if !errors.As(err, &c) || c.With != "d/A.txt" || c.Path != "d/a.txt" {
		t.Fatalf("Commit: %v, want a collision with d/A.txt", err)
	}
	f.Abort(false)
	wantFile(t, filepath.Join(dir, "d/A.txt"), "upper")

	// ReplaceOwn (--convert-links rewriting a page of the run) replaces.
	f, _ = s.Create("d/A.txt")
	f.ReplaceOwn()
	io.WriteString(f, "converted")
	if err := f.Commit(time.Time{}); err != nil {
		t.Fatal(err)
	}
	wantFile(t, filepath.Join(dir, "d/A.txt"), "converted")

	// A new run: the file there is an earlier run's, and is replaced.
	s.Close()
	s2, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	write(t, s2, "d/A.txt", "again", time.Time{})
	wantFile(t, filepath.Join(dir, "d/A.txt"), "again")
}

func TestRefusedName(t *testing.T) {
	for rel, refused := range map[string]bool{
		".urlget":                 true,
		".urlget/parts/x":         true,
		"h/pub/.urlget/manifest":  true,
		"h/x.urlget-part":         true,
		"h/x.urlget-part/y":       true,
		"h/x.urlget-link":         true,
		"h/.urlget-x":             false,
		"h/urlget":                false,
		"h/x.urlget-partial":      false,
		"h/.urlgetx/y":            false,
		"h/x.urlget-part.txt":     false,
		"h/pub/urlget/state.json": false,
	} {
		if got := refusedName(rel) != ""; got != refused {
			t.Errorf("refusedName(%q) = %q, want refused %v", rel, refusedName(rel), refused)
		}
	}
}

// statID returns fi's device, inode, size and time whatever its links,
// for tests that forge a record.
func statID(fi os.FileInfo) (partID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return partID{}, false
	}
	return partID{dev: uint64(st.Dev), ino: uint64(st.Ino), size: fi.Size(), mtime: fi.ModTime().UnixNano()}, true
}
