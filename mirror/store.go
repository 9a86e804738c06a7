package mirror

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// PartSuffix ends the name of a file being written: it is renamed to its
// own name once whole, and kept after a failure for the next run to resume.
const PartSuffix = ".urlget-part"

// Store writes the local tree, all of it inside one directory that it
// never leaves (os.Root): no ".." and no symbolic link leads out of it.
// Its methods may be called from many goroutines at once.
type Store struct {
	root *os.Root
	dirs dirCache
}

// ErrCollision is what a *CollisionError is (errors.Is): a remote tree
// that has a file and a directory of one name ("foo" and "foo/bar"),
// which one local tree cannot hold.
var ErrCollision = errors.New("a file and a directory of the same name")

// CollisionError reports a file that cannot be written because its path
// is taken: With is a file where Path needs a directory, or With is Path
// itself and is a directory.
type CollisionError struct {
	Path string // the file being written, relative to the store
	With string // what is in the way, relative to the store
}

func (e *CollisionError) Error() string {
	if e.With == e.Path {
		return fmt.Sprintf("cannot write %s: a directory of that name is there", e.Path)
	}
	return fmt.Sprintf("cannot write %s: %s is a file, where a directory is needed", e.Path, e.With)
}

// Is makes errors.Is(err, ErrCollision) hold.
func (e *CollisionError) Is(target error) bool { return target == ErrCollision }

// IsDiskFull tells whether err is the file system running out of room:
// no space left (ENOSPC), the user's quota spent (EDQUOT), or a file
// larger than the file system or the process's limit allows (EFBIG). A
// run stops at the first, since every later file would fail the same way.
func IsDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EFBIG)
}

// OpenStore opens (creating it when missing) the output directory dir.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Store{root: r}, nil
}

// Close releases the directory.
func (s *Store) Close() error {
	s.dirs.closeAll()
	return s.root.Close()
}

// Stat returns the file info of rel, not following a final symbolic link.
func (s *Store) Stat(rel string) (os.FileInfo, error) {
	dir, name := splitRel(rel)
	d, err := s.dirs.acquire(s.root, dir, false)
	if err != nil {
		// The error of the whole path: which component is missing.
		return s.root.Lstat(rel)
	}
	defer s.dirs.release(d)
	return d.r.Lstat(name)
}

// Open opens rel for reading.
func (s *Store) Open(rel string) (*os.File, error) {
	dir, name := splitRel(rel)
	d, err := s.dirs.acquire(s.root, dir, false)
	if err != nil {
		return s.root.Open(rel)
	}
	defer s.dirs.release(d)
	return d.r.Open(name)
}

// File is a local file being written: rel + PartSuffix until Commit.
type File struct {
	*os.File
	s    *Store
	rel  string
	d    *dirRoot // the file's directory, held until Commit or Abort
	name string   // its name there
	done bool     // committed or aborted
}

// Create opens rel's partial file for writing, creating the directories
// above it. It resumes a partial file a run before left: offset is the
// number of bytes already there (0 for a new file); the caller asks the
// server for the rest and calls Restart when it sends everything again.
//
// rel must be a local slash-separated path (a Layout.Path result). When a
// file stands where one of its directories should be, or a directory
// stands at rel itself, Create returns a *CollisionError.
func (s *Store) Create(rel string) (f *File, offset int64, err error) {
	if !filepath.IsLocal(rel) || path.Clean(rel) != rel {
		return nil, 0, fmt.Errorf("cannot write %q: not a path inside the output directory", rel)
	}
	dir, name := splitRel(rel)
	d, err := s.dirs.acquire(s.root, dir, true)
	if err != nil {
		if c := s.collision(rel); c != nil {
			return nil, 0, c
		}
		return nil, 0, err
	}
	if fi, err := d.r.Lstat(name); err == nil && fi.IsDir() {
		s.dirs.release(d)
		return nil, 0, &CollisionError{Path: rel, With: rel}
	}
	fh, err := d.r.OpenFile(name+PartSuffix, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		s.dirs.release(d)
		return nil, 0, err
	}
	end, err := fh.Seek(0, io.SeekEnd)
	if err != nil {
		fh.Close()
		s.dirs.release(d)
		return nil, 0, err
	}
	return &File{File: fh, s: s, rel: rel, d: d, name: name}, end, nil
}

