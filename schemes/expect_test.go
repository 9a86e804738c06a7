package schemes

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/uri"
)

func expectedReqs(raws ...string) []*Request {
	reqs := make([]*Request, len(raws))
	for i, raw := range raws {
		reqs[i] = &Request{URL: uri.MustParse(raw)}
	}
	return reqs
}

func urlsOf(reqs []*Request) string {
	var s []string
	for _, r := range reqs {
		s = append(s, r.URL.String())
	}
	return strings.Join(s, " ")
}

// TestExpectedRuns: a request made gets what its run told to follow it,
// and last only at the end of a run told to end; requests passed over are
// forgotten, a run told again from one of its URLs goes on from there,
// and runs told by several callers stay apart.
func TestExpectedRuns(t *testing.T) {
	var e Expected
	take := func(raw string) (string, bool) {
		next, last := e.Take(&Request{URL: uri.MustParse(raw)})
		return urlsOf(next), last
	}
	if next, last := take("http://h/never"); next != "" || last {
		t.Errorf("a request never told of: %q %v", next, last)
	}
	e.Add(expectedReqs("http://h/a", "http://h/b", "http://h/c", "http://h/d"), false)
	e.Add(expectedReqs("http://g/1", "http://g/2"), true)
	if next, last := take("http://h/a"); next != "http://h/b http://h/c http://h/d" || last {
		t.Errorf("a: %q %v", next, last)
	}
	// b is passed over (up to date, say).
	if next, last := take("http://h/c"); next != "http://h/d" || last {
		t.Errorf("c: %q %v", next, last)
	}
	if next, _ := take("http://h/b"); next != "" {
		t.Errorf("b, passed over, still has %q after it", next)
	}
	// Told again from d: the new run goes on from there.
	e.Add(expectedReqs("http://h/d", "http://h/e"), true)
	if next, last := take("http://h/d"); next != "http://h/e" || last {
		t.Errorf("d: %q %v", next, last)
	}
	if next, last := take("http://h/e"); next != "" || !last {
		t.Errorf("e, the end of its run: %q %v", next, last)
	}
	if next, last := take("http://g/1"); next != "http://g/2" || last {
		t.Errorf("g/1: %q %v", next, last)
	}
	if next, last := take("http://g/2"); next != "" || !last {
		t.Errorf("g/2: %q %v", next, last)
	}
	e.Add(expectedReqs("http://h/x", "http://h/y"), false)
	e.Reset()
	if next, _ := take("http://h/x"); next != "" {
		t.Errorf("after Reset: %q", next)
	}
}

// TestExpectedBounded: runs whose requests are never made are not kept
// without end, and callers on several goroutines each find their own.
func TestExpectedBounded(t *testing.T) {
	var e Expected
	for i := range maxExpectedRuns + 10 {
		e.Add(expectedReqs(fmt.Sprintf("http://h/%d/a", i), fmt.Sprintf("http://h/%d/b", i)), false)
	}
	if n := len(e.runs); n != maxExpectedRuns {
		t.Errorf("%d runs kept, want %d", n, maxExpectedRuns)
	}
	if next, _ := e.Take(&Request{URL: uri.MustParse("http://h/0/a")}); next != nil {
		t.Errorf("the oldest run is still kept: %q", urlsOf(next))
	}
	e.Reset()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			var raws []string
			for i := range 20 {
				raws = append(raws, fmt.Sprintf("http://h/w%d/%d", w, i))
			}
			e.Add(expectedReqs(raws...), true)
			for i, raw := range raws {
				next, last := e.Take(&Request{URL: uri.MustParse(raw)})
				if len(next) != len(raws)-1-i || last != (i == len(raws)-1) {
					t.Errorf("worker %d, %s: %d after it, last %v", w, raw, len(next), last)
				}
			}
		})
	}
	wg.Wait()
}
