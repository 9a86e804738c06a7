package main

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func TestRestoreGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	// Package oneproc has run: the test binary starts on one P.
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("GOMAXPROCS at start = %d, want 1", n)
	}
	for v, want := range map[string]int{"3": 3, "1": 1, "0": runtime.NumCPU(), "many": runtime.NumCPU()} {
		t.Setenv("GOMAXPROCS", v)
		if !restoreGOMAXPROCS() {
			t.Errorf("GOMAXPROCS=%s: reported unset", v)
		}
		if n := runtime.GOMAXPROCS(0); n != want {
			t.Errorf("GOMAXPROCS=%s: runtime has %d, want %d", v, n, want)
		}
	}
	runtime.GOMAXPROCS(1)
	t.Setenv("GOMAXPROCS", "")
	os.Unsetenv("GOMAXPROCS")
	if restoreGOMAXPROCS() {
		t.Error("unset GOMAXPROCS reported set")
	}
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("unset GOMAXPROCS: runtime has %d, want 1", n)
	}
}

// TestInitOrder checks the places in package initialization that packages
// oneproc and prefault are written for: prefault right after oneproc, both
// before package syscall (see their package comments).
func TestInitOrder(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Each line: "init <package> @<time> ms, ...".
	at := map[string]int{}
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == "init" {
			at[f[1]] = n
			n++
		}
	}
	const oneproc, prefault = "github.com/urlget/urlget/internal/oneproc", "github.com/urlget/urlget/internal/prefault"
	for _, p := range []string{oneproc, prefault, "syscall"} {
		if _, ok := at[p]; !ok {
			t.Fatalf("%s not in the initialization trace:\n%s", p, out)
		}
	}
	if at[prefault] != at[oneproc]+1 || at[prefault] > at["syscall"] {
		t.Errorf("initialized %s %d-th, %s %d-th, syscall %d-th; want prefault right after oneproc, both before syscall",
			oneproc, at[oneproc]+1, prefault, at[prefault]+1, at["syscall"]+1)
	}
}
