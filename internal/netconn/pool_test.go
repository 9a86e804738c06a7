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

// TestPoolTakeFunc checks that TakeFunc takes the session ranked highest,
// the newest among equals, and none ranked 0.
func TestPoolTakeFunc(t *testing.T) {
	d := newDialer(t)
	p := &Pool[string, *session]{Drop: drop}
	a, b, c := d.dial(), d.dial(), d.dial()
	for _, s := range []*session{a, b, c} {
		p.Put("k", s)
	}
	rank := map[*session]int{a: 2, b: 1, c: 1}
	byRank := func(s *session) int { return rank[s] }
	if got, ok := p.TakeFunc("k", byRank); !ok || got != a {
		t.Fatalf("TakeFunc = %v, want the one ranked highest, though oldest", got)
	}
	if got, ok := p.TakeFunc("k", byRank); !ok || got != c {
		t.Fatalf("TakeFunc = %v, want the newest of those ranked equal", got)
	}
	if _, ok := p.TakeFunc("k", func(*session) int { return 0 }); ok {
		t.Fatal("TakeFunc took a session ranked 0")
	}
	if _, ok := p.TakeFunc("none", byRank); ok {
		t.Fatal("TakeFunc from a key never put")
	}
	if got, ok := p.Take("k"); !ok || got != b || p.Len("k") != 0 {
		t.Fatalf("Take = %v, want the one left", got)
	}
}

// TestPoolTakeFuncIdleTimeout checks that TakeFunc drops the sessions
// idle too long instead of taking them.
func TestPoolTakeFuncIdleTimeout(t *testing.T) {
	d := newDialer(t)
	p := &Pool[string, *session]{IdleTimeout: 50 * time.Millisecond, Drop: drop}
	old := d.dial()
	p.Put("k", old)
	time.Sleep(100 * time.Millisecond)
	fresh := d.dial()
	p.Put("k", fresh)
	if got, ok := p.TakeFunc("k", func(*session) int { return 1 }); !ok || got != fresh {
		t.Fatalf("TakeFunc = %v, want the fresh session", got)
	}
	if !old.dropped.Load() || p.Len("k") != 0 {
		t.Error("the session idle too long was not dropped")
	}
}

// TestPoolBusyAndMaxKept checks that MaxIdle counts only the sessions
// that are not busy, and that past MaxKept the oldest session that is not
// busy goes, else the oldest.
func TestPoolBusyAndMaxKept(t *testing.T) {
	d := newDialer(t)
	busy := map[*session]bool{}
	p := &Pool[string, *session]{MaxIdle: 1, MaxKept: 3, Busy: func(s *session) bool { return busy[s] }, Drop: drop}
	b1, i1, b2, i2 := d.dial(), d.dial(), d.dial(), d.dial()
	busy[b1], busy[b2] = true, true
	if !p.Put("k", b1) || !p.Put("k", i1) || !p.Put("k", b2) {
		t.Fatal("a busy session, or the first idle one, was not kept")
	}
	if p.Put("k", i2) || !i2.dropped.Load() {
		t.Fatal("an idle session over MaxIdle was kept")
	}
	b3 := d.dial()
	busy[b3] = true
	if !p.Put("k", b3) {
		t.Fatal("a busy session past MaxKept was dropped instead of an older one")
	}
	if !i1.dropped.Load() || b1.dropped.Load() || p.Len("k") != 3 {
		t.Fatal("past MaxKept, the session that is not busy did not go first")
	}
	b4 := d.dial()
	busy[b4] = true
	p.Put("k", b4)
	if !b1.dropped.Load() || b2.dropped.Load() || p.Len("k") != 3 {
		t.Error("past MaxKept with every session busy, the oldest did not go")
	}
}
