package fetch

import (
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/file"
	"github.com/urlget/urlget/schemes/ftp"
	"github.com/urlget/urlget/schemes/gopher"
	"github.com/urlget/urlget/schemes/http"
	"github.com/urlget/urlget/schemes/news"
	"github.com/urlget/urlget/schemes/wais"
)

// DefaultFetchers returns a new registry of every scheme urlget implements,
// each scheme mapped to a fresh fetcher. Schemes that share a protocol share
// one fetcher, so that they share its connections. Each fetcher has its
// protocol's defaults; a caller that wants other options puts a fetcher of
// its own in the map, under every scheme of its protocol.
func DefaultFetchers() map[string]schemes.Fetcher {
	ftpF := &ftp.Fetcher{}
	gopherF := &gopher.Fetcher{}
	httpF := &http.Fetcher{}
	newsF := &news.Fetcher{}
	return map[string]schemes.Fetcher{
		"file":    &file.Fetcher{},
		"ftp":     ftpF,
		"ftps":    ftpF,
		"gopher":  gopherF,
		"gophers": gopherF,
		"http":    httpF,
		"https":   httpF,
		"news":    newsF,
		"nntp":    newsF,
		"nntps":   newsF,
		"snews":   newsF,
		"wais":    &wais.Fetcher{},
	}
}
