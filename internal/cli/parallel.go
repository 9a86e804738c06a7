package cli

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/hostsched"
	"github.com/urlget/urlget/internal/progress"
	"github.com/urlget/urlget/uri"
)

// Parallel transfers: with -Z the run transfers up to --parallel-max of
// its URLs at once, and at most --parallel-host of them to one server
// (hostsched.Key: protocol, host and port, the default port filled in, as
// the mirror counts them), as curl's -Z and --parallel-max do. The URLs are still
// read lazily: a few per slot are taken from the queue ahead of starting,
// whatever the length of the list.
//
// What the run writes stays readable:
//   - bodies for files are written each into its own temporary file and
//     renamed when whole (outfile.go), as without -Z;
//   - bodies for standard output are transferred one at a time, in the
//     command line's order, while transfers into files go on beside them:
//     each body is whole and in its place;
//   - each transfer's error, -w output and --json-lines line are written as it
//     ends, one line each, in the order the transfers end; the -w and
//     --json-lines lines a transfer to a file makes while a body is being
//     written to standard output wait until that body is whole;
//   - one line for the whole job on a terminal (progress.Jobs) takes the
//     place of the per-transfer bar.
//
// -v, -C, -i and -D keep the run serial, as if -Z were not given: a trace
// of several conversations at once cannot be read, -C's offsets follow
// files written in order, and the headers of -i and -D belong to one
// response at a time.
//
// The exit status is curl's for -Z: that of the transfer that failed last,
// in the order they ended; 0 when none failed.

// Bounds of --parallel-max and --parallel-host.
const (
	// defaultParallelMax is --parallel-max's default. curl's is 50; a
	// run of many URLs on one server would then hold 50 of its
	// connections, which most servers' operators take for abuse. Four is
	// what browsers and wget2 use towards one host, and enough to hide
	// the round trips of small files.
	defaultParallelMax = 4
	// maxParallel bounds both flags: more connections to one place seldom
	// speed a run up, and each holds a socket, a buffer and a goroutine.
	maxParallel = 64
	// readAheadPerSlot is how many URLs per slot are taken from the queue
	// before they can start, so that a URL waiting for its host's cap
	// does not hold back those to other hosts behind it.
	readAheadPerSlot = 4
	// maxHeldReports bounds the transfers whose -w and --json-lines lines wait
	// for a body going to standard output; at the bound no transfer
	// starts until that body is whole.
	maxHeldReports = 1024
)

// addParallelFlags defines -Z, --parallel-max and --parallel-host, with
// curl's name for the last, --parallel-max-host (curl 8.16), on the same
// value: a curl command line runs unchanged.
func addParallelFlags(fs *pflag.FlagSet, o *options) {
	o.parallelMax = defaultParallelMax
	fs.BoolVarP(&o.parallel, "parallel", "Z", false, "transfer several URLs at once (--parallel-max)")
	fs.Var(boundedInt{&o.parallelMax, 1, maxParallel}, "parallel-max",
		"with -Z or --recursive, at most `n` transfers at once (default 4, at most 64; curl's default, 50, is a heavy load for one server)")
	fs.Var(boundedInt{&o.parallelHost, 1, maxParallel}, "parallel-host",
		"with -Z or --recursive, at most `n` transfers at once to one scheme, host and port (default: as --parallel-max)")
	fs.Var(boundedInt{&o.parallelHost, 1, maxParallel}, "parallel-max-host",
		"curl's name for --parallel-host `n`")
}

// boundedInt is a flag's integer that must lie between min and max.
type boundedInt struct {
	n        *int
	min, max int
}

func (b boundedInt) String() string {
	if b.n == nil {
		return ""
	}
	return strconv.Itoa(*b.n)
}

func (b boundedInt) Type() string { return "int" }

func (b boundedInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < b.min || n > b.max {
		return fmt.Errorf("takes a number from %d to %d, not %q", b.min, b.max, s)
	}
	*b.n = n
	return nil
}

// parallelizable reports whether -Z may run transfers at once; see the
// top of this file for the flags that keep a run serial.
func (c *command) parallelizable() bool {
	return !c.opts.verbose && c.opts.continueAt == "" && c.headers == nil && !c.opts.out.serial()
}

