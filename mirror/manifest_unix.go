//go:build unix

package mirror

import (
	"os"
	"syscall"
)

// oNoFollow refuses to open a symbolic link as the last component.
const oNoFollow = syscall.O_NOFOLLOW

// devIno returns the device and inode of fi.
func devIno(fi os.FileInfo) (uint64, uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}

// linkCount returns fi's link count.
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
