// Package xfer is urlget's copy engine: it moves one transfer's body from
// the protocol that fetched it to the caller's destination, and bounds the
// transfer while it does. A Body enforces a size limit (Config.Max), a
// read rate shared by many bodies (Bucket), and the waits a Watchdog
// allows (a connect bound until the first byte, an idle bound or a speed
// limit after it), reports progress, and ends with the transfer's
// context. Its WriteTo hands the copy to the kernel where the two ends
// allow it: splice(2) from a socket, copy_file_range(2) between regular
// files, splice from a file into a pipe or /dev/null; anything else goes
// through one reused buffer in user space.
//
// # What a body offers the engine
//
// A protocol's body reaches the kernel's copy paths in one of two ways,
// and only these:
//
//   - It is a Source: it has a descriptor (an *os.File, a *net.TCPConn,
//     or a body that implements SyscallConn) that it offers only while
//     what the descriptor still carries is the rest of the body. See
//     Source for the rule.
//   - It must see its own end (FTP's 226 reply and byte count, a length
//     to count down) and implements io.WriterTo: its WriteTo is handed a
//     destination whose ReadFrom takes its raw connection, or an
//     *io.LimitedReader over it, and copies it with the same limit,
//     progress and watchdog as the engine's own loop.
//
// A body that is neither is read through Read into the buffer.
//
// # Turning the fast paths off
//
// Setting the environment variable URLGET_NO_FASTPATH to a value other
// than "" or "0" (FastPathsOff), or Config.Plain for one body, turns every
// kernel fast path off: no splice, no copy_file_range or sendfile through
// a destination's ReadFrom, no pipe resizing, no body's own WriteTo; each
// byte is read through the body's Read into a buffer and written with the
// destination's Write. It is there to tell whether a problem is in a fast
// path, and for callers that must see every byte (an archive, a trace).
// The watchdog's socket samples (TCP_INFO) are no fast path and stay: with
// no kernel copy they are needed only before the body, under a speed
// limit, to count the bytes of a greeting or a login.
//
// # Errors
//
// The engine's own errors are a *StallError (the watchdog's bound
// passed), a *DeadlineError (the transfer's context reached its
// deadline) and a *TooLargeError; they, and a failure of the source no
// protocol classified, go through Config.MapError, with which a caller
// words them in its own taxonomy. A failure of the destination is
// returned as it is, for ClassifyWrite to tell; an interrupt is
// context.Canceled.
package xfer

import "syscall"

// A Source is a body, or the connection or file under one, that can
// offer its descriptor to the kernel's copy paths. *os.File and
// *net.TCPConn are Sources as they are.
//
// The rule for a protocol's body that implements SyscallConn: it returns
// its descriptor only while the rest of what the descriptor carries is
// the rest of the body, ended by the peer closing the connection (or by a
// regular file's end), and an error otherwise: while bytes it read ahead
// are still to be returned, while it must count a length or check a
// trailer, under TLS. The engine asks again before each copy call, so a
// body may start offering it once its buffer is drained. Like Read,
// SyscallConn is called only by the goroutine that reads the body, never
// during a Read; the watchdog samples the RawConn the copy was handed and
// never asks the body itself.
type Source interface {
	Read(p []byte) (int, error)
	SyscallConn() (syscall.RawConn, error)
}
