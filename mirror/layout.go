package mirror

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// pageType tells what a URL turned out to be once fetched, which decides
// the name its local copy takes.
type pageType int

const (
	// pageFile is a document: its local name is the URL's last segment.
	pageFile pageType = iota
	// pageHTMLIndex is an HTML page that stands for a directory (a URL
	// whose path ends in "/", an autoindex page): saved as index.html
	// inside the directory.
	pageHTMLIndex
	// pageGopherMenu is a gopher menu: saved as gophermap inside the
	// directory its selector names.
	pageGopherMenu
)

// The names a page that stands for a directory takes inside it.
const (
	IndexName     = "index.html"
	GophermapName = "gophermap"
)

// maxComponent is the longest path component Layout produces, in bytes:
// the 255 of most file systems (NAME_MAX) less partSuffix, so that the
// partial file's name fits too.
const maxComponent = 255 - len(partSuffix)

// Layout is how a run maps URLs to paths below the output directory, as
// wget does: HOST[:PORT]/PATH, with -nH and --cut-dirs.
//
// The host directory is the host name in Unicode, as a user reads it,
// whether the URL wrote it in Unicode, %-encoded or as IDNA A-labels
// ("xn--…"): every spelling of one host lands in one directory. An IPv6
// literal keeps its brackets ("[::1]:8080"). The port follows a colon
// when it is not the scheme's default. news: and snews: URLs, which name
// no server, go below NewsHost (or "news"); file: URLs below
// "localhost", or the host a file URL names (RFC 1738 §3.10).
//
// Every component below is made safe the way the -O names are: a segment
// is %-decoded, and kept as the URL wrote it (%-encoded) when its decoded
// form holds a "/", NUL or another control character, is not UTF-8, or is
// empty, "." or ".."; a component that would still be "." or ".." is
// encoded further ("%2E"). Empty segments ("a//b") are left out. A
// component longer than 243 bytes is cut and ends in "~" and 16 hex
// digits of its SHA-256, so that long queries still fit a file system's
// 255-byte names with the suffix of a part file added. Two different
// URLs can still meet in one name (a literal "%2F" and an encoded "/", a
// "?" decoded from "%3F" and a query): the second is fetched and compared
// with the first, and kept under ConflictDir when its bytes differ
// (ErrConflict).
type Layout struct {
	NoHostDirs bool // -nH: no HOST[:PORT] directory
	CutDirs    int  // --cut-dirs: leave out this many leading directories
	// SchemeDirs puts a directory named for the scheme's family (ftp,
	// http, gopher, news, file, wais) first, for runs that cross schemes.
	SchemeDirs bool
	// NewsHost is the host directory of news: URLs, which name no server.
	NewsHost string
}

// place is where a URL lands: its scheme family, its host directory,
// the directories of its path, the last segment ("" when the URL names a
// directory), and what follows the last name (a query, with its "?").
type place struct {
	family string
	host   string
	dirs   []string
	name   string
	query  string
	// listing: a URL whose last segment names a directory that is listed,
	// never saved (ftp, file, news, nntp and wais), so that pageFile gives
	// the directory rather than index.html or gophermap.
	listing bool
}

// path returns the slash-separated relative path of u's local copy, every
// component made safe; the result always passes filepath.IsLocal.
//
// http(s): the path's segments, and index.html for a path that ends in
// "/" or is empty; the query ends the last name as wget has it
// ("page?x=1", "index.html?x=1"). kind pageHTMLIndex puts index.html
// inside the path taken as a directory.
//
// ftp(s): RFC 1738 §3.2.2's directories and name, ";type=" left out. A
// directory URL (one that ends in "/" or has ";type=d") has no file of
// its own: Path returns the directory, as Dir does, since listings are
// not saved (the run uses the directory for --delete).
//
// gopher(s): the selector, type character left out, split on "/" when it
// starts with "/"; any other selector is one component. pageGopherMenu
// puts gophermap inside the selector taken as a directory (the host
// directory for an empty selector), as pageFile does for a selector that
// is empty or ends in "/". Search terms end the last name as a
// query does ("?terms", %-encoded).
//
// news: and snews:: NewsHost/group for a newsgroup (a directory, as a
// listing), NewsHost/message-id for an article named by its message-id
// (without "<>"). nntp(s)://host/group/number: host/group/number; a
// group or an article range ("group/1-100") is the directory host/group.
//
// file: localhost/path (or host/path). wais: host/database for a
// database or a search, host/database/wtype/wpath for a document, the
// wpath one component.
func (l *Layout) path(u uri.URL, kind pageType) (string, error) {
	p, err := l.place(u)
	if err != nil {
		return "", err
	}
	comps := l.prefix(p)
	dirs := p.dirs
	last := p.name
	switch {
	case kind == pageHTMLIndex || kind == pageGopherMenu && p.family == "gopher":
		if last != "" {
			dirs = append(dirs[:len(dirs):len(dirs)], last)
		}
		last = IndexName
		if kind == pageGopherMenu {
			last = GophermapName
		}
	case last == "" && p.listing:
		return l.join(u, append(comps, l.cut(dirs)...))
	case last == "" && p.family == "gopher":
		last = GophermapName
	case last == "":
		last = IndexName
	}
	last = shorten(last + p.query)
	return l.join(u, append(append(comps, l.cut(dirs)...), last))
}

