//go:build !linux

package main

import "os"

// createTemp creates a new file beside target, named after it and unused,
// for writing, with mode 0600.
func createTemp(dir, base string) (*os.File, error) {
	if dir == "" {
		dir = "."
	}
	return os.CreateTemp(dir, "."+base+".urlget-*")
}

// lstatMode returns the type and permission bits of what name names, not
// following a final symbolic link, and false when nothing is there.
func lstatMode(name string) (os.FileMode, bool) {
	fi, err := os.Lstat(name)
	if err != nil {
		return 0, false
	}
	return fi.Mode(), true
}

// chmodFile sets the permission bits of an open file.
func chmodFile(f *os.File, mode os.FileMode) error { return f.Chmod(mode) }

// renameFile renames oldpath to newpath, replacing what newpath names.
func renameFile(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
