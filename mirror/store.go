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
	"sync"
	"time"

	"github.com/urlget/urlget/internal/outfile"
)

// partSuffix ended the name of a file being written beside its final name
// in urlget before the state directory (StateDir). A remote name ending in
// it is refused (refusedName), as are names like urlget's other state.
const partSuffix = ".urlget-part"

// store writes the local tree, all of it inside one directory that it
// never leaves (os.Root): no ".." and no symbolic link leads out of it.
// Its methods may be called from many goroutines at once.
type store struct {
	root  *os.Root
	dirs  dirCache
	parts partsDir // StateDir/parts, opened on first use

	// written holds the files this store committed, by device and inode,
	// so that a name the file system takes for one written before under
	// another spelling (a case-insensitive or normalizing file system) is
	// told apart from an older file of the tree (Commit).
	writtenMu sync.Mutex
	written   *urlSet
}

// ErrCollision is what a *CollisionError is (errors.Is): a remote tree
// that has a file and a directory of one name ("foo" and "foo/bar"),
// which one local tree cannot hold.
var ErrCollision = errors.New("a file and a directory of the same name")

// CollisionError reports a file that cannot be written because its path
// is taken: With is a file where Path needs a directory, or With is Path
// itself and is a directory, or With is another name of this run that
// the file system takes for Path.
type CollisionError struct {
	Path string // the file being written, relative to Options.Dir
	With string // what is in the way, relative to Options.Dir

	// sameName tells that the file system takes Path and With, two names
	// of this run, for one (case folded, Unicode normalized).
	sameName bool
	// link tells that With is a symbolic link, where a directory of
	// Path is needed.
	link bool
}

func (e *CollisionError) Error() string {
	if e.sameName {
		return fmt.Sprintf("cannot write %s: the file system takes it for %s, written by another URL of this run (names that differ in case or Unicode normalization only)", e.Path, e.With)
	}
	if e.With == e.Path {
		return fmt.Sprintf("cannot write %s: a directory of that name is there", e.Path)
	}
	if e.link {
		return fmt.Sprintf("cannot write %s: %s is a symbolic link, where a directory is needed", e.Path, e.With)
	}
	return fmt.Sprintf("cannot write %s: %s is a file, where a directory is needed", e.Path, e.With)
}

// Is makes errors.Is(err, ErrCollision) hold.
func (e *CollisionError) Is(target error) bool { return target == ErrCollision }

// openStore opens (creating it when missing) the output directory dir.
func openStore(dir string) (*store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &store{root: r, written: newURLSet()}, nil
}

// Close releases the directory.
func (s *store) Close() error {
	s.dirs.closeAll()
	s.parts.close()
	return s.root.Close()
}

// Stat returns the file info of rel, not following a final symbolic link.
func (s *store) Stat(rel string) (os.FileInfo, error) {
	dir, name := splitRel(rel)
	d, err := s.dirs.acquire(s.root, dir, false)
	if err != nil {
		if errors.Is(err, errLinkInPath) {
			return nil, err
		}
		// The error of the whole path: which component is missing.
		return s.root.Lstat(rel)
	}
	defer s.dirs.release(d)
	return d.Root.Lstat(name)
}

// Open opens rel for reading.
func (s *store) Open(rel string) (*os.File, error) {
	dir, name := splitRel(rel)
	d, err := s.dirs.acquire(s.root, dir, false)
	if err != nil {
		if errors.Is(err, errLinkInPath) {
			return nil, err
		}
		return s.root.Open(rel)
	}
	defer s.dirs.release(d)
	return d.Root.Open(name)
}

