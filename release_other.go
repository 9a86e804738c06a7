//go:build !linux

package main

// releaseText does nothing where the text's pages cannot be inspected.
func releaseText() bool { return false }

// releaseArgv does nothing where the layout of the arguments is not known.
func releaseArgv([]string) bool { return false }
