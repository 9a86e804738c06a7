package oneproc

import (
	"testing"
	"unsafe"
)

// TestGrowStack checks that growStack moves a new goroutine's stack (it
// is copied to a larger one), and that afterwards the goroutine has room
// for a 12 KiB frame without another copy.
func TestGrowStack(t *testing.T) {
	moved := make(chan [2]bool)
	go func() {
		var x int
		at := func() uintptr { return uintptr(unsafe.Pointer(&x)) }
		start := at()
		growStack()
		first := at()
		frame12K()
		second := at()
		moved <- [2]bool{first != start, second != first}
	}()
	m := <-moved
	if !m[0] {
		t.Error("the first growStack did not move the goroutine's stack")
	}
	if m[1] {
		t.Error("a 12 KiB frame moved the stack again: growStack left it too small")
	}
}

var index12K int

//go:noinline
func frame12K() byte {
	var pad [12 << 10]byte
	return pad[index12K]
}
