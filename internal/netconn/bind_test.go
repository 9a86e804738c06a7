package netconn

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// silent dials a loopback server that accepts and never sends, and never
// reads, until the test ends.
func silent(t *testing.T) net.Conn {
	t.Helper()
	release := make(chan struct{})
	ln := listen(t, func(c net.Conn) { <-release })
	t.Cleanup(func() { close(release) })
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// within waits for the result of a blocked call, failing the test when it
// does not come within bound.
func within(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(bound):
		t.Fatalf("%s still blocked %v after its context ended", what, bound)
		return nil
	}
}

// cancelMidRead cancels while a read of c is blocked, and returns the
// read's error.
func cancelMidRead(t *testing.T, c net.Conn, cancel context.CancelFunc) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	return within(t, done, "a read")
}

func TestBindCancelMidRead(t *testing.T) {
	c := silent(t)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	b := Bind(ctx, c, func() { close(ran) })
	err := cancelMidRead(t, c, cancel)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read error %v, want a deadline in the past", err)
	}
	if got := Cause(ctx, err); got != context.Canceled {
		t.Errorf("Cause = %v, want %v", got, context.Canceled)
	}
	if b.Stop() {
		t.Error("stop reported the binding whole after ctx ended")
	}
	// onDone runs after the deadline that ended the read is set, on
	// the context's goroutine: it may come just after the read's end.
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Error("onDone did not run")
	}
}

func TestBindCancelMidWrite(t *testing.T) {
	c := silent(t)
	ctx, cancel := context.WithCancel(context.Background())
	b := Bind(ctx, c, nil)
	defer b.Stop()
	done := make(chan error, 1)
	go func() {
		// The server reads nothing: the socket buffers fill and the
		// write blocks.
		buf := make([]byte, 1<<20)
		for {
			if _, err := c.Write(buf); err != nil {
				done <- err
				return
			}
		}
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := within(t, done, "a write"); Cause(ctx, err) != context.Canceled {
		t.Fatalf("write error %v, cause %v", err, Cause(ctx, err))
	}
}

func TestBindDeadline(t *testing.T) {
	c := silent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	b := Bind(ctx, c, nil)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	err := within(t, done, "a read")
	if got := Cause(ctx, err); got != context.DeadlineExceeded {
		t.Fatalf("read error %v, Cause %v, want %v", err, got, context.DeadlineExceeded)
	}
	// Whether ctx's timer ran before stop or not, the connection's
	// deadline is gone: the binding is not whole.
	<-ctx.Done()
	if b.Stop() {
		t.Error("stop reported the binding whole after the deadline")
	}
}

// A connection whose binding stopped in time serves the next request:
// the deadline of the first context no longer applies, and its
// cancellation does nothing.
func TestBindStopReleases(t *testing.T) {
	ln := listen(t, func(c net.Conn) {
		b := make([]byte, 1)
		for {
			if _, err := c.Read(b); err != nil {
				return
			}
			c.Write(b)
		}
	})
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	var ran atomic.Bool
	b := Bind(ctx, c, func() { ran.Store(true) })
	if !b.Stop() {
		t.Fatal("stop reported ctx ended")
	}
	cancel()
	time.Sleep(50 * time.Millisecond)
	if ran.Load() {
		t.Error("onDone ran after stop")
	}
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatalf("write after stop: %v", err)
	}
	echo := make([]byte, 1)
	if _, err := c.Read(echo); err != nil || echo[0] != 'x' {
		t.Fatalf("read after stop: %q, %v", echo, err)
	}
}

func TestBindingZero(t *testing.T) {
	var b Binding
	if !b.Stop() {
		t.Error("the zero Binding reports a context that ended")
	}
}

func TestCause(t *testing.T) {
	other := errors.New("connection reset")
	if got := Cause(context.Background(), other); got != other {
		t.Errorf("Cause with a live context = %v, want the error itself", got)
	}
	if Cause(context.Background(), nil) != nil {
		t.Error("Cause of nil is not nil")
	}
	// A deadline error at the context's deadline is the context's
	// deadline, even before the context's timer marked it done.
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if got := Cause(ctx, os.ErrDeadlineExceeded); got != context.DeadlineExceeded {
		t.Errorf("Cause = %v, want %v", got, context.DeadlineExceeded)
	}
	// A deadline of the caller's own, before the context's, stays.
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel2()
	if got := Cause(ctx2, os.ErrDeadlineExceeded); got != os.ErrDeadlineExceeded {
		t.Errorf("Cause = %v, want %v", got, os.ErrDeadlineExceeded)
	}
}

// TestBindCloseCancel checks that BindClose ends a blocked read by closing
// the connection, which the peer sees at once as the end of the stream.
func TestBindCloseCancel(t *testing.T) {
	peerDone := make(chan error, 1)
	ln := listen(t, func(c net.Conn) {
		_, err := c.Read(make([]byte, 1))
		peerDone <- err
	})
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	b := BindClose(ctx, c)
	err = cancelMidRead(t, c, cancel)
	if !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read error %v, want the connection closed", err)
	}
	if got := Cause(ctx, err); got != context.Canceled {
		t.Errorf("Cause = %v, want %v", got, context.Canceled)
	}
	if err := within(t, peerDone, "the peer's read"); !errors.Is(err, io.EOF) {
		t.Errorf("peer read %v, want EOF", err)
	}
	if b.Stop() {
		t.Error("Stop reported true after the context ended")
	}
}

// TestBindCloseStop checks that a BindClose stopped before its context
// ends leaves the connection open and without a deadline.
func TestBindCloseStop(t *testing.T) {
	c := silent(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	b := BindClose(ctx, c)
	if !b.Stop() {
		t.Fatal("Stop reported false before the context ended")
	}
	cancel()
	if _, err := c.Write([]byte("x")); err != nil {
		t.Errorf("write after Stop and cancel: %v", err)
	}
}
