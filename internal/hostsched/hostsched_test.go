package hostsched

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/urlget/urlget/uri"
)

// TestKey: one server under its many spellings is one key; another port,
// host or protocol is another.
func TestKey(t *testing.T) {
	key := func(s string) string {
		t.Helper()
		u, err := uri.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return Key(u)
	}
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"http://example.com/a", "HTTP://Example.COM:80/b", true},
		{"http://example.com/", "http://example.com:080/", true},
		{"http://example.com/", "http://example.com:/", true},
		{"http://example.com/", "https://example.com:80/", true},
		{"ftp://h/", "ftps://h:21/", true},
		{"nntp://h/g", "news://h/g", true},
		{"gopher://h/", "gophers://h/", true},
		{"http://b%C3%BCcher.example/", "http://xn--bcher-kva.example/", true},
		{"http://[::1]:8080/", "http://[::1]:8080/x", true},
		{"file:///a", "file:///b", true},
		{"http://example.com/", "https://example.com/", false},
		{"http://example.com/", "http://example.com:8080/", false},
		{"http://example.com/", "http://example.org/", false},
		{"http://h/", "ftp://h:80/", false},
		{"file:///a", "http://localhost/", false},
	} {
		if got := key(c.a) == key(c.b); got != c.same {
			t.Errorf("%s (%s) and %s (%s): same %v, want %v", c.a, key(c.a), c.b, key(c.b), got, c.same)
		}
	}
	if got, want := key("HTTPS://Example.com/x"), "http://example.com:443"; got != want {
		t.Errorf("Key = %q, want %q", got, want)
	}
	if got, want := key("http://[::1]:8080/"), "http://[::1]:8080"; got != want {
		t.Errorf("Key = %q, want %q", got, want)
	}
}

// TestLimiterBound: many workers on a few servers never run more than
// the bound to one of them, and every transfer runs.
func TestLimiterBound(t *testing.T) {
	const per, workers, each = 3, 24, 50
	l := NewLimiter(per)
	keys := []string{"a", "b", "c"}
	var running [3]atomic.Int32
	var over atomic.Bool
	var done atomic.Int32
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				k := (w + i) % len(keys)
				if i%2 == 0 {
					if err := l.Acquire(context.Background(), keys[k]); err != nil {
						t.Error(err)
						return
					}
				} else {
					for !l.TryAcquire(keys[k]) {
						if err := l.Acquire(context.Background(), keys[k]); err == nil {
							break
						}
					}
				}
				if n := running[k].Add(1); n > per {
					over.Store(true)
				}
				running[k].Add(-1)
				l.Release(keys[k])
				done.Add(1)
			}
		})
	}
	wg.Wait()
	if over.Load() {
		t.Errorf("more than %d transfers at once to one server", per)
	}
	if n := done.Load(); n != workers*each {
		t.Errorf("%d transfers ran, want %d", n, workers*each)
	}
	for _, k := range keys {
		if n := l.Running(k); n != 0 {
			t.Errorf("%d places of %s still held", n, k)
		}
	}
}

// TestLimiterFair: a place freed goes to the oldest waiter, and no
// newcomer takes it meanwhile (TryAcquire), so a waiter is served after
// at most the transfers that were queued before it.
func TestLimiterFair(t *testing.T) {
	l := NewLimiter(1)
	if !l.TryAcquire("h") {
		t.Fatal("the first place is not free")
	}
	const waiters = 8
	order := make(chan int, waiters)
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Go(func() {
			if err := l.Acquire(context.Background(), "h"); err != nil {
				t.Error(err)
				return
			}
			order <- i
			l.Release("h")
		})
		// The next starts once this one is queued.
		for l.waiting("h") < i+1 {
			runtime.Gosched()
		}
	}
	if l.TryAcquire("h") {
		t.Error("a newcomer took the place before those waiting")
	}
	l.Release("h")
	wg.Wait()
	close(order)
	want := 0
	for got := range order {
		if got != want {
			t.Errorf("waiter %d served in place %d", got, want)
		}
		want++
	}
	if want != waiters {
		t.Errorf("%d waiters served, want %d", want, waiters)
	}
	if l.Running("h") != 0 {
		t.Error("a place still held")
	}
}

// TestLimiterCancel: a waiter whose context ends gives up its turn and
// holds no place; the place goes on to the next waiter.
func TestLimiterCancel(t *testing.T) {
	l := NewLimiter(1)
	if err := l.Acquire(context.Background(), "h"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error)
	go func() { gaveUp <- l.Acquire(ctx, "h") }()
	for l.waiting("h") < 1 {
		runtime.Gosched()
	}
	next := make(chan error)
	go func() { next <- l.Acquire(context.Background(), "h") }()
	for l.waiting("h") < 2 {
		runtime.Gosched()
	}
	cancel()
	if err := <-gaveUp; err != context.Canceled {
		t.Errorf("a cancelled Acquire returned %v", err)
	}
	l.Release("h")
	if err := <-next; err != nil {
		t.Fatal(err)
	}
	if n := l.Running("h"); n != 1 {
		t.Errorf("%d places held, want the next waiter's 1", n)
	}
	l.Release("h")
	if n := l.Running("h"); n != 0 {
		t.Errorf("%d places held after the last Release", n)
	}

	// Cancelled while the place is handed over: the place is passed on,
	// never lost, whichever comes first.
	for range 200 {
		l := NewLimiter(1)
		l.TryAcquire("h")
		ctx, cancel := context.WithCancel(context.Background())
		res := make(chan error)
		go func() { res <- l.Acquire(ctx, "h") }()
		for l.waiting("h") < 1 {
			runtime.Gosched()
		}
		go cancel()
		l.Release("h")
		if err := <-res; err == nil {
			l.Release("h")
		}
		if n := l.Running("h"); n != 0 {
			t.Fatalf("%d places held after a cancelled hand-over", n)
		}
	}
}

// waiting returns how many wait for key.
func (l *Limiter) waiting(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h := l.hosts[key]; h != nil {
		return h.waiting.Len()
	}
	return 0
}