// pjob is one URL of a parallel run.
type pjob struct {
	raw    string
	u      uri.URL
	m      queued
	last   bool
	stdout bool   // its body goes to standard output
	host   string // hostsched.Key, "" for a URL that is not transferred
}

// pdone is a transfer of a parallel run that ended.
type pdone struct {
	j pjob
	t transfer
}

// parallelRun is the state of a -Z run, kept by the goroutine of
// runParallel alone; the transfers report to it on results.
type parallelRun struct {
	c       *command
	ctx     context.Context
	max     int
	perHost int

	pending  []pjob             // taken from the queue, not started, in order
	running  int                // transfers under way
	hosts    *hostsched.Limiter // transfers under way by server (--parallel-host)
	toStdout bool               // one of them writes to standard output
	held     []transfer         // reports waiting for that one to end
	results  chan pdone         // capacity max: a transfer never waits to report
	tally    *jobTally          // counts for the job line
	status   int                // the exit status so far
	halted   bool               // --fail-early met a failure: nothing more starts
}

// runParallel runs the transfers of q, up to --parallel-max at once, and
// returns the exit status.
func (c *command) runParallel(ctx context.Context, q *urlQueue) int {
	r := &parallelRun{
		c:       c,
		ctx:     ctx,
		max:     c.opts.parallelMax,
		perHost: c.opts.parallelHost,
	}
	if r.perHost == 0 || r.perHost > r.max {
		r.perHost = r.max
	}
	r.hosts = hostsched.NewLimiter(r.perHost)
	r.results = make(chan pdone, r.max)
	// The job line replaces the per-transfer bar; messages to stderr are
	// written above it.
	var p *progress.Jobs
	if !c.opts.silent && !c.opts.out.noProgressMeter {
		p = newJobs(c.stderr)
	}
	c.progress = nil
	c.client.Progress = nil
	r.tally = &jobTally{p: p, bodies: map[string]bodyCount{}}
	if p != nil {
		c.client.Progress = r.tally.body
		c.stderr = p.Above(c.stderr)
		c.opts.out.stderr = c.stderr // --retry's warnings too
	}
	defer p.Stop()

	// The queue is read by a goroutine of its own, so that waiting for a
	// list's next line (a pipe) does not hold up the transfers under way.
	feed := make(chan pjob)
	stop := make(chan struct{})
	go func() {
		defer close(feed)
		for {
			raw, u, m, ok := q.next()
			if !ok {
				return
			}
			j := pjob{raw: raw, u: u, m: m, last: q.last()}
			if m.err == nil {
				j.host = hostsched.Key(u)
			}
			spec := c.spec(m.cli)
			j.stdout = spec.file == "" && !spec.remote && m.err == nil
			select {
			case feed <- j:
			case <-stop:
				return
			}
		}
	}()
	defer func() {
		// The queue is left alone once its goroutine ends: the run's
		// caller closes it.
		close(stop)
		for range feed {
		}
	}()

	in, done := feed, ctx.Done()
	for {
		if r.halted {
			in, r.pending = nil, nil
		}
		r.startReady()
		if in == nil && len(r.pending) == 0 && r.running == 0 {
			break
		}
		r.tally.files(int64(len(r.pending)+r.running), r.running, in == nil && len(r.pending) == 0)
		take := in
		if len(r.pending) >= readAheadPerSlot*r.max {
			take = nil
		}
		select {
		case j, ok := <-take:
			if !ok {
				in = nil
				continue
			}
			r.pending = append(r.pending, j)
		case d := <-r.results:
			r.ended(d)
		case <-done:
			// Nothing more starts; the transfers under way end with the
			// context, each with its message.
			done, in, r.pending = nil, nil, nil
		}
	}
	r.flushHeld()
	if ctx.Err() != nil {
		return c.interruptedStatus()
	}
	return r.status
}

