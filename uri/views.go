package uri

import (
	"strconv"
	"strings"
)

// viewError reports a URL that breaks its scheme's own rules, at byte offset i
// of the URL text.
func (u URL) viewError(i int, msg string) *Error {
	return newError(u.s, i, msg)
}

// checkScheme makes sure a view is asked of a URL of its own scheme or of
// that scheme's form over TLS (its twin in the scheme table), which has the
// same structure and so the same view: ftps (RFC 4217), gophers, snews and
// nntps (RFC 5538 §2.2, RFC 4642).
func (u URL) checkScheme(scheme string) error {
	got := u.Scheme()
	if info, _ := SchemeOf(got); got != scheme && (!info.TLS || info.Twin != scheme) {
		return u.viewError(0, "not a "+scheme+" URL")
	}
	return nil
}

// needHost makes sure a URL of a scheme that names a server has one.
func (u URL) needHost(scheme string) error {
	if u.flags&hasAuthority == 0 || u.hostStart == u.hostEnd {
		return u.viewError(int(u.schemeEnd)+1, scheme+" URL has no host (expected "+scheme+"://host/…)")
	}
	return nil
}

// pathAndQuery returns the path after its leading '/', with the query joined
// back on: RFC 1738's BNF lets '?' appear unescaped inside ftp, gopher, file and
// prospero paths, where RFC 3986 would read it as the start of a query. It also
// returns the offset in u.s where the returned text starts.
func (u URL) pathAndQuery() (string, int) {
	start := int(u.pathStart)
	end := len(u.s)
	if u.flags&hasFragment != 0 {
		end = int(u.frag)
	}
	if start < end && u.s[start] == '/' {
		start++
	}
	return u.s[start:end], start
}

// FTP is the decoded view of an ftp URL (RFC 1738 §3.2).
type FTP struct {
	Dirs []string // decoded <cwd> segments, empty ones kept; "%2F" decodes to "/" inside a segment
	Name string   // decoded last segment ("" when the path ends in "/" or is empty)
	Type string   // "", "a", "i" or "d" (lower case) from ";type="
}

// FTP returns the ftp view: RFC 1738 §3.2.2, each <cwd> segment is one CWD
// argument, decoded on its own so that "%2F" stays inside its segment, and
// empty segments are kept; §3.2.3, ";type=" ends the path with a, i or d.
func (u URL) FTP() (FTP, error) {
	if err := u.checkScheme("ftp"); err != nil {
		return FTP{}, err
	}
	if err := u.needHost("ftp"); err != nil {
		return FTP{}, err
	}
	p, off := u.pathAndQuery()
	var f FTP
	if k := strings.IndexByte(p, ';'); k >= 0 {
		// RFC 1738 §5: fsegment has no ';', so the only ';' is ";type=".
		param := p[k:]
		if len(param) < 6 || !strings.EqualFold(param[:6], ";type=") {
			return FTP{}, u.viewError(off+k, "ftp path may hold ';' only in a final \";type=a|i|d\"")
		}
		if len(param) != 7 {
			return FTP{}, u.viewError(off+k+6, "ftp \";type=\" must be a, i or d")
		}
		switch t := param[6] | 0x20; t {
		case 'a', 'i', 'd':
			f.Type = string(rune(t))
		default:
			return FTP{}, u.viewError(off+k+6, "ftp \";type=\" must be a, i or d")
		}
		p = p[:k]
	}
	if p == "" {
		return f, nil
	}
	n := strings.Count(p, "/")
	if n > 0 {
		f.Dirs = make([]string, 0, n)
	}
	for {
		seg, rest, more := strings.Cut(p, "/")
		if !more {
			f.Name = unescape(seg)
			break
		}
		f.Dirs = append(f.Dirs, unescape(seg))
		p = rest
	}
	return f, nil
}

// Gopher is the decoded view of a gopher URL (RFC 1738 §3.4).
type Gopher struct {
	Type      byte   // '1' when the path is empty
	Selector  string // decoded
	Search    string // decoded, after the first %09
	HasSearch bool
	Plus      string // decoded Gopher+ string after the second %09
	HasPlus   bool
}

// Gopher returns the gopher view: RFC 1738 §3.4, the path is a type
// character, a selector, and optionally "%09" and a search, and "%09" and a
// Gopher+ string. An empty path means type '1' and an empty selector. The
// selector is sent as is, so it may begin with a copy of the type character.
func (u URL) Gopher() (Gopher, error) {
	if err := u.checkScheme("gopher"); err != nil {
		return Gopher{}, err
	}
	if err := u.needHost("gopher"); err != nil {
		return Gopher{}, err
	}
	p, _ := u.pathAndQuery()
	g := Gopher{Type: '1'}
	if p == "" {
		return g, nil
	}
	if p[0] == '%' {
		g.Type = unhex(p[1])<<4 | unhex(p[2])
		p = p[3:]
	} else {
		g.Type = p[0]
		p = p[1:]
	}
	sel, rest, ok := strings.Cut(p, "%09")
	g.Selector = unescape(sel)
	if ok {
		search, plus, ok := strings.Cut(rest, "%09")
		g.Search, g.HasSearch = unescape(search), true
		if ok {
			g.Plus, g.HasPlus = unescape(plus), true
		}
	}
	return g, nil
}

