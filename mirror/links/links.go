package links

import (
	"bytes"
	"io"
	"strings"

	"golang.org/x/net/html"

	"github.com/urlget/urlget/uri"
)

// IsHTML reports whether a body of this MIME type, or with this file
// name when the type is unknown, is HTML to look for links in.
func IsHTML(contentType, name string) bool {
	ct, _, _ := strings.Cut(contentType, ";")
	if ct = strings.ToLower(strings.TrimSpace(ct)); ct != "" {
		return ct == "text/html" || ct == "application/xhtml+xml"
	}
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".html") || strings.HasSuffix(n, ".htm") || strings.HasSuffix(n, ".xhtml")
}

// maxToken bounds the bytes the tokenizer holds for one token (a text run,
// a tag with its attributes, a comment), and so the memory one page costs
// however large it is. A longer token is passed over in pieces (see
// tokens.next). A variable so that tests can make it small.
var maxToken = 1 << 20

// maxLink is the longest link value followed or rewritten. Longer values
// are data (inline images and the like), not addresses: nginx
// (large_client_header_buffers) and Apache (LimitRequestLine) refuse
// request lines of more than 8 KiB by default.
const maxLink = 16 << 10

// FromHTML reads an HTML document from r and calls fn with every link it
// holds, in document order: a[href], area[href], link[href], img[src] and
// the candidates of img[srcset], script[src], frame[src], iframe[src], and
// source[src] and source[srcset] (a picture's or a video's alternatives).
// Each link is resolved against base, or against the document's first
// <base href> for the links after it, with RFC 3986 §5 (never by joining
// strings), and comes without its fragment. Links to javascript:,
// mailto:, data: and the like, empty links and links to a fragment of the
// document itself are left out. A link written with characters RFC 3986
// does not allow (spaces, non-ASCII text, a '%' that starts no escape) is
// %-encoded as a browser does before it is resolved.
//
// The page is streamed with x/net/html's tokenizer, never held whole: the
// memory used is bounded (about 1 MiB, the longest token held) however
// large the page is, and a link longer than 16 KiB is taken for data and
// left out. It returns only r's errors.
func FromHTML(r io.Reader, base uri.URL, fn func(uri.URL)) error {
	t := newTokens(r)
	baseSet := false
	for {
		tt, name := t.next()
		switch tt {
		case html.ErrorToken:
			return t.err()
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			continue
		}
		for more := len(name) > 0; more; {
			var key, val []byte
			key, val, more = t.z.TagAttr()
			switch attrKind(name, key) {
			case linkURL:
				if u, ok := resolveLink(base, val); ok {
					fn(u)
				}
			case linkSrcset:
				for _, c := range srcsetURLs(val) {
					if u, ok := resolveLink(base, val[c[0]:c[1]]); ok {
						fn(u)
					}
				}
			case linkBase:
				// HTML §4.2.3: only the first <base href> sets the
				// document's base URL.
				if !baseSet {
					baseSet = true
					if u, ok := parseLink(val); ok {
						base = base.ResolveReference(u)
					}
				}
			}
		}
	}
}

// resolveLink turns a link attribute's value into the absolute URL it
// names, without fragment; ok is false for links that name nothing to
// fetch.
func resolveLink(base uri.URL, val []byte) (uri.URL, bool) {
	ref, ok := parseLink(val)
	if !ok {
		return uri.URL{}, false
	}
	return base.ResolveReference(ref).WithoutFragment(), true
}

// parseLink parses a link attribute's value (entities already decoded by
// the tokenizer) as a URI reference, after the clean-up browsers do
// (WHATWG URL §4.4: white space around it and tabs and line breaks inside
// it removed, the characters RFC 3986 forbids %-encoded). ok is false
// for an empty or fragment-only reference, one to a scheme that fetches
// nothing (javascript:, mailto:, data: …), and one that still does not
// parse.
func parseLink(val []byte) (uri.URL, bool) {
	if len(val) > maxLink {
		return uri.URL{}, false
	}
	s := cleanLink(val)
	if s == "" || s[0] == '#' {
		return uri.URL{}, false
	}
	if skipScheme[strings.ToLower(schemeOf(s))] {
		return uri.URL{}, false
	}
	u, err := uri.ParseReference(s)
	return u, err == nil
}

// skipScheme lists the schemes whose links name no document to fetch.
var skipScheme = map[string]bool{
	"javascript": true, "vbscript": true, "mailto": true, "data": true,
	"about": true, "blob": true, "tel": true, "sms": true,
}

// schemeOf returns the scheme of a reference as written, or "" when it
// has none (RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ),
// ended by ':' before any '/', '?' or '#').
func schemeOf(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return s[:i]
		default:
			return ""
		}
	}
	return ""
}

