package mirror

import (
	"context"
	"errors"
	"sync"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/mirror/robots"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// robotsAgent is the product token urlget's robots.txt groups are looked
// up by (RFC 9309 §2.2.1).
const robotsAgent = "urlget"

// robotsEntry is one server's robots.txt, fetched once.
type robotsEntry struct {
	once sync.Once
	r    *robots.Rules
}

// robotsAllow reports whether robots.txt lets the recursion fetch u:
// http(s) servers' /robots.txt, and gopher servers' 0/robots.txt as
// gopher crawlers read it. start is the start URL u was reached from,
// whose credentials robots.txt is fetched with when it is on start's
// origin.
func (e *engine) robotsAllow(ctx context.Context, u, start uri.URL) bool {
	file, p, ok := robots.Locate(u)
	if !ok {
		return true
	}
	where := file.String()
	e.mu.Lock()
	ent := e.robots[where]
	if ent == nil {
		ent = &robotsEntry{}
		e.robots[where] = ent
	}
	e.mu.Unlock()
	ent.once.Do(func() { ent.r = e.fetchRobots(ctx, file, start) })
	return ent.r.Allowed(p)
}

// portSuffix is ":port" when u names a port, "" when it does not.
func portSuffix(u uri.URL) string {
	if p, ok := u.Port(); ok && p != "" {
		return ":" + p
	}
	return ""
}

// fetchRobots fetches and parses one robots.txt. A failed fetch stands
// for what robots.FromStatus says of its HTTP status (RFC 9309 §2.3.1), or
// of none for a server that failed or could not be reached; a gopher
// error item (not found), or a listing where a file was expected, allows
// everything.
func (e *engine) fetchRobots(ctx context.Context, u, start uri.URL) *robots.Rules {
	res, err := e.c.Do(ctx, fetch.Request{URL: u, Start: start})
	if err != nil {
		var se *schemes.Error
		switch {
		case errors.As(err, &se) && se.Code >= 100 && (u.Scheme() == "http" || u.Scheme() == "https"):
			return robots.FromStatus(se.Code)
		case errors.Is(err, schemes.ErrServer), errors.Is(err, schemes.ErrConnect),
			errors.Is(err, schemes.ErrTimeout), errors.Is(err, schemes.ErrResolve):
			return robots.FromStatus(0)
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
	return robots.Parse(res.Body, robotsAgent)
}