// storeFile is a local file being written: a part file in StateDir/parts
// until Commit renames it to its own name.
type storeFile struct {
	*outfile.Part
	s       *store
	rel     string
	d       *dirRoot // the file's directory, held until Commit or Abort
	name    string   // its name there
	part    string   // the part file's name in StateDir/parts
	done    bool     // committed or aborted
	url     string   // recorded with a kept part (SetResume)
	valid   string   // the validator recorded with a kept part
	kept    bool     // Abort kept the part for a later run
	record  bool     // a record of the part may be there: removed at Commit
	replace bool     // the file replaces one this run wrote (ReplaceOwn)
}

// Create starts rel's file afresh: its part file is created anew in
// StateDir/parts with O_CREATE|O_EXCL, so that nothing there before (a
// link, a hard link to another file, an earlier part) is ever written
// into; one that is there is removed first. The directories above rel are
// made. Write it, then Commit or Abort it.
//
// rel must be a local slash-separated path (a Layout.path result). When a
// file stands where one of its directories should be, or a directory
// stands at rel itself, Create returns a *CollisionError.
func (s *store) Create(rel string) (*storeFile, error) {
	f, err := s.prepare(rel)
	if err != nil {
		return nil, err
	}
	fh, err := f.s.parts.create(f.part)
	if err != nil {
		s.dirs.release(f.d)
		return nil, err
	}
	// No record is left of the name: Partial removed a stale one, and a
	// part found in the way went with its record (partsDir.create).
	f.Part = fh
	return f, nil
}

// Resume reopens the part file a run before kept of rel, which Partial
// found to be urlget's own: it is checked again once open (device, inode,
// a single link, size and time as recorded), so that nothing swapped in
// meanwhile is written into. Writes go on at p.Offset. On an error the
// caller starts afresh with Create.
func (s *store) Resume(rel string, p partial) (*storeFile, error) {
	if p.Offset <= 0 {
		return nil, errors.New("nothing to resume")
	}
	f, err := s.prepare(rel)
	if err != nil {
		return nil, err
	}
	fh, err := f.s.parts.reopen(f.part, p)
	if err != nil {
		s.dirs.release(f.d)
		return nil, err
	}
	f.Part, f.record = fh, true
	return f, nil
}

// prepare checks rel, makes its directories and opens the state
// directory: all that Create and Resume share.
func (s *store) prepare(rel string) (*storeFile, error) {
	if !filepath.IsLocal(rel) || path.Clean(rel) != rel || rel == "." {
		return nil, fmt.Errorf("cannot write %q: not a path inside the output directory", rel)
	}
	if err := s.parts.open(s.root); err != nil {
		return nil, err
	}
	dir, name := splitRel(rel)
	d, err := s.dirs.acquire(s.root, dir, true)
	if err != nil {
		if c := s.collision(rel); c != nil {
			return nil, c
		}
		return nil, err
	}
	if fi, err := d.Root.Lstat(name); err == nil && fi.IsDir() {
		s.dirs.release(d)
		return nil, &CollisionError{Path: rel, With: rel}
	}
	return &storeFile{s: s, rel: rel, d: d, name: name, part: partName(rel)}, nil
}

// collision finds what keeps rel's directories from being made: the
// first of them that is a file (or a link to one). It is nil when none
// is, and the error that stopped MkdirAll is the one to report.
func (s *store) collision(rel string) error {
	dirs := strings.Split(path.Dir(rel), "/")
	for i := range dirs {
		p := strings.Join(dirs[:i+1], "/")
		fi, err := s.root.Lstat(p)
		if err != nil {
			return nil
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			// A link, even to a directory, is in the way too: the
			// tree's directories are never a link's target (openDir).
			return &CollisionError{Path: rel, With: p, link: true}
		}
		if !fi.IsDir() {
			return &CollisionError{Path: rel, With: p}
		}
	}
	return nil
}

// Restart empties the part file, for a server that sent everything again.
func (f *storeFile) Restart() error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// SetResume records, for a part kept by Abort, what a later run needs to
// resume it: the URL it is of and the strong validator the server gave
// when the part was started (fetch.Request.IfRange). Without a validator
// a kept part is removed: a later run could not tell that the server's
// file is still the one it began.
func (f *storeFile) SetResume(url, validator string) { f.url, f.valid = url, validator }

