package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Dir is the directory a Part is made in and renamed to, in one of two
// ways, the two policies of the writers above it:
//
//   - named by a path (PathDir), looked up anew for each file as any path
//     is, symbolic links followed on the way: the directory the user
//     named, for the command's one output file there, at no cost beyond
//     the file's own system calls;
//   - held open (NewDir): its Root confines every name to the directory,
//     so that no symbolic link there leads a file out of it, and its
//     descriptor is what renameat(2) takes to move a file between two
//     directories held open, with no path looked up again: the mirror's
//     tree and its state directory, never followed out of.
type Dir struct {
	// Root is the directory held open, for the files made, opened and
	// removed in it; nil for a Dir named by a path.
	Root *os.Root
	path string // a PathDir's

	// base and rel name the directory below another held open, where
	// renameat is not at hand: a rename between two Dirs of one base
	// then goes through base, still within it.
	base *os.Root
	rel  string

	fdOnce sync.Once
	fd     *os.File // the directory itself, for renameat; opened on first use
	fdErr  error
}

// PathDir returns the directory named by path, which each file's name
// is joined to: nothing is opened until a file is.
func PathDir(path string) *Dir { return &Dir{path: path} }

// NewDir makes a Dir of r, which the caller opened, and which Close
// closes. base and rel, when base is not nil, are where r lies: the
// directory rel (slash-separated) below base, for the renames between
// two Dirs of one base where renameat is not at hand.
func NewDir(r, base *os.Root, rel string) *Dir {
	return &Dir{Root: r, base: base, rel: rel}
}

// File returns the directory open as a file, for the system calls that
// take a directory's descriptor. It is opened once, on first use: a
// directory that only ever renames within itself never opens it.
func (d *Dir) File() (*os.File, error) {
	d.fdOnce.Do(func() {
		if d.Root == nil {
			d.fd, d.fdErr = os.Open(d.path)
		} else {
			d.fd, d.fdErr = d.Root.Open(".")
		}
	})
	return d.fd, d.fdErr
}

// Name returns the directory's path, for messages.
func (d *Dir) Name() string {
	if d.Root == nil {
		return d.path
	}
	return d.Root.Name()
}

// openFile opens name in the directory.
func (d *Dir) openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	if d.Root == nil {
		return os.OpenFile(filepath.Join(d.path, name), flag, perm)
	}
	return d.Root.OpenFile(name, flag, perm)
}

// rename renames old to new, both in the directory, replacing what is
// there.
func (d *Dir) rename(old, new string) error {
	var err error
	if d.Root == nil {
		err = os.Rename(filepath.Join(d.path, old), filepath.Join(d.path, new))
	} else {
		err = d.Root.Rename(old, new)
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return err
}

// remove removes name from the directory.
func (d *Dir) remove(name string) error {
	if d.Root == nil {
		return os.Remove(filepath.Join(d.path, name))
	}
	return d.Root.Remove(name)
}

// Close closes the directory and its descriptor, those that are open.
func (d *Dir) Close() error {
	if d.fd != nil {
		d.fd.Close()
	}
	if d.Root == nil {
		return nil
	}
	return d.Root.Close()
}

// Part is a file being written under a name of its own in a Dir, for
// Commit to rename to its final name once whole: until then the final
// name shows what was there before, and a failed body leaves nothing
// under it. Both writers of files stand on it, each with its policy for
// the final name (Create and CreateNamed here, the mirror's store).
type Part struct {
	*os.File
	dir  *Dir
	name string
}

// CreatePart makes the file name in dir anew, with O_CREATE|O_EXCL, for
// reading and writing: whatever is found under the name (a symbolic link,
// a hard link to another file, a part an earlier run left behind) makes
// it fail with an error that is fs.ErrExist, and is never written into.
//
// The file is made with mode 0666, as a program makes any new file, and
// the kernel takes the process's umask (and a directory's default ACL)
// off it at creation (open(2)): it has from the start the mode a new file
// gets, and nothing reads the umask, which POSIX offers no way to do but
// setting it (umask(2)), a change that file creation in other goroutines
// would see meanwhile. With private it is made 0600: it is to replace a
// file whose owner alone may read it, which must not be readable by
// others while it arrives.
func CreatePart(dir *Dir, name string, private bool) (*Part, error) {
	mode := os.FileMode(0o666)
	if private {
		mode = 0o600
	}
	f, err := dir.openFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return nil, err
	}
	return &Part{File: f, dir: dir, name: name}, nil
}

// OpenPart reopens for writing the part file name that a run before left
// in dir, to resume it, never through a symbolic link under the name
// (O_NOFOLLOW). The caller checks that the file opened is the one it
// left (its device, inode and links).
func OpenPart(dir *Dir, name string) (*Part, error) {
	f, err := dir.openFile(name, os.O_WRONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	return &Part{File: f, dir: dir, name: name}, nil
}

// PartName returns the part's name in its Dir.
func (p *Part) PartName() string { return p.name }

// Rename says what Commit and Rename do with a file that stands under
// the final name.
type Rename int

const (
	// Replace replaces it, as a name: a symbolic or hard link there is
	// replaced, and what it led to stays as it was (rename(2)).
	Replace Rename = iota
	// NoReplace leaves it and fails with an error that is fs.ErrExist
	// (renameat2's RENAME_NOREPLACE), where the platform and the file
	// system offer it; elsewhere it replaces, as Replace.
	NoReplace
)

// Rename moves the closed part to the name final in the Dir to (its own
// Dir when to is nil), with how saying what becomes of a file there. On
// failure the part stays under its name, for Abort or another Rename; the
// error is an *os.LinkError that names both paths.
func (p *Part) Rename(to *Dir, final string, how Rename) error {
	if to == nil {
		to = p.dir
	}
	var err error
	if to == p.dir && how == Replace {
		err = p.dir.rename(p.name, final)
	} else {
		err = renameAt(p.dir, p.name, to, final, how == NoReplace)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(p.dir.Name(), p.name), New: filepath.Join(to.Name(), final), Err: err}
	}
	return nil
}

// Commit closes the part and renames it to final in to (its own Dir when
// to is nil), as Rename. On failure the part stays, for Abort.
func (p *Part) Commit(to *Dir, final string, how Rename) error {
	if err := p.File.Close(); err != nil {
		return err
	}
	return p.Rename(to, final, how)
}

// Chtimes sets the part's modification time, its access time left as it
// is, as the mirror's store and -R give a file the remote one's.
func (p *Part) Chtimes(mod time.Time) error { return p.dir.Chtimes(p.name, mod) }

// Chtimes sets the modification time of name in the directory, its
// access time left as it is.
func (d *Dir) Chtimes(name string, mod time.Time) error {
	if d.Root == nil {
		return os.Chtimes(filepath.Join(d.path, name), time.Time{}, mod)
	}
	return d.Root.Chtimes(name, time.Time{}, mod)
}

// Abort closes the part, if it is still open, and removes it: a body
// that did not arrive whole leaves nothing behind.
func (p *Part) Abort() error {
	err := p.File.Close()
	if errors.Is(err, os.ErrClosed) {
		err = nil
	}
	if rerr := p.dir.remove(p.name); err == nil && !errors.Is(rerr, os.ErrNotExist) {
		err = rerr
	}
	return err
}
