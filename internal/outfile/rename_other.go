//go:build !linux

package outfile

import (
	"os"
	"path"
	"path/filepath"
)

// renameAt renames old in from to new in to. Without renameat2 at hand
// the name is replaced, noReplace or not: between two Dirs of one base
// through that base, still within it (os.Root.Rename), else by path.
func renameAt(from *Dir, old string, to *Dir, new string, _ bool) error {
	if from.base != nil && from.base == to.base {
		err := from.base.Rename(path.Join(from.rel, old), path.Join(to.rel, new))
		if le, ok := err.(*os.LinkError); ok {
			return le.Err
		}
		return err
	}
	err := os.Rename(filepath.Join(from.Name(), old), filepath.Join(to.Name(), new))
	if le, ok := err.(*os.LinkError); ok {
		return le.Err
	}
	return err
}