// ReplaceOwn lets Commit replace a file this run wrote (--convert-links
// rewriting a page), which it otherwise reports as two names of one file.
func (f *storeFile) ReplaceOwn() { f.replace = true }

// Commit closes the file, sets its modification time when mod is not
// zero, and renames it from StateDir/parts to its own name. What was
// there is replaced, never written into: a symbolic or hard link is
// replaced as a name, and what it led to stays as it was. A name the file
// system takes for another this run committed (A.txt and a.txt on a
// case-insensitive file system) is a *CollisionError, and the file that is
// there stays. On failure the part file stays, for Abort.
func (f *storeFile) Commit(mod time.Time) error {
	if f.done {
		return os.ErrClosed
	}
	fi, err := f.File.Stat()
	if err != nil {
		return err
	}
	if err := f.File.Close(); err != nil {
		return err
	}
	pd := &f.s.parts
	if !mod.IsZero() {
		if err := pd.d.Chtimes(f.part, mod); err != nil {
			return err
		}
	}
	if err := f.s.commitRename(f, fi); err != nil {
		return err
	}
	f.done = true
	if f.record {
		pd.d.Root.Remove(f.part + recordSuffix)
	}
	f.s.dirs.release(f.d)
	return nil
}

// renameError finds what kept the part from its name: a directory there
// (rename(2) refuses with EISDIR) or a file where a directory is needed;
// it is looked for only then, not before every rename.
func (f *storeFile) renameError(err error) error {
	if fi, lerr := f.d.Root.Lstat(f.name); lerr == nil && fi.IsDir() {
		return &CollisionError{Path: f.rel, With: f.rel}
	}
	if c := f.s.collision(f.rel); c != nil {
		return c
	}
	return err
}

// Abort closes the file and keeps what arrived for a later run to resume
// when keep is true and SetResume gave a validator, else removes it.
// After Commit it does nothing, so that a deferred Abort undoes only a
// file left unfinished.
func (f *storeFile) Abort(keep bool) error {
	if f.done {
		return nil
	}
	f.done = true
	var err error
	if keep && f.valid != "" {
		err = f.s.parts.keep(f)
	}
	cerr := f.File.Close()
	if errors.Is(cerr, os.ErrClosed) {
		cerr = nil // Commit closed it and then failed
	}
	if err == nil {
		err = cerr
	}
	if !keep || f.valid == "" || err != nil {
		f.s.parts.remove(f.part)
	} else {
		f.kept = true
	}
	f.s.dirs.release(f.d)
	return err
}

// Kept reports whether Abort kept the part for a later run to resume.
func (f *storeFile) Kept() bool { return f.kept }

// linkSuffix ends the temporary name a symbolic link is made under
// before it is renamed to its own.
const linkSuffix = ".urlget-link"

// Symlink makes rel a symbolic link that holds target, creating the
// directories above it. A file or link already named rel is replaced,
// never followed: the link is made under a temporary name and renamed
// over it, as Commit renames a file. A directory named rel is a
// *CollisionError. The target is written as given; the store never
// follows it, whatever it names.
func (s *store) Symlink(rel, target string) error {
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
	if err := d.Root.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := d.Root.Symlink(target, tmp); err != nil {
		return err
	}
	if err := d.Root.Rename(tmp, name); err != nil {
		d.Root.Remove(tmp)
		if fi, lerr := d.Root.Lstat(name); lerr == nil && fi.IsDir() {
			return &CollisionError{Path: rel, With: rel}
		}
		return err
	}
	return nil
}

// Readlink returns the target of the symbolic link rel.
func (s *store) Readlink(rel string) (string, error) {
	return s.root.Readlink(rel)
}

// pruneBatch is how many directory entries Prune reads at a time, so
// that a huge directory costs a bounded amount of memory beyond the
// names it removes.
const pruneBatch = 1024

