package main

import "runtime"

// gcEvery is how much a run with a long command line (gcArgs) may
// allocate between two transfers before it collects its garbage then,
// rather than when the runtime would.
//
// With GOGC at 25 (tuneRuntime) the runtime still lets the heap grow by at
// least 1 MiB past what was live at the last collection (its minimum
// sweep distance, runtime/mgcpacer.go), and in a run of many small files,
// where little is live, that growth is most of the heap. A collection
// between two transfers once 256 KiB have been allocated keeps it to about
// that: peak RSS of 36,000 small http files named on the command line
// 10.0 -> 9.0 MiB (medians of 5 runs). It is not free: each collection is
// a fixed 0.2 ms or so (the globals, the stacks, the stop-the-world
// phases), and there are more of them: that run took 1.10 s, and 1.17
// with them (curl: 3.4 s). So it is done only where the memory is
// short, when the command line itself holds gcArgs: its arguments as the
// kernel copied them and the runtime's 16-byte header for each.
const gcEvery = 256 << 10

// gcArgs is how much memory the command line's URLs take before the run
// collects between transfers (see gcEvery): about 24,000 URLs of 27 bytes.
const gcArgs = 1 << 20

// gcCheck is how many transfers go by between two looks at the heap: a
// look (runtime.ReadMemStats) stops the world, a matter of a microsecond
// with one P, and 16 small transfers allocate some 100 KiB.
const gcCheck = 16

// collector runs the garbage collector between transfers once gcEvery
// bytes have been allocated since it last did, or since the run started.
// It reads the count from runtime.ReadMemStats rather than runtime/metrics,
// whose package initializer (0.03 ms, 95 allocations) every process would
// pay.
type collector struct {
	n    int
	last uint64
	m    *runtime.MemStats // nil when off
}

// newCollector returns a collector, which does nothing unless on.
func newCollector(on bool) collector {
	if !on {
		return collector{}
	}
	g := collector{m: new(runtime.MemStats)}
	runtime.ReadMemStats(g.m)
	g.last = g.m.TotalAlloc
	return g
}

// between is called between two transfers.
func (g *collector) between() {
	if g.m == nil {
		return
	}
	if g.n++; g.n%gcCheck != 0 {
		return
	}
	// ReadMemStats counts the objects of the spans each P has cached as
	// well (it flushes them), so the count is exact.
	runtime.ReadMemStats(g.m)
	if a := g.m.TotalAlloc; a-g.last >= gcEvery {
		runtime.GC()
		g.last = a
	}
}
