//go:build !linux

package main

// pinToCurrentCPU does nothing where the process's threads cannot be held
// on one CPU.
func pinToCurrentCPU() {}
