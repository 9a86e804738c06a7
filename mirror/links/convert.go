package links

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"path"
	"strings"

	"golang.org/x/net/html"

	"github.com/urlget/urlget/uri"
)

// ConvertHTML copies the HTML document in to out with its links made to
// work in the local tree, as wget's --convert-links does. base is the
// document's URL. For each link FromHTML would follow, resolved the same
// way:
//
//   - when local(target) returns ok, the link becomes rel, %-encoded as a
//     relative reference needs (a space, '%', '?', '#', non-ASCII bytes,
//     a ':' in the first segment), its fragment kept;
//   - otherwise a relative link becomes the absolute URL it resolves to,
//     and an absolute link is left as written.
//
// local's rel is the slash-separated path of the target's local copy
// relative to the directory of the document being converted, as file
// names (not %-encoded): "../other dir/a#1.html".
//
// The href of every <base> is removed: once links are rewritten they are
// absolute or relative to the local file, and a base left in place would
// send the local ones back to the server. The rest of the <base> tag (a
// target, say) stays.
//
// Every byte of the document is copied as it came, except in the tags
// whose links change: there only the changed attribute values are
// rewritten, in the quotes they had. Links in a token larger than 1 MiB
// are left as they are.
func ConvertHTML(in io.Reader, out io.Writer, base uri.URL, local func(uri.URL) (rel string, ok bool)) error {
	w := bufio.NewWriterSize(out, 32<<10)
	t := newTokens(in)
	c := converter{base: base, local: local}
	for {
		tt, name := t.next()
		if tt == html.ErrorToken {
			if err := t.err(); err != nil {
				return err
			}
			// A tag the document ends inside comes as the error's bytes.
			if _, err := w.Write(t.z.Raw()); err != nil {
				return err
			}
			return w.Flush()
		}
		raw := t.raw()
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
			raw = c.tag(t.z, name, raw)
		}
		if _, err := w.Write(raw); err != nil {
			return err
		}
	}
}

// converter holds the state of one ConvertHTML run.
type converter struct {
	base    uri.URL
	baseSet bool
	local   func(uri.URL) (string, bool)
	edits   []attrEdit
	buf     []byte
}

// attrEdit is a change to one attribute of a tag: its new value, or its
// removal.
type attrEdit struct {
	index  int // among the tag's attributes, as the tokenizer numbers them
	value  string
	remove bool
}

// tag returns the bytes of a start tag with its links converted: raw
// itself when none changes.
func (c *converter) tag(z *html.Tokenizer, name, raw []byte) []byte {
	c.edits = c.edits[:0]
	var keys []string
	for i, more := 0, true; more; i++ {
		var key, val []byte
		key, val, more = z.TagAttr()
		if key == nil {
			break
		}
		keys = append(keys, string(key))
		switch attrKind(name, key) {
		case linkURL:
			if v, ok := c.link(val); ok {
				c.edits = append(c.edits, attrEdit{index: i, value: v})
			}
		case linkSrcset:
			if v, ok := c.srcset(val); ok {
				c.edits = append(c.edits, attrEdit{index: i, value: v})
			}
		case linkBase:
			if !c.baseSet {
				c.baseSet = true
				if u, ok := parseLink(val); ok {
					c.base = c.base.ResolveReference(u)
				}
			}
			c.edits = append(c.edits, attrEdit{index: i, remove: true})
		}
	}
	if len(c.edits) == 0 {
		return raw
	}
	attrs := scanAttrs(raw)
	if len(attrs) != len(keys) {
		return raw
	}
	for i, a := range attrs {
		// The tokenizer's attributes and this scan's must be the same
		// ones; should they ever differ, the tag is left alone.
		if !strings.EqualFold(string(raw[a.key[0]:a.key[1]]), keys[i]) {
			return raw
		}
	}
	c.buf = c.buf[:0]
	at := 0
	for _, e := range c.edits {
		a := attrs[e.index]
		if e.remove {
			c.buf = append(c.buf, raw[at:a.space]...)
			at = a.end
			continue
		}
		if a.val[0] < 0 {
			continue
		}
		c.buf = append(c.buf, raw[at:a.val[0]]...)
		c.buf = appendAttrValue(c.buf, e.value, a.quote)
		at = a.val[1]
	}
	return append(c.buf, raw[at:]...)
}

// link converts one link; ok is false when it stays as written.
func (c *converter) link(val []byte) (string, bool) {
	ref, ok := parseLink(val)
	if !ok {
		return "", false
	}
	target := c.base.ResolveReference(ref).WithoutFragment()
	var s string
	if rel, ok := c.local(target); ok {
		s = relativeRef(rel)
	} else if ref.IsAbs() {
		return "", false
	} else {
		s = target.String()
	}
	if frag, ok := ref.Fragment(); ok {
		s += "#" + frag
	}
	return s, true
}

