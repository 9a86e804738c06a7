//go:build unix

package mirror

import (
	"io/fs"
	"syscall"
)

// idOf returns fi's partID, and whether fi is a regular file of one link.
func idOf(fi fs.FileInfo) (partID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() || st.Nlink != 1 {
		return partID{}, false
	}
	return partID{dev: uint64(st.Dev), ino: uint64(st.Ino), size: fi.Size(), mtime: fi.ModTime().UnixNano()}, true
}
