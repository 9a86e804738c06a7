//go:build !linux

package schemes

import "syscall"

// SetReceiveLowWater does nothing on this platform, and reports false: the
// batching it serves is measured and used on Linux only.
func SetReceiveLowWater(rc syscall.RawConn, n int) bool { return false }
