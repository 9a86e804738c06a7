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
	// A session put beyond it is dropped. With Busy set, it counts only
	// the sessions that are not busy.
	MaxIdle int

	// Busy, when not nil, tells a session put with work still in flight
	// on it: an HTTP/1.1 connection holding responses to requests sent
	// ahead (RFC 9112 §9.3.2). A busy session is kept beyond MaxIdle,
	// since dropping it would lose that work; MaxKept bounds them all.
	Busy func(V) bool

	// MaxKept, when not 0, bounds the sessions kept per key, busy or
	// not. A Put past it drops the oldest session that is not busy,
	// else the oldest: its work is the one most likely abandoned.
	MaxKept int

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

// TakeFunc returns the idle session for key that rank scores highest,
// the newest among equals; a session scored 0 or less is left where it
// is, and none is taken when every one is. Sessions idle past IdleTimeout
// are dropped on the way. rank runs with the pool's lock held: it only
// looks at the session. HTTP pipelining takes by it the connection that
// sent a request ahead already, before one with nothing in flight.
func (p *Pool[K, V]) TakeFunc(key K, rank func(V) int) (v V, ok bool) {
	var stale []idle[V]
	p.mu.Lock()
	list := p.idle[key]
	if p.IdleTimeout > 0 {
		kept := list[:0]
		for _, e := range list {
			if p.expired(e) {
				stale = append(stale, e)
			} else {
				kept = append(kept, e)
			}
		}
		clear(list[len(kept):])
		list = kept
	}
	pick, best := -1, 0
	for i := len(list) - 1; i >= 0; i-- {
		if r := rank(list[i].v); r > best {
			pick, best = i, r
		}
	}
	if pick >= 0 {
		v, ok = list[pick].v, true
		list = append(list[:pick], list[pick+1:]...)
		clear(list[len(list):cap(list)][:1])
	}
	if ok || len(stale) > 0 {
		p.idle[key] = list
	}
	p.mu.Unlock()
	p.drop(stale)
	return v, ok
}

// Put keeps v idle under key, or drops it when the key has MaxIdle idle
// sessions already or the pool is closed; past MaxKept it drops another.
// It reports whether v was kept.
func (p *Pool[K, V]) Put(key K, v V) bool {
	e := idle[V]{v: v}
	if p.IdleTimeout > 0 {
		e.since = time.Now()
	}
	p.mu.Lock()
	list := p.idle[key]
	if p.closed || p.MaxIdle > 0 && !p.busy(v) && p.idleCount(list) >= p.MaxIdle {
		p.mu.Unlock()
		if p.Drop != nil {
			p.Drop(v)
		}
		return false
	}
	if p.idle == nil {
		p.idle = make(map[K][]idle[V])
	}
	list = append(list, e)
	var out []idle[V]
	kept := true
	if p.MaxKept > 0 && len(list) > p.MaxKept {
		i := 0
		for j, o := range list {
			if !p.busy(o.v) {
				i = j
				break
			}
		}
		out, kept = []idle[V]{list[i]}, i < len(list)-1
		list = append(list[:i], list[i+1:]...)
		clear(list[len(list):cap(list)][:1])
	}
	p.idle[key] = list
	p.mu.Unlock()
	p.drop(out)
	return kept
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

// busy reports whether v has work in flight, by Busy.
func (p *Pool[K, V]) busy(v V) bool { return p.Busy != nil && p.Busy(v) }

// idleCount is how many sessions of list MaxIdle counts.
func (p *Pool[K, V]) idleCount(list []idle[V]) int {
	if p.Busy == nil {
		return len(list)
	}
	n := 0
	for _, e := range list {
		if !p.Busy(e.v) {
			n++
		}
	}
	return n
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
