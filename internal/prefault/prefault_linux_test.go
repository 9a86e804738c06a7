package prefault

import (
	"os"
	"syscall"
	"testing"
	"unsafe"
)

func TestMadviseNumber(t *testing.T) {
	if got := sysMadvise(); got != syscall.SYS_MADVISE {
		t.Errorf("sysMadvise() = %d, want SYS_MADVISE = %d", got, syscall.SYS_MADVISE)
	}
}

// resident is the mincore(2) answer for the range that init populated,
// taken before the tests run, while nothing has yet had reason to give
// heap pages back to the kernel.
var resident []byte

func TestMain(m *testing.M) {
	if populated.n > 0 {
		resident = make([]byte, populated.n/uintptr(os.Getpagesize()))
		_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, populated.addr, populated.n, uintptr(unsafe.Pointer(&resident[0])))
		if errno != 0 {
			resident = nil
		}
	}
	os.Exit(m.Run())
}

func TestHeapPopulated(t *testing.T) {
	if populated.n != ahead || populated.addr == 0 {
		t.Fatalf("init gave madvise %#x bytes at %#x, want %#x bytes above the heap's top", populated.n, populated.addr, ahead)
	}
	if populated.addr%uintptr(os.Getpagesize()) != 0 {
		t.Errorf("range start %#x is not page-aligned", populated.addr)
	}
	if errno := syscall.Errno(populated.errno); errno != 0 {
		// Only a kernel without MADV_POPULATE_WRITE may refuse it; check
		// that this one does refuse it on memory of its own.
		m, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Munmap(m)
		_, _, e := syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&m[0])), 4096, madvPopulateWrite)
		if errno != syscall.EINVAL || e != syscall.EINVAL {
			t.Fatalf("madvise(MADV_POPULATE_WRITE) on the heap: %v; on a fresh mapping: %v", errno, e)
		}
		t.Logf("this kernel has no MADV_POPULATE_WRITE (%v); the heap is left to fault in", errno)
		return
	}
	if resident == nil {
		t.Fatal("mincore failed on the populated range")
	}
	missing := 0
	for _, r := range resident {
		if r&1 == 0 {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of the %d pages above the heap's top are not resident after init", missing, len(resident))
	}
}
