// Package bulk holds the operating-system settings urlget asks for to move
// a large body with fewer system calls and wake-ups, where the standard
// library offers no way to ask: a larger pipe for the program's own
// output, and a receive low-water mark on a socket whose stream ends at a
// known place. Both are hints: where the platform has neither, nothing is
// set and the copy works as it would without them.
//
// A fetcher offers its body to these faster paths in two ways, both
// internal to urlget and absent from the public API:
//
//   - A body may implement syscall.Conn, returning its socket only while
//     the rest of the connection is the rest of the body, ended by the
//     peer closing it (and an error otherwise, for instance while bytes
//     it read ahead are still to be returned). Like Read, it is called
//     only by the goroutine that reads the body, never during a Read.
//     The copy may then hand the socket to (*os.File).ReadFrom, which
//     splices it into the output file or pipe, and may set SO_RCVLOWAT
//     on it, which the peer's close always ends.
//   - A body that ends before its connection does implements
//     BatchReceiver and keeps the low-water mark itself.
package bulk

// PipeSize is what GrowPipe grows a pipe to: 1 MiB, the default
// /proc/sys/fs/pipe-max-size, so that a writer and a reader exchange up to
// 256 pages per call instead of the default 16.
const PipeSize = 1 << 20

// BatchReceiver is implemented by a fetcher's body that can have its reads
// woken only once n bytes wait on its connection (SetReceiveLowWater), as
// far as its own framing allows: a body that ends before its connection
// does (a length its header gave, on a connection kept for the next
// response) must keep the mark below what is still to come, so that its
// last bytes never wait. The copy asks for it when nobody watches the
// output fill.
type BatchReceiver interface {
	BatchReceive(n int)
}
