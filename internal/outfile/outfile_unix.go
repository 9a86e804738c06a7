//go:build unix

package outfile

import (
	"os"
	"syscall"
)

// noFollow keeps an open from following a symbolic link as the last
// component of its path (open(2) O_NOFOLLOW: ELOOP instead).
const noFollow = syscall.O_NOFOLLOW

// linkCount returns how many names the file fi has.
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
