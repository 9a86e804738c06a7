package mirror

import (
	"errors"
	"strings"

	"github.com/urlget/urlget/uri"
)

// PageKind tells what a URL turned out to be once fetched, which decides
// the name its local copy takes.
type PageKind int

const (
	// PageFile is a document: its local name is the URL's last segment.
	PageFile PageKind = iota
	// PageHTMLIndex is an HTML page that stands for a directory (a URL
	// whose path ends in "/", an autoindex page): saved as index.html
	// inside the directory.
	PageHTMLIndex
	// PageGopherMenu is a gopher menu: saved as gophermap inside the
	// directory its selector names.
	PageGopherMenu
)

// Layout maps URLs to paths below the output directory, as wget does:
// HOST[:PORT]/PATH, with -nH and --cut-dirs.
type Layout struct {
	NoHostDirs bool // -nH: no HOST[:PORT] directory
	CutDirs    int  // --cut-dirs: leave out this many leading directories
	// SchemeDirs puts a directory named for the scheme's family (ftp,
	// http, gopher, news, file, wais) first, for runs that cross schemes.
	SchemeDirs bool
	// NewsHost is the host directory of news: URLs, which name no server.
	NewsHost string
}

// Path returns the slash-separated relative path of u's local copy, every
// component made safe. (Skeleton: the full mapping replaces this.)
func (l *Layout) Path(u uri.URL, kind PageKind) (string, error) {
	p := strings.Trim(u.Path(), "/")
	if kind == PageFile && (u.Scheme() == "http" || u.Scheme() == "https") && (p == "" || strings.HasSuffix(u.Path(), "/")) {
		kind = PageHTMLIndex
	}
	if d, err := uri.Unescape(p); err == nil {
		p = d
	}
	host := u.Hostname()
	if l.NoHostDirs {
		host = ""
	}
	switch kind {
	case PageHTMLIndex:
		p += "/index.html"
	case PageGopherMenu:
		p += "/gophermap"
	}
	out := strings.Trim(host+"/"+p, "/")
	if out == "" || strings.Contains(out, "..") {
		return "", errors.New("no local name")
	}
	return out, nil
}
