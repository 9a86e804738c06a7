package news

import "syscall"

// ackNow asks the kernel to acknowledge the next segment at once (Linux
// TCP_QUICKACK). Servers such as INN's nnrpd write a status line and the
// data block after it in two writes; with Nagle's algorithm on their side
// the block waits for the status line's ACK, which the client's delayed-ACK
// timer holds back for up to 40 ms: one such stall per article. Setting the
// option before each status line is read removes it; the kernel clears it
// again by itself, so it is set every time.
func ackNow(rc syscall.RawConn) {
	if rc == nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 1)
	})
}
