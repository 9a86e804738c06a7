package prefault

import (
	"runtime"
	"unsafe"
)

const (
	// ahead is how much of the heap above its top is populated: a small
	// gopher fetch used about 330 KiB there, an http one more, and the
	// gain stopped growing at 384 KiB. Pages a run does not reach stay
	// resident all the same: 1000 small http files in one run peaked about
	// 0.25 MiB higher with 512 KiB, no higher with 384 KiB.
	ahead = 384 << 10

	// probeSize is the size of the allocation that finds the top of the
	// heap: larger than the runtime's largest small-object size class
	// (32 KiB), so that it gets a span of its own, which the page
	// allocator places at the lowest free address, on a heap that has only
	// grown so far its top. It is five of the runtime's 8 KiB pages.
	probeSize = 40 << 10

	// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14, madvise(2)):
	// fault the range in writable, as first writes would. Older kernels
	// answer EINVAL and nothing changes. A range that runs past the part
	// of the heap's arena the runtime has made accessible is populated up
	// to there and answered with EINVAL (ENOMEM past a hole); the runtime
	// maps the rest afresh when it needs it.
	madvPopulateWrite = 23
)

// rawSyscall is package syscall's RawSyscall, reached by name (it is one
// of the functions syscall marks for that) because importing syscall would
// hold this package's initialization back until syscall's, the fourteenth.
//
//go:linkname rawSyscall syscall.RawSyscall
func rawSyscall(trap, a1, a2, a3 uintptr) (r1, r2, errno uintptr)

// sysNumber returns the system call number of madvise(2) on this
// architecture (package syscall's SYS_MADVISE), or zero where it is not
// known.
func sysNumber() uintptr {
	switch runtime.GOARCH {
	case "amd64":
		return 28
	case "arm64", "loong64", "riscv64":
		return 233
	case "386", "s390x":
		return 219
	case "arm":
		return 220
	case "ppc64", "ppc64le":
		return 205
	case "mips", "mipsle":
		return 4218
	case "mips64", "mips64le":
		return 5027
	}
	return 0
}

// probe holds the probe allocation while init looks at it; storing it in
// a package variable is what puts it on the heap.
var probe []byte

// populated records the range given to madvise and the error it answered,
// for the tests.
var populated struct {
	addr, n, errno uintptr
}

func init() {
	madvise := sysNumber()
	if madvise == 0 {
		return
	}
	probe = make([]byte, probeSize)
	top := uintptr(unsafe.Pointer(unsafe.SliceData(probe))) + probeSize
	probe = nil
	// The raw call, without telling the scheduler: nothing else waits to
	// run this early, and a P handed over while the kernel works would
	// start a thread to take it.
	_, _, errno := rawSyscall(madvise, top, ahead, madvPopulateWrite)
	populated.addr, populated.n, populated.errno = top, ahead, errno
}
