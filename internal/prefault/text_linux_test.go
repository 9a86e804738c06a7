package prefault

import (
	"bufio"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
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
	pc := reflect.ValueOf(textSegment).Pointer()
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
