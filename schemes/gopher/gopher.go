// Package gopher fetches gopher: and gophers: URLs: RFC 1436 items and
// menus and the Gopher+ forms of RFC 1738 §3.4, written on net and bufio.
// Documents stream as bodies (text decoded, binaries untouched), menus and
// search results as listings whose entries carry their own URLs.
package gopher

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// Fetcher retrieves gopher: and gophers: URLs. Its zero value is ready to
// use, and it may be used from several goroutines at once. It keeps no
// connections: RFC 1436 §2 gives every request a connection of its own.
type Fetcher struct {
	// MaxMenuLines bounds the lines of one menu; a menu longer than that
	// fails with schemes.ErrTooLarge. Zero means DefaultMaxMenuLines.
	MaxMenuLines int

	// Attributes asks a gopher menu's listing for each item's Gopher+
	// attributes (Gopher+ §2.6, the "\t$" request) when the menu's item
	// or the server speaks Gopher+: entries then carry Size from +VIEWS
	// where the server gives it exactly and ModTime from +ADMIN's
	// Mod-Date, which an incremental mirror compares (--timestamping). A server that
	// does not speak Gopher+ is sent the plain request, and the listing
	// is the plain menu's. It costs the server more work, so it is off
	// by default.
	Attributes bool

	// plain holds the servers that answered a request for a menu's
	// attributes (Attributes) as a Gopher0 server: their
	// menus are asked for plainly from then on.
	plain sync.Map // server → true
}

// maxErrorBlock bounds the text read from a Gopher+ error block or an
// error item: it becomes a one-line message.
const maxErrorBlock = 8 << 10

// Fetch retrieves the item req.URL names.
//
// Text items (types 0, 4, 6, h, M) come back decoded, with LF line ends, the
// terminating "." line removed and doubled leading dots undone; other items
// come back as the server's bytes. Menus (type 1, and type-7 search results)
// come back as a Listing, or with req.Raw as the server's own bytes. A URL
// with a Gopher+ string (RFC 1738 §3.4.3–§3.4.9) is sent as a Gopher+
// request and its reply header read; "!" and "$" attribute requests come
// back as text.
//
// With Attributes a menu is asked for with its items' Gopher+
// attributes, so that entries carry times and sizes where the server gives
// them (see attributeMenu); a server that does not speak Gopher+ gets the
// plain request.
//
// With req.Head the request is made and the start of the reply read, enough
// to tell an error from an item and to learn a Gopher+ length; the
// Resource then carries the type, content type and, when known, the size.
// ProxyWays implements schemes.ProxyAware. A gopher: URL can be fetched
// by an HTTP proxy acting as a gateway (RFC 1738 §3.4 leaves it to the
// proxy), where one still does: squid dropped gopher in version 4, and
// answers 501, after which the run goes through a CONNECT tunnel
// (GatewayFallback). gophers:, which no gateway speaks, goes through the
// Dialer only.
func (f *Fetcher) ProxyWays(req *schemes.Request) (schemes.ProxyWays, error) {
	if req.URL.Scheme() == "gopher" {
		return schemes.ViaGateway | schemes.GatewayFallback | schemes.ViaDialer, nil
	}
	return schemes.ViaDialer, nil
}

