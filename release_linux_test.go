package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
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

// mappingRSS returns the resident KiB of the first mapping in
// /proc/self/smaps that match takes, given its start and its header line.
func mappingRSS(t *testing.T, match func(start uintptr, header string) bool) int {
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
			in = err == nil && match(uintptr(start), l)
			continue
		}
		if v, ok := strings.CutPrefix(l, "Rss:"); in && ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb
		}
	}
	t.Fatal("no such mapping in /proc/self/smaps")
	return 0
}

// textRSS returns the resident KiB of the mapping that starts at lo.
func textRSS(t *testing.T, lo uintptr) int {
	t.Helper()
	return mappingRSS(t, func(start uintptr, _ string) bool { return start == lo })
}

// TestReleaseText checks that releasing the text drops it from the
// resident set, and that the program runs on: its code faults back in.
func TestReleaseText(t *testing.T) {
	lo, hi, page, ok := prefault.Text()
	if !ok {
		t.Fatal("no text segment found")
	}
	rlo, rhi, _, ok := prefault.ReadOnly()
	if !ok {
		t.Fatal("no read-only data segment found")
	}
	before, rbefore := textRSS(t, lo), textRSS(t, rlo)
	if !releaseText() {
		t.Fatal("releaseText refused a text with no page of its own")
	}
	after, rafter := textRSS(t, lo), textRSS(t, rlo)
	t.Logf("text %d KiB, resident %d KiB before, %d KiB after; read-only data %d KiB, %d and %d KiB",
		(hi-lo)>>10, before, after, (rhi-rlo)>>10, rbefore, rafter)
	if after >= before {
		t.Errorf("resident text %d KiB after the release, %d before", after, before)
	}
	if rafter >= rbefore {
		t.Errorf("resident read-only data %d KiB after the release, %d before", rafter, rbefore)
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
	if releaseSegment(prefault.Text()) {
		t.Error("releaseSegment dropped a text holding a page of its own")
	}
}

// TestLongRun runs the command over longRun file: URLs and more, the run
// that gives its text back before the first and again after settled:
// every body must come out, in order.
func TestLongRun(t *testing.T) {
	released := 0
	defer func(f func() bool) { release = f }(release)
	release = func() bool { released++; return releaseText() }
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
	if released != 2 {
		t.Errorf("the text was given back %d times, want 2", released)
	}
}

// stackRSS returns the resident KiB of the process's main stack.
func stackRSS(t *testing.T) int {
	t.Helper()
	return mappingRSS(t, func(_ uintptr, header string) bool { return strings.HasSuffix(header, " [stack]") })
}

// TestReleaseArgv runs the test binary again with thousands of arguments
// and checks, in that process, that releasing the array of pointers to
// them shrinks the stack's resident set by about its size, and leaves the
// arguments themselves as they were.
func TestReleaseArgv(t *testing.T) {
	const n = 5000
	if os.Getenv("URLGET_TEST_ARGV") == "1" {
		if len(os.Args) < n {
			t.Fatalf("%d arguments, want %d and more", len(os.Args), n)
		}
		want := strings.Join(os.Args, "\x00")
		if releaseArgv(os.Args[1:]) {
			t.Error("releaseArgv took arguments that are not argv[0] on")
		}
		if releaseArgv(strings.Fields(strings.Repeat("x ", len(os.Args)))) {
			t.Error("releaseArgv took strings that are not the arguments")
		}
		before := stackRSS(t)
		if !releaseArgv(os.Args) {
			t.Fatal("releaseArgv did not find the arguments' pointers")
		}
		after := stackRSS(t)
		page := os.Getpagesize()
		if min := (8*len(os.Args) - 2*page) >> 10; before-after < min {
			t.Errorf("stack resident %d KiB before, %d after: want %d KiB less at least", before, after, min)
		}
		if got := strings.Join(os.Args, "\x00"); got != want {
			t.Error("the arguments changed")
		}
		cmdline, err := os.ReadFile("/proc/self/cmdline")
		if err != nil || string(cmdline) != want+"\x00" {
			t.Errorf("/proc/self/cmdline changed: %v", err)
		}
		return
	}
	args := []string{"-test.run=^TestReleaseArgv$"}
	for i := range n {
		args = append(args, "arg"+strconv.Itoa(i))
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "URLGET_TEST_ARGV=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// In this process, with a few arguments, there is no whole page of
	// pointers to give back.
	if len(os.Args) < 512 && releaseArgv(os.Args) {
		t.Error("releaseArgv gave back the pointers to fewer than a page's worth of arguments")
	}
}

// TestLongBody checks that a body that says it holds longBody bytes or
// more is copied after the text is given back, a shorter one not, and
// that both come out whole.
func TestLongBody(t *testing.T) {
	released := 0
	defer func(f func() bool) { release = f }(release)
	release = func() bool { released++; return releaseText() }
	dir := t.TempDir()
	for _, size := range []int64{longBody - 1, longBody} {
		name := filepath.Join(dir, "f"+strconv.FormatInt(size, 10))
		if err := os.WriteFile(name, []byte("start"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(name, size); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		var errOut bytes.Buffer
		before := released
		if code := run([]string{"-s", "-o", out, "file://" + name}, os.Stdin, io.Discard, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		if fi, err := os.Stat(out); err != nil || fi.Size() != size {
			t.Fatalf("%d bytes: output %v, %v", size, fi, err)
		}
		if want := size >= longBody; (released > before) != want {
			t.Errorf("%d bytes: text given back %d times, want it %v", size, released-before, want)
		}
	}
}
