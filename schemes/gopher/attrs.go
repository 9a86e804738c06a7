package gopher

import (
	"context"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// attrLinesPerItem bounds the lines of an attribute reply (Gopher+ §2.6):
// this many times the menu line limit, for the +ADMIN, +VIEWS and
// +ABSTRACT lines that come with each item.
const attrLinesPerItem = 16

// maxAbstract bounds the text of an item's +ABSTRACT kept as its entry's
// Description.
const maxAbstract = 4 << 10

// wantsAttributes tells whether req is for a menu's listing whose items'
// Gopher+ attributes may be asked for instead of the plain menu
// (Fetcher.Attributes): a type-1 URL with no search and no Gopher+ string
// of its own.
func (f *Fetcher) wantsAttributes(req *schemes.Request, g uri.Gopher) bool {
	return f.Attributes && g.Type == typeMenu && !g.HasPlus && !g.HasSearch && !req.Raw && !req.Head
}

// attributeMenu asks for the attributes of every item of the menu (Gopher+
// §2.6: "selector TAB $"), whose reply is a Gopher+ header and one +INFO
// block per item, the item's menu line, followed by its other attribute
// blocks. ok is false when the server did not answer so: a Gopher0 server
// takes "$" for search terms and sends the plain menu, or an error; the
// server is then remembered as such, and the caller sends the plain
// request on a new connection.
func (f *Fetcher) attributeMenu(ctx context.Context, req *schemes.Request, g uri.Gopher, srv server) (res *schemes.Resource, ok bool, err error) {
	s, err := dial(ctx, req, srv)
	if err != nil {
		return nil, false, err
	}
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	line := g.Selector + "\t$"
	req.Trace.TraceLine(schemes.Sent, line)
	if _, err := io.WriteString(s.conn, line+"\r\n"); err != nil {
		return nil, false, s.fail("send selector", err)
	}
	h, found, err := f.readPlusHeader(s)
	switch {
	case found && err != nil:
		// A Gopher+ server that will not list this menu's attributes:
		// the plain request says whether the menu is there.
		req.Trace.TraceLine(schemes.Info, "no attributes for this menu; asking for the menu itself")
		return nil, false, nil
	case err != nil:
		return nil, false, err
	case !found:
		f.plain.Store(srv, true)
		req.Trace.TraceLine(schemes.Info, "the server does not speak Gopher+; asking for the menu itself")
		return nil, false, nil
	}
	l := f.menuReader(s, req, srv, h.length, attrLinesPerItem)
	first, err := l.line()
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	if err == nil && !strings.HasPrefix(first, "+INFO:") {
		f.plain.Store(srv, true)
		req.Trace.TraceLine(schemes.Info, "the reply holds no +INFO block; asking for the menu itself")
		return nil, false, nil
	}
	if err == nil && namesItself(first, g, srv) {
		// gophernicus answers "TAB $" with the empty selector by a fixed
		// block for the UMN client, which describes the root menu, not
		// its items, and answers it for no other menu.
		f.plain.Store(srv, true)
		req.Trace.TraceLine(schemes.Info, "the reply describes the menu, not its items; asking for the menu itself")
		return nil, false, nil
	}
	res = &schemes.Resource{
		URL: req.URL.Redacted(), Size: -1, ContentType: menuContentType,
		Header:  [][2]string{{"Gopher-Type", string([]byte{g.Type})}, {"Gopher-Plus-Length", strconv.FormatInt(h.length, 10)}, {"Content-Type", menuContentType}},
		Listing: &attrListing{m: l, next: first, hasNext: err == nil},
	}
	return res, true, nil
}

// namesItself tells whether an +INFO line names the menu g itself.
func namesItself(info string, g uri.Gopher, srv server) bool {
	it := parseMenuLine(strings.TrimLeft(strings.TrimPrefix(info, "+INFO:"), " "))
	return it.valid && it.typ == typeMenu && it.selector == g.Selector &&
		strings.EqualFold(it.host, srv.host) && it.port == srv.port
}

// plainServer tells whether srv answered an attribute request as a server
// that does not speak Gopher+.
func (f *Fetcher) plainServer(srv server) bool {
	_, ok := f.plain.Load(srv)
	return ok
}

// attrListing streams the entries of an attribute reply: each +INFO line
// is a menu line (Gopher+ §2.6), and the blocks after it give the entry's
// time (+ADMIN Mod-Date), size (+VIEWS) and description (+ABSTRACT).
type attrListing struct {
	m       *menuListing
	next    string // the +INFO line read ahead
	hasNext bool
}

// Next returns the next item's entry, io.EOF after the last.
func (a *attrListing) Next() (schemes.Entry, error) {
	if !a.hasNext {
		return schemes.Entry{}, io.EOF
	}
	a.hasNext = false
	e := a.m.entry(strings.TrimLeft(strings.TrimPrefix(a.next, "+INFO:"), " "))
	var block string
	var abstract strings.Builder
	views := 0
	for {
		line, err := a.m.line()
		if err == io.EOF {
			break
		}
		if err != nil {
			return schemes.Entry{}, err
		}
		if strings.HasPrefix(line, "+INFO:") {
			a.next, a.hasNext = line, true
			break
		}
		if strings.HasPrefix(line, "+") {
			// A block's name line; its value may start on it.
			name, rest, _ := strings.Cut(line, ":")
			block = name
			if line = strings.TrimSpace(rest); line == "" {
				continue
			}
		}
		line = strings.TrimSpace(line)
		switch block {
		case "+ADMIN":
			if v, ok := strings.CutPrefix(line, "Mod-Date:"); ok {
				setField(&e, "mod-date", strings.TrimSpace(v))
				if t, ok := modDate(v); ok {
					e.ModTime = t
				}
			}
		case "+VIEWS":
			views++
			if views == 1 {
				// The first view is the item's own (Gopher+ §2.8).
				setField(&e, "view", line)
				if n, ok := viewSize(line); ok && e.Kind != schemes.KindDirectory {
					e.Size = n
				}
			}
		case "+ABSTRACT":
			if abstract.Len()+len(line) < maxAbstract {
				if abstract.Len() > 0 {
					abstract.WriteByte(' ')
				}
				abstract.WriteString(line)
			}
		}
	}
	if abstract.Len() > 0 {
		e.Description = abstract.String()
	}
	return e, nil
}

// Close closes the reply's connection; it is safe to call twice.
func (a *attrListing) Close() error { return a.m.Close() }

func setField(e *schemes.Entry, k, v string) {
	if e.Fields == nil {
		e.Fields = map[string]string{}
	}
	e.Fields[k] = v
}

// modDate reads the value of a Mod-Date attribute, "Wed Jul 28 17:02:01
// 1993 <19930728170201>" (Gopher+ §2.7): the time in angle brackets,
// which the specification gives no zone for; it is read as UTC.
func modDate(v string) (time.Time, bool) {
	i := strings.LastIndexByte(v, '<')
	j := strings.LastIndexByte(v, '>')
	if i < 0 || j < i {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation("20060102150405", strings.TrimSpace(v[i+1:j]), time.UTC)
	return t, err == nil
}

// viewSize reads the size of a view line, "text/plain: <10k>" (Gopher+
// §2.8): exact only when the server gives it in bytes ("<512b>"); a size
// in kilobytes is rounded and tells nothing a comparison can use.
func viewSize(line string) (int64, bool) {
	i := strings.LastIndexByte(line, '<')
	j := strings.LastIndexByte(line, '>')
	if i < 0 || j < i {
		return 0, false
	}
	num, ok := strings.CutSuffix(strings.ToLower(strings.TrimSpace(line[i+1:j])), "b")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	return n, err == nil && n >= 0
}
