package xfer

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// copyChunk is how much WriteTo moves per kernel copy call between progress
// reports and limit checks: large enough that copy_file_range and splice
// run at full speed, small enough for a smooth progress bar.
const copyChunk = 4 << 20

// Body is the stream a transfer's Resource hands its caller: it enforces
// the transfer's deadline and size limit, reports progress, and turns a
// deadline into a timeout error. Its WriteTo hands the copy to the kernel
// where the source and destination allow it (a local file, a TCP
// connection, a pipe), so wrapping costs no extra copy through user space.
type Body struct {
	rc       io.ReadCloser
	ctx      context.Context
	cancel   context.CancelFunc
	watch    *Watchdog // bounds the waits on the source (watchdog.go)
	max      int64
	progress func(done int64, final bool)
	mapErr   func(error) error
	rate     *limiter // --limit-rate; nil for none (limit.go)
	plain    bool     // no kernel fast path (Config.Plain, FastPathsOff)

	n         int64
	closeOnce sync.Once
	closeErr  error
}

// Config is what New wraps a source with.
type Config struct {
	// Watch bounds the waits on the source; nil bounds none.
	Watch *Watchdog
	// Cancel ends the transfer's context; Close calls it. Nil: nothing.
	Cancel context.CancelFunc
	// Max is the largest body accepted in bytes; 0 means no limit.
	Max int64
	// Progress, when not nil, is called with the bytes read so far as
	// they arrive, and with final set once the transfer ended.
	Progress func(done int64, final bool)
	// Rate is the bucket the body's reads are booked on (a rate limit
	// shared by every body of one caller); nil for none.
	Rate *Bucket
	// Plain turns every kernel fast path off for this body: each byte
	// is read through the source's Read into a buffer and written with
	// the destination's Write (see the package doc). FastPathsOff turns
	// them off for every body.
	Plain bool
	// MapError turns the engine's own errors (a *StallError, a
	// *DeadlineError, a *TooLargeError) and an unclassified error of the
	// source into the caller's; nil leaves them as they are. Write errors
	// and context.Canceled never go through it.
	MapError func(error) error
}

// New wraps rc, the source of one transfer whose context is ctx.
func New(ctx context.Context, rc io.ReadCloser, cfg Config) *Body {
	cancel := cfg.Cancel
	if cancel == nil {
		cancel = func() {}
	}
	return &Body{rc: rc, ctx: ctx, cancel: cancel, watch: cfg.Watch, max: cfg.Max, progress: cfg.Progress, mapErr: cfg.MapError, rate: newLimiter(ctx, cfg.Rate), plain: cfg.Plain || FastPathsOff()}
}

// Read reads from the underlying body.
func (b *Body) Read(p []byte) (int, error) {
	if b.max > 0 && b.n+int64(len(p)) > b.max+1 {
		// Read at most one byte past the limit: enough to know it was passed.
		p = p[:b.max+1-b.n]
	}
	p = p[:b.rate.chunk(b.n, int64(len(p)))]
	b.watch.Begin()
	n, err := b.rc.Read(p)
	b.watch.End(int64(n), err)
	b.n += int64(n)
	if b.max > 0 && b.n > b.max {
		return n - int(b.n-b.max), b.tooLarge()
	}
	b.report(err != nil)
	if err != nil && err != io.EOF {
		err = b.wrap(err)
	}
	return n, err
}

// WriteTo copies the body to w in chunks of copyChunk bytes, checking the
// size limit and reporting progress between chunks. How each chunk moves
// depends on the two ends (see sink, newSink and fileSink): through *os.File's
// ReadFrom, which splices from a socket and uses copy_file_range between
// regular files, by splice(2) from a regular file into a pipe or
// /dev/null, and otherwise through one large reused buffer. Every byte is
// still read from the source, so truncation and the limit are seen as with
// Read.
//
// The socket is read as its bytes come, whatever the destination: a copy
// that held its reads back for a batch (a receive low-water mark) hid the
// bytes waiting in the socket from the speed check, and lost them when a
// deadline or an interrupt closed the connection (see docs/performance.md).
func (b *Body) WriteTo(w io.Writer) (int64, error) {
	s := b.sink(w)
	defer s.release()
	if wt, ok := b.rc.(io.WriterTo); ok && !b.plain && !hasDescriptor(b.rc) {
		return b.delegate(wt, s, w)
	}
	var written int64
	src, kernel, unwatch := b.watchedSource(b.rc)
	defer unwatch()
	for {
		n, werr, err := b.copyWatched(s, src, kernel, b.chunk())
		written += n
		b.n += n
		if b.max > 0 && b.n > b.max {
			return written, b.tooLarge()
		}
		if err == io.EOF {
			b.report(true)
			return written, nil
		}
		if err != nil {
			b.report(true)
			if ended := b.ended(); ended != nil {
				return written, ended
			}
			if werr {
				// The destination failed: the caller classifies it
				// (a full disk, a closed pipe), not as the transfer's.
				return written, err
			}
			return written, b.wrap(err)
		}
		b.report(false)
	}
}

