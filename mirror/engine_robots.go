package mirror

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// robotsAgent is the product token urlget's robots.txt groups are looked
// up by (RFC 9309 §2.2.1).
const robotsAgent = "urlget"

// robotsMax is how much of a robots.txt is read: RFC 9309 §2.5 asks
// crawlers to parse at least 500 KiB.
const robotsMax = 500 << 10

// robotsEntry is one server's robots.txt, fetched once.
type robotsEntry struct {
	once sync.Once
	r    *Robots
	deny bool // the server could not be asked: everything is kept out
}

// robotsAllow reports whether robots.txt lets the recursion fetch u:
// http(s) servers' /robots.txt, and gopher servers' 0/robots.txt as
// gopher crawlers read it.
func (e *engine) robotsAllow(ctx context.Context, u uri.URL) bool {
	var where, p string
	switch u.Scheme() {
	case "http", "https":
		where = u.Scheme() + "://" + u.RawHost() + portSuffix(u) + "/robots.txt"
		p = u.Path()
		if p == "" {
			p = "/"
		}
		if q, ok := u.Query(); ok {
			p += "?" + q
		}
	case "gopher", "gophers":
		where = u.Scheme() + "://" + u.RawHost() + portSuffix(u) + "/0/robots.txt"
		g, err := u.Gopher()
		if err != nil {
			return true
		}
		p = g.Selector
	default:
		return true
	}
	e.mu.Lock()
	ent := e.robots[where]
	if ent == nil {
		ent = &robotsEntry{}
		e.robots[where] = ent
	}
	e.mu.Unlock()
	ent.once.Do(func() { ent.r, ent.deny = e.fetchRobots(ctx, where) })
	if ent.deny {
		return false
	}
	return ent.r.Allowed(p)
}

func portSuffix(u uri.URL) string {
	if p, ok := u.Port(); ok && p != "" {
		return ":" + p
	}
	return ""
}

// fetchRobots fetches and parses one robots.txt. As RFC 9309 §2.3.1 has
// it, a robots.txt that is not there (4xx, a gopher error) allows
// everything, and a server that fails (5xx) or cannot be reached keeps
// the crawler out; other failures, as a listing where a file was
// expected, allow everything.
func (e *engine) fetchRobots(ctx context.Context, where string) (*Robots, bool) {
	u, err := uri.Parse(where)
	if err != nil {
		return nil, false
	}
	res, err := e.c.Do(ctx, fetch.Request{URL: u})
	if err != nil {
		var se *schemes.Error
		switch {
		case errors.As(err, &se) && se.Code >= 400 && se.Code < 500,
			errors.Is(err, schemes.ErrNotFound), errors.Is(err, schemes.ErrAccessDenied):
			return nil, false
		case errors.Is(err, schemes.ErrServer), errors.Is(err, schemes.ErrConnect),
			errors.Is(err, schemes.ErrTimeout), errors.Is(err, schemes.ErrResolve):
			return nil, true
		}
		return nil, false
	}
	if res.Listing != nil {
		res.Listing.Close()
		return nil, false
	}
	if res.Body == nil {
		return nil, false
	}
	defer res.Body.Close()
	return ParseRobots(io.LimitReader(res.Body, robotsMax), robotsAgent), false
}