// dir returns the slash-separated relative path of the local directory a
// listing URL stands for (an FTP or local directory, a gopher menu, a
// newsgroup, a WAIS database, an HTTP directory): the URL's path taken as
// a directory, its query left out. It is "." when that is the output
// directory itself (-nH and the root of a server). The run prunes it for
// --delete and converts links against it.
func (l *Layout) dir(u uri.URL) (string, error) {
	p, err := l.place(u)
	if err != nil {
		return "", err
	}
	dirs := p.dirs
	if p.name != "" {
		dirs = append(dirs[:len(dirs):len(dirs)], p.name)
	}
	return l.join(u, append(l.prefix(p), l.cut(dirs)...))
}

// Rel returns the relative path from the directory of the document from
// to the file or directory to, both of them Path or Dir results, for
// --convert-links: relPath("h/a/b.html", "h/c/d.png") is "../c/d.png". It is
// a file path, not a URL reference: a link holds it %-encoded
// (uri.EscapePath). A first segment with a ":" is written after "./",
// which keeps it from reading as a scheme (RFC 3986 §4.2).
func relPath(from, to string) string {
	f := splitPath(path.Dir(from))
	t := splitPath(to)
	n := 0
	for n < len(f) && n < len(t) && f[n] == t[n] {
		n++
	}
	parts := make([]string, 0, len(f)-n+len(t)-n)
	for range f[n:] {
		parts = append(parts, "..")
	}
	parts = append(parts, t[n:]...)
	if len(parts) == 0 {
		return "."
	}
	if strings.Contains(parts[0], ":") {
		return "./" + strings.Join(parts, "/")
	}
	return strings.Join(parts, "/")
}