// sink returns the way to copy into w: the buffer alone when the fast
// paths are off, else the fastest the two ends allow (newSink).
func (b *Body) sink(w io.Writer) sink {
	if b.plain {
		return &bufferSink{w: w}
	}
	return newSink(w, describe(w))
}

// delegate lets a fetcher's own WriteTo drive the copy, for bodies that
// must see their end themselves (FTP checks the 226 reply and the byte
// count once the data connection ends) yet can offer the raw connection:
// the fetcher hands it to chunkWriter.ReadFrom, which moves it with the
// same sink, limit and progress as the loop in WriteTo.
func (b *Body) delegate(wt io.WriterTo, s sink, w io.Writer) (int64, error) {
	cw := &chunkWriter{b: b, s: s, w: w}
	// The fetcher's WriteTo reads its source itself: all of it is a wait
	// on the source, save what the sink's own writes take.
	b.watch.Begin()
	n, err := wt.WriteTo(cw)
	b.watch.End(0, err)
	b.report(true)
	switch {
	case cw.limit != nil:
		return n, cw.limit
	case err == nil:
		return n, nil
	case b.ended() != nil:
		return n, b.ended()
	case cw.werr != nil && errors.Is(err, cw.werr):
		// The destination failed: the caller classifies it.
		return n, err
	}
	return n, b.wrap(err)
}

// chunkWriter is the destination a fetcher's WriteTo sees. ReadFrom copies
// a raw source through the sink in copyChunk pieces, so that splice and
// copy_file_range stay in use; Write takes the bytes a fetcher already
// holds in memory.
type chunkWriter struct {
	b     *Body
	s     sink
	w     io.Writer
	werr  error // the destination's error, if it failed
	limit error // the size limit was passed
}

func (c *chunkWriter) Write(p []byte) (int, error) {
	b := c.b
	if int64(len(p)) > b.rate.size() {
		return c.writeSplit(p)
	}
	if b.max > 0 && b.n+int64(len(p)) > b.max {
		p = p[:b.max-b.n]
		c.limit = b.tooLarge()
	}
	// The fetcher read these bytes itself, inside delegate's wait on the
	// source; writing them out is not a wait on the server.
	b.watch.count(int64(len(p)))
	resume := b.watch.pause()
	b.rate.wait(b.n) // the rate's wait is not the server's either
	n, err := c.w.Write(p)
	resume()
	b.n += int64(n)
	if err != nil {
		c.werr = err
		return n, err
	}
	if c.limit != nil {
		return n, c.limit
	}
	b.report(false)
	return n, nil
}

// ReadFrom copies r through the sink until r ends: a raw connection (an
// FTP data connection) the sink can splice from, whose end is the peer
// closing it. A source that is an *io.LimitedReader over a connection (an
// HTTP body of known length, on a connection that outlives it) is copied
// from the connection itself, at most N bytes, with N counted down, as
// (*os.File).ReadFrom treats one: the sink can still splice from the
// socket, and nothing past the body is read.
func (c *chunkWriter) ReadFrom(r io.Reader) (int64, error) {
	b := c.b
	lr, limited := r.(*io.LimitedReader)
	if limited {
		r = lr.R
	}
	// delegate counts the fetcher's whole WriteTo as a wait on the
	// source; here the copy below brackets its own waits instead.
	defer b.watch.pause()()
	r, kernel, unwatch := b.watchedSource(r)
	defer unwatch()
	var total int64
	for {
		chunk := b.chunk()
		if limited {
			if lr.N <= 0 {
				return total, nil
			}
			chunk = min(chunk, lr.N)
		}
		n, werr, err := b.copyWatched(c.s, r, kernel, chunk)
		if limited {
			lr.N -= n
		}
		total += n
		b.n += n
		if b.max > 0 && b.n > b.max {
			c.limit = b.tooLarge()
			return total, c.limit
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			if werr && b.ended() == nil {
				c.werr = err
			}
			return total, err
		}
		b.report(false)
	}
}