// collision finds what keeps rel's directories from being made: the
// first of them that is a file (or a link to one). It is nil when none
// is, and the error that stopped MkdirAll is the one to report.
func (s *Store) collision(rel string) error {
	dirs := strings.Split(path.Dir(rel), "/")
	for i := range dirs {
		p := strings.Join(dirs[:i+1], "/")
		fi, err := s.root.Lstat(p)
		if err != nil {
			return nil
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			// A link to a directory inside the root is a directory; one
			// that leads out is os.Root's refusal, reported as it is.
			if fi, err = s.root.Stat(p); err != nil {
				return nil
			}
		}
		if !fi.IsDir() {
			return &CollisionError{Path: rel, With: p}
		}
	}
	return nil
}

// Restart empties the partial file, for a server that cannot resume.
func (f *File) Restart() error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// Commit closes the file, sets its modification time when mod is not
// zero, and renames it to its own name, replacing what was there (a
// symbolic link is replaced, never followed). Nothing else of the remote
// file is kept. On failure the partial file stays, for Abort.
func (f *File) Commit(mod time.Time) error {
	if f.done {
		return os.ErrClosed
	}
	if err := f.File.Close(); err != nil {
		return err
	}
	part := f.name + PartSuffix
	if !mod.IsZero() {
		// The zero access time leaves the access time as it is.
		if err := f.d.r.Chtimes(part, time.Time{}, mod); err != nil {
			return err
		}
	}
	if err := f.d.r.Rename(part, f.name); err != nil {
		// rename(2) refuses to put a file over a directory (EISDIR):
		// look for what stood in the way only then, not before every
		// rename.
		if fi, lerr := f.d.r.Lstat(f.name); lerr == nil && fi.IsDir() {
			return &CollisionError{Path: f.rel, With: f.rel}
		}
		if c := f.s.collision(f.rel); c != nil {
			return c
		}
		return err
	}
	f.done = true
	f.s.dirs.release(f.d)
	return nil
}

// Abort closes the file and keeps what arrived for a later run to resume
// when keep is true, else removes it. After Commit it does nothing, so
// that a deferred Abort undoes only a file left unfinished.
func (f *File) Abort(keep bool) error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.File.Close()
	if errors.Is(err, os.ErrClosed) {
		err = nil // Commit closed it and then failed
	}
	if !keep {
		if rerr := f.d.r.Remove(f.name + PartSuffix); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	f.s.dirs.release(f.d)
	return err
}

// linkSuffix ends the temporary name a symbolic link is made under
// before it is renamed to its own.
const linkSuffix = ".urlget-link"

// Symlink makes rel a symbolic link that holds target, creating the
// directories above it. A file or link already named rel is replaced,
// never followed: the link is made under a temporary name and renamed
// over it, as Commit renames a file. A directory named rel is a
// *CollisionError. The target is written as given; the Store never
// follows it, whatever it names.
func (s *Store) Symlink(rel, target string) error {
	if !filepath.IsLocal(rel) || path.Clean(rel) != rel {
		return fmt.Errorf("cannot write %q: not a path inside the output directory", rel)
	}
	dir, name := splitRel(rel)
	d, err := s.dirs.acquire(s.root, dir, true)
	if err != nil {
		if c := s.collision(rel); c != nil {
			return c
		}
		return err
	}
	defer s.dirs.release(d)
	tmp := name + linkSuffix
	// One a run stopped before its rename left behind.
	if err := d.r.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := d.r.Symlink(target, tmp); err != nil {
		return err
	}
	if err := d.r.Rename(tmp, name); err != nil {
		d.r.Remove(tmp)
		if fi, lerr := d.r.Lstat(name); lerr == nil && fi.IsDir() {
			return &CollisionError{Path: rel, With: rel}
		}
		return err
	}
	return nil
}

// Readlink returns the target of the symbolic link rel.
func (s *Store) Readlink(rel string) (string, error) {
	return s.root.Readlink(rel)
}

