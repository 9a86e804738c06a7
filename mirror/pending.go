package mirror

// Stand-ins for what the fetch and store work adds; replaced at merge.

import (
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
)

func conditional(req *fetch.Request, mod time.Time, etag string) {}
func askAttributes(req *fetch.Request)                           {}
func notModified(res *schemes.Resource) bool                     { return false }
func resourceETag(res *schemes.Resource) string                  { return "" }
