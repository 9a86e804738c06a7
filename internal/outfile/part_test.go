package outfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// dirKinds are the two ways of a Dir: named by a path, held open.
var dirKinds = []string{"path", "held"}

// openDir returns dir as a Dir of kind, closed at the test's end.
func openDir(t *testing.T, kind, dir string) *Dir {
	t.Helper()
	if kind == "path" {
		d := PathDir(dir)
		t.Cleanup(func() { d.Close() })
		return d
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDir(r, nil, "")
	t.Cleanup(func() { d.Close() })
	return d
}

// readFile returns name's content, or "" when it cannot be read.
func readFile(name string) string {
	b, _ := os.ReadFile(name)
	return string(b)
}

// TestPartNeverWritesThrough: a part is made anew; a symbolic or hard
// link planted under its name is refused, and what it leads to stays.
func TestPartNeverWritesThrough(t *testing.T) {
	for _, kind := range dirKinds {
		t.Run(kind, func(t *testing.T) { testPartNeverWritesThrough(t, kind) })
	}
}

func testPartNeverWritesThrough(t *testing.T, kind string) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("mine"), 0o600)
	d := openDir(t, kind, dir)
	os.Symlink(victim, filepath.Join(dir, "sym"))
	os.Link(victim, filepath.Join(dir, "hard"))
	for _, name := range []string{"sym", "hard"} {
		if p, err := CreatePart(d, name, false); !errors.Is(err, fs.ErrExist) {
			if err == nil {
				p.Abort()
			}
			t.Errorf("a part over the planted %s: %v, want fs.ErrExist", name, err)
		}
	}
	if p, err := OpenPart(d, "sym"); err == nil {
		p.File.Close()
		if runtime.GOOS != "windows" {
			t.Error("a part reopened through a symbolic link")
		}
	}
	if got := readFile(victim); got != "mine" {
		t.Errorf("the link's target reads %q", got)
	}
}

// TestPartRename: Replace renames over what is there as a name (a link
// is replaced, its target stays); NoReplace leaves it and says so, the
// part staying for another try; Abort removes the part; a rename between
// two directories held open works as one within one.
func TestPartRename(t *testing.T) {
	for _, kind := range dirKinds {
		t.Run(kind, func(t *testing.T) { testPartRename(t, kind) })
	}
}

func testPartRename(t *testing.T, kind string) {
	dir, other := t.TempDir(), t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("mine"), 0o600)
	os.Symlink(victim, filepath.Join(other, "final"))
	d, o := openDir(t, kind, dir), openDir(t, kind, other)

	p, err := CreatePart(d, "part", false)
	if err != nil {
		t.Fatal(err)
	}
	p.WriteString("body")
	if err := p.File.Close(); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" {
		err := p.Rename(o, "final", NoReplace)
		if !errors.Is(err, fs.ErrExist) {
			t.Errorf("NoReplace over a link: %v, want fs.ErrExist", err)
		}
		var le *os.LinkError
		if !errors.As(err, &le) || le.New != filepath.Join(other, "final") {
			t.Errorf("NoReplace's error %v does not name the final path", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "part")); err != nil {
			t.Errorf("the part is gone after a refused rename: %v", err)
		}
	}
	if err := p.Rename(o, "final", Replace); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(other, "final"))
	if err != nil || !fi.Mode().IsRegular() || readFile(filepath.Join(other, "final")) != "body" {
		t.Errorf("the final name is %v (%v), want the part's file", fi, err)
	}
	if got := readFile(victim); got != "mine" {
		t.Errorf("the replaced link's target reads %q", got)
	}

	// A fresh name in the same directory, NoReplace: renamed at once.
	q, err := CreatePart(d, "part2", true)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := q.Stat(); fi.Mode().Perm() != 0o600 {
		t.Errorf("a private part has mode %v, want 0600", fi.Mode().Perm())
	}
	if err := q.Commit(nil, "new", NoReplace); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err != nil {
		t.Error(err)
	}

	r, err := CreatePart(d, "part3", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Abort(); err != nil {
		t.Fatal(err)
	}
	if names, want := dirNames(t, dir), []string{"new"}; len(names) != 1 || names[0] != want[0] {
		t.Errorf("the directory holds %q after Abort, want %q", names, want)
	}
}
