// Package outfile writes the command's output files (-o, -O): atomically
// where a file can be replaced, so that a failed transfer leaves no partial
// file and an existing one untouched, in place where it cannot (a device,
// a FIFO, /dev/stdout) or where -C resumes. Two policies are kept apart on
// purpose: a name the user gave (Create) is written through a symbolic
// link it names, as curl does, while a name the server chose (CreateNamed,
// -O and -J) is replaced as a name and never written through.
//
// Under both lies the one piece the mirror's store stands on too: a Part,
// a file made anew (O_EXCL) under a name of its own in a directory held
// open (Dir), with the mode the kernel gives a new file under the umask,
// renamed to its final name when whole, over what stands there (Replace)
// or never (NoReplace), and removed when aborted. The policy for the final
// name is the caller's: the command's two above, the mirror's never
// following a link, relative to the directories of its tree it holds
// open, its part files in its state directory.
package outfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// File writes into a temporary file beside the target and renames it
// into place only when the transfer completed, so that a failed transfer
// leaves an existing file untouched and no partial file behind. With -C the
// target itself is written (created, or appended to): what arrived before a
// failure, a signal or -m is kept for the next -C - to resume from, as curl
// keeps it.
// A target that exists and is no regular file (/dev/null, a FIFO, a
// terminal) is written in place too: it cannot be replaced, only written
// to, as curl does.
type File struct {
	*os.File
	target   string
	part     *Part  // the temporary file; nil when the target is written in place
	base     string // the target's name in part's Dir
	inPlace  bool   // the target itself is written: nothing to rename or remove
	replaces bool   // a file is there to be replaced, with permissions perm
	perm     os.FileMode
	mod      time.Time // SetModTime's, zero for none
}

// SetModTime asks Commit to give the file this modification time (curl's
// -R): before the rename, so that the file never shows under its name
// with another; written in place, once closed.
func (f *File) SetModTime(t time.Time) { f.mod = t }

// Create opens target for a body written from its start. A regular
// file, or none yet, is written atomically (createAtomic); through a
// symbolic link, the file the link leads to is, and the link stays.
// Anything else is written in place: what exists and is no regular file,
// a dangling link's file, and the names of a descriptor (standsForOpenFile),
// which must be written through, not replaced.
func Create(ctx context.Context, target string) (*File, error) {
	if standsForOpenFile(target) {
		return openInPlace(ctx, target, os.O_CREATE|os.O_TRUNC)
	}
	fi, err := os.Lstat(target)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		real, rerr := filepath.EvalSymlinks(target)
		if fi, err = os.Stat(target); err != nil || rerr != nil {
			// A dangling link: the file it names is created.
			return openInPlace(ctx, target, os.O_CREATE|os.O_TRUNC)
		}
		target = real
	}
	if err == nil && !fi.Mode().IsRegular() {
		return openInPlace(ctx, target, 0)
	}
	f, cerr := createAtomic(target, err == nil)
	if cerr == nil && err == nil {
		f.replaces, f.perm = true, fi.Mode().Perm()
	}
	return f, cerr
}

// standsForOpenFile reports whether path names a file through a process's
// descriptor rather than by its place in a directory: /dev/stdout,
// /dev/stderr, /dev/stdin, /dev/fd/N and anything under /proc
// (/proc/self/fd/1). Such a name stands for the file the shell opened,
// perhaps for appending; its link leads to a path that renaming over would
// leave the shell's descriptor on the old file. Other paths under /dev
// take the ordinary way: a device is written in place because it is no
// regular file, and a file in /dev/shm is replaced like any other.
func standsForOpenFile(path string) bool {
	p := filepath.Clean(path)
	switch {
	case strings.HasPrefix(p, "/proc/"), strings.HasPrefix(p, "/dev/fd/"):
		return true
	}
	return p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/stdin"
}

// fifoRetry is how often the opening of a FIFO that has no reader yet is
// tried again.
const fifoRetry = 50 * time.Millisecond

