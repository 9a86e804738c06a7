package xfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Watchdog bounds one attempt at a URL by time, whatever its scheme: until
// the fetcher returns, by the connect timeout; then, while the caller waits
// on the body or listing, by the connect timeout until its first byte and
// by the idle bound or the speed limit after it. A speed limit counts from
// the attempt's start, as curl's -Y/-y do: a server that accepts and says
// nothing is slower than any limit, and ends at -y rather than at the
// connect timeout. When a bound passes it cancels the attempt's context
// with a *StallError as the cause: every fetcher closes its connections
// when its context ends (see schemes.Fetcher), so a silent server cannot
// hold a transfer.
//
// Time spent while the caller is not reading (writing the bytes out, or
// busy elsewhere) does not count against the server.
type Watchdog struct {
	cancel  context.CancelCauseFunc
	start   time.Time
	connect time.Duration
	idle    time.Duration // no byte for this long ends the transfer; 0: none
	limit   int64         // bytes a second, 0 for the idle rule alone
	window  time.Duration // how long the transfer may stay below limit
	every   time.Duration // how often the body's progress is looked at

	n       atomic.Int64 // bytes (or listing weight) the caller received
	waiting atomic.Int32 // the caller is blocked on the source
	first   atomic.Bool  // the resource's first byte (or its end) arrived
	dialed  atomic.Bool  // a connection was made for this attempt
	src     atomic.Pointer[kernelSource]
	conns   dialedConns // the connections dialed, for the bytes before the body

	// proxying counts the proxy handshakes under way (Proxying).
	proxying atomic.Int32

	mu        sync.Mutex
	timer     *time.Timer // the attempt's one timer: every tick, from start to end
	body      bool        // the fetcher returned; the caller's reads are watched
	done      bool        // stopped or fired
	err       error       // the timeout, once fired
	lastN     int64       // n at the last tick
	lastTick  time.Time   // when the last tick ran
	slowSince time.Time   // since when the transfer has been too slow
}

type watchKey struct{}

// Bounds are the bounds of one attempt, as its caller resolved them.
type Bounds struct {
	// Connect bounds everything before the resource's first byte; it
	// must be above 0.
	Connect time.Duration
	// Idle ends a transfer that receives nothing for this long; 0
	// means no bound.
	Idle time.Duration
	// SpeedLimit, in bytes a second, and SpeedTime: a transfer below
	// the limit for that long ends. Both are set, or neither.
	SpeedLimit int64
	SpeedTime  time.Duration
}

// NewWatchdog starts the connect bound of one attempt; cancel ends the
// attempt's context, with the *StallError that ended it as the cause.
func NewWatchdog(b Bounds, cancel context.CancelCauseFunc) *Watchdog {
	w := &Watchdog{cancel: cancel, start: time.Now(), connect: b.Connect, idle: b.Idle, limit: b.SpeedLimit, window: b.SpeedTime}
	w.every = time.Second
	for _, d := range []time.Duration{w.connect, w.idle, w.window} {
		if d > 0 && d/4 < w.every {
			w.every = max(d/4, 10*time.Millisecond)
		}
	}
	w.lastTick, w.slowSince = w.start, w.start
	w.mu.Lock()
	defer w.mu.Unlock()
	// One timer serves the whole attempt, the connect bound and the
	// body's ticks alike: a timer started is a timer the runtime may
	// have to wake another thread for, and a timer per phase of every
	// small file woke one up to three times a file (see tick).
	w.timer = time.AfterFunc(min(w.every, w.connect), w.tick)
	return w
}

// Context returns ctx carrying w, for the dialer to tell w it connected
// (WatchdogFrom).
func (w *Watchdog) Context(ctx context.Context) context.Context {
	return context.WithValue(ctx, watchKey{}, w)
}

// WatchdogFrom returns the watchdog ctx carries, or nil; every method of
// a nil watchdog does nothing.
func WatchdogFrom(ctx context.Context) *Watchdog {
	w, _ := ctx.Value(watchKey{}).(*Watchdog)
	return w
}

// Dialed tells w that a connection, c, was made for the attempt, so that
// a timeout can say whether the server was reached, and, under a speed
// limit, so that the bytes c receives before the body count.
func (w *Watchdog) Dialed(c net.Conn) {
	if w == nil {
		return
	}
	w.dialed.Store(true)
	if w.limit > 0 {
		w.conns.add(c)
	}
}

// Proxying tells w that what is awaited is a proxy's answer, so that a
// connect timeout names the proxy; the function it returns ends that.
func (w *Watchdog) Proxying() (done func()) {
	if w == nil {
		return func() {}
	}
	w.proxying.Add(1)
	return func() { w.proxying.Add(-1) }
}

