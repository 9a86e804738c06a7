package prefault

import "unsafe"

// Auxiliary vector entries (getauxval(3)) and ELF program header values
// (elf(5)) that textSegment reads.
const (
	atPHDR   = 3 // the program headers, as loaded
	atPHENT  = 4 // the size of one
	atPHNUM  = 5 // how many
	atPAGESZ = 6

	ptLoad = 1
	ptPHDR = 6
	pfX    = 1 // the segment is executable
	pfW    = 2 // writable
)

// phdr64 is an ELF64 program header (Elf64_Phdr).
type phdr64 struct {
	typ, flags                              uint32
	off, vaddr, paddr, filesz, memsz, align uint64
}

//go:linkname getAuxv runtime.getAuxv
func getAuxv() []uintptr

// textSegment finds the executable segment among the program headers the
// kernel loaded (auxiliary vector AT_PHDR), as page-aligned bounds, or
// says why it cannot.
func textSegment() (lo, hi, page uintptr, why string) {
	return loadSegment(func(flags uint32) bool { return flags&pfX != 0 })
}

// readOnlySegment finds the segment that is neither executable nor
// writable, where the linker puts read-only data (Go's: type data, the
// function tables, string constants).
func readOnlySegment() (lo, hi, page uintptr, why string) {
	return loadSegment(func(flags uint32) bool { return flags&(pfX|pfW) == 0 })
}

// loadSegment finds the largest loadable segment whose flags match: Go's
// own linker makes one of each kind, an external linker may put the ELF
// headers in a small read-only segment of their own ahead of the data.
func loadSegment(match func(flags uint32) bool) (lo, hi, page uintptr, why string) {
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
	var size uint64
	for _, ph := range phs {
		if ph.typ == ptLoad && match(ph.flags) && ph.memsz > size {
			size = ph.memsz
			lo = (uintptr(ph.vaddr) + bias) &^ (page - 1)
			hi = (uintptr(ph.vaddr) + bias + uintptr(ph.memsz) + page - 1) &^ (page - 1)
		}
	}
	if size == 0 {
		return 0, 0, 0, "no such segment"
	}
	return lo, hi, page, ""
}

// Text returns the bounds of the program's executable segment, page
// aligned, and the page size; ok is false when they cannot be found.
func Text() (lo, hi, page uintptr, ok bool) {
	lo, hi, page, why := textSegment()
	return lo, hi, page, why == ""
}

// ReadOnly returns the bounds of the program's read-only data segment,
// page aligned, and the page size; ok is false when they cannot be found.
func ReadOnly() (lo, hi, page uintptr, ok bool) {
	lo, hi, page, why := readOnlySegment()
	return lo, hi, page, why == ""
}