// openInPlace opens target itself for writing, with flags added, and
// gives up when ctx ends.
//
// Opening a FIFO for writing waits in open(2) for a reader, where neither
// a signal nor -m could end the wait (fifo(7)): a FIFO is opened without
// waiting, and tried again every fifoRetry while it has no reader (ENXIO).
// Its writes then go through Go's poller, so that a write deadline
// (WatchWrites) ends a write into a pipe whose reader stopped reading.
func openInPlace(ctx context.Context, target string, flags int) (*File, error) {
	fi, err := os.Stat(target)
	fifo := err == nil && fi.Mode()&os.ModeNamedPipe != 0
	if fifo {
		flags |= syscall.O_NONBLOCK
	}
	for {
		f, err := os.OpenFile(target, os.O_WRONLY|flags, 0o666)
		if err == nil {
			return &File{File: f, target: target, inPlace: true}, nil
		}
		if !fifo || !errors.Is(err, syscall.ENXIO) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: no reader opened the FIFO", target)
		case <-time.After(fifoRetry):
		}
	}
}

// WatchWrites makes a write into an in-place target that blocks (a FIFO
// whose reader stopped reading, a terminal held by flow control) end when
// ctx does. It returns the function that stops watching. Regular files
// have no write deadlines; their writes do not wait on a reader.
func (f *File) WatchWrites(ctx context.Context) (stop func() bool) {
	if !f.inPlace {
		return func() bool { return false }
	}
	return context.AfterFunc(ctx, func() { f.File.SetWriteDeadline(time.Now()) })
}

