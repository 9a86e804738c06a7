package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/urlget/urlget/internal/prefault"
)

// Bits of a /proc/self/pagemap entry (the kernel's admin-guide/mm/pagemap).
const (
	pagePresent = 1 << 63
	pageFile    = 1 << 61 // a page of the file (or shared), not a private copy
)

// releaseText drops the process's mapping of its own code and read-only
// data, leaving the executable's pages in the page cache: what the run
// goes on executing and reading faults back in, the rest (package
// initializers, flag parsing, a TLS handshake) no longer counts in its
// resident memory. Done before the first URL of a long run, and before
// the copy of a long body, when the peak is still ahead. Peak RSS of small
// http files in one run, four runs each: 256 URLs 8.7-8.9 -> 8.0-8.5 MiB,
// 1000 9.0-9.3 -> 8.5-8.7, 10,000 9.4-10.0 -> 9.2-9.5; the time the text
// takes to fault back in did not show (1000 URLs: 81.0 ms both ways, means
// of 15). The read-only data (type data, the function tables the garbage
// collector and stack growth read, constants) took an https body of 1 GiB
// from 8.4-8.5 to 7.9-8.1 MiB after the text alone had taken it from
// 9.3-9.5.
//
// MADV_DONTNEED on a private file mapping gives the file's page back at
// the next touch, as the kernel does by itself for a page it reclaims
// under memory pressure (the file cannot change under a running program:
// writing to it fails with ETXTBSY). A page that is no longer the file's
// (a debugger's or uprobe's breakpoint is written into a private copy)
// would lose what was written into it: when /proc/self/pagemap shows any
// such page in a segment, or cannot be read, the segment stays as it is.
// It reports whether anything was given back.
func releaseText() bool {
	released := false
	for _, seg := range []func() (lo, hi, page uintptr, ok bool){prefault.Text, prefault.ReadOnly} {
		if releaseSegment(seg()) {
			released = true
		}
	}
	return released
}

// releaseSegment gives back the pages of one segment of the executable,
// lo to hi, unless one is a private copy.
func releaseSegment(lo, hi, page uintptr, ok bool) bool {
	if !ok {
		return false
	}
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return false
	}
	defer f.Close()
	n := int((hi - lo) / page)
	buf := make([]byte, 8*n)
	if m, err := f.ReadAt(buf, int64(lo/page)*8); err != nil || m != len(buf) {
		return false
	}
	for i := 0; i < n; i++ {
		e := binary.LittleEndian.Uint64(buf[8*i:])
		if e&pagePresent != 0 && e&pageFile == 0 {
			return false
		}
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, syscall.MADV_DONTNEED)
	return errno == 0
}

// releaseArgv gives back the pages of the array of pointers to the
// process's arguments, args being os.Args as the runtime made it. The
// array is where the System V ABI puts it at process entry: argc, then
// argv[0] to argv[argc-1] and a null pointer (System V Application Binary
// Interface, AMD64 supplement §3.4.1, "Initial Stack and Process
// Layout"; the same on every Linux architecture), at the address
// /proc/self/stat gives as the stack's start (proc(5), field 28). The
// runtime reads it once, to make its strings, which point at the
// arguments' bytes and not into the array; nothing reads it after. At
// the kernel's limit on the arguments' size it is 0.3 to 0.6 MiB, held
// for the whole run. The pages are only given back when every pointer in
// them is found where the ABI says, and only whole pages: a read of one
// afterwards sees zeros, as /proc/PID/cmdline never does (it shows the
// arguments' bytes).
func releaseArgv(args []string) bool {
	page := os.Getpagesize()
	word := int(unsafe.Sizeof(uintptr(0)))
	if len(args)*word < 2*page {
		return false
	}
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return false
	}
	// The command's name, in parentheses, may hold spaces: the fields are
	// counted from after its closing parenthesis, which is field 2.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 28-2 {
		return false
	}
	start, err := strconv.ParseUint(f[28-3], 10, 64)
	if err != nil || start == 0 {
		return false
	}
	// The pointer is made from one into the arguments' bytes, which lie
	// in the same mapping, the stack's.
	name := unsafe.Pointer(unsafe.StringData(args[0]))
	sp := unsafe.Add(name, int(uintptr(start))-int(uintptr(name)))
	at := func(i int) uintptr { return *(*uintptr)(unsafe.Add(sp, i*word)) }
	if at(0) != uintptr(len(args)) || at(len(args)+1) != 0 {
		return false
	}
	for i, a := range args {
		if at(i+1) != uintptr(unsafe.Pointer(unsafe.StringData(a))) {
			return false
		}
	}
	lo := (uintptr(start) + uintptr(word) + uintptr(page) - 1) &^ uintptr(page-1)
	hi := (uintptr(start) + uintptr((len(args)+1)*word)) &^ uintptr(page-1)
	if hi <= lo {
		return false
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, syscall.MADV_DONTNEED)
	return errno == 0
}
