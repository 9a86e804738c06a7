package xfer

import (
	"context"
	"math"
	"sync"
	"time"
)

// limitTick is how often a rate-limited body reads: each read asks for a
// tick's worth of bytes at the rate, and the limiter sleeps between them.
// It is also the credit a body keeps for time it spent waiting on the
// server, so that a read's own wait is not slept a second time, and a
// burst after a pause is at most one tick's worth.
const limitTick = 100 * time.Millisecond

// limiter bounds the rate a Body is read at (Config.Rate: fetch's
// Client.LimitRate, curl's --limit-rate). It books the body's bytes on a
// Bucket that all of one client's bodies share, so that transfers running
// at once (-Z, -r) keep to the rate together, as one transfer does: the flag is there
// for a link that must not be filled, which counts every byte that crosses
// it. Before each read or kernel copy it sleeps until the bytes read so far
// are paid for, and it bounds the size of the next read, so that the copy
// paths that hand whole chunks to the kernel (splice, copy_file_range)
// keep to the rate too. A nil limiter bounds nothing.
type limiter struct {
	ctx  context.Context // a sleep ends early when it is done
	b    *Bucket
	seen int64 // the body's bytes booked on b
}

// Bucket is a token bucket of one tick's depth: due is when the bytes
// booked so far may have been read by, at rate bytes a second.
type Bucket struct {
	rate int64
	mu   sync.Mutex
	due  time.Time
}

// NewBucket returns a bucket at rate bytes a second, nil when rate is 0
// or less.
func NewBucket(rate int64) *Bucket {
	if rate <= 0 {
		return nil
	}
	return &Bucket{rate: rate, due: time.Now()}
}

// newLimiter returns a limiter that books on b, nil when b is nil.
func newLimiter(ctx context.Context, b *Bucket) *limiter {
	if b == nil {
		return nil
	}
	return &limiter{ctx: ctx, b: b}
}

// chunk waits until done bytes are paid for and returns how much the next
// read may ask for: want, at most a tick's worth at the rate.
func (l *limiter) chunk(done, want int64) int64 {
	if l == nil {
		return want
	}
	l.wait(done)
	return min(want, l.size())
}

// size is the most a read may ask for: a tick's worth at the rate, at
// least one byte. Without a limit it is unbounded.
func (l *limiter) size() int64 {
	if l == nil {
		return math.MaxInt64
	}
	return max(l.b.rate*int64(limitTick)/int64(time.Second), 1)
}

// writeSplit writes p, which a fetcher read into memory itself, in pieces
// the limiter allows, each after its wait (chunkWriter.Write).
func (c *chunkWriter) writeSplit(p []byte) (int, error) {
	size := c.b.rate.size()
	written := 0
	for len(p) > 0 {
		n, err := c.Write(p[:min(int64(len(p)), size)])
		written += n
		p = p[n:]
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// wait sleeps until done bytes, the body's count so far, are paid for at
// the rate, after what the bucket's other bodies booked before them. The
// sleep is a timer, and ends when the transfer does.
func (l *limiter) wait(done int64) {
	if l == nil {
		return
	}
	d := l.b.book(done - l.seen)
	l.seen = done
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-l.ctx.Done():
	}
}

// book adds n bytes to the bucket and returns how long the reader waits
// for them to be paid for. Time nobody read in (a server that was slow to
// send) is credit of at most one tick.
func (b *Bucket) book(n int64) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if floor := now.Add(-limitTick); b.due.Before(floor) {
		b.due = floor
	}
	b.due = b.due.Add(time.Duration(float64(n) / float64(b.rate) * float64(time.Second)))
	return b.due.Sub(now)
}
