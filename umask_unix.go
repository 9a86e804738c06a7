//go:build unix

package main

import "syscall"

// umask returns the process's file mode creation mask.
func umask() uint32 {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return uint32(m)
}
