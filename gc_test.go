package main

import (
	"runtime/metrics"
	"testing"
)

// readMetric returns the runtime metric name's value.
func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// forcedGCs returns how many collections runtime.GC has run.
func forcedGCs() uint64 { return readMetric("/gc/cycles/forced:gc-cycles") }

var gcSink [][]byte

// TestCollector checks that a collector collects between transfers once
// gcEvery bytes have been allocated since it last did, and only then, and
// never when off.
func TestCollector(t *testing.T) {
	allocate := func(n int) {
		gcSink = nil
		for range n / 1024 {
			gcSink = append(gcSink, make([]byte, 1024))
		}
	}
	off := newCollector(false)
	before := forcedGCs()
	allocate(2 * gcEvery)
	for range gcCheck {
		off.between()
	}
	if n := forcedGCs() - before; n != 0 {
		t.Errorf("a collector that is off collected %d times", n)
	}

	g := newCollector(true)
	before = forcedGCs()
	allocate(gcEvery + gcEvery/2)
	for range gcCheck - 1 {
		g.between()
	}
	if n := forcedGCs() - before; n != 0 {
		t.Errorf("%d collections before the heap was looked at", n)
	}
	g.between()
	if n := forcedGCs() - before; n != 1 {
		t.Errorf("after %d bytes allocated, %d collections, want 1", gcEvery+gcEvery/2, n)
	}
	// Goroutines left by earlier tests may allocate meanwhile: the check
	// holds when the process as a whole allocated less than gcEvery.
	before = forcedGCs()
	from := readMetric("/gc/heap/allocs:bytes")
	allocate(1024)
	for range gcCheck {
		g.between()
	}
	n := forcedGCs() - before
	if all := readMetric("/gc/heap/allocs:bytes") - from; all < gcEvery && n != 0 {
		t.Errorf("after %d bytes allocated, %d collections, want none", all, n)
	}
}