// Received returns the bytes (or listing weight) the caller received so
// far.
func (w *Watchdog) Received() int64 {
	if w == nil {
		return 0
	}
	return w.n.Load()
}

// fireConnect ends the attempt for want of a reply within the connect
// timeout; w.mu is held.
func (w *Watchdog) fireConnect() {
	what := "no reply from the server"
	switch {
	case w.proxying.Load() > 0:
		what = "no reply from the proxy"
	case !w.dialed.Load():
		what = "no connection to the server"
	}
	w.fire(fmt.Errorf("%s within %s", what, seconds(w.connect)))
}

// Fetched tells w that the fetcher returned a body or listing: from now
// on the caller's reads are watched. The timer runs on as it is: its next
// tick, at most every away, is the body's first.
func (w *Watchdog) Fetched() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	w.body = true
	if w.limit == 0 {
		// Under a speed limit the count goes on from where the
		// fetcher's ticks (fetching) left it.
		w.lastTick, w.slowSince = time.Now(), w.start
	}
}

// fetching is a tick while the fetcher works (connecting, a greeting, a
// login, the request and the reply's head): it ends the attempt at the
// connect bound, and applies the speed limit, for which the fetcher reads
// those bytes itself, unseen, so the sockets dialed for the attempt are
// asked how many came (dialedConns). It returns when the next tick is
// due, or false once it fired; w.mu is held.
func (w *Watchdog) fetching(now time.Time) (time.Duration, bool) {
	left := w.connect - now.Sub(w.start)
	if left <= 0 {
		w.fireConnect()
		return 0, false
	}
	if w.limit > 0 {
		got := w.conns.arrived()
		elapsed := now.Sub(w.lastTick)
		w.lastTick = now
		if w.speedOK(got, elapsed) {
			w.slowSince = now
		} else if now.Sub(w.slowSince) >= w.window {
			w.fireSlow(now)
			return 0, false
		}
	}
	return min(w.every, left), true
}

// speedOK reports whether got bytes in elapsed meet the speed limit.
func (w *Watchdog) speedOK(got int64, elapsed time.Duration) bool {
	return float64(got) >= float64(w.limit)*elapsed.Seconds()
}

// fireSlow ends the attempt for being below the speed limit for its time;
// w.mu is held. When the connect timeout has passed too with no byte of
// the resource yet, that is what is reported: the server has not replied.
func (w *Watchdog) fireSlow(now time.Time) {
	if !w.first.Load() && now.Sub(w.start) >= w.connect {
		w.fireConnect()
		return
	}
	w.fire(fmt.Errorf("transfer slower than %d bytes/s for %s", w.limit, seconds(w.window)))
}

// tick looks at what arrived since the last one and fires once the
// transfer has been too slow (or silent) for its bound; before the
// fetcher returns, it is fetching's.
func (w *Watchdog) tick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	now := time.Now()
	if !w.body {
		if next, ok := w.fetching(now); ok {
			w.timer.Reset(next)
		}
		return
	}
	n := w.n.Load()
	got := n - w.lastN
	elapsed := now.Sub(w.lastTick)
	w.lastN, w.lastTick = n, now
	waiting := w.waiting.Load() > 0
	behind := false
	if src := w.src.Load(); src != nil && waiting {
		// A copy the kernel makes is counted when it returns, which a
		// slow source may take long to let it do: ask the socket.
		arrived, started, queued := src.sample()
		got, behind = max(got, arrived), queued
		if started {
			w.first.Store(true)
		}
	}
	if got > 0 {
		w.first.Store(true)
	}
	ok := !waiting || behind
	switch {
	case w.limit > 0:
		// The speed limit counts from the start, the first byte's wait
		// included; the connect timeout still bounds that wait.
		if ok || w.speedOK(got, elapsed) {
			w.slowSince = now
		} else if now.Sub(w.slowSince) >= w.window {
			w.fireSlow(now)
			return
		}
		if !ok && !w.first.Load() && now.Sub(w.start) >= w.connect {
			w.fireConnect()
			return
		}
	default:
		var bound time.Duration
		var why string
		switch {
		case ok:
		case !w.first.Load():
			ok, bound = got > 0, w.connect
			why = "no reply from the server within " + seconds(bound)
		default:
			ok, bound = got > 0, w.idle
			why = "no data from the server for " + seconds(bound)
		}
		if ok {
			w.slowSince = now
		} else if bound > 0 && now.Sub(w.slowSince) >= bound {
			w.fire(errors.New(why))
			return
		}
	}
	w.timer.Reset(w.every)
}

// fire ends the attempt with a timeout; w.mu is held.
func (w *Watchdog) fire(why error) {
	w.done = true
	w.err = &StallError{Reason: why.Error()}
	w.cancel(w.err)
}