// Prune removes, from directory dir, the entries whose names keep
// rejects (--delete): files, symbolic links (the link, never what it
// points to) and whole directories. The state directory at the top
// (StateDir) is never removed. A partial file (NAME + partSuffix)
// stays when keep accepts NAME, for a later run to resume. It returns the
// paths removed, relative to the store and sorted, and every failure
// joined; a dir that does not exist has nothing to remove.
func (s *store) Prune(dir string, keep func(name string) bool) ([]string, error) {
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
			if keep(name) || dir == "." && name == StateDir {
				continue
			}
			if base, ok := strings.CutSuffix(name, partSuffix); ok && keep(base) {
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
func (s *store) SetETag(rel, etag string) error {
	f, err := s.Open(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	return setETag(f, etag)
}

// ETag returns the entity tag SetETag recorded for rel, or "" when none
// is there (or the file system keeps none).
func (s *store) ETag(rel string) string {
	t, _ := s.etag(rel)
	return t
}

// etag is ETag, and whether the file's attributes tell: they do when the
// file system keeps user extended attributes, so that a file without
// one came with no entity tag (or its copy lost it), and nothing else
// need be asked.
func (s *store) etag(rel string) (etag string, known bool) {
	f, err := s.Open(rel)
	if err != nil {
		return "", false
	}
	defer f.Close()
	v, err := readETagAttr(f, etagAttr)
	if err != nil {
		return "", errors.Is(err, errNoAttr)
	}
	return string(v), true
}

// readETagAttr reads the entity tag's attribute; the tests stand in a
// file system that keeps none.
var readETagAttr = getXattr

// SetETag records the entity tag on the file being written, which keeps
// it when Commit renames it: a run stopped between the two leaves no
// file without its tag.
func (f *storeFile) SetETag(etag string) error { return setETag(f.File, etag) }

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

// noteWritten records a file this run committed.
func (s *store) noteWritten(fi os.FileInfo) {
	if k, ok := writtenKey(fi); ok {
		s.writtenMu.Lock()
		s.written.add(k)
		s.writtenMu.Unlock()
	}
}

// wasWritten reports whether this run committed the file fi.
func (s *store) wasWritten(fi os.FileInfo) bool {
	k, ok := writtenKey(fi)
	if !ok {
		return false
	}
	s.writtenMu.Lock()
	defer s.writtenMu.Unlock()
	return s.written.has(k)
}

// MkdirAll makes the directory rel and those above it when missing: a
// remote directory that lists nothing still has its local one, as wget
// and lftp make it. A file or a link that leads out where a directory
// should be is an error, as for Create.
func (s *store) MkdirAll(rel string) error {
	if rel != "." && (!filepath.IsLocal(rel) || path.Clean(rel) != rel) {
		return fmt.Errorf("cannot make %q: not a path inside the output directory", rel)
	}
	d, err := s.dirs.acquire(s.root, rel, true)
	if err != nil {
		if c := s.collision(rel + "/."); c != nil {
			return c
		}
		return err
	}
	s.dirs.release(d)
	return nil
}

// OnMkdir has f told each directory the store makes from now on, relative
// to the store. It must be called before the store is used by others.
func (s *store) OnMkdir(f func(dir string)) { s.dirs.made = f }

// realPath reports whether every directory above rel is a directory, not
// a symbolic link: os.Root follows a link that stays inside the tree, and
// a deletion must not reach a file through one.
func (s *store) realPath(rel string) bool {
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
func (s *store) lstatReal(rel string) (os.FileInfo, error) {
	if !s.realPath(rel) {
		return nil, fs.ErrNotExist
	}
	return s.root.Lstat(rel)
}

// removeFile removes the file rel; removeDir the empty directory rel.
func (s *store) removeFile(rel string) error { return s.root.Remove(rel) }

func (s *store) removeDir(rel string) error {
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
