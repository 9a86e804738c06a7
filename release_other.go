//go:build !linux

package main

// longRun is how many URLs make a run long enough to give its text back
// (releaseText) before it starts; see release_linux.go.
const longRun = 256

// releaseText does nothing where the text's pages cannot be inspected.
func releaseText() bool { return false }
