// Package xfer holds the operating-system settings urlget asks for to move
// a large body with fewer system calls and wake-ups, where the standard
// library offers no way to ask: a larger pipe for the program's own
// output. It is a hint: where the platform has none, nothing is set and
// the copy works as it would without it.
//
// A fetcher offers its body to the kernel's copy paths, internally to
// urlget and absent from the public API, by implementing syscall.Conn,
// returning its socket only while the rest of the connection is the rest
// of the body, ended by the peer closing it (and an error otherwise, for
// instance while bytes it read ahead are still to be returned). Like Read,
// it is called only by the goroutine that reads the body, never during a
// Read. The copy may then hand the socket to (*os.File).ReadFrom, which
// splices it into the output file or pipe.
package xfer

// PipeSize is what GrowPipe grows a pipe to: 1 MiB, the default
// /proc/sys/fs/pipe-max-size, so that a writer and a reader exchange up to
// 256 pages per call instead of the default 16.
const PipeSize = 1 << 20