// News is the decoded view of a news URL (RFC 1738 §3.6).
type News struct {
	Group     string // newsgroup name, or "*" for all groups
	MessageID string // message-id without <>
}

// validGroup checks group = alpha *[ alpha | digit | "-" | "." | "+" | "_" ]
// (RFC 1738 §5).
func validGroup(g string) int {
	if g == "" || ctab[g[0]]&cAlpha == 0 {
		return 0
	}
	for i := 1; i < len(g); i++ {
		c := g[i]
		if ctab[c]&(cAlpha|cDigit) == 0 && c != '-' && c != '.' && c != '+' && c != '_' {
			return i
		}
	}
	return -1
}

// News returns the news view: RFC 1738 §3.6, "news:" is followed by a
// newsgroup name, a message-id (which has '@') or "*". The RFC 5538 form
// "news://server/…" is accepted too; its server is the URL's host.
func (u URL) News() (News, error) {
	if err := u.checkScheme("news"); err != nil {
		return News{}, err
	}
	off := int(u.pathStart)
	end := len(u.s)
	if u.flags&hasFragment != 0 {
		end = int(u.frag)
	}
	if u.flags&hasAuthority != 0 && off < end && u.s[off] == '/' {
		off++
	}
	p := u.s[off:end]
	if p == "" {
		return News{}, u.viewError(off, "news URL has nothing after the colon (expected a newsgroup, a message-id or *)")
	}
	d := unescape(p)
	if strings.IndexByte(d, '@') >= 0 {
		// RFC 1738 §3.6: the message-id is written without its "<" and ">".
		d = strings.TrimSuffix(strings.TrimPrefix(d, "<"), ">")
		return News{MessageID: d}, nil
	}
	if d == "*" {
		return News{Group: "*"}, nil
	}
	if validGroup(d) >= 0 {
		return News{}, u.viewError(off, "news URL names neither a newsgroup, a message-id (with '@') nor *")
	}
	return News{Group: d}, nil
}

// NNTP is the decoded view of an nntp URL (RFC 1738 §3.7).
type NNTP struct {
	Group      string
	Article    int64
	HasArticle bool
}

// NNTP returns the nntp view: RFC 1738 §3.7, nntp://host:port/group/number.
func (u URL) NNTP() (NNTP, error) {
	if err := u.checkScheme("nntp"); err != nil {
		return NNTP{}, err
	}
	if err := u.needHost("nntp"); err != nil {
		return NNTP{}, err
	}
	if u.flags&hasQuery != 0 {
		return NNTP{}, u.viewError(int(u.query), "nntp URL has a query")
	}
	p, off := u.pathAndQuery()
	g, art, hasArt := strings.Cut(p, "/")
	d := unescape(g)
	if d == "" {
		return NNTP{}, u.viewError(off, "nntp URL has no newsgroup")
	}
	if validGroup(d) >= 0 {
		return NNTP{}, u.viewError(off, "nntp URL has an invalid newsgroup name")
	}
	n := NNTP{Group: d}
	if hasArt && art != "" {
		aoff := off + len(g) + 1
		for i := 0; i < len(art); i++ {
			if art[i] < '0' || art[i] > '9' {
				return NNTP{}, u.viewError(aoff+i, "nntp article number is not a number")
			}
		}
		v, err := strconv.ParseInt(art, 10, 64)
		if err != nil {
			return NNTP{}, u.viewError(aoff, "nntp article number is out of range")
		}
		n.Article, n.HasArticle = v, true
	}
	return n, nil
}

// WAIS is the decoded view of a wais URL (RFC 1738 §3.9).
type WAIS struct {
	Database  string // decoded
	Search    string // decoded, after "?"
	HasSearch bool
	WType     string // decoded; set for database/wtype/wpath URLs
	WPath     string // decoded
	RawWPath  string // as written (still %-encoded): the document id must round-trip exactly
}

// WAIS returns the wais view: RFC 1738 §3.9, wais://host:port/database,
// …/database?search, or …/database/wtype/wpath.
func (u URL) WAIS() (WAIS, error) {
	if err := u.checkScheme("wais"); err != nil {
		return WAIS{}, err
	}
	if err := u.needHost("wais"); err != nil {
		return WAIS{}, err
	}
	p := u.Path()
	off := int(u.pathStart)
	if p != "" && p[0] == '/' {
		p = p[1:]
		off++
	}
	// RFC 1738 §3.9: the wpath is opaque to the client and, in the form
	// Lynx and libwww wrote, holds '/' of its own; everything after the
	// wtype belongs to it.
	parts := strings.SplitN(p, "/", 3)
	if parts[0] == "" {
		return WAIS{}, u.viewError(off, "wais URL has no database")
	}
	w := WAIS{Database: unescape(parts[0])}
	switch len(parts) {
	case 1:
		if q, ok := u.Query(); ok {
			w.Search, w.HasSearch = unescape(q), true
		}
	case 3:
		if u.flags&hasQuery != 0 {
			return WAIS{}, u.viewError(int(u.query), "wais document URL (database/wtype/wpath) has a query")
		}
		if parts[1] == "" {
			return WAIS{}, u.viewError(off+len(parts[0])+1, "wais URL has an empty wtype")
		}
		w.WType = unescape(parts[1])
		w.RawWPath = parts[2]
		w.WPath = unescape(parts[2])
	default:
		return WAIS{}, u.viewError(off, "wais path must be database, database?search or database/wtype/wpath")
	}
	return w, nil
}

