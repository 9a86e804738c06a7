package netconn

import (
	"context"
	"errors"
	"net"
	"os"
	"time"
)

// past is the deadline that makes every read and write fail at once.
var past = time.Unix(1, 0)

// Bind makes c's blocked reads and writes end when ctx ends, so that a
// request cancelled or out of time never waits on a silent server. ctx's
// deadline becomes c's at once, so that a read ends at the deadline even
// before ctx's own timer fires; when ctx ends, c's deadline is set in the
// past, and onDone, when not nil, runs too (FTP closes its data connection
// with it). That runs in a goroutine of its own: a caller that must not
// start another exchange after cancellation checks ctx.Err() as well.
//
// A deadline, not closing, is what ends the wait: c stays the caller's to
// close, once, and an error read after it is os.ErrDeadlineExceeded, which
// Cause turns into ctx's own error.
//
// The Binding is a value, so that binding a pooled connection to each of
// its requests costs no more than context.AfterFunc does.
func Bind(ctx context.Context, c net.Conn, onDone func()) Binding {
	return bind(ctx, c, onDone, false)
}

// BindClose is Bind for a protocol whose peer must learn of the
// cancellation at once: when ctx ends, c is closed rather than given a
// past deadline. HTTP/1.x has no message that abandons a response, and a
// connection with a response half read serves nothing more (RFC 9112
// §9.6), so its server is told by the close; the read blocked on c ends
// with it. Stop then reports false as for Bind, and c may be closed again
// by its owner.
func BindClose(ctx context.Context, c net.Conn) Binding {
	return bind(ctx, c, nil, true)
}

func bind(ctx context.Context, c net.Conn, onDone func(), closing bool) Binding {
	d, hasDeadline := ctx.Deadline()
	if hasDeadline {
		_ = c.SetDeadline(d)
	}
	return Binding{
		stop: context.AfterFunc(ctx, func() {
			if closing {
				_ = c.Close()
				return
			}
			_ = c.SetDeadline(past)
			if onDone != nil {
				onDone()
			}
		}),
		c:        c,
		deadline: d,
	}
}

// Binding is a connection bound to a context by Bind. Its zero value is
// bound to nothing.
type Binding struct {
	stop     func() bool
	c        net.Conn
	deadline time.Time // ctx's deadline, which Bind gave c; zero if none
}

// Stop ends the binding. It reports false when ctx ended first: c's
// deadline is then in the past (or c closed, by BindClose) and c is fit
// for nothing but closing.
// Otherwise it clears the deadline Bind set, so that c can serve a later
// request bound to another context. Stop on the zero Binding reports true.
func (b Binding) Stop() bool {
	if b.stop == nil {
		return true
	}
	if !b.stop() {
		return false
	}
	if !b.deadline.IsZero() {
		// ctx's done channel closes before its AfterFunc is told, so
		// stop can win just after the deadline; c's own deadline, which
		// Bind set, may already have cut a read short. Past the
		// deadline the exchange is not whole, whoever won.
		if !time.Now().Before(b.deadline) {
			return false
		}
		_ = b.c.SetDeadline(time.Time{})
	}
	return true
}

// Cause returns why an operation on a connection bound to ctx failed with
// err: ctx's own error once ctx has ended, since the past deadline Bind
// set or a connection closed under the operation says less than
// "cancelled" or "timed out"; otherwise err. A deadline error that came at
// ctx's deadline, just before ctx's timer marked ctx done, is
// context.DeadlineExceeded already.
func Cause(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
			return context.DeadlineExceeded
		}
	}
	return err
}
