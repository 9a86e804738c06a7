package netconn

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// session is what the tests pool: a loopback connection, and whether it
// is in use or was dropped.
type session struct {
	id      int
	c       net.Conn
	inUse   atomic.Bool
	dropped atomic.Bool
}

// dialer hands out sessions over real loopback connections.
type dialer struct {
	t    *testing.T
	addr string
	n    atomic.Int32
}

func newDialer(t *testing.T) *dialer {
	ln := listen(t, func(c net.Conn) { c.Read(make([]byte, 1)) })
	return &dialer{t: t, addr: ln.Addr().String()}
}

func (d *dialer) dial() *session {
	c, err := net.Dial("tcp", d.addr)
	if err != nil {
		d.t.Error(err)
		return nil
	}
	// Sessions a test takes and keeps end with it, before the server.
	d.t.Cleanup(func() { c.Close() })
	return &session{id: int(d.n.Add(1)), c: c}
}

func drop(s *session) error {
	if s.dropped.Swap(true) {
		return errors.New("dropped twice")
	}
	return s.c.Close()
}

func TestPoolNewestFirstAndMax(t *testing.T) {
	d := newDialer(t)
	p := &Pool[string, *session]{MaxIdle: 2, Drop: drop}
	a, b, c := d.dial(), d.dial(), d.dial()
	if !p.Put("k", a) || !p.Put("k", b) {
		t.Fatal("a session under MaxIdle was not kept")
	}
	if p.Put("k", c) || !c.dropped.Load() {
		t.Fatal("a session over MaxIdle was kept")
	}
	other := d.dial()
	if !p.Put("other", other) {
		t.Fatal("a session of another key was dropped")
	}
	if got, ok := p.Take("k"); !ok || got != b {
		t.Fatalf("Take = %v, want the newest", got)
	}
	if got, ok := p.Take("k"); !ok || got != a {
		t.Fatalf("Take = %v, want the older", got)
	}
	if _, ok := p.Take("k"); ok {
		t.Fatal("Take from an empty key")
	}
	if _, ok := p.Take("none"); ok {
		t.Fatal("Take from a key never put")
	}
	if a.dropped.Load() || b.dropped.Load() {
		t.Error("a session taken was dropped")
	}
}

func TestPoolIdleTimeout(t *testing.T) {
	d := newDialer(t)
	p := &Pool[string, *session]{IdleTimeout: 20 * time.Millisecond, Drop: drop}
	old1, old2 := d.dial(), d.dial()
	p.Put("k", old1)
	p.Put("k", old2)
	time.Sleep(50 * time.Millisecond)
	fresh := d.dial()
	p.Put("k", fresh)
	if got, ok := p.Take("k"); !ok || got != fresh {
		t.Fatalf("Take = %v, want the session put last", got)
	}
	if _, ok := p.Take("k"); ok {
		t.Fatal("a session idle past IdleTimeout was taken")
	}
	if !old1.dropped.Load() || !old2.dropped.Load() {
		t.Error("sessions idle past IdleTimeout were not dropped")
	}
	if p.Len("k") != 0 {
		t.Errorf("Len = %d after the expired sessions went", p.Len("k"))
	}
}

func TestPoolCloseIdleAndClose(t *testing.T) {
	d := newDialer(t)
	bad := errors.New("QUIT refused")
	p := &Pool[int, *session]{Drop: func(s *session) error {
		drop(s)
		if s.id == 2 {
			return bad
		}
		return nil
	}}
	s1, s2 := d.dial(), d.dial()
	p.Put(1, s1)
	p.Put(2, s2)
	if err := p.CloseIdle(); err != bad {
		t.Errorf("CloseIdle = %v, want the Drop's error", err)
	}
	if !s1.dropped.Load() || !s2.dropped.Load() {
		t.Fatal("CloseIdle left sessions open")
	}
	// Still usable after CloseIdle.
	s3 := d.dial()
	if !p.Put(1, s3) {
		t.Fatal("Put after CloseIdle dropped the session")
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if !s3.dropped.Load() {
		t.Error("Close left a session open")
	}
	// A session that ends its request after Close is dropped.
	s4 := d.dial()
	if p.Put(1, s4) || !s4.dropped.Load() {
		t.Error("Put after Close kept the session")
	}
}

// Many requests taking and putting sessions at once: no session serves
// two at once, none is lost or dropped twice, and MaxIdle holds.
func TestPoolConcurrent(t *testing.T) {
	d := newDialer(t)
	const maxIdle = 3
	var mu sync.Mutex
	var all []*session
	p := &Pool[int, *session]{MaxIdle: maxIdle, IdleTimeout: time.Hour, Drop: drop}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				key := i % 2
				s, ok := p.Take(key)
				if !ok {
					if s = d.dial(); s == nil {
						return
					}
					mu.Lock()
					all = append(all, s)
					mu.Unlock()
				}
				if s.inUse.Swap(true) {
					t.Error("a session was handed to two requests at once")
				}
				if s.dropped.Load() {
					t.Error("a dropped session was handed out")
				}
				s.inUse.Store(false)
				p.Put(key, s)
			}
		}()
	}
	wg.Wait()
	for key := 0; key < 2; key++ {
		if n := p.Len(key); n > maxIdle {
			t.Errorf("key %d keeps %d idle sessions, MaxIdle is %d", key, n, maxIdle)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if !s.dropped.Load() {
			t.Errorf("session %d was lost: neither kept nor dropped", s.id)
		}
	}
}
