package fetch

import (
	"io"
	"syscall"

	"github.com/urlget/urlget/internal/bulk"
)

// batchReceive sets SO_RCVLOWAT on src's socket when src is a stream
// socket itself (syscall.Conn), whose end is the peer closing it (see
// internal/bulk): a close wakes the reader whatever the low-water
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
	if !setLowWater(rc, receiveBatch) {
		return nil, false
	}
	return func() { setLowWater(rc, 1) }, false
}

// setLowWater sets SO_RCVLOWAT; a variable so that tests can see when.
var setLowWater = bulk.SetReceiveLowWater

// quiet reports whether nobody sees the destination fill as the bytes
// come: a regular file (an *os.File, or a writer over one that can Stat
// itself, such as the command's temporary output file) or /dev/null. A
// pipe or a terminal may have a reader waiting for every byte.
func (d destination) quiet() bool {
	return d.regular || d.null
}
