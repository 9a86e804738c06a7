//go:build linux

package mirror

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"github.com/urlget/urlget/internal/outfile"
)

// commitRename renames f's part file from StateDir/parts to its own name,
// one renameat between the two directories held open (outfile.Part). It
// first asks the kernel not to replace anything (outfile.NoReplace): on
// the first run of a tree nothing is there and the one call does it. When
// a file is there, it is one an earlier run wrote (replaced, as a name)
// or, when its inode is one this run committed, the same file under
// another spelling of the name: the file system folds case or normalizes
// Unicode, and the two remote names would have been merged into one file.
func (s *store) commitRename(f *storeFile, fi os.FileInfo) error {
	how := outfile.NoReplace
	if f.replace {
		how = outfile.Replace
	}
	err := f.Part.Rename(f.d.Dir, f.name, how)
	if how == outfile.NoReplace && errors.Is(err, fs.ErrExist) {
		if other, ok := s.sameRunFile(f); ok {
			return &CollisionError{Path: f.rel, With: other, sameName: true}
		}
		err = f.Part.Rename(f.d.Dir, f.name, outfile.Replace)
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
	fi, err := f.d.Root.Lstat(f.name)
	if err != nil || !s.wasWritten(fi) {
		return "", false
	}
	d, err := f.d.Root.Open(".")
	if err != nil {
		return "", false
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, n := range names {
		if n == f.name {
			continue
		}
		if o, err := f.d.Root.Lstat(n); err == nil && os.SameFile(o, fi) {
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
