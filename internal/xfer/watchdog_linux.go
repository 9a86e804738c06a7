package xfer

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// socketCounts returns how many bytes a TCP socket has received in all
// (tcp(7) TCP_INFO, tcpi_bytes_received, Linux 4.1) and how many wait in
// it unread (SIOCINQ).
func socketCounts(rc syscall.RawConn) (received uint64, queued int, ok bool) {
	err := rc.Control(func(fd uintptr) {
		info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil {
			return
		}
		q, err := unix.IoctlGetInt(int(fd), unix.SIOCINQ)
		if err != nil {
			return
		}
		received, queued, ok = info.Bytes_received, q, true
	})
	return received, queued, ok && err == nil
}