// createAtomic opens a new temporary file beside target, for Commit to
// rename into place: a Part in the target's directory, named by its
// path (PathDir: the directory the user named, links and all), so that the rename
// stays within one file system, under a name drawn anew until one is
// free. With private it is made 0600 (CreatePart).
func createAtomic(target string, private bool) (*File, error) {
	dirName, base := filepath.Split(target)
	if dirName == "" {
		dirName = "."
	}
	dir := PathDir(dirName)
	for try := 0; ; try++ {
		name := "." + base + ".urlget-" + strconv.FormatUint(uint64(rand.Uint32()), 10)
		p, err := CreatePart(dir, name, private)
		if errors.Is(err, fs.ErrExist) && try < maxTempTries {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &File{File: p.File, target: target, part: p, base: base}, nil
	}
}

// maxTempTries bounds the names createAtomic tries when another file
// holds the one it drew, as os.CreateTemp bounds them.
const maxTempTries = 10000

// CreateNamed opens target for a body written from its start when the
// server chose its name (-O, -J): a temporary file made anew (O_EXCL) is
// renamed over target by Commit, whatever stands there. A symbolic link,
// a hard link to another file, a FIFO placed under the name are replaced
// as names, never written through: the server does not choose which of
// the user's files its bytes go into.
func CreateNamed(target string) (*File, error) {
	fi, err := os.Lstat(target)
	replaces := err == nil && fi.Mode().IsRegular()
	f, cerr := createAtomic(target, replaces)
	if cerr == nil && replaces {
		f.replaces, f.perm = true, fi.Mode().Perm()
	}
	return f, cerr
}

// errLinked is the cause given when -C would write through a link.
var errLinked = errors.New("is a symbolic link, which -C does not write through")

// errHardLinked is the cause given when -C with -O would append to a file
// that has other names.
var errHardLinked = errors.New("has other hard links, which -C -O does not write through")

// OpenResume opens target for -C: the body's rest is appended to it from
// offset, or with offset 0 the file is started afresh. As curl, the file
// itself is written, but never through a symbolic link as its last
// component (O_NOFOLLOW), which would have the bytes, or the truncation,
// land in whatever file the link names; when the server chose the name
// (-O), not through a second hard link either. The names that stand for a
// descriptor (/dev/stdout) are links by nature and are written through.
func OpenResume(ctx context.Context, target string, offset int64, named bool) (*File, error) {
	flags := os.O_CREATE
	if offset > 0 {
		flags |= os.O_APPEND
	}
	if !standsForOpenFile(target) {
		flags |= noFollow
	}
	f, err := openInPlace(ctx, target, flags)
	if err != nil {
		if fi, lerr := os.Lstat(target); lerr == nil && fi.Mode()&os.ModeSymlink != 0 && !standsForOpenFile(target) {
			return nil, fmt.Errorf("%s %w", target, errLinked)
		}
		return nil, err
	}
	if named {
		if fi, err := f.File.Stat(); err == nil && fi.Mode().IsRegular() && linkCount(fi) > 1 {
			f.File.Close()
			return nil, fmt.Errorf("%s %w", target, errHardLinked)
		}
	}
	if offset == 0 {
		// Truncated only once opened without following a link.
		if fi, err := f.File.Stat(); err == nil && fi.Mode().IsRegular() {
			if err := f.File.Truncate(0); err != nil {
				f.File.Close()
				return nil, err
			}
		}
	}
	return f, nil
}

// ReadFrom passes io.Copy straight to *os.File so that the kernel's copy
// paths (copy_file_range, splice) stay in use.
func (f *File) ReadFrom(r io.Reader) (int64, error) { return f.File.ReadFrom(r) }

// Commit makes the file visible under its target name.
func (f *File) Commit() error {
	if f.inPlace {
		err := f.File.Close()
		if err == nil && !f.mod.IsZero() {
			if fi, serr := os.Stat(f.target); serr == nil && fi.Mode().IsRegular() {
				// The zero access time leaves it as it is.
				err = os.Chtimes(f.target, time.Time{}, f.mod)
			}
		}
		return err
	}
	if !f.mod.IsZero() {
		if err := f.part.Chtimes(f.mod); err != nil {
			f.part.Abort()
			return err
		}
	}
	// A new file has its mode since createAtomic; one that replaces
	// another takes that one's.
	if f.replaces {
		if err := f.File.Chmod(f.perm); err != nil {
			f.part.Abort()
			return err
		}
	}
	if err := f.part.Commit(nil, f.base, Replace); err != nil {
		f.part.Abort()
		return err
	}
	return nil
}

// Abort discards the temporary file; with -C the partial data is kept.
func (f *File) Abort() {
	if f.inPlace {
		f.File.Close()
		return
	}
	f.part.Abort()
}

// CommitUnique makes the file visible under its target name when nothing
// stands there, else under the first free name of target.1 to
// target.<tries>, and returns the name it took (curl's --no-clobber,
// which appends ".N" up to 100). Each name is taken with renameat2's
// RENAME_NOREPLACE, so that a file that appears meanwhile is not
// replaced either. A target written in place (-C, a device, a FIFO) is
// closed and keeps its name. With every name taken it fails with an
// error that is fs.ErrExist, and the temporary file is removed.
func (f *File) CommitUnique(tries int) (string, error) {
	if f.inPlace {
		return f.target, f.File.Close()
	}
	if err := f.File.Close(); err != nil {
		f.part.Abort()
		return "", err
	}
	for i := 0; i <= tries; i++ {
		name, base := f.target, f.base
		if i > 0 {
			suffix := "." + strconv.Itoa(i)
			name, base = name+suffix, base+suffix
		}
		// Where RENAME_NOREPLACE is missing it replaces: a name seen
		// taken is passed over first.
		if _, err := os.Lstat(name); err == nil {
			continue
		}
		err := f.part.Rename(nil, base, NoReplace)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			f.part.Abort()
			return "", err
		}
	}
	f.part.Abort()
	return "", fmt.Errorf("%s and %s.1 to %s.%d exist: %w", f.target, f.target, f.target, tries, fs.ErrExist)
}

// Remove discards the file as Abort does, and removes a target written in
// place when it is a regular file: what -C appended to, which Abort keeps
// for the next -C -, goes too (curl's --remove-on-error). A device or a
// FIFO is never removed.
func (f *File) Remove() error {
	if !f.inPlace {
		return f.part.Abort()
	}
	f.File.Close()
	if fi, err := os.Lstat(f.target); err != nil || !fi.Mode().IsRegular() {
		return err
	}
	return os.Remove(f.target)
}
