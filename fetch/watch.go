package fetch

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/urlget/urlget/internal/xfer"
	"github.com/urlget/urlget/schemes"
)

// The bounds a Client applies when its fields leave them at zero.
const (
	// DefaultConnectTimeout bounds everything before a resource's first
	// byte: connecting, the TLS handshake, a greeting and login, and the
	// wait for the reply to the request. Two minutes lets a slow server
	// compute a large listing, a search or a dynamic page; Linux gives up
	// a TCP connection attempt after about as long (tcp_syn_retries 6).
	DefaultConnectTimeout = 2 * time.Minute

	// DefaultIdleTimeout ends a transfer that receives nothing for this
	// long, when no speed limit is set. TCP's retransmission timeout grows
	// to two minutes between tries (RFC 6298 §2.5 allows a cap of at least
	// 60 s; Linux's is 120 s), so five minutes lets a live connection ride
	// out an outage of a few minutes, where wget's 900 s read timeout
	// would keep a dead one for a quarter of an hour.
	DefaultIdleTimeout = 5 * time.Minute

	// dialTimeout bounds one TCP connection attempt when ConnectTimeout is
	// not set, so that one unreachable address leaves time for the next.
	dialTimeout = 30 * time.Second

	// defaultSpeedTime and defaultSpeedLimit are curl's: -Y alone means
	// over 30 seconds, -y alone means below 1 byte a second.
	defaultSpeedTime  = 30 * time.Second
	defaultSpeedLimit = 1
)

// watchBounds returns the bounds of each attempt the Client makes, its
// zero fields resolved to their defaults.
func (c *Client) watchBounds() xfer.Bounds {
	b := xfer.Bounds{Connect: c.ConnectTimeout, Idle: c.IdleTimeout, SpeedLimit: c.LowSpeedLimit, SpeedTime: c.LowSpeedTime}
	if b.Connect <= 0 {
		b.Connect = DefaultConnectTimeout
	}
	switch {
	case b.Idle == 0:
		b.Idle = DefaultIdleTimeout
	case b.Idle < 0:
		b.Idle = 0
	}
	if b.SpeedLimit > 0 || b.SpeedTime > 0 {
		// curl: -y alone implies -Y 1; -Y alone implies -y 30.
		if b.SpeedLimit <= 0 {
			b.SpeedLimit = defaultSpeedLimit
		}
		if b.SpeedTime <= 0 {
			b.SpeedTime = defaultSpeedTime
		}
	}
	return b
}

// transferError returns the function that words the copy engine's errors
// in the taxonomy, for a transfer of req under the deadline of tctx: the
// watchdog's end and a deadline as schemes.ErrTimeout, a body past
// MaxSize as schemes.ErrTooLarge, and a failure of the source that no
// fetcher classified through Request.NetError.
func transferError(tctx context.Context, req *schemes.Request) func(error) error {
	return func(err error) error {
		var (
			stall *xfer.StallError
			dl    *xfer.DeadlineError
			large *xfer.TooLargeError
			se    *schemes.Error
		)
		switch {
		case errors.As(err, &stall):
			return &schemes.Error{Kind: schemes.ErrTimeout, URL: req.URL.Redacted(), Err: stall, Temporary: true}
		case errors.As(err, &dl):
			return timeoutError(tctx, req, dl.Err)
		case errors.As(err, &large):
			return req.Fail(schemes.ErrTooLarge, "", 0, "", large)
		case errors.As(err, &se):
			return err
		}
		return req.NetError("read", err)
	}
}

// watchedDialer tells the attempt's watchdog when a connection is made,
// so that a timeout can say whether the server was reached.
type watchedDialer struct{ d schemes.Dialer }

func (d watchedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := d.d.DialContext(ctx, network, address)
	if err == nil {
		xfer.WatchdogFrom(ctx).Dialed(c)
	}
	return c, err
}

// listing applies the transfer's deadline to a Listing.
type listing struct {
	schemes.Listing
	ctx       context.Context
	cancel    context.CancelFunc
	watch     *xfer.Watchdog
	mapErr    func(error) error // transferError's
	req       *schemes.Request
	closeOnce sync.Once
	closeErr  error
}

// NamesOnly passes on the wrapped listing's schemes.NameLister.
func (l *listing) NamesOnly() bool { return schemes.NamesOnly(l.Listing) }

func (l *listing) Next() (schemes.Entry, error) {
	l.watch.Begin()
	e, err := l.Listing.Next()
	l.watch.End(entryWeight(e), err)
	if err != nil && err != io.EOF {
		if end := xfer.Ended(l.ctx, l.watch); errors.Is(end, context.Canceled) {
			err = end
		} else if end != nil {
			err = l.mapErr(end)
		} else {
			var se *schemes.Error
			if !errors.As(err, &se) {
				err = l.req.NetError("listing", err)
			}
		}
	}
	return e, err
}

func (l *listing) Close() error {
	l.closeOnce.Do(func() {
		l.watch.Begin()
		l.closeErr = l.Listing.Close()
		l.watch.End(0, nil)
		l.cancel()
	})
	return l.closeErr
}

// entryWeight is what a listing entry counts for against a speed limit:
// the bytes of the server's line for it, or of its name and URL.
func entryWeight(e schemes.Entry) int64 {
	if e.Raw != "" {
		return int64(len(e.Raw))
	}
	return int64(len(e.Name) + len(e.URL))
}
