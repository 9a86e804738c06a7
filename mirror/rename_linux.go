//go:build linux

package mirror

import (
	"errors"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// noReplaceUnsupported is set once a file system refused
// RENAME_NOREPLACE (EINVAL: some network and FUSE file systems): the
// renames after that replace at once.
var noReplaceUnsupported atomic.Bool

// commitRename renames f's part file from StateDir/parts to its own name,
// one renameat between the two directories held open. It first asks the
// kernel not to replace anything (renameat2 RENAME_NOREPLACE): on the
// first run of a tree nothing is there and the one call does it. When a
// file is there, it is one an earlier run wrote (replaced, as a name) or,
// when its inode is one this run committed, the same file under another
// spelling of the name: the file system folds case or normalizes Unicode,
// and the two remote names would have been merged into one file.
func (s *store) commitRename(f *storeFile, fi os.FileInfo) error {
	pd := &s.parts
	dfd, err := f.d.file()
	if err != nil {
		return err
	}
	var renErr error
	err = control(pd.fd, "renameat", func(from int) error {
		return control(dfd, "renameat", func(to int) error {
			if !f.replace && !noReplaceUnsupported.Load() {
				err := unix.Renameat2(from, f.part, to, f.name, unix.RENAME_NOREPLACE)
				switch {
				case err == nil:
					return nil
				case errors.Is(err, unix.EEXIST):
					if other, ok := s.sameRunFile(f); ok {
						renErr = &CollisionError{Path: f.rel, With: other, sameName: true}
						return nil
					}
				case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.ENOTSUP):
					noReplaceUnsupported.Store(true)
				default:
					return err
				}
			}
			return unix.Renameat(from, f.part, to, f.name)
		})
	})
	if renErr != nil {
		return renErr
	}
	if err != nil {
		return f.renameError(err)
	}
	s.noteWritten(fi)
	return nil
}

// sameRunFile reports whether the file at f's name is one this run
// committed under another name, and which: the directory is searched for
// another entry of the same inode. The same name written again (a page
// rewritten) is no collision.
func (s *store) sameRunFile(f *storeFile) (string, bool) {
	fi, err := f.d.r.Lstat(f.name)
	if err != nil || !s.wasWritten(fi) {
		return "", false
	}
	d, err := f.d.r.Open(".")
	if err != nil {
		return "", false
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, n := range names {
		if n == f.name {
			continue
		}
		if o, err := f.d.r.Lstat(n); err == nil && os.SameFile(o, fi) {
			if dir, _ := splitRel(f.rel); dir != "." {
				n = dir + "/" + n
			}
			return n, true
		}
	}
	return "", false
}

// writtenKey is the key of a file in store.written: its device and inode.
func writtenKey(fi os.FileInfo) (string, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return strconv.FormatUint(st.Dev, 16) + ":" + strconv.FormatUint(st.Ino, 16), true
}
