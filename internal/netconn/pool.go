package netconn

import (
	"sync"
	"time"
)

// Pool keeps idle sessions by key (a server and the identity logged in
// there) for later requests to the same key, as net/http's Transport keeps
// idle connections per host: many URLs on one server then cost one
// connection and one login. Its zero value keeps every session, without
// limit of number or time, and drops none; set the fields before first
// use. A Pool is safe for concurrent use.
//
// Sessions go out newest first: the one idle the shortest time is the one
// a server is least likely to have timed out.
type Pool[K comparable, V any] struct {
	// MaxIdle bounds the idle sessions kept per key; 0 means no bound.
	// A session put beyond it is dropped.
	MaxIdle int

	// IdleTimeout, when not 0, is how long a session may wait idle: an
	// older one is dropped instead of taken (servers end idle sessions
	// themselves, RFC 959's 421, RFC 3977 §3.1's 400).
	IdleTimeout time.Duration

	// Drop ends a session the pool will not keep: one over MaxIdle, one
	// idle past IdleTimeout, one put after Close, and each at CloseIdle
	// and Close. It runs without the pool's lock held (it may say goodbye
	// to the server); its first error is what CloseIdle and Close return.
	Drop func(V) error

	mu     sync.Mutex
	idle   map[K][]idle[V]
	closed bool
}

type idle[V any] struct {
	v     V
	since time.Time // zero without IdleTimeout
}

// Take returns the newest idle session for key, if any; sessions idle
// past IdleTimeout are dropped on the way.
func (p *Pool[K, V]) Take(key K) (v V, ok bool) {
	var stale []idle[V]
	p.mu.Lock()
	if list := p.idle[key]; len(list) > 0 {
		n := len(list) - 1
		e := list[n]
		if p.expired(e) {
			// The older sessions below it expired too.
			stale = append(stale, list...)
			n = 0
		} else {
			v, ok = e.v, true
		}
		clear(list[n:])
		// The emptied list keeps its array for the next Put: a run
		// that takes and puts one session per URL allocates nothing.
		p.idle[key] = list[:n]
	}
	p.mu.Unlock()
	p.drop(stale)
	return v, ok
}

// Put keeps v idle under key, or drops it when the key has MaxIdle idle
// sessions already or the pool is closed. It reports whether v was kept.
func (p *Pool[K, V]) Put(key K, v V) bool {
	e := idle[V]{v: v}
	if p.IdleTimeout > 0 {
		e.since = time.Now()
	}
	p.mu.Lock()
	if p.closed || p.MaxIdle > 0 && len(p.idle[key]) >= p.MaxIdle {
		p.mu.Unlock()
		if p.Drop != nil {
			p.Drop(v)
		}
		return false
	}
	if p.idle == nil {
		p.idle = make(map[K][]idle[V])
	}
	p.idle[key] = append(p.idle[key], e)
	p.mu.Unlock()
	return true
}

// CloseIdle drops every idle session. The pool stays usable.
func (p *Pool[K, V]) CloseIdle() error {
	return p.closeIdle(false)
}

// Close drops every idle session, and every session put from now on: the
// sessions still serving a request end with it.
func (p *Pool[K, V]) Close() error {
	return p.closeIdle(true)
}

func (p *Pool[K, V]) closeIdle(final bool) error {
	p.mu.Lock()
	all := p.idle
	p.idle = nil
	if final {
		p.closed = true
	}
	p.mu.Unlock()
	var first error
	for _, list := range all {
		if err := p.drop(list); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Len returns the number of idle sessions kept for key.
func (p *Pool[K, V]) Len(key K) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle[key])
}

func (p *Pool[K, V]) expired(e idle[V]) bool {
	return p.IdleTimeout > 0 && time.Since(e.since) > p.IdleTimeout
}

// drop ends the sessions of list, returning the first error.
func (p *Pool[K, V]) drop(list []idle[V]) error {
	if p.Drop == nil {
		return nil
	}
	var first error
	for _, e := range list {
		if err := p.Drop(e.v); err != nil && first == nil {
			first = err
		}
	}
	return first
}
