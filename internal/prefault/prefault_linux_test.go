package prefault

import (
	"os"
	"syscall"
	"testing"
	"unsafe"
)

func TestSyscallNumbers(t *testing.T) {
	if madvise := sysNumber(); madvise != syscall.SYS_MADVISE {
		t.Errorf("sysNumber() = %d, want SYS_MADVISE %d", madvise, syscall.SYS_MADVISE)
	}
}

// resident is the mincore(2) answer for the range that init populated,
// taken before the tests run, while nothing has yet had reason to give
// heap pages back to the kernel.
var resident []byte

func TestMain(m *testing.M) {
	// A page at a time: mincore refuses a whole range that holds a page
	// not mapped at all, and the range may run past the heap's mapping.
	page := uintptr(os.Getpagesize())
	resident = make([]byte, populated.n/page)
	for i := range resident {
		_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, populated.addr+uintptr(i)*page, page, uintptr(unsafe.Pointer(&resident[i])))
		if errno != 0 {
			resident[i] = 0 // not mapped
		}
	}
	os.Exit(m.Run())
}

// TestHeapPopulated checks what init's madvise did to the pages above the
// heap's top: all of them resident, or, when the range ran past the part
// of the heap's arena the runtime had mapped (the kernel then populates up
// to that end and answers EINVAL, or ENOMEM for a hole), the pages up to
// some point and none after it.
func TestHeapPopulated(t *testing.T) {
	if populated.n != ahead || populated.addr == 0 {
		t.Fatalf("init gave madvise %#x bytes at %#x, want %#x bytes above the heap's top", populated.n, populated.addr, ahead)
	}
	if populated.addr%uintptr(os.Getpagesize()) != 0 {
		t.Errorf("range start %#x is not page-aligned", populated.addr)
	}
	errno := syscall.Errno(populated.errno)
	if errno != 0 && !kernelPopulates(t) {
		if errno != syscall.EINVAL {
			t.Fatalf("madvise(MADV_POPULATE_WRITE) on the heap: %v, want EINVAL from a kernel without it", errno)
		}
		t.Logf("this kernel has no MADV_POPULATE_WRITE (%v); the heap is left to fault in", errno)
		return
	}
	if errno != 0 && errno != syscall.EINVAL && errno != syscall.ENOMEM {
		t.Fatalf("madvise(MADV_POPULATE_WRITE) on the heap: %v", errno)
	}
	prefix := 0
	for prefix < len(resident) && resident[prefix]&1 != 0 {
		prefix++
	}
	later := 0
	for _, r := range resident[prefix:] {
		if r&1 != 0 {
			later++
		}
	}
	switch {
	case errno == 0 && prefix < len(resident):
		t.Errorf("%d of the %d pages above the heap's top are not resident after init", len(resident)-prefix, len(resident))
	case errno != 0 && later > 0:
		t.Errorf("madvise answered %v, and %d pages are resident past the first %d: not a range that ran past the mapping", errno, later, prefix)
	case errno != 0:
		t.Logf("the range ran past the heap's mapping (%v) after %d of %d pages", errno, prefix, len(resident))
	}
}

// kernelPopulates reports whether this kernel knows MADV_POPULATE_WRITE,
// trying it on a fresh mapping of the test's own.
func kernelPopulates(t *testing.T) bool {
	m, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	_, _, e := syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&m[0])), 4096, madvPopulateWrite)
	return e == 0
}
