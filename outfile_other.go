//go:build !linux

package main

import "os"

// createTemp creates a new file in dir (empty: the working directory),
// named after base and unused, for writing, with mode 0600.
func createTemp(dir, base string) (*os.File, error) {
	if dir == "" {
		dir = "."
	}
	return os.CreateTemp(dir, "."+base+".urlget-*")
}

// chmodFile sets the permission bits of an open file.
func chmodFile(f *os.File, mode os.FileMode) error { return f.Chmod(mode) }

// renameFile renames oldpath to newpath, replacing what newpath names.
func renameFile(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
