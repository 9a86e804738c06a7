package cli

import (
	"syscall"

	"golang.org/x/sys/unix"
)

const tcpFastOpenNote = "honoured on Linux with TCP_FASTOPEN_CONNECT (the first bytes go with the SYN when the server's cookie is known)"

// fastOpen turns on TCP Fast Open for a connection (RFC 7413) before it
// connects: Linux's TCP_FASTOPEN_CONNECT sends the first write with the
// SYN once the server's cookie is known, and connects as usual before.
func fastOpen(network, address string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_FASTOPEN_CONNECT, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