// pruneBatch is how many directory entries Prune reads at a time, so
// that a huge directory costs a bounded amount of memory beyond the
// names it removes.
const pruneBatch = 1024

// Prune removes, from directory dir, the entries whose names keep
// rejects (--delete): files, symbolic links (the link, never what it
// points to) and whole directories. A partial file (NAME + PartSuffix)
// stays when keep accepts NAME, for a later run to resume. It returns the
// paths removed, relative to the store and sorted, and every failure
// joined; a dir that does not exist has nothing to remove.
func (s *Store) Prune(dir string, keep func(name string) bool) ([]string, error) {
	d, err := s.root.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var removed []string
	var errs []error
	for {
		entries, err := d.ReadDir(pruneBatch)
		for _, e := range entries {
			name := e.Name()
			if keep(name) {
				continue
			}
			if base, ok := strings.CutSuffix(name, PartSuffix); ok && keep(base) {
				continue
			}
			rel := path.Join(dir, name)
			var rerr error
			if e.IsDir() {
				s.dirs.forget(rel)
				rerr = s.root.RemoveAll(rel)
			} else {
				rerr = s.root.Remove(rel)
			}
			if rerr != nil {
				errs = append(errs, rerr)
				continue
			}
			removed = append(removed, rel)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, err)
			break
		}
	}
	slices.Sort(removed)
	return removed, errors.Join(errs...)
}

// etagAttr is the extended attribute that holds a file's HTTP entity tag.
const etagAttr = "user.etag"

// SetETag records etag, the HTTP entity tag (RFC 9110 §8.8.3) the file
// rel came with, for the next run's If-None-Match; "" forgets it. Where
// the file system or the platform keeps no user extended attributes it
// does nothing and returns nil.
func (s *Store) SetETag(rel, etag string) error {
	f, err := s.Open(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	return setETag(f, etag)
}

// ETag returns the entity tag SetETag recorded for rel, or "" when none
// is there (or the file system keeps none).
func (s *Store) ETag(rel string) string {
	f, err := s.Open(rel)
	if err != nil {
		return ""
	}
	defer f.Close()
	v, err := getXattr(f, etagAttr)
	if err != nil {
		return ""
	}
	return string(v)
}

// SetETag records the entity tag on the file being written, which keeps
// it when Commit renames it: a run stopped between the two leaves no
// file without its tag.
func (f *File) SetETag(etag string) error { return setETag(f.File, etag) }

func setETag(f *os.File, etag string) error {
	var err error
	if etag == "" {
		err = removeXattr(f, etagAttr)
		if errors.Is(err, errNoAttr) {
			err = nil
		}
	} else {
		err = setXattr(f, etagAttr, []byte(etag))
	}
	if noXattrs(err) {
		return nil
	}
	return err
}

// OnMkdir has f told each directory the Store makes from now on, relative
// to the store. It must be called before the Store is used by others.
func (s *Store) OnMkdir(f func(dir string)) { s.dirs.made = f }

// realPath reports whether every directory above rel is a directory, not
// a symbolic link: os.Root follows a link that stays inside the tree, and
// a deletion must not reach a file through one.
func (s *Store) realPath(rel string) bool {
	dirs := strings.Split(rel, "/")
	for i := 1; i < len(dirs); i++ {
		fi, err := s.root.Lstat(strings.Join(dirs[:i], "/"))
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// lstatReal returns the file info of rel, not following a final symbolic link
// and reached through no link (realPath): fs.ErrNotExist otherwise.
func (s *Store) lstatReal(rel string) (os.FileInfo, error) {
	if !s.realPath(rel) {
		return nil, fs.ErrNotExist
	}
	return s.root.Lstat(rel)
}

// removeFile removes the file rel; removeDir the empty directory rel.
func (s *Store) removeFile(rel string) error { return s.root.Remove(rel) }

func (s *Store) removeDir(rel string) error {
	fi, err := s.lstatReal(rel)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return errors.New("not a directory")
	}
	s.dirs.forget(rel)
	return s.root.Remove(rel)
}
