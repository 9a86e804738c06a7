//go:build !linux

package news

import "syscall"

// ackNow does nothing where TCP_QUICKACK does not exist.
func ackNow(syscall.RawConn) {}
