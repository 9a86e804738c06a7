package outfile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// writeOutput writes body to target as the command does, and returns the
// error of the commit.
func writeOutput(t *testing.T, target, body string) error {
	t.Helper()
	f, err := Create(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(body); err != nil {
		t.Fatal(err)
	}
	return f.Commit()
}

// dirNames lists a directory's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestAtomicFile checks the output file's life: invisible until
// committed, then with the mode of the file it replaces or of a new file,
// and nothing left behind when aborted or when the rename fails.
func TestAtomicFile(t *testing.T) {
	dir := t.TempDir()
	commit := func(target, body string) error { return writeOutput(t, target, body) }
	perm := func(name string) os.FileMode {
		t.Helper()
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}

	fresh := filepath.Join(dir, "fresh")
	if err := commit(fresh, "new\n"); err != nil {
		t.Fatal(err)
	}
	// A new output file has the mode any program's new file gets: what
	// the kernel leaves of 0666 under the umask.
	ref := filepath.Join(t.TempDir(), "ref")
	if err := os.WriteFile(ref, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if got, want := perm(fresh), perm(ref); got != want {
		t.Errorf("a new file has mode %v, want %v", got, want)
	}

	old := filepath.Join(dir, "old")
	if err := os.WriteFile(old, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(old, 0o640); err != nil {
		t.Fatal(err)
	}
	f, err := Create(context.Background(), old)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Create(context.Background(), old)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name() == g.Name() {
		t.Errorf("two temporary files for one target share the name %s", f.Name())
	}
	g.Abort()
	// Until the commit, the body bound for a file with mode 0640 is
	// readable by its owner only.
	if got := perm(f.Name()); got != 0o600 {
		t.Errorf("the temporary file replacing a 0640 file has mode %v, want 0600", got)
	}
	f.WriteString("replaced\n")
	if b, _ := os.ReadFile(old); string(b) != "old\n" {
		t.Errorf("the target reads %q before the commit", b)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(old); string(b) != "replaced\n" {
		t.Errorf("the target reads %q after the commit", b)
	}
	if got := perm(old); got != 0o640 {
		t.Errorf("a replaced file has mode %v, want 0640", got)
	}

	// A directory is no output file: refused before anything is written.
	busy := filepath.Join(dir, "busy")
	if err := os.MkdirAll(filepath.Join(busy, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if f, err := Create(context.Background(), busy); err == nil {
		f.Abort()
		t.Error("a directory taken for an output file")
	}
	// A rename that fails leaves no temporary file behind.
	f, err = createAtomic(busy, false)
	if err != nil {
		t.Fatal(err)
	}
	err = f.Commit()
	var le *os.LinkError
	if !errors.As(err, &le) || le.New != busy {
		t.Errorf("replacing a directory: %v, want a rename error naming it", err)
	}

	if names, want := dirNames(t, dir), []string{"busy", "fresh", "old"}; !reflect.DeepEqual(names, want) {
		t.Errorf("the directory holds %q, want %q", names, want)
	}

	if _, err := Create(context.Background(), filepath.Join(dir, "missing", "f")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file in a missing directory: %v", err)
	}
}

// TestStandsForOpenFile: the names of a descriptor are written through;
// other paths under /dev, such as a file in /dev/shm, are not among them.
func TestStandsForOpenFile(t *testing.T) {
	for path, want := range map[string]bool{
		"/dev/stdout":      true,
		"/dev/./stderr":    true,
		"/dev/stdin":       true,
		"/dev/fd/1":        true,
		"/proc/self/fd/1":  true,
		"/proc/1234/fd/7":  true,
		"/dev/shm/out.bin": false,
		"/dev/null":        false, // a device: in place by its type
		"/devices/stdout":  false,
		"dev/stdout":       false,
		"out.bin":          false,
	} {
		if got := standsForOpenFile(path); got != want {
			t.Errorf("standsForOpenFile(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestCommitUnique: a name taken is passed over for the next ".N", the
// files there are left as they were, and with every name taken the
// temporary file goes and the error is fs.ErrExist.
func TestCommitUnique(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "f")
	os.WriteFile(target, []byte("old"), 0o644)
	os.WriteFile(target+".1", []byte("old 1"), 0o644)
	for _, want := range []string{target + ".2", target + ".3"} {
		f, err := Create(context.Background(), target)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("new")
		name, err := f.CommitUnique(3)
		if err != nil || name != want {
			t.Fatalf("%q, %v; want %q", name, err, want)
		}
	}
	f, err := Create(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.CommitUnique(3); !errors.Is(err, fs.ErrExist) {
		t.Errorf("every name taken: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("left %d files: %v", len(entries), entries)
	}
	for name, want := range map[string]string{target: "old", target + ".1": "old 1", target + ".2": "new"} {
		if b, _ := os.ReadFile(name); string(b) != want {
			t.Errorf("%s: %q, want %q", name, b, want)
		}
	}
}

// TestRemoveResumed: Remove takes away a file -C wrote in place, where
// Abort keeps it.
func TestRemoveResumed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "f")
	os.WriteFile(target, []byte("part"), 0o644)
	f, err := OpenResume(context.Background(), target, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("more")
	if err := f.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the resumed file is still there: %v", err)
	}
}