// srcset converts the URLs of a srcset, keeping its descriptors.
func (c *converter) srcset(val []byte) (string, bool) {
	var b strings.Builder
	changed, at := false, 0
	for _, r := range srcsetURLs(val) {
		v, ok := c.link(val[r[0]:r[1]])
		if !ok {
			continue
		}
		changed = true
		b.Write(val[at:r[0]])
		b.WriteString(v)
		at = r[1]
	}
	b.Write(val[at:])
	return b.String(), changed
}

// relativeRef %-encodes a relative file path as a relative reference:
// each segment as EscapeSegment does, and a ':' in the first segment too,
// where it would read as a scheme's end (RFC 3986 §4.2).
func relativeRef(rel string) string {
	s := uri.EscapePath(rel)
	first, rest, found := strings.Cut(s, "/")
	first = strings.ReplaceAll(first, ":", "%3A")
	if found {
		return first + "/" + rest
	}
	return first
}

// appendAttrValue appends an attribute value escaped for the quotes it
// stands in: '&' always (so that no character reference is read in it),
// and the quote itself; an unquoted value that would need quotes gets
// double quotes.
func appendAttrValue(b []byte, v string, quote byte) []byte {
	if quote == 0 && (v == "" || strings.ContainsAny(v, " \t\n\f\r\"'=<>`")) {
		b = append(b, '"')
		b = appendEscaped(b, v, '"')
		return append(b, '"')
	}
	return appendEscaped(b, v, quote)
}

