package fetch

import (
	"context"
	"math"
	"time"
)

// limitTick is how often a rate-limited body reads: each read asks for a
// tick's worth of bytes at the rate, and the limiter sleeps between them.
// It is also the credit a body keeps for time it spent waiting on the
// server, so that a read's own wait is not slept a second time, and a
// burst after a pause is at most one tick's worth.
const limitTick = 100 * time.Millisecond

// limiter bounds the rate a Body is read at (Client.LimitRate, curl's
// --limit-rate). It is a token bucket of one tick's depth: before each
// read or kernel copy it sleeps until the bytes read so far are paid for
// at the rate, and it bounds the size of the next read, so that the copy
// paths that hand whole chunks to the kernel (splice, copy_file_range)
// keep to the rate too. A nil limiter bounds nothing.
type limiter struct {
	ctx  context.Context // a sleep ends early when it is done
	rate int64           // bytes a second
	seen int64           // bytes paid for in due
	due  time.Time       // when the bytes seen so far may have been read by
}

// newLimiter returns a limiter at rate bytes a second, nil when rate is 0
// or less.
func newLimiter(ctx context.Context, rate int64) *limiter {
	if rate <= 0 {
		return nil
	}
	return &limiter{ctx: ctx, rate: rate, due: time.Now()}
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
	return max(l.rate*int64(limitTick)/int64(time.Second), 1)
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
// the rate. The sleep is a timer, and ends when the transfer does.
func (l *limiter) wait(done int64) {
	if l == nil {
		return
	}
	now := time.Now()
	if floor := now.Add(-limitTick); l.due.Before(floor) {
		l.due = floor
	}
	l.due = l.due.Add(time.Duration(float64(done-l.seen) / float64(l.rate) * float64(time.Second)))
	l.seen = done
	d := l.due.Sub(now)
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
