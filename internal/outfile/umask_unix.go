//go:build unix

package outfile

import (
	"sync"
	"syscall"
)

// processUmask is umask, read once: the command never changes it, and
// reading it means setting it twice.
var processUmask = sync.OnceValue(umask)

// umask returns the process's file mode creation mask.
func umask() uint32 {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return uint32(m)
}
