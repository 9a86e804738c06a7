//go:build !linux

package cli

import "syscall"

const tcpFastOpenNote = "accepted and not honoured: TCP Fast Open is set up only on Linux"

// fastOpen does nothing where TCP_FASTOPEN_CONNECT is not known.
func fastOpen(network, address string, c syscall.RawConn) error { return nil }
