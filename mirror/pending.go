package mirror

// Stand-ins for what the fetch and store work adds; replaced at merge.

import (
	"errors"
	"syscall"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

func conditional(req *fetch.Request, mod time.Time, etag string) {}
func askAttributes(req *fetch.Request)                           {}
func notModified(res *schemes.Resource) bool                     { return false }
func resourceETag(res *schemes.Resource) string                  { return "" }

// IsDiskFull reports whether err says the disk is full.
func IsDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// SetETag stands in.
func (s *Store) SetETag(rel, etag string) {}

// ETag stands in.
func (s *Store) ETag(rel string) string { return "" }

// Dir stands in.
func (l *Layout) Dir(u uri.URL) (string, error) {
	p, err := l.Path(u, PageGopherMenu)
	if err != nil {
		return "", err
	}
	d := p[:len(p)-len("/gophermap")]
	return d, nil
}