// Stop ends the watch without a timeout.
func (w *Watchdog) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	w.timer.Stop()
}

// Fired returns the *StallError w ended the attempt with, or nil.
func (w *Watchdog) Fired() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Begin and End bracket a wait on the source; n bytes arrived in it, and
// err ended it (an end of stream is the resource's last byte).
func (w *Watchdog) Begin() {
	if w != nil {
		w.waiting.Add(1)
	}
}

// End ends the wait Begin began (see Begin).
func (w *Watchdog) End(n int64, err error) {
	if w == nil {
		return
	}
	w.n.Add(n)
	if n > 0 || err != nil {
		w.first.Store(true)
	}
	w.waiting.Add(-1)
}

// pause ends a bracketed wait for as long as the caller does something
// else (writes the bytes out); the function it returns begins it again.
func (w *Watchdog) pause() (resume func()) {
	if w == nil {
		return func() {}
	}
	w.waiting.Add(-1)
	return func() { w.waiting.Add(1) }
}

// count adds n bytes received while a wait is already bracketed.
func (w *Watchdog) count(n int64) {
	if w != nil && n > 0 {
		w.n.Add(n)
		w.first.Store(true)
	}
}

// reader returns r with its reads watched one by one. A kernel source
// read through a buffer (kernel true) is watched for the whole copy call
// instead (copyWatched); each of its reads first looks whether it offers
// its socket now (look).
func (w *Watchdog) reader(r io.Reader, kernel bool) io.Reader {
	if w == nil {
		return r
	}
	return watchedReader{r, w, kernel}
}

type watchedReader struct {
	r      io.Reader
	w      *Watchdog
	kernel bool
}

func (r watchedReader) Read(p []byte) (int, error) {
	if r.kernel {
		r.w.look()
		return r.r.Read(p)
	}
	r.w.Begin()
	n, err := r.r.Read(p)
	r.w.End(int64(n), err)
	return n, err
}

// source tells w that the kernel copies from r, which it cannot see until
// a copy call returns; the returned function undoes it.
func (w *Watchdog) source(r io.Reader) func() {
	sc, ok := r.(Source)
	if w == nil || !ok {
		return func() {}
	}
	w.src.Store(&kernelSource{conn: sc})
	return func() { w.src.Store(nil) }
}

// kernelSource is a socket the kernel copies from. Only the goroutine
// that copies asks the source for it (look), before each copy call: a body
// decides whether to offer its socket from what its reads left buffered
// (gopher's raw body; see Source), state the watchdog's timer
// must not read while a copy changes it.
type kernelSource struct {
	conn     Source
	rc       atomic.Pointer[syscall.RawConn] // nil while the source withholds it
	received uint64                          // the socket's byte count at the last sample
	sampled  bool
}

// look asks the source for its socket, for the samples taken during the
// copy about to start; the caller is the goroutine that copies.
func (w *Watchdog) look() {
	if w == nil {
		return
	}
	s := w.src.Load()
	if s == nil {
		return
	}
	rc, err := s.conn.SyscallConn()
	if err != nil {
		s.rc.Store(nil)
		return
	}
	s.rc.Store(&rc)
}

// sample returns how many bytes the socket received since the last
// sample; whether it has received any at all, which on a connection made
// for the transfer means its first byte came; and whether bytes wait in it
// unread: then the reader, not the server, is behind (a slow
// destination).
func (s *kernelSource) sample() (arrived int64, started, behind bool) {
	rc := s.rc.Load()
	if rc == nil {
		return 0, false, false
	}
	received, queued, ok := socketCounts(*rc)
	if !ok {
		return 0, false, false
	}
	if s.sampled && received > s.received {
		arrived = int64(received - s.received)
	}
	s.received, s.sampled = received, true
	return arrived, received > 0, queued > 0
}

// dialedConns are the sockets dialed for an attempt under a speed limit,
// with the count of bytes each had received at the last look: before the
// fetcher returns, the bytes it reads (a greeting, a login's replies, a
// reply's head) count towards the limit as curl counts them, without a
// wrapper around the connection that would hide it from the kernel's copy
// paths. Where the kernel's counts are not at hand, none count.
type dialedConns struct {
	mu    sync.Mutex
	conns []syscall.RawConn
	seen  []uint64
}

func (d *dialedConns) add(c net.Conn) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.conns = append(d.conns, rc)
	d.seen = append(d.seen, 0)
}

// arrived returns how many bytes the sockets received since the last call.
func (d *dialedConns) arrived() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var n int64
	for i, rc := range d.conns {
		received, _, ok := socketCounts(rc)
		if ok && received > d.seen[i] {
			n += int64(received - d.seen[i])
			d.seen[i] = received
		}
	}
	return n
}

// seconds formats d as curl's options give it: "5s", "1.5s", "300s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
