package xfer

import "os"

// NoFastPathEnv names the environment variable that turns every kernel
// fast path off (see the package doc): set to anything but "" or "0".
const NoFastPathEnv = "URLGET_NO_FASTPATH"

// FastPathsOff reports whether the environment turns the kernel fast
// paths off (NoFastPathEnv). It is read at each body's start, so that a
// program, or a test, may set it at any time.
func FastPathsOff() bool {
	v := os.Getenv(NoFastPathEnv)
	return v != "" && v != "0"
}

// PipeSize is what GrowPipe grows a pipe to: 1 MiB, the default
// /proc/sys/fs/pipe-max-size, so that a writer and a reader exchange up to
// 256 pages per call instead of the default 16. The pipe sizes (GrowPipe,
// setPipeSize) are a setting urlget asks of the operating system, where
// the standard library offers no way to ask, to move a large body with
// fewer system calls and wake-ups. They are a hint: where the platform has
// none, nothing is set and the copy works as it would without it.
const PipeSize = 1 << 20
