// Package prefault maps in, with one system call at start-up, the heap
// pages that package initialization and a first fetch are about to touch
// one page fault at a time. It also finds the program's text (Text), which
// package main gives back before a long run.
//
// Every page of memory a process writes for the first time costs it a
// page fault, and a short run writes a few hundred: one small gopher or
// http fetch faulted about 300 times, some 80 of them on heap pages taken
// after the runtime's own start-up. On the benchmark machine, a virtual
// machine where a page fault costs about 11 µs and populating a range with
// madvise(2) about 2.5 µs a page, having the kernel populate the next
// 384 KiB of heap at once took 0.5–0.8 ms off each such run (gopher 11.2
// to 10.4 ms, http 11.3 to 10.6 ms, --version 9.6 to 9.1 ms). On a
// machine where faults are cheap (a Linux 6.18 KVM guest), 0.1–0.3 ms:
// gopher 2.33 to 2.17 ms, http 2.52 to 2.41, --version 2.26 to 1.98.
//
// The text is left to fault in as it is reached, with the kernel mapping
// 64 KiB around each fault. Populating all 3.2 MB of it as well
// (MADV_POPULATE_READ) saved 0.5 ms where a fault cost 11 µs, but on the
// machine with cheap faults mapping the pages a short run never touches,
// and unmapping them at its exit, cost more than the 45 or so faults it
// spared: one small fetch took 0.1–0.25 ms longer with it (gopher 2.17
// against 2.41 ms, http 2.41 against 2.59, --version 1.98 against 2.21).
//
// It is a package of its own, imported for its side effect and importing
// nothing that has an initializer of its own but runtime, so that it is
// initialized as early as package oneproc and right after it (package
// initialization order: import paths in order among the packages whose
// imports are ready; The Go Programming Language Specification, "Package
// initialization"). After oneproc, because setting GOMAXPROCS to 1 returns
// the second P's cached spans first. From after package syscall (the
// fifteenth package), the same call saved half as many faults: the
// initializers in between each start spans of their own.
package prefault
