package gopher

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// DefaultMaxMenuLines is how many lines a menu may have when
// Fetcher.MaxMenuLines is zero. The largest menus of real servers hold some
// thousands of items; a server that sends more than this many lines is
// treated as broken rather than read forever.
const DefaultMaxMenuLines = 100000

// lookaheadLines bounds how many leading information and error lines a menu
// may have before Fetch stops looking for a menu that is nothing but an
// error (and so a not-found).
const lookaheadLines = 256

// menuItem is one line of a menu as RFC 1436 §3.8 defines it:
//
//	type display TAB selector TAB host TAB port [TAB gopher+] CRLF
type menuItem struct {
	typ      byte
	display  string
	selector string
	host     string
	port     string
	plus     string // the Gopher+ field: "+" or "?" (Gopher+ §2.5), "" when absent
	hasPlus  bool
	valid    bool // all four fields present and well formed
}

// parseMenuLine splits one menu line (without its line end). A line that
// does not have the four fields, or whose host or port cannot name a
// server, comes back with valid false; the caller keeps it as information.
func parseMenuLine(line string) menuItem {
	if line == "" {
		return menuItem{typ: typeInfo}
	}
	it := menuItem{typ: line[0]}
	fields := strings.SplitN(line[1:], "\t", 5)
	it.display = fields[0]
	if len(fields) < 4 {
		return it
	}
	it.selector, it.host, it.port = fields[1], fields[2], fields[3]
	if len(fields) == 5 {
		it.plus, it.hasPlus = fields[4], true
	}
	it.valid = validHost(it.host) && validPort(it.port)
	return it
}

// validPort accepts a decimal port of at most five digits up to 65535; 0
// is accepted because menus give it for items without a server (telnet
// defaults, information lines).
func validPort(p string) bool {
	if p == "" || len(p) > 5 {
		return false
	}
	n := 0
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
		n = n*10 + int(p[i]-'0')
	}
	return n <= 65535
}

// validHost accepts a DNS name or an IP address: the host of an entry's URL
// must not carry anything that would change that URL's structure.
func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	if strings.IndexByte(h, ':') >= 0 {
		a, err := netip.ParseAddr(h)
		return err == nil && a.Is6() && a.Zone() == ""
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// server names the server a menu came from, so that entries naming the same
// server keep the menu's scheme (a gophers: menu lists gophers: items).
type server struct {
	scheme string // "gopher" or "gophers"
	host   string // lower case, as uri.URL.Hostname gives it
	port   string // effective port
}

// entryFor turns a parsed menu line into a listing entry with its own
// absolute URL. prevType is the type of the last non-'+' item, which a '+'
// item (a redundant server for it, RFC 1436 §3.8) inherits.
func entryFor(it menuItem, raw string, srv server, prevType byte) schemes.Entry {
	e := schemes.Entry{Name: it.display, Size: -1, Raw: raw, Kind: schemes.KindInfo}
	if it.typ == typeInfo || it.typ == typeError {
		e.Fields = map[string]string{"type": string(it.typ)}
		return e
	}
	if !it.valid {
		// A malformed line is kept as text: whatever it says may still help
		// the reader, and one bad line must not lose the rest of the menu.
		e.Name = raw
		e.Fields = map[string]string{"type": "malformed"}
		return e
	}
	e.Fields = map[string]string{
		"type":     string(it.typ),
		"selector": it.selector,
		"host":     it.host,
		"port":     it.port,
	}
	if it.hasPlus {
		e.Fields["gopher+"] = it.plus
	}
	urlType := it.typ
	if urlType == typeMirror && prevType != 0 {
		urlType = prevType
	}
	e.Kind = kindOf(urlType)
	switch urlType {
	case typeTelnet, typeTN3270:
		e.URL = telnetURL(it)
		return e
	case typeHTML:
		if u, ok := hURL(it.selector); ok {
			e.URL = u
			e.Kind = schemes.KindLink
			return e
		}
	}
	e.URL = gopherURL(srv, it.host, it.port, urlType, it.selector)
	return e
}

// gopherURL builds the URL of a menu item: RFC 1738 §3.4.1,
// gopher://<host>:<port>/<gophertype><selector>, the selector %-encoded. An
// item on the menu's own server keeps the menu's scheme; the default port
// 70 is left out.
func gopherURL(srv server, host, port string, typ byte, selector string) string {
	scheme := "gopher"
	if strings.EqualFold(host, srv.host) && port == srv.port {
		scheme = srv.scheme
	}
	if port == uri.DefaultPort("gopher") {
		port = ""
	}
	return scheme + "://" + uri.JoinHostPort(host, port) + "/" + uri.EscapeSegment(string([]byte{typ})) + uri.EscapePath(selector)
}

// telnetURL builds the URL of a type-8 or type-T item: RFC 1436 §3.8 names
// the account to log in as in the selector, RFC 1738 §3.8 puts it in the
// user part of telnet://user@host:port/.
func telnetURL(it menuItem) string {
	port := it.port
	if port == "0" || port == uri.DefaultPort("telnet") {
		port = ""
	}
	var user string
	if it.selector != "" {
		user = escapeUser(it.selector) + "@"
	}
	return "telnet://" + user + uri.JoinHostPort(it.host, port) + "/"
}

// escapeUser %-encodes a user name for a URL's userinfo, where ':' and '@'
// are delimiters (RFC 1738 §3.1).
func escapeUser(s string) string {
	return strings.NewReplacer(":", "%3A", "@", "%40").Replace(uri.EscapeSegment(s))
}

// hURL returns the URL an 'h' item's "URL:" selector carries: the convention
// gopher servers use to link to other protocols.
func hURL(selector string) (string, bool) {
	s, ok := strings.CutPrefix(selector, "URL:")
	if !ok {
		s, ok = strings.CutPrefix(selector, "/URL:")
	}
	if !ok {
		return "", false
	}
	u, err := uri.Parse(s)
	if err != nil || !u.IsAbs() {
		return "", false
	}
	return s, true
}

// menuListing streams the entries of a menu, one line at a time.
type menuListing struct {
	br       *bufio.Reader
	srv      server
	max      int
	lines    int
	prevType byte
	pending  []schemes.Entry
	done     bool
	err      error
	fail     func(op string, err error) error
	tooLarge func(error) error
	// truncated makes the error of a menu that ends without its "."
	// line; nil gives a plain schemes.ErrTruncated.
	truncated func(error) error
	closer    io.Closer
	// capture, when not nil, gets the menu's bytes as they came, line
	// by line, its "." line too (schemes.Capture's Listing).
	capture schemes.Capture
}

// errNoFinalDot is why a menu that ends without its "." line is cut short.
var errNoFinalDot = errors.New(`the connection closed before the menu's final "." line`)

// cut is the error of a menu whose connection closed before its "." line:
// RFC 1436 §3.1 ends a menu with a line holding a lone ".", and without
// it nothing tells a whole menu from one a dropped connection cut short.
// --delete must not take the missing items for items gone.
func (l *menuListing) cut() error {
	if l.truncated != nil {
		return l.truncated(errNoFinalDot)
	}
	return &schemes.Error{Kind: schemes.ErrTruncated, Op: "read menu", Err: errNoFinalDot, Temporary: true}
}

// Next returns the next entry, io.EOF after the last.
func (l *menuListing) Next() (schemes.Entry, error) {
	if len(l.pending) > 0 {
		e := l.pending[0]
		l.pending = l.pending[1:]
		return e, nil
	}
	return l.read()
}

// read parses the next line from the connection.
func (l *menuListing) read() (schemes.Entry, error) {
	s, err := l.line()
	if err != nil {
		return schemes.Entry{}, err
	}
	return l.entry(s), nil
}

// line reads the next line of the reply, without its line end; io.EOF
// after the "." line or the end of the stream.
func (l *menuListing) line() (string, error) {
	if l.err != nil {
		return "", l.err
	}
	if l.done {
		return "", io.EOF
	}
	line, err := l.br.ReadSlice('\n')
	if l.capture != nil && len(line) > 0 {
		l.capture.Listing(line)
	}
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		l.err = l.fail("read menu", schemes.ErrLineTooLong)
		return "", l.err
	case err == io.EOF:
		// No "." line: a partial last line, or none, was all there was.
		l.err = l.cut()
		return "", l.err
	case err != nil:
		l.err = l.fail("read menu", err)
		return "", l.err
	}
	s := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
	if s == "." {
		l.done = true
		return "", io.EOF
	}
	l.lines++
	if l.lines > l.max {
		l.err = l.tooLarge(fmt.Errorf("menu has more than %d lines", l.max))
		return "", l.err
	}
	return s, nil
}

