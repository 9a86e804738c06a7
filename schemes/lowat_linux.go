package schemes

import "syscall"

// SetReceiveLowWater sets the socket's SO_RCVLOWAT (socket(7)) to n bytes:
// the kernel then reports it readable, and wakes a waiting reader, only
// once n bytes wait in it, or the peer closed it. It reports whether rc is
// a stream socket and the mark was set.
func SetReceiveLowWater(rc syscall.RawConn, n int) bool {
	set := false
	err := rc.Control(func(fd uintptr) {
		if t, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TYPE); err != nil || t != syscall.SOCK_STREAM {
			return
		}
		set = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, n) == nil
	})
	return err == nil && set
}
