// Package hostsched holds the transfers to one server to a number at
// once, for the command's -Z (--parallel-host) and the mirror's workers
// (mirror.Options.PerHost) alike: one rule names the server a URL is
// fetched from (Key), and one Limiter counts the transfers under way by
// that name.
package hostsched

import (
	"container/list"
	"context"
	"strings"
	"sync"

	"github.com/urlget/urlget/uri"
)

// Family names the protocol a scheme speaks, with TLS or without: "http"
// for http and https, "ftp" for ftp and ftps, "gopher" for gopher and
// gophers, "news" for news, nntp, nntps and snews; any other scheme is its
// own, in lower case.
func Family(scheme string) string {
	switch s := strings.ToLower(scheme); s {
	case "https":
		return "http"
	case "ftps":
		return "ftp"
	case "gophers":
		return "gopher"
	case "nntp", "nntps", "snews":
		return "news"
	default:
		return s
	}
}

// Key names the server u is fetched from: its protocol family
// (uri.SchemeOf: http for http and https, news for news, nntp and their
// TLS forms), its host as it goes on the wire and its port, the scheme's
// default one when u names none, as "family://host:port". The host is the one of
// uri.URL.HostASCII: lower case, an internationalized name in its A-labels
// (RFC 5891 §5), an IP literal without its brackets; a port's leading
// zeros mean nothing (RFC 3986 §6.2.3). So "HTTP://Example.COM/" and
// "http://example.com:80/" are one server, and so are http and https URLs
// of one host and port (one server process speaks one protocol on a
// port; the TLS twin has its own default port). A URL that names no host
// (file:, news:group, which goes to the one configured news server) is
// keyed by its family alone, "file://": its transfers all go to one place.
func Key(u uri.URL) string {
	info, _ := uri.SchemeOf(u.Scheme())
	fam := info.Family
	if !u.HasAuthority() {
		return fam + "://"
	}
	h, err := u.HostASCII()
	if err != nil {
		// A name IDNA rejects is never dialled; it is counted as it is
		// written.
		h = u.Hostname()
	}
	p, _ := u.Port()
	if p = strings.TrimLeft(p, "0"); p == "" {
		p = info.Port
	}
	if h == "" && p == "" {
		return fam + "://"
	}
	return fam + "://" + uri.JoinHostPort(h, p)
}

// Limiter lets at most a number of transfers run at once to each server,
// by Key. A place freed goes to the transfer that has waited longest for
// that server (first come, first served), so that none waits for ever
// while others keep arriving. Its methods may be called from many
// goroutines at once.
type Limiter struct {
	per int

	mu    sync.Mutex
	hosts map[string]*host
}

// host is one server's count and its waiters, oldest first.
type host struct {
	running int
	waiting list.List // of chan struct{}, closed when given the place
}

// NewLimiter returns a Limiter of perHost transfers to each server; one
// below 1 counts as 1.
func NewLimiter(perHost int) *Limiter {
	return &Limiter{per: max(perHost, 1), hosts: map[string]*host{}}
}

// TryAcquire takes a place for key when one is free and no one waits for
// it, without waiting, and reports whether it did. A scheduler that picks
// among many pending URLs (-Z) uses it to pass over those whose server is
// full.
func (l *Limiter) TryAcquire(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.host(key)
	if h.running >= l.per || h.waiting.Len() > 0 {
		return false
	}
	h.running++
	return true
}

// Acquire waits for a place for key, in turn with those that wait for the
// same server, and takes it. It returns ctx's error, holding no place,
// when ctx ends first.
func (l *Limiter) Acquire(ctx context.Context, key string) error {
	l.mu.Lock()
	h := l.host(key)
	if h.running < l.per && h.waiting.Len() == 0 {
		h.running++
		l.mu.Unlock()
		return nil
	}
	ready := make(chan struct{})
	e := h.waiting.PushBack(ready)
	l.mu.Unlock()

	select {
	case <-ready:
		return nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	select {
	case <-ready:
		// Release gave this waiter the place as ctx ended: pass it on.
		l.mu.Unlock()
		l.Release(key)
	default:
		h.waiting.Remove(e)
		l.mu.Unlock()
	}
	return ctx.Err()
}

// Release gives back a place Acquire or TryAcquire took for key: to the
// oldest waiter for that server when there is one.
func (l *Limiter) Release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.hosts[key]
	if h == nil || h.running == 0 {
		panic("hostsched: Release of " + key + " without a place held")
	}
	if e := h.waiting.Front(); e != nil {
		// The place goes to the waiter as it is: running stays.
		h.waiting.Remove(e)
		close(e.Value.(chan struct{}))
		return
	}
	if h.running--; h.running == 0 {
		delete(l.hosts, key)
	}
}

// Running returns the transfers to key under way now.
func (l *Limiter) Running(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h := l.hosts[key]; h != nil {
		return h.running
	}
	return 0
}

// host returns key's entry, made when missing; l.mu is held.
func (l *Limiter) host(key string) *host {
	h := l.hosts[key]
	if h == nil {
		h = &host{}
		l.hosts[key] = h
	}
	return h
}