// entry turns a menu line into its entry.
func (l *menuListing) entry(s string) schemes.Entry {
	it := parseMenuLine(s)
	e := entryFor(it, s, l.srv, l.prevType)
	if it.valid && it.typ != typeMirror && it.typ != typeInfo && it.typ != typeError {
		l.prevType = it.typ
	}
	return e
}

// lookahead reads leading information and error lines. When the menu ends
// with nothing else and holds at least one error line, the menu is the
// server's way of saying the selector does not exist: it returns those
// lines' text for a not-found error.
func (l *menuListing) lookahead() (errText string, isErr bool, err error) {
	var errs []string
	for len(l.pending) < lookaheadLines {
		e, err := l.read()
		if err == io.EOF || len(errs) > 0 && errors.Is(err, errNoFinalDot) {
			// A server that says a selector does not exist may close
			// without the "." line: its error lines are its answer.
			return strings.Join(errs, "; "), len(errs) > 0, nil
		}
		if err != nil {
			return "", false, err
		}
		l.pending = append(l.pending, e)
		switch e.Fields["type"] {
		case string(typeError):
			errs = append(errs, strings.TrimSpace(e.Name))
		case string(typeInfo):
		default:
			return "", false, nil
		}
	}
	return "", false, nil
}

// Close closes the menu's connection; it is safe to call twice.
func (l *menuListing) Close() error {
	return l.closer.Close()
}

// errorMenu reports whether data, a whole reply, is a menu holding nothing
// but error ('3') and information ('i') lines with at least one error, and
// returns the error lines' text. Servers answer a selector that does not
// exist this way whatever type was asked for.
func errorMenu(data []byte) (string, bool) {
	var errs []string
	for len(data) > 0 {
		var line []byte
		if i := indexLF(data); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		s := strings.TrimSuffix(string(line), "\r")
		if s == "." {
			break
		}
		if s == "" {
			continue
		}
		if strings.Count(s, "\t") < 3 {
			return "", false
		}
		switch s[0] {
		case typeError:
			errs = append(errs, strings.TrimSpace(parseMenuLine(s).display))
		case typeInfo:
		default:
			return "", false
		}
	}
	return strings.Join(errs, "; "), len(errs) > 0
}

func indexLF(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}