func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	g, err := req.URL.Gopher()
	if err != nil {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	if why := notRetrievable(g.Type); why != "" {
		return nil, req.Fail(schemes.ErrNotRetrievable, "", 0, "", errors.New(why))
	}
	wire, err := requestLines(req, g)
	if err != nil {
		return nil, err
	}
	srv := server{scheme: req.URL.Scheme(), host: req.URL.Hostname(), port: port(req.URL)}
	if f.wantsAttributes(req, g) && !f.plainServer(srv) {
		if res, ok, err := f.attributeMenu(ctx, req, g, srv); ok || err != nil {
			return res, err
		}
	}
	s, err := dial(ctx, req, srv)
	if err != nil {
		return nil, err
	}
	res, err := f.exchange(s, req, g, srv, wire)
	if err != nil || res.Body == nil && res.Listing == nil {
		s.Close()
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// port is the URL's port, 70 when it names none: gophers: uses gopher's
// port, as curl does.
func port(u uri.URL) string {
	if p, ok := u.Port(); ok && p != "" {
		return p
	}
	return uri.DefaultPort("gopher")
}

// dial connects to the server, through TLS for gophers:.
func dial(ctx context.Context, req *schemes.Request, srv server) (*session, error) {
	var cfg *tls.Config
	if info, _ := uri.SchemeOf(srv.scheme); info.TLS {
		cfg = req.TLSClientConfig(srv.host)
	}
	raw, nc, err := netconn.Dial(ctx, req, net.JoinHostPort(srv.host, srv.port), cfg)
	if err != nil {
		return nil, err
	}
	s := &session{ctx: ctx, req: req, conn: nc, trace: req.Trace}
	s.bind = netconn.Bind(ctx, nc, nil)
	if tcp, ok := raw.(*net.TCPConn); ok && cfg == nil {
		s.tcp = tcp
	}
	s.br = bufio.NewReaderSize(s.conn, readBufferSize)
	return s, nil
}

// requestLines builds what the client sends (RFC 1738 §3.4.1–§3.4.9),
// refusing any selector, search or Gopher+ string that would end the
// request early or add a field: the lines of the request, the last one
// without its CRLF.
//
//	selector CRLF
//	selector TAB search CRLF
//	selector TAB [search TAB] gopher+ CRLF
//	selector TAB [search TAB] +view TAB 1 CRLF +-1 CRLF values… CRLF . CRLF
func requestLines(req *schemes.Request, g uri.Gopher) ([]string, error) {
	if err := checkField(req, "selector", g.Selector); err != nil {
		return nil, err
	}
	attr := g.HasPlus && (strings.HasPrefix(g.Plus, "!") || strings.HasPrefix(g.Plus, "$"))
	search, sendSearch := g.Search, g.HasSearch
	switch {
	case g.Type == typeSearch && !attr:
		// RFC 1738 §3.4.2: a search sends its terms; the URL's own terms
		// win, Request.Search gives them when the URL has none.
		switch {
		case g.HasSearch && g.Search != "":
		case req.Search != nil:
			search = *req.Search
		case g.HasSearch:
		default:
			return nil, req.Fail(schemes.ErrNotRetrievable, "", 0, "", fmt.Errorf(
				"type-7 item is a search, and %w (a URL carries them after %%09: gopher://host/7selector%%09terms)", schemes.ErrNoSearchTerms))
		}
		sendSearch = true
	case g.HasPlus:
		// Gopher+ §2.3: an item that is not a search is asked for as
		// "selector TAB +…"; the empty search RFC 1738 §3.4.3 makes the URL
		// carry is not a field of its own (as §3.4.9's example shows).
		sendSearch = g.Search != ""
	}
	line := g.Selector
	if sendSearch {
		if err := checkField(req, "search", search); err != nil {
			return nil, err
		}
		line += "\t" + search
	}
	if !g.HasPlus {
		return []string{line}, nil
	}
	lines, err := plusLines(req, g.Plus)
	if err != nil {
		return nil, err
	}
	lines[0] = line + "\t" + lines[0]
	return lines, nil
}

// checkField refuses a selector or search that holds CR, LF or NUL, which
// would end the request early, or TAB, which would start a field the URL
// did not have (RFC 1436 §2: fields are TAB-separated).
func checkField(req *schemes.Request, what, v string) error {
	if err := req.CheckArg(what, v); err != nil {
		return err
	}
	if strings.IndexByte(v, '\t') >= 0 {
		return req.Fail(schemes.ErrBadURL, "", 0, "", errors.New(what+" contains a TAB byte, which would add a field to the request"))
	}
	return nil
}

// plusLines checks a Gopher+ string and splits it into the lines it sends.
// Most Gopher+ strings are one line: "+", "+view language", "!", "!+ABSTRACT",
// "$", "?". RFC 1738 §3.4.9's ASK form carries a whole data block, sent as
// given: "+<view> TAB 1 CRLF +-1 CRLF <value> CRLF … . CRLF".
func plusLines(req *schemes.Request, plus string) ([]string, error) {
	bad := func(why string) error {
		return req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("Gopher+ string "+why))
	}
	if !strings.ContainsAny(plus, "\t\r\n\x00") {
		return []string{plus}, nil
	}
	head, block, ok := strings.Cut(plus, "\t")
	if !ok || strings.ContainsAny(head, "\r\n\x00") {
		return nil, bad("holds a control byte outside the RFC 1738 §3.4.9 form (+view%091%0D%0A…%0D%0A.%0D%0A)")
	}
	block, ok = strings.CutPrefix(block, "1\r\n")
	if !ok {
		return nil, bad("holds a TAB that is not followed by the data flag 1 and CRLF (RFC 1738 §3.4.9)")
	}
	body, ok := strings.CutSuffix(block, "\r\n")
	if !ok {
		return nil, bad("data block does not end with CRLF (RFC 1738 §3.4.9)")
	}
	lines := []string{head + "\t1"}
	for l := range strings.SplitSeq(body, "\r\n") {
		if strings.ContainsAny(l, "\t\r\n\x00") {
			return nil, bad("data block line holds a TAB, CR, LF or NUL byte")
		}
		lines = append(lines, l)
	}
	if lines[len(lines)-1] != "." || len(lines) < 3 {
		return nil, bad("data block does not end with a lone \".\" line (RFC 1738 §3.4.9)")
	}
	return lines, nil
}

// exchange sends the request and reads the start of the reply.
func (f *Fetcher) exchange(s *session, req *schemes.Request, g uri.Gopher, srv server, wire []string) (*schemes.Resource, error) {
	var out []byte
	for _, l := range wire {
		req.Trace.TraceLine(schemes.Sent, l)
		out = append(append(out, l...), '\r', '\n')
	}
	if _, err := s.conn.Write(out); err != nil {
		return nil, s.fail("send selector", err)
	}

	res := &schemes.Resource{URL: req.URL.Redacted(), Size: -1}
	res.Header = append(res.Header, [2]string{"Gopher-Type", string([]byte{g.Type})})

	// Decide how the reply is read: as a menu, as text or as bytes.
	shape := shapeOf(g.Type)
	ctype := contentType(g.Type, g.Selector)
	framing := int64(plusUntilClose)
	plain := true // a Gopher0 reply, with no Gopher+ header
	attr := g.HasPlus && (strings.HasPrefix(g.Plus, "!") || strings.HasPrefix(g.Plus, "$"))
	if g.HasPlus {
		view, _, _ := strings.Cut(g.Plus, "\t")
		switch {
		case attr:
			// Gopher+ §2.6: attribute blocks are text.
			shape, ctype = shapeText, "text/plain"
		case strings.HasPrefix(view, "+"):
			if mt, _, _ := strings.Cut(view[1:], " "); mt != "" {
				res.Header = append(res.Header, [2]string{"Gopher-Plus-View", view[1:]})
				ctype = mt
				switch {
				case mt == menuContentType || mt == "application/gopher+-menu":
					shape = shapeMenu
				case strings.HasPrefix(mt, "text/"):
					shape = shapeText
				default:
					shape = shapeBinary
				}
			}
		}
		h, found, err := f.readPlusHeader(s)
		if err != nil {
			return nil, err
		}
		if found {
			plain = false
			framing = h.length
			res.Header = append(res.Header, [2]string{"Gopher-Plus-Length", strconv.FormatInt(h.length, 10)})
		}
	}
	if ctype != "" {
		res.ContentType = ctype
		res.Header = append(res.Header, [2]string{"Content-Type", ctype})
	}
	if shape != shapeMenu && !attr {
		res.Name = g.Selector[strings.LastIndexByte(g.Selector, '/')+1:]
	}

	if plain && (shape != shapeMenu || req.Raw) {
		// A server answers a selector it does not have with an error menu,
		// whatever type was asked for: look at a short reply before
		// taking it for the item.
		if msg, isErr, err := sniffError(s); err != nil {
			return nil, err
		} else if isErr {
			return nil, req.Fail(schemes.ErrNotFound, "", 0, msg, nil)
		}
	}

	if shape == shapeMenu && !req.Raw {
		return f.menu(s, req, srv, res, framing)
	}
	if shape == shapeMenu {
		res.ContentType = menuContentType
	}
	if shape == shapeBinary || shape == shapeMenu {
		if framing >= 0 {
			if req.MaxSize > 0 && framing > req.MaxSize {
				return nil, req.Fail(schemes.ErrTooLarge, "", 0, "", fmt.Errorf("the Gopher+ header announces %d bytes, over the limit of %d", framing, req.MaxSize))
			}
			res.Size = framing
		}
		if req.Head {
			return res, nil
		}
		if framing == plusUntilDot {
			res.Body = &textBody{textReader: newTextReader(&errReader{s, s.br}, true, false), s: s}
			return res, nil
		}
		remain := int64(-1)
		if framing >= 0 {
			remain = framing
		}
		res.Body = &rawBody{s: s, remain: remain, length: remain}
		return res, nil
	}
	// Text: RFC 1436 §3.8 framing unless a Gopher+ length says otherwise.
	if req.Head {
		return res, nil
	}
	var src io.Reader = &errReader{s, s.br}
	dot := framing == plusUntilDot || plain
	if framing >= 0 {
		src = &exactReader{s: s, r: s.br, remain: framing, length: framing}
	}
	res.Body = &textBody{textReader: newTextReader(src, dot, true), s: s}
	return res, nil
}