func appendEscaped(b []byte, v string, quote byte) []byte {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '&':
			b = append(b, "&amp;"...)
		case c == '"' && quote == '"':
			b = append(b, "&quot;"...)
		case c == '\'' && quote == '\'':
			b = append(b, "&#39;"...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// rawAttr locates one attribute in a tag's bytes.
type rawAttr struct {
	space int    // where the white space before the attribute begins
	key   [2]int // the name
	val   [2]int // the value inside its quotes; {-1, -1} when there is none
	quote byte   // '"', '\'' or 0 when unquoted
	end   int    // just after the attribute (after its closing quote)
}

// scanAttrs finds the attributes of a start tag in its bytes, the ones
// x/net/html's tokenizer reports (those with a name, the first of each
// name), by the same steps as its readTag (HTML §13.2.5.32–39).
func scanAttrs(raw []byte) []rawAttr {
	isSpace := func(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' }
	n := len(raw)
	i := 2 // "<" and the name's first letter
	for i < n && !isSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	var out []rawAttr
	seen := map[string]bool{}
	for {
		space := i
		for i < n && isSpace(raw[i]) {
			i++
		}
		if i >= n || raw[i] == '>' {
			return out
		}
		a := rawAttr{space: space, val: [2]int{-1, -1}}
		// Attribute name: an '=' as its first character belongs to it.
		a.key[0] = i
		for j := i; i < n; i++ {
			c := raw[i]
			if c == '=' && i == j {
				continue
			}
			if isSpace(c) || c == '/' || c == '>' || c == '=' {
				break
			}
		}
		a.key[1] = i
		// After the name: "=" and a value, or not.
		j := i
		for j < n && isSpace(raw[j]) {
			j++
		}
		switch {
		case j < n && raw[j] == '/':
			i = j + 1
		case j < n && raw[j] == '=':
			j++
			for j < n && isSpace(raw[j]) {
				j++
			}
			switch {
			case j >= n || raw[j] == '>':
				i = j
			case raw[j] == '"' || raw[j] == '\'':
				a.quote = raw[j]
				k := bytes.IndexByte(raw[j+1:], a.quote)
				if k < 0 {
					return nil
				}
				a.val = [2]int{j + 1, j + 1 + k}
				i = j + k + 2
			default:
				k := j
				for k < n && !isSpace(raw[k]) && raw[k] != '>' {
					k++
				}
				a.val = [2]int{j, k}
				i = k
			}
		default:
			i = j
			if j > a.key[1] {
				// White space then no '=': the tokenizer reads it as
				// part of the next attribute's leading space.
				i = a.key[1]
			}
		}
		a.end = i
		key := strings.ToLower(string(raw[a.key[0]:a.key[1]]))
		if a.key[1] > a.key[0] && !seen[key] {
			seen[key] = true
			out = append(out, a)
		}
		if i == space {
			return nil // no progress: not a tag this scan understands
		}
	}
}

// gophermapName is the name a gopher menu's local copy takes in the
// directory its selector names, as package mirror names it.
const gophermapName = "gophermap"

// ConvertGophermap copies a saved gopher menu (RFC 1436 §3.8 lines as the
// server sent them: type and display string, TAB, selector, TAB, host,
// TAB, port, maybe TAB and a Gopher+ field, CRLF, and a final ".") to out
// with the items that local maps to a local file made local, so that a
// gopher server serving the tree (gophernicus, which reads such a file as
// a gophermap) offers the local copies. menu is the menu's URL; an item
// on the same host and port keeps its scheme (gophers). mapDir is the
// slash-separated directory of the menu's local copy below the tree's
// root.
//
// A local item is written as "Tdisplay<TAB>selector" with no host and
// port, which gophernicus reads as an item on itself, and local's rel
// (relative to mapDir, as for ConvertHTML) as selector: relative (the
// server prefixes the menu's own selector), or, when it climbs out of
// mapDir, which gophernicus refuses, absolute from the tree's root,
// "/"+mapDir+"/"+rel cleaned. A menu item's rel naming a gophermap names
// its directory instead, "sub/", so that the server reads the map. The
// server decodes %XX in selectors, and '?' ends one: '%', '?', '#' and
// control characters are %-encoded. Information and error lines, other
// items and lines that are no items are copied as they are.
func ConvertGophermap(in io.Reader, out io.Writer, menu uri.URL, mapDir string, local func(uri.URL) (rel string, ok bool)) error {
	br := bufio.NewReaderSize(in, 16<<10)
	w := bufio.NewWriterSize(out, 32<<10)
	var prevType byte
	long := false // inside a line too long to convert, copied as it is
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if long || errors.Is(err, bufio.ErrBufferFull) {
				_, werr := w.Write(line)
				long = errors.Is(err, bufio.ErrBufferFull)
				if werr != nil {
					return werr
				}
			} else if werr := convertMenuLine(w, line, &prevType, menu, mapDir, local); werr != nil {
				return werr
			}
		}
		switch {
		case err == io.EOF:
			return w.Flush()
		case err != nil && !errors.Is(err, bufio.ErrBufferFull):
			return err
		}
	}
}

// convertMenuLine writes one menu line, converted when it is an item local
// maps. prevType is the type of the last item, which a '+' item (another
// server for it, RFC 1436 §3.8) shares.
func convertMenuLine(w *bufio.Writer, line []byte, prevType *byte, menu uri.URL, mapDir string, local func(uri.URL) (string, bool)) error {
	text := strings.TrimRight(string(line), "\r\n")
	eol := string(line[len(text):])
	if text == "" || text == "." {
		_, err := w.Write(line)
		return err
	}
	typ := text[0]
	if typ != '+' {
		*prevType = typ
	}
	urlType := *prevType
	fields := strings.SplitN(text[1:], "\t", 5)
	sel, ok := "", false
	if len(fields) >= 4 {
		sel, ok = localSelector(menu, urlType, fields[1], fields[2], fields[3], mapDir, local)
	}
	if !ok {
		_, err := w.Write(line)
		return err
	}
	w.WriteByte(typ)
	w.WriteString(fields[0])
	w.WriteByte('\t')
	w.WriteString(sel)
	_, err := w.WriteString(eol)
	return err
}

// localSelector returns the selector of an item's local copy in a
// gophermap; ok is false when the item has none.
func localSelector(menu uri.URL, typ byte, selector, host, port, mapDir string, local func(uri.URL) (string, bool)) (string, bool) {
	var target string
	switch typ {
	case 'i', '3', '8', 'T':
		// Information, errors and telnet sessions have no local copy.
		return "", false
	case 'h':
		if s, ok := strings.CutPrefix(selector, "URL:"); ok {
			target = s
			break
		}
		fallthrough
	default:
		// RFC 1738 §3.4: gopher://host:port/<type><selector>, as the
		// gopher fetcher writes its entries' URLs.
		scheme := "gopher"
		if strings.EqualFold(host, menu.Hostname()) && port == effectivePort(menu) {
			scheme = menu.Scheme()
		}
		if port == uri.DefaultPort("gopher") {
			port = ""
		}
		target = scheme + "://" + uri.JoinHostPort(host, port) + "/" + uri.EscapeSegment(string([]byte{typ})) + uri.EscapePath(selector)
	}
	u, err := uri.Parse(target)
	if err != nil {
		return "", false
	}
	rel, ok := local(u)
	if !ok {
		return "", false
	}
	dir := false
	if (typ == '1' || typ == '7') && path.Base(rel) == gophermapName {
		rel, dir = path.Dir(rel), true
	}
	rel = path.Clean(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		// gophernicus refuses ".." in a selector, and an empty one means
		// the display string: name the file from the tree's root.
		abs := path.Join(mapDir, rel)
		if abs == ".." || strings.HasPrefix(abs, "../") {
			return "", false
		}
		rel = "/" + abs
		if abs == "." {
			rel = "/"
		}
		if dir && rel != "/" {
			rel += "/"
		}
		return escapeSelector(rel), true
	}
	if dir {
		rel += "/"
	}
	s := escapeSelector(rel)
	if strings.HasPrefix(s, "URL:") {
		s = "URL%3A" + s[4:]
	}
	return s, true
}

// effectivePort returns the port a URL's server listens on: the one it
// names, or its scheme's default.
func effectivePort(u uri.URL) string {
	if p, ok := u.Port(); ok && p != "" {
		return p
	}
	return uri.DefaultPort(u.Scheme())
}

// escapeSelector %-encodes what gophernicus would read otherwise in a
// gophermap's selector: '%' and '#' (its escapes), '?' (the start of a
// query), and control characters (TAB ends the field).
func escapeSelector(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' || c == '?' || c == '#' || c < 0x20 || c == 0x7f {
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
