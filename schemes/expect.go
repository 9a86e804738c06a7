package schemes

import "sync"

// An Expecter is a Fetcher that readies itself for the requests its caller
// will make next, where its protocol lets a client ask before the answer
// to the request before has come: HTTP sends their GET requests ahead on
// one connection (RFC 9112 §9.3.2), NNTP pipelines articles by message-id
// (RFC 3977 §3.5), and FTP, told that no request follows, leaves its
// connection unready for another (no PWD, no EPSV sent ahead).
//
// What comes next is told in runs, apart from the requests themselves, so
// that a Request describes one URL and nothing of the work around it.
type Expecter interface {
	// Expect tells the fetcher that the caller will make reqs next, in
	// order, each through Fetch as given here (the same URL, credentials
	// and conditions). It is a hint: the fetcher must still serve each
	// request as it comes, whatever it readied, and a request that is
	// not made after all costs at most its answer, read and dropped. A
	// run whose first URL a run told before holds continues that one
	// from there. end tells that no request follows the last of reqs on
	// this fetcher. Expect does no I/O; it may be called from several
	// goroutines, each telling runs of its own.
	Expect(reqs []*Request, end bool)
}

// An AheadSender is an Expecter that can tell which requests Expect would
// send ahead of their own Fetch (HTTP's pipelined GETs). The answer to
// such a request comes in its turn, behind the bodies before it: a caller
// that fetched it early, on a goroutine of its own while the one before
// is still read, would find that answer out of reach and have it asked
// for twice. Requests it would not send ahead (through a proxy, with
// a method or fields that keep them off a pipeline) may be started early.
type AheadSender interface {
	Expecter
	// SendsAhead reports whether Expect, told of req, would send it
	// ahead. It does no I/O.
	SendsAhead(req *Request) bool
}

// Expected keeps the runs of requests a Fetcher was told of (Expecter)
// until they are made. The zero value is empty and ready; it is safe for
// use by several goroutines.
type Expected struct {
	mu   sync.Mutex
	runs []*expectedRun // oldest first
}

// expectedRun is one run of requests told together.
type expectedRun struct {
	reqs []*Request
	end  bool
}

// maxExpectedRuns bounds the runs kept: one per worker of a caller that
// runs many at once (the command's --parallel-max allows 300), and room
// for runs whose last requests were never made (their URLs turned out up
// to date or refused by robots.txt).
const maxExpectedRuns = 512

// Add keeps a run told by Expect. A run kept before that holds the first
// URL of reqs ends before it: the new run tells what follows from there.
func (e *Expected) Add(reqs []*Request, end bool) {
	if len(reqs) == 0 {
		return
	}
	first := reqs[0].URL.String()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.runs {
		if i := r.index(first); i >= 0 {
			r.reqs, r.end = r.reqs[:i], false
		}
	}
	e.drop()
	if len(e.runs) >= maxExpectedRuns {
		e.runs = e.runs[1:]
	}
	e.runs = append(e.runs, &expectedRun{reqs: reqs, end: end})
}

// Take looks req up among the runs kept, newest first, and returns the
// requests told to follow it in its run, and whether its run was told to
// end with it (no request follows it on this fetcher). Its run forgets
// req and the requests before it: the caller makes them in order, so
// those were made or passed over. A request never told of returns nil
// and false.
func (e *Expected) Take(req *Request) (next []*Request, last bool) {
	raw := req.URL.String()
	e.mu.Lock()
	defer e.mu.Unlock()
	for k := len(e.runs) - 1; k >= 0; k-- {
		r := e.runs[k]
		i := r.index(raw)
		if i < 0 {
			continue
		}
		next = r.reqs[i+1:]
		last = r.end && len(next) == 0
		r.reqs = next
		e.drop()
		return next, last
	}
	return nil, false
}

// Reset forgets every run, as a Fetcher that is closed does.
func (e *Expected) Reset() {
	e.mu.Lock()
	e.runs = nil
	e.mu.Unlock()
}

// drop forgets the runs with no request left.
func (e *Expected) drop() {
	kept := e.runs[:0]
	for _, r := range e.runs {
		if len(r.reqs) > 0 {
			kept = append(kept, r)
		}
	}
	clear(e.runs[len(kept):])
	e.runs = kept
}

// index is the position in r of the request for the URL raw, -1 if none.
func (r *expectedRun) index(raw string) int {
	for i, q := range r.reqs {
		if q.URL.String() == raw {
			return i
		}
	}
	return -1
}
