package prefault

import "unsafe"

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14, madvise(2)): map
// the range in readable, as first reads would.
const madvPopulateRead = 22

// Auxiliary vector entries (getauxval(3)) and ELF program header values
// (elf(5)) that populateText reads.
const (
	atPHDR   = 3 // the program headers, as loaded
	atPHENT  = 4 // the size of one
	atPHNUM  = 5 // how many
	atPAGESZ = 6

	ptLoad = 1
	ptPHDR = 6
	pfX    = 1 // the segment is executable
)

// phdr64 is an ELF64 program header (Elf64_Phdr).
type phdr64 struct {
	typ, flags                              uint32
	off, vaddr, paddr, filesz, memsz, align uint64
}

//go:linkname getAuxv runtime.getAuxv
func getAuxv() []uintptr

// textPopulated records what populateText did, for the tests.
var textPopulated struct {
	addr, n uintptr
	skipped string // why nothing was asked, if so
	errno   uintptr
}

// populateText maps the program's text (its executable segment) into the
// process at once, when the page cache holds all of it.
//
// Code is read from the executable's pages in the page cache, and the first
// call into each 64 KiB of it costs a page fault, even with the kernel
// mapping the pages around the one asked for (fault-around): a small fetch
// faulted about 45 times on text after the runtime's start, initializing
// the packages and running main, each fault dear in a virtual machine. On
// the benchmark machine, populating the 3.2 MB of text with one madvise
// took one small gopher fetch from 10.4 to 9.9 ms and an http one from
// 11.2 to 10.6 ms (medians over three copies of each program), 0.9 ms of
// CPU less. Resident memory grows by the text not otherwise touched: 0.2
// MiB in a run of 1000 small http files, whose text is nearly all touched
// anyway (a run that long gives its text back before it starts, package
// main's releaseText, and is resident in only the code it runs). Only the text: populating the read-only data as well (its
// function tables) gained nothing more and cost another 0.3 MiB. When
// some of the text is not in the page cache (the first run after
// installing, or after memory pressure), the faults are left to read it as
// they go: populating would read all of it from the disk first.
func populateText(madvise, mincore uintptr) {
	lo, hi, page, why := textSegment()
	if why != "" {
		textPopulated.skipped = why
		return
	}
	textPopulated.addr, textPopulated.n = lo, hi-lo
	textPopulated.skipped, textPopulated.errno = populateCached(madvise, mincore, lo, hi, page)
}

// textSegment finds the executable segment among the program headers the
// kernel loaded (auxiliary vector AT_PHDR), as page-aligned bounds, or
// says why it cannot.
func textSegment() (lo, hi, page uintptr, why string) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		return 0, 0, 0, "not a 64-bit platform"
	}
	var at, ent, num uintptr
	page = 4096
	av := getAuxv()
	for i := 0; i+1 < len(av); i += 2 {
		switch av[i] {
		case atPHDR:
			at = av[i+1]
		case atPHENT:
			ent = av[i+1]
		case atPHNUM:
			num = av[i+1]
		case atPAGESZ:
			page = av[i+1]
		}
	}
	if at == 0 || ent != unsafe.Sizeof(phdr64{}) {
		return 0, 0, 0, "no ELF64 program headers in the auxiliary vector"
	}
	// The headers are in the executable's own mapping, memory the Go heap
	// does not manage: a pointer to them from the address the kernel gave
	// is what reading them takes.
	phs := unsafe.Slice((*phdr64)(unsafe.Add(nil, at)), num)
	// The load bias: zero for an executable linked at fixed addresses,
	// else where the headers are against where they were linked.
	var bias uintptr
	for _, ph := range phs {
		if ph.typ == ptPHDR {
			bias = at - uintptr(ph.vaddr)
		}
	}
	for _, ph := range phs {
		if ph.typ == ptLoad && ph.flags&pfX != 0 {
			lo = (uintptr(ph.vaddr) + bias) &^ (page - 1)
			hi = (uintptr(ph.vaddr) + bias + uintptr(ph.memsz) + page - 1) &^ (page - 1)
			return lo, hi, page, ""
		}
	}
	return 0, 0, 0, "no executable segment"
}

// populateCached maps the file-backed range [lo, hi) in with
// MADV_POPULATE_READ when mincore(2) says the page cache holds every page
// of it; otherwise it returns why not. errno is madvise's answer.
func populateCached(madvise, mincore, lo, hi, page uintptr) (skipped string, errno uintptr) {
	vec := make([]byte, (hi-lo)/page)
	if _, _, e := rawSyscall(mincore, lo, hi-lo, uintptr(unsafe.Pointer(unsafe.SliceData(vec)))); e != 0 {
		return "mincore failed", 0
	}
	for _, v := range vec {
		if v&1 == 0 {
			return "not all in the page cache", 0
		}
	}
	_, _, errno = rawSyscall(madvise, lo, hi-lo, madvPopulateRead)
	return "", errno
}

// Text returns the bounds of the program's executable segment, page
// aligned, and the page size; ok is false when they cannot be found.
func Text() (lo, hi, page uintptr, ok bool) {
	lo, hi, page, why := textSegment()
	return lo, hi, page, why == ""
}
