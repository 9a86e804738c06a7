package prefault

import (
	"bufio"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestTextSegment checks textSegment against /proc/self/maps: its bounds
// are those of the executable mapping that holds this package's code.
func TestTextSegment(t *testing.T) {
	checkSegment(t, textSegment, reflect.ValueOf(textSegment).Pointer(), "r-x")
}

// constant is a string whose bytes the linker puts in read-only data.
const constant = "read-only data of package prefault"

// TestReadOnlySegment checks readOnlySegment likewise: its bounds are
// those of the read-only mapping that holds a string constant's bytes.
func TestReadOnlySegment(t *testing.T) {
	checkSegment(t, readOnlySegment, uintptr(unsafe.Pointer(unsafe.StringData(constant))), "r--")
}

// checkSegment checks that segment's bounds are those of the mapping that
// holds address pc, and that its permissions begin with perms.
func checkSegment(t *testing.T, segment func() (lo, hi, page uintptr, why string), pc uintptr, perms string) {
	t.Helper()
	lo, hi, page, why := segment()
	if why != "" {
		t.Fatalf("segment: %s", why)
	}
	if page != uintptr(os.Getpagesize()) {
		t.Errorf("page size %d, want %d", page, os.Getpagesize())
	}
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
		if !strings.HasPrefix(fields[1], perms) {
			t.Fatalf("the mapping holding %#x is %q, not %s", pc, sc.Text(), perms)
		}
		if lo != uintptr(start) || hi != uintptr(end) {
			t.Errorf("segment %#x-%#x, the mapping is %#x-%#x", lo, hi, start, end)
		}
		return
	}
	t.Fatalf("no mapping holds %#x", pc)
}
