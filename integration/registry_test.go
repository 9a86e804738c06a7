package integration

import (
	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/ftp"
	"github.com/urlget/urlget/schemes/gopher"
	httpscheme "github.com/urlget/urlget/schemes/http"
	"github.com/urlget/urlget/schemes/news"
)

// registryWith is fetch's default registry with each of fs, configured as
// a test needs it, serving every scheme of its protocol, as a program sets
// a protocol's options where it builds its registry.
func registryWith(fs ...schemes.Fetcher) map[string]schemes.Fetcher {
	r := fetch.DefaultFetchers()
	for _, f := range fs {
		var names []string
		switch f.(type) {
		case *ftp.Fetcher:
			names = []string{"ftp", "ftps"}
		case *gopher.Fetcher:
			names = []string{"gopher", "gophers"}
		case *httpscheme.Fetcher:
			names = []string{"http", "https"}
		case *news.Fetcher:
			names = news.Schemes
		default:
			panic("registryWith: a fetcher of no known protocol")
		}
		for _, n := range names {
			r[n] = f
		}
	}
	return r
}
