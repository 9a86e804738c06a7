package fetch

import (
	"io"
	"os"
	"syscall"

	"github.com/urlget/urlget/schemes"
)

// batchReceive sets SO_RCVLOWAT on src's socket when src is a stream
// socket itself (syscall.Conn), whose end is the peer closing it (see
// schemes.Resource.Body): a close wakes the reader whatever the low-water
// mark, so the last bytes never wait. It returns the function that puts
// the mark back to one byte, or nil when nothing was set; retry is true
// when src may offer its socket later (it has bytes of its own to give
// first).
func batchReceive(src io.Reader) (undo func(), retry bool) {
	sc, ok := src.(syscall.Conn)
	if !ok {
		return nil, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, true
	}
	if !schemes.SetReceiveLowWater(rc, receiveBatch) {
		return nil, false
	}
	return func() { schemes.SetReceiveLowWater(rc, 1) }, false
}

// quietDestination reports whether nobody sees w fill as the bytes come:
// a regular file (an *os.File, or a writer over one that can Stat itself,
// such as the command's temporary output file) or /dev/null. A pipe or a
// terminal may have a reader waiting for every byte.
func quietDestination(w io.Writer) bool {
	st, ok := w.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return false
	}
	fi, err := st.Stat()
	if err != nil {
		return false
	}
	if fi.Mode().IsRegular() {
		return true
	}
	sys, ok := fi.Sys().(*syscall.Stat_t)
	// /dev/null is the character device 1:3 (devices.txt).
	return ok && fi.Mode()&os.ModeCharDevice != 0 && sys.Rdev == 1<<8|3
}
