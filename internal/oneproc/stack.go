package oneproc

// stackFrame is the size of growStack's frame: enough that the goroutine
// calling it, its stack still at the runtime's initial 2 KiB, grows it in
// one step to 16 KiB.
const stackFrame = 12 << 10

// padIndex is the element growStack reads, a variable so that the
// compiler keeps the array and with it the frame.
var padIndex int

// growStack grows the calling goroutine's stack, once, to 16 KiB.
//
// A goroutine's stack starts at 2 KiB and is copied to one twice the size
// whenever a call needs more. Copying walks every frame on the stack and
// looks each function up in the runtime's tables (pclntab), and at
// start-up each page of those tables read is a page fault: the goroutine
// that runs the package initializers and then main grew twice in a small
// gopher fetch, deep in initialization and in main, each copy faulting
// about six times and together costing about 0.3 ms on the benchmark
// machine. Grown here, where the stack holds only the runtime's start and
// this package's initializer, it is copied once and never again for a
// fetch: the same fetch then took 0.25 ms less. Grown before GOMAXPROCS
// is set, because setting it (stopping the world to take the second P
// away) took the stack past its first 2 KiB already: one copy fewer, 0.1
// to 0.2 ms.
//
//go:noinline
func growStack() byte {
	var pad [stackFrame]byte
	return pad[padIndex]
}