// splitPath splits a clean relative path into its components; "." has none.
func splitPath(p string) []string {
	p = path.Clean(p)
	if p == "." || p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// prefix returns the scheme and host directories that start p's path.
func (l *Layout) prefix(p place) []string {
	var comps []string
	if l.SchemeDirs {
		comps = append(comps, p.family)
	}
	if !l.NoHostDirs {
		comps = append(comps, p.host)
	}
	return comps
}

// cut leaves out the first CutDirs directories (--cut-dirs).
func (l *Layout) cut(dirs []string) []string {
	if l.CutDirs <= 0 {
		return dirs
	}
	if l.CutDirs >= len(dirs) {
		return nil
	}
	return dirs[l.CutDirs:]
}

// join makes the relative path, checking once more that no component can
// lead out of the output directory.
func (l *Layout) join(u uri.URL, comps []string) (string, error) {
	for _, c := range comps {
		if !representable(c) {
			return "", badName(u, fmt.Errorf("no safe local name for %q", c))
		}
	}
	if len(comps) == 0 {
		return ".", nil
	}
	out := strings.Join(comps, "/")
	if !filepath.IsLocal(out) {
		return "", badName(u, fmt.Errorf("no safe local name for %q", out))
	}
	return out, nil
}

// badName is the error of a URL that has no local name, in the command's
// taxonomy (a bad URL, as -O's refusal is).
func badName(u uri.URL, err error) error {
	return &schemes.Error{Kind: schemes.ErrBadURL, URL: u.Redacted(), Err: err}
}

// place reads u through its scheme's view.
func (l *Layout) place(u uri.URL) (place, error) {
	var p place
	var err error
	switch u.Scheme() {
	case "http", "https":
		p, err = httpPlace(u)
	case "ftp", "ftps":
		p, err = ftpPlace(u)
	case "gopher", "gophers":
		p, err = gopherPlace(u)
	case "news", "snews":
		p, err = newsPlace(u)
		p.host = l.NewsHost
		if p.host == "" {
			p.host = "news"
		}
		p.host = component(uri.EscapeSegment(p.host))
		return p, err
	case "nntp", "nntps":
		p, err = nntpPlace(u)
	case "file":
		p, err = filePlace(u)
		return p, err
	case "wais":
		p, err = waisPlace(u)
	default:
		return p, badName(u, fmt.Errorf("no local layout for %s: URLs", u.Scheme()))
	}
	if err != nil {
		return p, err
	}
	p.host, err = hostDir(u)
	return p, err
}

// hostDir is u's HOST[:PORT] directory.
func hostDir(u uri.URL) (string, error) {
	raw := u.RawHost()
	if raw == "" {
		return "", badName(u, errors.New("the URL names no host"))
	}
	var h string
	switch {
	case raw[0] == '[':
		h = "[" + u.Hostname() + "]"
	default:
		h = unicodeHost(u)
	}
	if port, ok := u.Port(); ok && port != "" {
		if n, err := strconv.Atoi(port); err == nil {
			port = strconv.Itoa(n) // "080" and "80" are one port
		}
		if port != uri.DefaultPort(u.Scheme()) {
			h += ":" + port
		}
	}
	return h, nil
}

// unicodeHost is u's host name in Unicode: through its A-labels, so that
// "bücher.example", "b%C3%BCcher.example" and "xn--bcher-kva.example" are
// one name (RFC 5891 §5). A name IDNA refuses keeps its decoded form when
// that is safe, else its %-encoded form.
func unicodeHost(u uri.URL) string {
	if a, err := u.HostASCII(); err == nil {
		if h, err := idna.ToUnicode(a); err == nil && representable(h) {
			return h
		}
	}
	return component(strings.ToLower(u.RawHost()))
}

// segments splits a %-encoded path (its leading "/" removed) into safe
// components; it reports whether the path ended in "/", and leaves out
// empty segments.
func segments(raw string) (comps []string, dir bool) {
	if raw == "" {
		return nil, true
	}
	for _, s := range strings.Split(raw, "/") {
		if s != "" {
			comps = append(comps, component(s))
		}
	}
	return comps, strings.HasSuffix(raw, "/")
}

// split turns segments into a place's directories and name.
func split(comps []string, dir bool) (dirs []string, name string) {
	if dir || len(comps) == 0 {
		return comps, ""
	}
	return comps[:len(comps)-1], comps[len(comps)-1]
}

func httpPlace(u uri.URL) (place, error) {
	// RFC 3986 §6.2.2: the normal form, dot segments removed, is the path
	// the server is asked for; two spellings of it land in one file.
	n := u.Normalize()
	p := place{family: "http"}
	p.dirs, p.name = split(segments(strings.TrimPrefix(n.Path(), "/")))
	if q, ok := n.Query(); ok {
		// wget's name keeps the query as written, "/" encoded.
		p.query = "?" + strings.ReplaceAll(q, "/", "%2F")
	}
	return p, nil
}

// rawPath is u's path as written, without its leading "/", and with the
// query joined back on: RFC 1738's ftp and file paths hold "?" as a
// character of a name (§3.2.2, §3.10), as the uri views read them.
func rawPath(u uri.URL) string {
	raw := strings.TrimPrefix(u.Path(), "/")
	if q, ok := u.Query(); ok {
		raw += "?" + q
	}
	return raw
}

func ftpPlace(u uri.URL) (place, error) {
	v, err := u.FTP()
	if err != nil {
		return place{}, badName(u, err)
	}
	// RFC 1738 §3.2.2: the path as written is the cwd segments and the
	// name, then ";type=".
	raw := rawPath(u)
	if k := strings.LastIndexByte(raw, ';'); k >= 0 {
		raw = raw[:k]
	}
	p := place{family: "ftp", listing: true}
	p.dirs, p.name = split(segments(raw))
	if v.Type == "d" && p.name != "" {
		p.dirs, p.name = append(p.dirs, p.name), ""
	}
	return p, nil
}

func gopherPlace(u uri.URL) (place, error) {
	g, err := u.Gopher()
	if err != nil {
		return place{}, badName(u, err)
	}
	p := place{family: "gopher"}
	switch sel := g.Selector; {
	case sel == "":
	case sel[0] == '/':
		// The selector is opaque (RFC 1436 §2), but most servers give
		// paths: read it as one when it looks like one.
		p.dirs, p.name = split(segments(uri.EscapePath(sel[1:])))
	default:
		p.name = component(uri.EscapeSegment(sel))
	}
	if g.HasSearch {
		p.query = "?" + uri.EscapeSegment(g.Search)
	}
	return p, nil
}

func newsPlace(u uri.URL) (place, error) {
	v, err := u.News()
	if err != nil {
		return place{}, badName(u, err)
	}
	p := place{family: "news", listing: true}
	switch {
	case v.MessageID != "":
		p.name = component(uri.EscapeSegment(v.MessageID))
		p.listing = false
	case v.Group != "*":
		p.dirs = []string{component(uri.EscapeSegment(v.Group))}
	}
	return p, nil
}

func nntpPlace(u uri.URL) (place, error) {
	p := place{family: "news", listing: true}
	v, err := u.NNTP()
	if err != nil {
		// An article range ("group/1-100", as Lynx writes it) is the
		// group's directory; anything else the view refuses is no URL.
		g, r, ok := strings.Cut(strings.TrimPrefix(u.Path(), "/"), "/")
		lo, hi, isRange := strings.Cut(r, "-")
		if !ok || g == "" || !isRange || !digits(lo) || !digits(hi) {
			return place{}, badName(u, err)
		}
		p.dirs = []string{component(g)}
		return p, nil
	}
	p.dirs = []string{component(uri.EscapeSegment(v.Group))}
	if v.HasArticle {
		p.name = strconv.FormatInt(v.Article, 10)
		p.listing = false
	}
	return p, nil
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func filePlace(u uri.URL) (place, error) {
	v, err := u.File()
	if err != nil {
		return place{}, badName(u, err)
	}
	p := place{family: "file", listing: true, host: "localhost"}
	if h := u.Hostname(); h != "" && !strings.EqualFold(v.Host, "localhost") {
		p.host = unicodeHost(u)
	}
	// The view decodes the whole path at once; split the path as written
	// so that an encoded "/" stays inside its segment.
	p.dirs, p.name = split(segments(rawPath(u)))
	return p, nil
}

func waisPlace(u uri.URL) (place, error) {
	w, err := u.WAIS()
	if err != nil {
		return place{}, badName(u, err)
	}
	p := place{family: "wais", listing: true}
	p.dirs = []string{component(uri.EscapeSegment(w.Database))}
	if w.WType != "" {
		if w.RawWPath == "" {
			return place{}, badName(u, errors.New("the WAIS document has no wpath"))
		}
		// RFC 1738 §3.9: the wpath is the server's opaque document id.
		p.dirs = append(p.dirs, component(uri.EscapeSegment(w.WType)))
		p.name = component(w.RawWPath)
		p.listing = false
	}
	return p, nil
}

// component makes one %-encoded segment a safe local name: decoded when
// the decoded form is representable, else as written with "/" encoded,
// and a "." or ".." encoded further.
func component(raw string) string {
	if d, err := uri.Unescape(raw); err == nil && representable(d) {
		return shorten(d)
	}
	s := strings.ReplaceAll(raw, "/", "%2F")
	switch s {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return shorten(s)
}

// representable tells whether name can be a file name as it is: not
// empty, ".", or "..", no "/", NUL or control character, valid UTF-8 —
// the -O rules.
func representable(name string) bool {
	switch name {
	case "", ".", "..":
		return false
	}
	if !utf8.ValidString(name) {
		return false
	}
	return !strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '/' })
}

// shorten cuts a name longer than maxComponent bytes at a character
// boundary, and ends it in "~" and a hash of the whole name so that two
// long names that start alike stay apart.
func shorten(name string) string {
	if len(name) <= maxComponent {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	tail := "~" + hex.EncodeToString(sum[:8])
	keep := maxComponent - len(tail)
	for keep > 0 && !utf8.RuneStart(name[keep]) {
		keep--
	}
	return name[:keep] + tail
}
