package mirror

import (
	"io"
	"os"
	"path"
	"time"
)

// PartSuffix ends the name of a file being written: it is renamed to its
// own name once whole, and kept after a failure for the next run to resume.
const PartSuffix = ".urlget-part"

// Store writes the local tree, all of it inside one directory that it
// never leaves (os.Root): no ".." and no symbolic link leads out of it.
type Store struct {
	root *os.Root
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
func (s *Store) Close() error { return s.root.Close() }

// Stat returns the file info of rel, not following a final symbolic link.
func (s *Store) Stat(rel string) (os.FileInfo, error) { return s.root.Lstat(rel) }

// ReadFile opens rel for reading.
func (s *Store) Open(rel string) (*os.File, error) { return s.root.Open(rel) }

// File is a local file being written: rel + PartSuffix until Commit.
type File struct {
	*os.File
	s   *Store
	rel string
}

// Create opens rel's partial file for writing, creating the directories
// above it. It resumes a partial file a run before left: offset is the
// number of bytes already there (0 for a new file); the caller asks the
// server for the rest and calls Restart when it sends everything again.
func (s *Store) Create(rel string) (f *File, offset int64, err error) {
	if err := s.root.MkdirAll(path.Dir(rel), 0o755); err != nil {
		return nil, 0, err
	}
	fh, err := s.root.OpenFile(rel+PartSuffix, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, 0, err
	}
	end, err := fh.Seek(0, io.SeekEnd)
	if err != nil {
		fh.Close()
		return nil, 0, err
	}
	return &File{File: fh, s: s, rel: rel}, end, nil
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
// zero, and renames it to its own name.
func (f *File) Commit(mod time.Time) error {
	if err := f.Close(); err != nil {
		return err
	}
	if !mod.IsZero() {
		if err := f.s.root.Chtimes(f.rel+PartSuffix, mod, mod); err != nil {
			return err
		}
	}
	return f.s.root.Rename(f.rel+PartSuffix, f.rel)
}

// Abort closes the file and keeps what arrived for a later run to resume
// when keep is true, else removes it.
func (f *File) Abort(keep bool) error {
	err := f.Close()
	if !keep {
		f.s.root.Remove(f.rel + PartSuffix)
	}
	return err
}

// Prune removes, from directory dir, the entries whose names keep
// rejects (--delete); it returns the paths removed. (Skeleton.)
func (s *Store) Prune(dir string, keep func(name string) bool) ([]string, error) {
	return nil, nil
}
