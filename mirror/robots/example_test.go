package robots_test

import (
	"fmt"
	"strings"

	"github.com/urlget/urlget/mirror/robots"
	"github.com/urlget/urlget/uri"
)

// Check URLs against a server's robots.txt: Locate names the file to
// fetch and the path to ask about, Parse reads the file fetched.
func Example() {
	const txt = "User-agent: *\n" +
		"Disallow: /private/\n" +
		"Allow: /private/open/\n" +
		"\n" +
		"User-agent: otherbot\n" +
		"Disallow: /\n"
	rules := robots.Parse(strings.NewReader(txt), "examplebot/1.0")
	for _, s := range []string{
		"http://example.com/index.html",
		"http://example.com/private/a.txt",
		"http://example.com/private/open/b.txt?x=1",
		"gopher://example.com:7070/0/private/c.txt",
	} {
		file, path, ok := robots.Locate(uri.MustParse(s))
		if !ok {
			continue
		}
		fmt.Println(file, path, rules.Allowed(path))
	}
	// A robots.txt the server could not give (503) stands for "disallow
	// everything" until it can.
	fmt.Println(robots.FromStatus(503).Allowed("/index.html"))
	// Output:
	// http://example.com/robots.txt /index.html true
	// http://example.com/robots.txt /private/a.txt false
	// http://example.com/robots.txt /private/open/b.txt?x=1 true
	// gopher://example.com:7070/0/robots.txt /private/c.txt false
	// false
}
