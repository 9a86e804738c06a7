package cli

import (
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/urlget/urlget/schemes"
)

// The command's JSON output (--json-lines listings, urlget parse) is written
// here rather than with encoding/json: a few flat objects of strings and
// numbers, for which that package would add 150 KB to the program that
// every process maps (resident memory counts it), and with reflection
// where the keys are known. The strings come out exactly as encoding/json
// writes them with SetEscapeHTML(false); the tests compare the two.

// jsonObject builds a JSON object (RFC 8259 §4) with its keys in the order
// they are added.
type jsonObject struct{ b []byte }

func (o *jsonObject) key(k string) {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.b = appendJSONString(o.b, k)
	o.b = append(o.b, ':')
}

func (o *jsonObject) str(k, v string) {
	o.key(k)
	o.b = appendJSONString(o.b, v)
}

func (o *jsonObject) strs(k string, v []string) {
	o.key(k)
	o.b = append(o.b, '[')
	for i, s := range v {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = appendJSONString(o.b, s)
	}
	o.b = append(o.b, ']')
}

// strMap adds m as an object of strings, its keys in byte order (as
// encoding/json orders a map's).
func (o *jsonObject) strMap(k string, m map[string]string) {
	keys := make([]string, 0, len(m))
	for mk := range m {
		keys = append(keys, mk)
	}
	sort.Strings(keys)
	var f jsonObject
	for _, mk := range keys {
		f.str(mk, m[mk])
	}
	o.raw(k, f.bytes())
}

func (o *jsonObject) int(k string, v int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *jsonObject) raw(k string, v []byte) {
	o.key(k)
	o.b = append(o.b, v...)
}

func (o *jsonObject) bytes() []byte {
	if len(o.b) == 0 {
		return []byte("{}")
	}
	return append(o.b[:len(o.b):len(o.b)], '}')
}

// appendJSONString appends s as a JSON string (RFC 8259 §7): '"', '\\'
// and the control characters escaped (\b \f \n \r \t by name, the rest as
// \u00XX), bytes that are not UTF-8 replaced by \ufffd, and U+2028 and
// U+2029 escaped for JavaScript's sake, as encoding/json does; '<', '>'
// and '&' are left as they are, so that URLs read as themselves.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// listingJSON is the --json-lines form of a listing entry, one object: url,
// name, kind, size, time (RFC 3339, UTC), description, fields (keys in
// byte order) and raw, the empty or unknown ones left out except name and
// kind.
func listingJSON(e schemes.Entry) []byte {
	var o jsonObject
	if e.URL != "" {
		o.str("url", e.URL)
	}
	o.str("name", e.Name)
	o.str("kind", e.Kind.String())
	if e.Size >= 0 {
		o.int("size", e.Size)
	}
	if !e.ModTime.IsZero() {
		o.str("time", e.ModTime.UTC().Format(time.RFC3339))
	}
	if e.Description != "" {
		o.str("description", e.Description)
	}
	if len(e.Fields) > 0 {
		o.strMap("fields", e.Fields)
	}
	if e.Raw != "" {
		o.str("raw", e.Raw)
	}
	return o.bytes()
}
