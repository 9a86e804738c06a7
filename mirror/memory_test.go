package mirror

import (
	"fmt"
	"runtime"
	"testing"
)

// heapAfter returns the live heap once n URLs went through a run's queue
// and visited set the way a recursion moves them: every URL seen, queued
// and, a level later, taken, with the queue as long as a whole level.
func heapAfter(t *testing.T, n int) (uint64, *queue, *urlSet) {
	t.Helper()
	q := &queue{}
	seen := newURLSet()
	for i := range n {
		u := fmt.Sprintf("http://127.0.0.1:8080/dir%03d/file%06d.txt", i%100, i)
		seen.add(u)
		if err := q.push(item{url: u, depth: 2, size: 4096}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, q, seen
}

// The memory a recursion holds grows with the tree only by the visited
// set's 8 bytes a slot: 100,000 URLs cost within 4 MiB of 1,000.
func TestMemoryBoundedByQueue(t *testing.T) {
	small, q1, s1 := heapAfter(t, 1000)
	q1.close()
	runtime.KeepAlive(s1)
	big, q2, s2 := heapAfter(t, 100_000)
	defer q2.close()
	if q2.len() != 100_000 {
		t.Fatalf("queue holds %d", q2.len())
	}
	perURL := float64(len(s2.slots)*8) / 100_000
	t.Logf("heap %d KiB for 1,000 URLs, %d KiB for 100,000; visited set %.1f bytes a URL", small>>10, big>>10, perURL)
	if big > small+4<<20 {
		t.Errorf("100,000 URLs hold %d KiB more than 1,000", (big-small)>>10)
	}
	for i := range 100_000 {
		it, ok, err := q2.pop()
		if err != nil || !ok || it.url != fmt.Sprintf("http://127.0.0.1:8080/dir%03d/file%06d.txt", i%100, i) {
			t.Fatalf("pop %d: %v %v %q", i, ok, err, it.url)
		}
	}
	runtime.KeepAlive(s2)
}

// A queue taken from as fast as it is added to keeps its array small.
func TestQueueSteadyState(t *testing.T) {
	var q queue
	defer q.close()
	for i := range 200_000 {
		q.push(item{url: fmt.Sprint(i)})
		q.push(item{url: fmt.Sprint(i, "b")})
		if _, ok, err := q.pop(); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if _, ok, err := q.pop(); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if cap(q.mem) > 2*memQueue {
		t.Errorf("the array holds %d items after 400,000 went through", cap(q.mem))
	}
}