// chunk is how much the next copy call may move: copyChunk, less under a
// rate limit (which first waits its turn), and at most one byte past the
// size limit (enough to see it passed).
func (b *Body) chunk() int64 {
	chunk := b.rate.chunk(b.n, copyChunk)
	if b.max > 0 && b.max+1-b.n < chunk {
		chunk = b.max + 1 - b.n
	}
	return chunk
}

// watchedSource returns r as a copy should read it: a source the kernel
// copies from (kernel true) is made known to the watchdog, undone by the
// function returned; any other, and every source while the fast paths are
// off, has its reads watched one by one.
func (b *Body) watchedSource(r io.Reader) (src io.Reader, kernel bool, unwatch func()) {
	if !b.plain && hasDescriptor(r) {
		return r, true, b.watch.source(r)
	}
	return b.watch.reader(r, false), false, func() {}
}

// copyWatched moves up to n bytes from src through s. A copy the kernel
// makes is one wait on the server for the whole call (the watchdog asks
// the socket whether the reader is behind instead); any other source's
// reads are watched one by one, so that the time spent writing to a slow
// destination (a pipe into a pager) does not count against the server.
func (b *Body) copyWatched(s sink, src io.Reader, kernel bool, n int64) (int64, bool, error) {
	if !kernel {
		return s.copyN(src, n)
	}
	if _, ok := s.(*bufferSink); ok {
		// The buffer reads src many times in one call, and src may
		// offer its socket only after some of them (once the bytes it
		// read ahead are out): look again before each read.
		src = b.watch.reader(src, true)
	}
	b.watch.look()
	b.watch.Begin()
	m, werr, err := s.copyN(src, n)
	b.watch.End(m, err)
	return m, werr, err
}

// Close closes the underlying body and ends the transfer's deadline.
func (b *Body) Close() error {
	b.closeOnce.Do(func() {
		// Closing may wait for the server (FTP's 226): bounded too.
		b.watch.Begin()
		b.closeErr = b.rc.Close()
		b.watch.End(0, nil)
		b.cancel()
	})
	return b.closeErr
}

func (b *Body) report(final bool) {
	if b.progress != nil {
		b.progress(b.n, final)
	}
}

func (b *Body) tooLarge() error {
	b.report(true)
	return b.fail(&TooLargeError{Limit: b.max})
}

// fail hands an error of the engine's or the source's to the caller's
// MapError.
func (b *Body) fail(err error) error {
	if b.mapErr == nil {
		return err
	}
	return b.mapErr(err)
}

// ended returns why the transfer ended early, once it has (see ended),
// as the caller's MapError words it; an interrupt stays context.Canceled.
func (b *Body) ended() error {
	err := Ended(b.ctx, b.watch)
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	return b.fail(err)
}

// Ended returns why a transfer's context ended, or nil while it runs: the
// watchdog's *StallError, a deadline (the caller's Timeout, or the
// caller's own) as a *DeadlineError, the caller's cancellation (an
// interrupt) as context.Canceled. A copy that fails once it has ended
// failed because of it: its connection was closed, or the deadline cut a
// write short, which is no fault of the server's or of the destination's,
// so that a timeout is always reported as one and an interrupt never as a
// write error.
func Ended(ctx context.Context, w *Watchdog) error {
	if err := w.Fired(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		// A fetcher gives its connection the context's deadline (gopher,
		// FTP), and the runtime's poller may end a read at it a moment
		// before the context's own timer ends the context: wait for that
		// moment, so that the read's end is known for the timeout it is.
		<-ctx.Done()
	}
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return &DeadlineError{Err: err}
	default:
		return err
	}
}

// wrap classifies a read error: the transfer's end (ended) says what it
// is; a write error (from WriteTo's destination) stays what it is for the
// caller to classify; anything else goes to the caller's MapError.
func (b *Body) wrap(err error) error {
	if e := b.ended(); e != nil {
		return e
	}
	if isWriteError(err) {
		return err
	}
	return b.fail(err)
}
