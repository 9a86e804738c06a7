package mirror

import (
	"io"
	"strings"

	"golang.org/x/net/html"

	"github.com/urlget/urlget/uri"
)

// IsHTML reports whether a body of this MIME type, or with this file
// name when the type is unknown, is HTML to look for links in.
func IsHTML(contentType, name string) bool {
	ct := strings.ToLower(strings.TrimSpace(strings.SplitN(contentType, ";", 2)[0]))
	if ct != "" {
		return ct == "text/html" || ct == "application/xhtml+xml"
	}
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".html") || strings.HasSuffix(n, ".htm")
}

// HTMLLinks reads an HTML document from r and calls fn with every link it
// holds, resolved against base. (Interim: the full extraction replaces
// this.)
func HTMLLinks(r io.Reader, base uri.URL, fn func(uri.URL)) error {
	z := html.NewTokenizer(r)
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				return nil
			}
			return z.Err()
		case html.StartTagToken, html.SelfClosingTagToken:
			for {
				k, v, more := z.TagAttr()
				if string(k) == "href" || string(k) == "src" {
					if ref, err := uri.ParseReference(string(v)); err == nil {
						fn(base.ResolveReference(ref).WithoutFragment())
					}
				}
				if !more {
					break
				}
			}
		}
	}
}
