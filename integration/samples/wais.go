package samples

import (
	"strings"

	"github.com/urlget/urlget/integration/waistest"
)

// WAIS starts a WAIS server with a small database: a few short
// documents and one of about 300 KB that comes in several pieces. The URLs
// show a search, a search with no hits (answered with the catalog), the
// database URL that needs terms, and a document fetched by search.
func WAIS(dir string) (*Sample, error) {
	s := waistest.NewServer(waistest.Config{Database: "sample", Documents: []waistest.Document{
		{Name: "river.txt", Text: []byte("The river runs to the sea.\nIt passes the lighthouse on the way.\n")},
		{Name: "lighthouse.txt", Text: []byte("The lighthouse stands where the river meets the sea.\n")},
		{Name: "gazebo.html", Type: "HTML", Text: []byte("<p>A gazebo by the river.</p>\n")},
		{Name: "leviathan.txt", Text: []byte(strings.Repeat("The leviathan swims far below the ships.\n", 7500))},
	}})
	urls := []string{
		s.URL + "?river",
		s.URL + "?leviathan",
		s.URL + "?xylophone",
		"# " + s.URL + " needs search terms: add ?terms or --search terms",
		"# fetch a document by the URL a search lists",
	}
	return &Sample{Name: "wais", Base: s.URL, Addr: s.Addr, URLs: urls, Close: s.Close}, nil
}
