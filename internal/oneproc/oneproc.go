// Package oneproc sets GOMAXPROCS to 1, unless the environment sets it,
// when the program's packages are initialized. A command that moves one
// transfer at a time gains nothing from a second P, and loses by it:
// net/http's reader and writer goroutines would hand each response over
// by waking another thread through a futex.
//
// It is a package of its own, imported for its side effect, so that the
// change happens early: package initialization runs in import-path order
// among packages whose imports are ready (The Go Programming Language
// Specification, "Package initialization"), and this one needs only
// syscall. Shrinking from two Ps to one frees the second P's allocation
// cache; the fewer spans it holds by then, the fewer pages the runtime
// touches to return them, and at process start-up each page touched is a
// page fault. Calling runtime.GOMAXPROCS(1) from main instead cost a
// short run about a hundred more page faults, 2 ms on the benchmark
// machine.
package oneproc

import (
	"runtime"
	"syscall"
)

func init() {
	if _, set := syscall.Getenv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(1)
	}
}
