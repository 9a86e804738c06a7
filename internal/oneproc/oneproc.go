// Package oneproc sets GOMAXPROCS to 1 while the program's packages are
// initialized, having first grown the stack of the goroutine that runs
// them, and then main, once to the size a fetch needs (see growStack). A
// command that moves one transfer at a time gains nothing from a second P,
// and loses by it: net/http's reader and writer goroutines would hand each
// response over by waking another thread through a futex.
// The command gives a GOMAXPROCS set in the environment back itself, later:
// reading the environment here would need package syscall, and so wait for
// it (below).
//
// It is a package of its own, imported for its side effect and importing
// nothing but runtime, so that the change happens as early as it can:
// package initialization runs in import-path order among the packages
// whose imports are ready (The Go Programming Language Specification,
// "Package initialization"), which puts this one sixth. Shrinking from two
// Ps to one frees the second P's allocation cache; the fewer spans it holds
// by then, the fewer pages the runtime touches to return them, and at
// start-up each page touched is a page fault. From main, the call cost a
// small fetch about a hundred more page faults, 2 ms on the benchmark
// machine; from an init that first read the environment (and so waited
// for package syscall, fourteenth), thirty-five more and 0.9 ms.
package oneproc

import "runtime"

func init() {
	growStack()
	runtime.GOMAXPROCS(1)
}
