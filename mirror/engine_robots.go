package mirror

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/mirror/robots"
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
	r    *robots.Robots
}

// robotsAllow reports whether robots.txt lets the recursion fetch u:
// http(s) servers' /robots.txt, and gopher servers' 0/robots.txt as
// gopher crawlers read it. start is the start URL u was reached from,
// whose credentials robots.txt is fetched with when it is on start's
// origin.
func (e *engine) robotsAllow(ctx context.Context, u, start uri.URL) bool {
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
		// The selector, %-encoded as the item's URL has it: the path
		// after its type character (RFC 1738 §3.4).
		p = u.Path()
		if len(p) >= 2 {
			p = p[2:]
		} else {
			p = ""
		}
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
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
	ent.once.Do(func() { ent.r = e.fetchRobots(ctx, where, start) })
	return ent.r.Allowed(p)
}

func portSuffix(u uri.URL) string {
	if p, ok := u.Port(); ok && p != "" {
		return ":" + p
	}
	return ""
}

// fetchRobots fetches and parses one robots.txt. A failed fetch stands
// for what robots.RobotsFromStatus says of its HTTP status (RFC 9309 §2.3.1), or
// of none for a server that failed or could not be reached; a gopher
// error item (not found), or a listing where a file was expected, allows
// everything.
func (e *engine) fetchRobots(ctx context.Context, where string, start uri.URL) *robots.Robots {
	u, err := uri.Parse(where)
	if err != nil {
		return nil
	}
	res, err := e.c.Do(ctx, fetch.Request{URL: u, Start: start})
	if err != nil {
		var se *schemes.Error
		switch {
		case errors.As(err, &se) && se.Code >= 100 && (u.Scheme() == "http" || u.Scheme() == "https"):
			return robots.RobotsFromStatus(se.Code)
		case errors.Is(err, schemes.ErrServer), errors.Is(err, schemes.ErrConnect),
			errors.Is(err, schemes.ErrTimeout), errors.Is(err, schemes.ErrResolve):
			return robots.RobotsFromStatus(0)
		}
		return nil
	}
	if res.Listing != nil {
		res.Listing.Close()
		return nil
	}
	if res.Body == nil {
		return nil
	}
	defer res.Body.Close()
	return robots.ParseRobots(io.LimitReader(res.Body, robotsMax), robotsAgent)
}