// cleanLink maps a link as written in a page to RFC 3986 text the way a
// browser does: ASCII white space around it is stripped, tabs, CRs and
// LFs inside it removed (WHATWG URL §4.4), and every byte RFC 3986 does
// not allow where it stands %-encoded: spaces, controls, non-ASCII bytes
// (which a UTF-8 page holds as UTF-8, so this is RFC 3987 §3.1's mapping,
// and which a page in another charset holds as the server's own bytes),
// a '%' that starts no escape, '#' after the first, '[' and ']' outside
// the authority, and "<>\"\\^`{|}".
func cleanLink(val []byte) string {
	val = bytes.Trim(val, " \t\n\f\r")
	// The authority, where '[' and ']' enclose an IP literal, runs from a
	// leading "//" (after the scheme, if any) to the next '/', '?' or '#'.
	authStart, authEnd := -1, -1
	rest := val
	if sch := schemeOf(string(val[:min(len(val), 64)])); sch != "" {
		rest = val[len(sch)+1:]
	}
	if bytes.HasPrefix(rest, []byte("//")) {
		authStart = len(val) - len(rest) + 2
		authEnd = len(val)
		if i := bytes.IndexAny(val[authStart:], "/?#"); i >= 0 {
			authEnd = authStart + i
		}
	}
	var b strings.Builder
	b.Grow(len(val))
	fragment := false
	for i := 0; i < len(val); i++ {
		c := val[i]
		switch {
		case c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '#' && !fragment:
			fragment = true
			b.WriteByte(c)
		case c == '%' && i+2 < len(val) && isHex(val[i+1]) && isHex(val[i+2]):
			b.WriteByte(c)
		case (c == '[' || c == ']') && authStart <= i && i < authEnd:
			b.WriteByte(c)
		case uriByte(c):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
	return b.String()
}

const upperHex = "0123456789ABCDEF"

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// uriByte reports whether c may stand as itself in a URI reference outside
// an IP literal (RFC 3986 §2.2, §2.3: unreserved, sub-delims, ':', '@',
// '/', '?'); '%' and '#' are the caller's business.
func uriByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@/?", c) >= 0
}

// The kinds of attribute a link can stand in.
const (
	linkNone   = iota
	linkURL    // one URL
	linkSrcset // a srcset: URLs with width or density descriptors
	linkBase   // <base href>: the base URL of the links after it
)

// attrKind says whether attribute key of element name holds a link.
func attrKind(name, key []byte) int {
	switch string(key) {
	case "href":
		switch string(name) {
		case "a", "area", "link":
			return linkURL
		case "base":
			return linkBase
		}
	case "src":
		switch string(name) {
		case "img", "script", "frame", "iframe", "source":
			return linkURL
		}
	case "srcset":
		switch string(name) {
		case "img", "source":
			return linkSrcset
		}
	}
	return linkNone
}

// srcsetURLs returns the byte ranges of the URLs of a srcset's image
// candidates, as HTML §4.8.4.3.10 ("parse a srcset attribute") finds them:
// candidates are split at commas, each a URL and optional descriptors, a
// comma inside parentheses in the descriptors being no split.
func srcsetURLs(v []byte) [][2]int {
	var out [][2]int
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
	i := 0
	for i < len(v) {
		for i < len(v) && (isSpace(v[i]) || v[i] == ',') {
			i++
		}
		if i >= len(v) {
			break
		}
		start := i
		for i < len(v) && !isSpace(v[i]) {
			i++
		}
		end := i
		if v[end-1] == ',' {
			// A URL ending in commas has no descriptors.
			for end > start && v[end-1] == ',' {
				end--
			}
		} else {
			parens := false
			for ; i < len(v); i++ {
				if c := v[i]; c == '(' {
					parens = true
				} else if c == ')' {
					parens = false
				} else if c == ',' && !parens {
					break
				}
			}
		}
		if end > start {
			out = append(out, [2]int{start, end})
		}
	}
	return out
}

// tokens is x/net/html's tokenizer made safe for a page of any size: the
// tokenizer holds a whole token in memory, so it is capped at maxToken,
// and when a token outgrows the cap tokenizing starts again on the bytes
// after it.
type tokens struct {
	z   *html.Tokenizer
	src io.Reader // the tokenizer's input
	// rawText is the raw-text element (script, style, textarea …) the
	// tokenizer is inside, so that a restart inside it stays inside it.
	rawText string
	cut     []byte // the bytes of a token cut short, when isCut
	isCut   bool
}

func newTokens(r io.Reader) *tokens {
	t := &tokens{src: r}
	t.z = html.NewTokenizer(r)
	t.z.SetMaxBuf(maxToken)
	return t
}

// next moves to the next token and returns its type and, for a start or
// self-closing tag, its lower-case name (the tag's attributes then come
// from t.z.TagAttr). A token longer than maxToken comes back as a
// TextToken whose bytes are raw: the bytes read of it so far, the rest of
// the document is tokenized afresh after them (a tag cut so is never seen
// as a tag, its links are not followed or rewritten).
func (t *tokens) next() (html.TokenType, []byte) {
	t.cut, t.isCut = nil, false
	tt := t.z.Next()
	var name []byte
	switch tt {
	case html.ErrorToken:
		if t.z.Err() != html.ErrBufferExceeded {
			return tt, nil
		}
		t.cut, t.isCut = t.z.Raw(), true
		prefix := ""
		if t.rawText != "" {
			// Start the new tokenizer inside the same element: a tag it
			// never outputs puts it in the right state.
			prefix = "<" + t.rawText + ">"
		}
		t.src = io.MultiReader(strings.NewReader(prefix), bytes.NewReader(t.z.Buffered()), t.src)
		t.z = html.NewTokenizer(t.src)
		t.z.SetMaxBuf(maxToken)
		if prefix != "" {
			t.z.Next()
		}
		return html.TextToken, nil
	case html.TextToken:
		return tt, nil
	case html.StartTagToken:
		name, _ = t.z.TagName()
		t.rawText = ""
		switch string(name) {
		case "noscript":
			// A client that runs no scripts reads <noscript> as markup
			// (HTML §13.2.6.4.4), and links are there for it.
			t.z.NextIsNotRawText()
		case "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "plaintext":
			t.rawText = string(name)
		}
		return tt, name
	case html.SelfClosingTagToken:
		name, _ = t.z.TagName()
	}
	t.rawText = ""
	return tt, name
}

// raw returns the bytes of the current token as written.
func (t *tokens) raw() []byte {
	if t.isCut {
		return t.cut
	}
	return t.z.Raw()
}

// err returns the input's error after the last token, nil at its end.
func (t *tokens) err() error {
	if err := t.z.Err(); err != io.EOF {
		return err
	}
	return nil
}
