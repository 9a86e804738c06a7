//go:build unix

package outfile

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"syscall"
	"testing"
)

// TestCreateOutputInPlace checks the targets that are written in place,
// never replaced: a device (curl's -o /dev/null), a FIFO, and what a
// symbolic link leads to (-o /dev/stdout), the link staying a link.
func TestCreateOutputInPlace(t *testing.T) {
	dir := t.TempDir()
	write := func(target, body string) {
		t.Helper()
		if err := writeOutput(t, target, body); err != nil {
			t.Fatal(err)
		}
	}
	mode := func(name string) os.FileMode {
		t.Helper()
		fi, err := os.Lstat(name)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode()
	}

	// A null device of the test's own; where devices cannot be made (not
	// root), /dev/zero, which no one but root could replace.
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		null = "/dev/zero"
	}
	write(null, "discarded\n")
	if m := mode(null); m&os.ModeCharDevice == 0 {
		t.Errorf("%s is now %v, want the device it was", null, m)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 2)
	readFIFO := func() {
		go func() {
			b, _ := os.ReadFile(fifo)
			got <- string(b)
		}()
	}
	readFIFO()
	write(fifo, "through the pipe\n")
	if s := <-got; s != "through the pipe\n" {
		t.Errorf("the FIFO's reader got %q", s)
	}
	// Through a link, as -o /dev/stdout, and an abort that leaves the
	// FIFO as it is.
	link := filepath.Join(dir, "stdout")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	readFIFO()
	write(link, "through the link\n")
	if s := <-got; s != "through the link\n" {
		t.Errorf("the FIFO's reader got %q through the link", s)
	}
	readFIFO()
	f, err := Create(context.Background(), fifo)
	if err != nil {
		t.Fatal(err)
	}
	f.Abort()
	<-got
	if m := mode(fifo); m&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v", m)
	}
	if m := mode(link); m&os.ModeSymlink == 0 {
		t.Errorf("the link to the FIFO is now %v", m)
	}

	// A link to a regular file in another directory: the file is replaced
	// there, atomically, with its mode, and the link stays.
	other := t.TempDir()
	real := filepath.Join(other, "real")
	if err := os.WriteFile(real, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	toReal := filepath.Join(dir, "to-real")
	if err := os.Symlink(real, toReal); err != nil {
		t.Fatal(err)
	}
	write(toReal, "new\n")
	if b, _ := os.ReadFile(real); string(b) != "new\n" {
		t.Errorf("the linked file reads %q", b)
	}
	if m := mode(toReal); m&os.ModeSymlink == 0 {
		t.Errorf("the link is now %v", m)
	}
	if m := mode(real); m != 0o600 {
		t.Errorf("the linked file's mode is %v, want 0600", m)
	}
	if entries, _ := os.ReadDir(other); len(entries) != 1 {
		t.Errorf("the linked file's directory holds %d entries", len(entries))
	}

	// A file the process holds open, by its /proc name (as -o /dev/stdout
	// with stdout redirected to a file): written through, the same file.
	held, err := os.Create(filepath.Join(other, "held"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	held.WriteString("before\n")
	fd := strconv.Itoa(int(held.Fd()))
	for _, name := range []string{"/proc/self/fd/" + fd, "/dev/fd/" + fd} {
		if _, err := os.Stat(name); err != nil {
			continue // not on this system
		}
		write(name, "through "+name+"\n")
		if b, _ := os.ReadFile(held.Name()); string(b) != "through "+name+"\n" {
			t.Errorf("%s: the held file reads %q", name, b)
		}
		if fi, err := os.Stat(held.Name()); err != nil {
			t.Fatal(err)
		} else if hfi, _ := held.Stat(); !os.SameFile(fi, hfi) {
			t.Errorf("%s: the held file was replaced, not written through", name)
		}
	}

	// A dangling link: the file it names is created.
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(other, "created"), dangling); err != nil {
		t.Fatal(err)
	}
	write(dangling, "made\n")
	if b, _ := os.ReadFile(filepath.Join(other, "created")); string(b) != "made\n" {
		t.Errorf("the dangling link's file reads %q", b)
	}

	names := dirNames(t, dir)
	want := []string{"dangling", "fifo", "stdout", "to-real"}
	if null != "/dev/zero" {
		want = []string{"dangling", "fifo", "null", "stdout", "to-real"}
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("the directory holds %q, want %q", names, want)
	}
}

// TestNewFileUmask runs the test binary again under `umask 027`, where a
// new file's mode differs from most machines' 0644, and checks there
// that a new output file gets 0640 while a replaced file keeps its own
// mode: the umask applies without the command reading or setting it.
// The umask is the child's alone, so no other test's files see it.
func TestNewFileUmask(t *testing.T) {
	if dir := os.Getenv("OUTFILE_UMASK_DIR"); dir != "" {
		writeUnderUmask(t, dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `umask 027 && exec "$0" -test.run='^TestNewFileUmask$' -test.count=1`, os.Args[0])
	cmd.Env = append(os.Environ(), "OUTFILE_UMASK_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("under umask 027: %v\n%s", err, out)
	}
	for name, want := range map[string]os.FileMode{"fresh": 0o640, "old": 0o604} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("under umask 027, %s has mode %v, want %v", name, got, want)
		}
	}
}

// writeUnderUmask is TestNewFileUmask's child: it writes a new file and
// replaces one of mode 0604 in dir.
func writeUnderUmask(t *testing.T, dir string) {
	old := filepath.Join(dir, "old")
	if err := os.WriteFile(old, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(old, 0o604); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{filepath.Join(dir, "fresh"), old} {
		if err := writeOutput(t, target, "new\n"); err != nil {
			t.Fatal(err)
		}
	}
}
