package links_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/urlget/urlget/mirror/links"
	"github.com/urlget/urlget/uri"
)

// Read the links of a page, then convert it for a local copy in which
// only the stylesheet was saved, as css/site.css beside the page.
func Example() {
	const page = `<html><head><link rel=stylesheet href="/css/site.css"></head>
<body><a href="docs/intro.html#start">Intro</a> <img src="https://cdn.example/logo.png" alt="">
<a href="mailto:admin@example.com">mail</a></body></html>
`
	base := uri.MustParse("http://example.com/index.html")
	err := links.FromHTML(strings.NewReader(page), base, func(u uri.URL) {
		fmt.Println(u)
	})
	if err != nil {
		fmt.Println(err)
	}

	saved := map[string]string{"http://example.com/css/site.css": "css/site.css"}
	local := func(u uri.URL) (string, bool) {
		rel, ok := saved[u.String()]
		return rel, ok
	}
	if err := links.ConvertHTML(strings.NewReader(page), os.Stdout, base, local); err != nil {
		fmt.Println(err)
	}
	// Output:
	// http://example.com/css/site.css
	// http://example.com/docs/intro.html
	// https://cdn.example/logo.png
	// <html><head><link rel=stylesheet href="css/site.css"></head>
	// <body><a href="http://example.com/docs/intro.html#start">Intro</a> <img src="https://cdn.example/logo.png" alt="">
	// <a href="mailto:admin@example.com">mail</a></body></html>
}