// File is the decoded view of a file URL (RFC 1738 §3.10).
type File struct {
	Host string // as written ("" or "localhost" = this machine)
	Path string // decoded, starts with "/"
}

// File returns the file view: RFC 1738 §3.10, file://host/path, where an
// empty host and "localhost" both mean this machine. The RFC 8089 form
// "file:/path" is accepted too.
func (u URL) File() (File, error) {
	if err := u.checkScheme("file"); err != nil {
		return File{}, err
	}
	if u.flags&hasUser != 0 {
		return File{}, u.viewError(u.authStart(), "file URL has a user name")
	}
	if u.flags&hasPort != 0 {
		return File{}, u.viewError(int(u.hostEnd), "file URL has a port")
	}
	start := int(u.pathStart)
	end := len(u.s)
	if u.flags&hasFragment != 0 {
		end = int(u.frag)
	}
	p := u.s[start:end]
	if p == "" && u.flags&hasAuthority != 0 {
		p = "/"
	}
	if p == "" || p[0] != '/' {
		return File{}, u.viewError(start, "file path must start with '/'")
	}
	d := unescape(p)
	if k := strings.IndexByte(d, 0); k >= 0 {
		return File{}, u.viewError(start+strings.Index(p, "%00"), "file path holds a NUL byte (%00)")
	}
	return File{Host: u.RawHost(), Path: d}, nil
}

// Telnet is the decoded view of a telnet URL (RFC 1738 §3.8).
type Telnet struct {
	User, Password       string
	HasUser, HasPassword bool
	Host, Port           string // Host decoded and lower-cased; Port as written
}

// Telnet returns the telnet view: RFC 1738 §3.8, telnet://user:password@host:port/
// names a session, and nothing may follow the optional final "/".
func (u URL) Telnet() (Telnet, error) {
	if err := u.checkScheme("telnet"); err != nil {
		return Telnet{}, err
	}
	if err := u.needHost("telnet"); err != nil {
		return Telnet{}, err
	}
	if p := u.Path(); p != "" && p != "/" {
		return Telnet{}, u.viewError(int(u.pathStart)+1, "telnet URL has a path")
	}
	if u.flags&hasQuery != 0 {
		return Telnet{}, u.viewError(int(u.query), "telnet URL has a query")
	}
	var t Telnet
	t.User, t.HasUser = u.User()
	t.Password, t.HasPassword = u.Password()
	t.Host = u.Hostname()
	t.Port, _ = u.Port()
	return t, nil
}

// Mailto is the decoded view of a mailto URL (RFC 1738 §3.5).
type Mailto struct {
	Address string // decoded RFC 822 addr-spec, case as written
}

// Mailto returns the mailto view: RFC 1738 §3.5, "mailto:" is followed by an
// RFC 822 address. A query (RFC 6068 header fields) is left in Query.
func (u URL) Mailto() (Mailto, error) {
	if err := u.checkScheme("mailto"); err != nil {
		return Mailto{}, err
	}
	if u.flags&hasAuthority != 0 {
		return Mailto{}, u.viewError(int(u.schemeEnd)+1, "mailto URL has an authority (\"//\")")
	}
	p := u.Path()
	if p == "" {
		return Mailto{}, u.viewError(int(u.pathStart), "mailto URL has no address")
	}
	return Mailto{Address: unescape(p)}, nil
}

// Prospero is the decoded view of a prospero URL (RFC 1738 §3.11).
type Prospero struct {
	HSOName string            // decoded host-specific object name
	Fields  map[string]string // decoded ";field=value" pairs
}

// Prospero returns the prospero view: RFC 1738 §3.11,
// prospero://host:port/hsoname;field=value;….
func (u URL) Prospero() (Prospero, error) {
	if err := u.checkScheme("prospero"); err != nil {
		return Prospero{}, err
	}
	if err := u.needHost("prospero"); err != nil {
		return Prospero{}, err
	}
	p, off := u.pathAndQuery()
	name, fields, _ := strings.Cut(p, ";")
	pr := Prospero{HSOName: unescape(name), Fields: map[string]string{}}
	off += len(name) + 1
	for fields != "" {
		f, rest, _ := strings.Cut(fields, ";")
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return Prospero{}, u.viewError(off, "prospero field must be name=value")
		}
		pr.Fields[unescape(k)] = unescape(v)
		off += len(f) + 1
		fields = rest
	}
	return pr, nil
}
