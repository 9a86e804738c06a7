package wais

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/urlget/urlget/uri"
)

// Document ids in URLs. RFC 1738 §3.9 leaves the wpath "internal to WAIS";
// libwww and Lynx write it as LENGTH/ID where ID is each id field as
// "tag=value;" with the value %-escaped (testdata/wais/FORMAT.md §7). This
// package writes and reads that form so that URLs in old pages keep working,
// and writes field lengths as compressed integers so that fields of 128
// bytes and more survive too.

// Document id field tags (FORMAT.md §5.5).
const (
	idOriginalServer   = 1
	idOriginalDatabase = 2
	idOriginalLocalID  = 3
	idDistribServer    = 4
	idDistribDatabase  = 5
	idDistribLocalID   = 6
	idCopyright        = 7
)

// maxIDLength bounds a document id taken from a URL: real ids are a few
// hundred bytes and a request must stay far below the server's 100000-byte
// buffer (FORMAT.md §1).
const maxIDLength = 8 << 10

// idField is one field of a document id.
type idField struct {
	Tag   int
	Value []byte
}

// maxIDFields bounds the number of fields kept from an id.
const maxIDFields = 64

// parseID splits a document id into its fields. An id that is not a run of
// tagged fields is opaque to this client and parseID says so.
func parseID(id []byte) ([]idField, error) {
	d := decoder{b: id}
	var fs []idField
	for !d.done() {
		tag, v, err := d.plainItem()
		if err != nil {
			return nil, err
		}
		if len(fs) == maxIDFields {
			return nil, errors.New("document id with too many fields")
		}
		fs = append(fs, idField{tag, v})
	}
	if len(fs) == 0 {
		return nil, errors.New("empty document id")
	}
	return fs, nil
}

// idSafe reports whether libwww leaves c unescaped in an id value.
func idSafe(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '.' || c == '/' || c == '-' || c == '_' || c == '$'
}

// escapeIDBytes %-escapes every byte outside idSafe, in upper-case hex,
// and '/' too unless keepSlash.
func escapeIDBytes(b *strings.Builder, v []byte, keepSlash bool) {
	const hex = "0123456789ABCDEF"
	for _, c := range v {
		if idSafe(c) && (keepSlash || c != '/') {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
}

// formatID writes a document id in the libwww form "1=…;2=…;". An id that
// is not a run of tagged fields in the shortest encoding (so that writing
// the fields back would change its bytes) is written whole, %-escaped with
// '/' and '=' escaped too, which parseWPath reads back as the same bytes.
func formatID(id []byte) string {
	var b strings.Builder
	fs, err := parseID(id)
	if err == nil {
		var re []byte
		for _, f := range fs {
			re = appendItem(re, f.Tag, f.Value)
		}
		if !bytes.Equal(re, id) {
			err = errors.New("document id not in the shortest encoding")
		}
	}
	if err != nil {
		escapeIDBytes(&b, id, false)
		return b.String()
	}
	for _, f := range fs {
		b.WriteString(strconv.Itoa(f.Tag))
		b.WriteByte('=')
		escapeIDBytes(&b, f.Value, true)
		b.WriteByte(';')
	}
	return b.String()
}

// formatWPath writes the wpath of a document URL: LENGTH/ID, or ID alone
// when the length is unknown.
func formatWPath(id []byte, length int64) string {
	if length < 0 {
		return formatID(id)
	}
	return strconv.FormatInt(length, 10) + "/" + formatID(id)
}

// parseWPath reads the raw (still %-escaped) wpath of a document URL back
// into the id bytes and the document length (-1 when the URL has none).
func parseWPath(raw string) (id []byte, length int64, err error) {
	length = -1
	if i := strings.IndexByte(raw, '/'); i > 0 && allDigits(raw[:i]) {
		n, err := strconv.ParseInt(raw[:i], 10, 64)
		if err != nil {
			return nil, 0, fmt.Errorf("document length %q: %w", raw[:i], err)
		}
		length, raw = n, raw[i+1:]
	}
	if raw == "" {
		return nil, 0, errors.New("no document id in the URL")
	}
	if !looksLikeFields(raw) {
		s, err := uri.Unescape(raw)
		if err != nil {
			return nil, 0, fmt.Errorf("document id: %w", err)
		}
		if len(s) > maxIDLength {
			return nil, 0, errors.New("document id longer than the limit")
		}
		return []byte(s), length, nil
	}
	for raw != "" {
		eq := strings.IndexByte(raw, '=')
		if eq <= 0 || !allDigits(raw[:eq]) {
			return nil, 0, fmt.Errorf("document id field %q is not tag=value", raw)
		}
		tag, err := strconv.Atoi(raw[:eq])
		if err != nil || tag > maxCompressed {
			return nil, 0, fmt.Errorf("document id field tag %q", raw[:eq])
		}
		raw = raw[eq+1:]
		end := strings.IndexByte(raw, ';')
		val := raw
		if end < 0 {
			raw = ""
		} else {
			val, raw = raw[:end], raw[end+1:]
		}
		v, err := uri.Unescape(val)
		if err != nil {
			return nil, 0, fmt.Errorf("document id field %d: %w", tag, err)
		}
		if len(id)+len(v)+8 > maxIDLength {
			return nil, 0, errors.New("document id longer than the limit")
		}
		id = appendString(id, tag, v)
	}
	return id, length, nil
}

// looksLikeFields reports whether raw starts like the libwww field form:
// decimal digits and "=".
func looksLikeFields(raw string) bool {
	eq := strings.IndexByte(raw, '=')
	return eq > 0 && allDigits(raw[:eq])
}

func allDigits(s string) bool {
	if s == "" || len(s) > 18 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// idHasServer reports whether an id names an original server (field 1);
// the catalog pseudo-document freeWAIS sends for a search with no hits has
// none (FORMAT.md §5.9).
func idHasServer(id []byte) bool {
	fs, err := parseID(id)
	if err != nil {
		return false
	}
	for _, f := range fs {
		if f.Tag == idOriginalServer {
			return true
		}
	}
	return false
}

// idFileName suggests a local file name from an id: freeWAIS writes the
// local id as "<start> <end> <file name>" (FORMAT.md §5.5). It returns ""
// when the id does not have that shape.
func idFileName(id []byte) string {
	fs, err := parseID(id)
	if err != nil {
		return ""
	}
	for _, f := range fs {
		if f.Tag != idOriginalLocalID && f.Tag != idDistribLocalID {
			continue
		}
		parts := strings.SplitN(string(f.Value), " ", 3)
		if len(parts) != 3 || !allDigits(parts[0]) || !allDigits(parts[1]) {
			return ""
		}
		name := path.Base(parts[2])
		if name == "." || name == "/" || strings.ContainsAny(name, "\x00\r\n") {
			return ""
		}
		return name
	}
	return ""
}
