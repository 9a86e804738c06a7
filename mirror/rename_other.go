//go:build !linux

package mirror

import (
	"os"

	"github.com/urlget/urlget/internal/outfile"
)

// commitRename renames f's part file from StateDir/parts to its own name,
// both inside the store's root (outfile.Part). Where renameat2 is not at
// hand the name is replaced at once: two remote names one file system
// takes for one are not told apart here.
func (s *store) commitRename(f *storeFile, _ os.FileInfo) error {
	if err := f.Part.Rename(f.d.Dir, f.name, outfile.Replace); err != nil {
		return f.renameError(err)
	}
	return nil
}

// writtenKey is not kept where commitRename does not look for it.
func writtenKey(os.FileInfo) (string, bool) { return "", false }
