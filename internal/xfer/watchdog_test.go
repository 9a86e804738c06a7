package xfer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestWatchdogOneTimer checks that an attempt runs on the one timer
// NewWatchdog started: the fetcher's return starts none. A timer started
// can make the runtime wake a second thread, which a run of small files
// paid once more per file.
func TestWatchdogOneTimer(t *testing.T) {
	for _, b := range []Bounds{
		{Connect: time.Minute, Idle: time.Minute},
		{Connect: time.Minute, SpeedLimit: 100, SpeedTime: time.Minute},
	} {
		_, cancel := context.WithCancelCause(context.Background())
		w := NewWatchdog(b, cancel)
		w.mu.Lock()
		first := w.timer
		w.mu.Unlock()
		w.Fetched()
		w.mu.Lock()
		same := w.timer == first
		w.mu.Unlock()
		w.Stop()
		cancel(nil)
		if !same {
			t.Errorf("%+v: Fetched started a timer of its own", b)
		}
	}
}

// TestWatchdogConnectBound checks that the tick that serves the whole
// attempt still ends it at the connect bound while the fetcher works, and
// never after the fetcher returned.
func TestWatchdogConnectBound(t *testing.T) {
	const connect = 60 * time.Millisecond
	ctx, cancel := context.WithCancelCause(context.Background())
	start := time.Now()
	NewWatchdog(Bounds{Connect: connect, Idle: time.Minute}, cancel)
	<-ctx.Done()
	if took := time.Since(start); took < connect {
		t.Errorf("ended after %v, before the connect bound of %v", took, connect)
	}
	var stall *StallError
	if err := context.Cause(ctx); !errors.As(err, &stall) || !strings.Contains(stall.Reason, "no connection to the server within") {
		t.Errorf("cause %v, want the connect bound's StallError", err)
	}

	// Returned in time: the connect bound is over, and the body is
	// watched by the idle bound (a minute) instead.
	ctx2, cancel2 := context.WithCancelCause(context.Background())
	w := NewWatchdog(Bounds{Connect: connect, Idle: time.Minute}, cancel2)
	w.Fetched()
	select {
	case <-ctx2.Done():
		t.Errorf("ended with %v after the fetcher returned", context.Cause(ctx2))
	case <-time.After(3 * connect):
	}
	w.Stop()
	cancel2(nil)
}
