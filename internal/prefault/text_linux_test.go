package prefault

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestTextSegment checks textSegment against /proc/self/maps: its bounds
// are those of the executable mapping that holds this package's code.
func TestTextSegment(t *testing.T) {
	lo, hi, page, why := textSegment()
	if why != "" {
		t.Fatalf("textSegment: %s", why)
	}
	if page != uintptr(os.Getpagesize()) {
		t.Errorf("page size %d, want %d", page, os.Getpagesize())
	}
	pc := reflect.ValueOf(populateText).Pointer()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "start-end perms offset dev inode path"
		fields := strings.Fields(sc.Text())
		s, e, _ := strings.Cut(fields[0], "-")
		start, _ := strconv.ParseUint(s, 16, 64)
		end, _ := strconv.ParseUint(e, 16, 64)
		if pc < uintptr(start) || pc >= uintptr(end) {
			continue
		}
		if !strings.Contains(fields[1], "x") {
			t.Fatalf("the mapping holding the code is %q, not executable", sc.Text())
		}
		if lo != uintptr(start) || hi != uintptr(end) {
			t.Errorf("textSegment %#x-%#x, the executable mapping is %#x-%#x", lo, hi, start, end)
		}
		return
	}
	t.Fatalf("no mapping holds %#x", pc)
}

// TestTextPopulated checks what init did with the text: populated it, or
// left it because the page cache lacked some of it.
func TestTextPopulated(t *testing.T) {
	tp := textPopulated
	switch tp.skipped {
	case "":
	case "not all in the page cache":
		t.Logf("text not populated: %s", tp.skipped)
		return
	default:
		t.Fatalf("text not populated: %s", tp.skipped)
	}
	if errno := syscall.Errno(tp.errno); errno != 0 && (errno != syscall.EINVAL || kernelPopulates(t)) {
		t.Fatalf("madvise(MADV_POPULATE_READ) on the text: %v", errno)
	}
	lo, hi, _, _ := textSegment()
	if tp.addr != lo || tp.n != hi-lo {
		t.Errorf("populated %#x+%#x, the text is %#x-%#x", tp.addr, tp.n, lo, hi)
	}
}

// TestPopulateCached maps a file and checks that populateCached maps all
// of it in when it is in the page cache, and leaves it when it is not.
func TestPopulateCached(t *testing.T) {
	if !kernelPopulates(t) {
		t.Log("this kernel has no MADV_POPULATE_*: populateCached answers EINVAL")
	}
	page := uintptr(os.Getpagesize())
	madvise, mincore := sysNumbers()
	const size = 64 << 10
	cached := mapFile(t, "cached", size, false)
	if rss := mappingRSS(t, cached); rss != 0 {
		t.Fatalf("a fresh mapping has %d kB resident", rss)
	}
	skipped, errno := populateCached(madvise, mincore, cached, cached+size, page)
	if skipped != "" {
		t.Fatalf("a file just written: %s", skipped)
	}
	switch {
	case errno == 0:
		if rss := mappingRSS(t, cached); rss != size>>10 {
			t.Errorf("populated mapping has %d kB resident, want %d", rss, size>>10)
		}
	case syscall.Errno(errno) != syscall.EINVAL || kernelPopulates(t):
		t.Errorf("madvise: %v", syscall.Errno(errno))
	}

	dropped := mapFile(t, "dropped", size, true)
	vec := make([]byte, size/page)
	syscall.Syscall(syscall.SYS_MINCORE, dropped, size, uintptr(unsafe.Pointer(&vec[0])))
	if vec[0]&1 != 0 {
		// tmpfs, for one, keeps its pages: nothing to drop them from.
		t.Logf("%s kept the file in memory; the uncached case is not exercised here", t.TempDir())
		return
	}
	if skipped, _ := populateCached(madvise, mincore, dropped, dropped+size, page); skipped != "not all in the page cache" {
		t.Errorf("a file dropped from the page cache: skipped %q", skipped)
	}
	if rss := mappingRSS(t, dropped); rss != 0 {
		t.Errorf("an uncached file's mapping has %d kB resident after populateCached", rss)
	}
}

// mapFile writes size bytes to a new file and maps it read-only; with drop,
// it first asks the kernel to drop the file's pages from the page cache
// (POSIX_FADV_DONTNEED, once they are written back).
func mapFile(t *testing.T, name string, size int, drop bool) uintptr {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(make([]byte, size)); err != nil {
		t.Fatal(err)
	}
	if drop {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		const fadvDontneed = 4
		syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontneed, 0, 0)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	return uintptr(unsafe.Pointer(&m[0]))
}

// mappingRSS returns the resident size, in kB, of the mapping that starts
// at addr, from /proc/self/smaps.
func mappingRSS(t *testing.T, addr uintptr) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if s, _, isRange := strings.Cut(f[0], "-"); isRange && len(f) >= 5 {
			start, err := strconv.ParseUint(s, 16, 64)
			in = err == nil && uintptr(start) == addr
			continue
		}
		if in && f[0] == "Rss:" && len(f) >= 2 {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatalf("no mapping at %#x in /proc/self/smaps", addr)
	return 0
}