// startReady starts the pending transfers that may start: in order, as
// long as slots are free, each within its host's cap; a body for standard
// output only when no other is under way and none before it waits.
func (r *parallelRun) startReady() {
	if len(r.held) >= maxHeldReports || r.ctx.Err() != nil {
		return
	}
	stdoutWaits := r.toStdout
	for i := 0; i < len(r.pending) && r.running < r.max; {
		j := r.pending[i]
		ok := true
		if j.stdout {
			ok = !stdoutWaits
			stdoutWaits = true
		}
		// The host's place is taken last, once nothing else holds the
		// URL back.
		if !ok || j.host != "" && !r.hosts.TryAcquire(j.host) {
			i++
			continue
		}
		r.pending = slices.Delete(r.pending, i, i+1)
		r.start(j)
	}
}

// start runs one transfer in a goroutine of its own.
func (r *parallelRun) start(j pjob) {
	r.running++
	c := r.c
	if j.stdout {
		r.toStdout = true
		r.tally.p.Hold(isTerminal(c.stdout))
	}
	go func() {
		st := c.start(r.ctx, j.raw, j.u, j.m, j.last, nil)
		r.results <- pdone{j, c.finishRetrying(r.ctx, st)}
	}()
}

// ended takes a transfer that ended: its error is told at once, its -w
// and --json-lines lines once no body is being written to standard output.
func (r *parallelRun) ended(d pdone) {
	r.running--
	if d.j.host != "" {
		r.hosts.Release(d.j.host)
	}
	if d.j.stdout {
		r.toStdout = false
		r.tally.p.Hold(false)
	}
	t := d.t
	r.c.settle(r.ctx, &t)
	if t.err != nil {
		r.status = t.code
	}
	r.halted = r.halted || r.c.opts.out.failedEarly(t.err)
	r.tally.ended(t.err != nil)
	if r.toStdout {
		r.held = append(r.held, t)
		return
	}
	r.flushHeld()
	r.c.report(t)
}

// flushHeld writes the reports held while a body went to standard output.
func (r *parallelRun) flushHeld() {
	for _, t := range r.held {
		r.c.report(t)
	}
	r.held = r.held[:0]
}

// jobTally counts a parallel run for its job line: the files from the
// run, the bytes from the transfers' progress as they arrive.
type jobTally struct {
	p *progress.Jobs

	mu                  sync.Mutex
	done, queued, fails int64
	bytes               int64
	// bodies holds the bodies under way by URL: a URL given twice and
	// transferred twice at once is counted as one, which the count of
	// bytes survives (a body's count that goes back restarts it).
	bodies   map[string]bodyCount
	running  int
	complete bool // every URL of the run has started
}

// bodyCount is one body's progress.
type bodyCount struct{ done, total int64 }

// files records the files queued (not done), how many of them are under
// way, and whether the queue is read to its end.
func (t *jobTally) files(queued int64, running int, complete bool) {
	if t.p == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.queued, t.running, t.complete = queued, running, complete
	t.draw()
}

// ended counts a transfer that ended.
func (t *jobTally) ended(failed bool) {
	if t.p == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done++
	if failed {
		t.fails++
	}
	t.draw()
}

// counts records the files done, queued and failed as a recursion
// (mirror.Stats) counts them; the bytes stay those body counts as they
// arrive.
func (t *jobTally) counts(done, queued, failed int64) {
	if t.p == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done, t.queued, t.fails = done, queued, failed
	t.draw()
}

// body is the fetch.Client's Progress of the run.
func (t *jobTally) body(pr fetch.Progress) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.bodies[pr.URL]
	delta := pr.Done - b.done
	if delta < 0 {
		delta = pr.Done
	}
	t.bytes += delta
	if pr.Final {
		delete(t.bodies, pr.URL)
	} else {
		t.bodies[pr.URL] = bodyCount{pr.Done, pr.Total}
	}
	t.draw()
}

// draw passes the counts on to the job line, with the job's total bytes
// once it is known: every URL has started and every body under way has
// told its length. t.mu is held.
func (t *jobTally) draw() {
	total := int64(-1)
	if t.complete && len(t.bodies) == t.running {
		total = t.bytes
		for _, b := range t.bodies {
			if b.total < 0 {
				total = -1
				break
			}
			total += b.total - b.done
		}
	}
	t.p.SetTotal(total)
	t.p.Set(t.done, t.queued, t.fails, t.bytes)
}
