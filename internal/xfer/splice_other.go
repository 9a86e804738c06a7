//go:build !linux

package xfer

import (
	"os"
	"syscall"
)

// The file types kindOf tells apart; here none is told, and every source
// goes through the copy buffer.
const (
	fileRegular = 1
	fileSocket  = 2
)

// fileType cannot tell a descriptor's type here.
func fileType(rc syscall.RawConn) uint32 { return 0 }

// fileSplicer has no splice(2) to offer on this platform.
func fileSplicer(d destination) sink { return nil }

// isNullDevice is false here, where nothing depends on it.
func isNullDevice(fi os.FileInfo) bool { return false }
