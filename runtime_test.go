package main

import (
	"os"
	"runtime"
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
