package xfer

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// probeBody offers its socket the way gopher's raw body does (a Source),
// from state its reads change. Its one Read
// blocks until something looks at the socket: SyscallConn asked then is
// the race; the watchdog's sample through the RawConn it was given before
// the copy is what should happen.
type probeBody struct {
	reading atomic.Bool
	raced   atomic.Bool
	looked  chan struct{}
	once    sync.Once
	done    bool
}

func (b *probeBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	b.reading.Store(true)
	<-b.looked
	b.reading.Store(false)
	b.done = true
	return copy(p, "x"), nil
}

func (b *probeBody) Close() error { return nil }

func (b *probeBody) SyscallConn() (syscall.RawConn, error) {
	if b.reading.Load() {
		b.raced.Store(true)
		b.once.Do(func() { close(b.looked) })
	}
	return probeConn{b}, nil
}

// probeConn is the socket probeBody offers: it has no descriptor, and
// tells its body when it is looked at during a Read.
type probeConn struct{ b *probeBody }

var errNoSocket = errors.New("no socket")

func (c probeConn) Control(func(fd uintptr)) error {
	if c.b.reading.Load() {
		c.b.once.Do(func() { close(c.b.looked) })
	}
	return errNoSocket
}

func (probeConn) Read(func(fd uintptr) bool) error  { return errNoSocket }
func (probeConn) Write(func(fd uintptr) bool) error { return errNoSocket }

// TestWatchdogSamplesWithoutAskingTheBody checks that the watchdog's
// timer never calls a body's SyscallConn while the copy reads it: the
// body's answer depends on what its reads leave buffered, so the call
// raced with them (gopher's rawBody under the race detector).
func TestWatchdogSamplesWithoutAskingTheBody(t *testing.T) {
	body := &probeBody{looked: make(chan struct{})}
	// An idle bound of 400 ms makes the watchdog look every 100 ms.
	rc := startBody(t, body, Bounds{Connect: time.Minute, Idle: 400 * time.Millisecond}, Config{}, nil)
	var got bytes.Buffer
	if _, err := io.Copy(&got, rc); err != nil || got.String() != "x" {
		t.Fatalf("copied %q, %v", got.String(), err)
	}
	if body.raced.Load() {
		t.Error("the watchdog asked the body for its socket while the copy was reading it")
	}
}
