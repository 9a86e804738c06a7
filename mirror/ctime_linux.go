package mirror

import (
	"os"
	"syscall"
)

// ctimeOf returns fi's inode change time in nanoseconds (st_ctim), 0 when
// fi does not come from stat(2).
func ctimeOf(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Sec*1e9 + st.Ctim.Nsec
	}
	return 0
}
