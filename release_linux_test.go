package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"

	"github.com/urlget/urlget/internal/prefault"
)

// textRSS returns the resident KiB of the mapping that starts at lo, from
// /proc/self/smaps.
func textRSS(t *testing.T, lo uintptr) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if s, _, ok := strings.Cut(l, "-"); ok && !strings.Contains(s, " ") && !strings.HasSuffix(s, ":") {
			start, err := strconv.ParseUint(s, 16, 64)
			in = err == nil && uintptr(start) == lo
			continue
		}
		if v, ok := strings.CutPrefix(l, "Rss:"); in && ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb
		}
	}
	t.Fatalf("no mapping at %#x in /proc/self/smaps", lo)
	return 0
}

// TestReleaseText checks that releasing the text drops it from the
// resident set, and that the program runs on: its code faults back in.
func TestReleaseText(t *testing.T) {
	lo, hi, page, ok := prefault.Text()
	if !ok {
		t.Fatal("no text segment found")
	}
	before := textRSS(t, lo)
	if !releaseText() {
		t.Fatal("releaseText refused a text with no page of its own")
	}
	after := textRSS(t, lo)
	t.Logf("text %d KiB, resident %d KiB before, %d KiB after", (hi-lo)>>10, before, after)
	if after >= before {
		t.Errorf("resident text %d KiB after the release, %d before", after, before)
	}

	// A page of the text that is no longer the file's, as a debugger's
	// breakpoint makes it: writing a word of textRSS's code over itself
	// gives the process its own copy of that page (package main's code
	// runs on this goroutine alone). The release must then leave the text
	// be.
	pc := reflect.ValueOf(textRSS).Pointer()
	p := pc &^ (page - 1)
	mem := unsafe.Slice((*byte)(unsafe.Add(nil, p)), page)
	if err := syscall.Mprotect(mem, syscall.PROT_READ|syscall.PROT_WRITE|syscall.PROT_EXEC); err != nil {
		t.Logf("the refusal is not checked: the text cannot be made writable: %v", err)
		return
	}
	w := (*uint32)(unsafe.Pointer(&mem[(pc-p)&^3]))
	atomic.StoreUint32(w, atomic.LoadUint32(w))
	if err := syscall.Mprotect(mem, syscall.PROT_READ|syscall.PROT_EXEC); err != nil {
		t.Fatal(err)
	}
	// Afterwards the page is the file's again, as it was: the copy holds
	// the same bytes. (A second run of this test needs that too.)
	defer syscall.Madvise(mem, syscall.MADV_DONTNEED)
	textRSS(t, lo) // the copied page's code runs
	if releaseText() {
		t.Error("releaseText dropped a text holding a page of its own")
	}
}

// TestLongRun runs the command over longRun file: URLs and more, the run
// that gives its text back before the first: every body must come out, in
// order.
func TestLongRun(t *testing.T) {
	dir := t.TempDir()
	var args []string
	var want strings.Builder
	for i := range longRun + 10 {
		name := filepath.Join(dir, "f"+strconv.Itoa(i))
		body := "body " + strconv.Itoa(i) + "\n"
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "file://"+name)
		want.WriteString(body)
	}
	var out, errOut bytes.Buffer
	if code := run(args, os.Stdin, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if out.String() != want.String() {
		t.Errorf("the %d bodies came out as %d bytes, want %d", len(args), out.Len(), want.Len())
	}
}
