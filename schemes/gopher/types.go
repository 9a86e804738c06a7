package gopher

import (
	"path"

	"github.com/urlget/urlget/schemes"
)

// Item types named by RFC 1436 §3.8, plus the ones later servers made
// common ('i', 'h', 'g', 'I', 's', 'd', 'p', 'P', 'M').
const (
	typeText      = '0'
	typeMenu      = '1'
	typeCSO       = '2'
	typeError     = '3'
	typeBinHex    = '4'
	typeDOS       = '5'
	typeUUEncoded = '6'
	typeSearch    = '7'
	typeTelnet    = '8'
	typeBinary    = '9'
	typeMirror    = '+'
	typeTN3270    = 'T'
	typeInfo      = 'i'
	typeHTML      = 'h'
	typeGIF       = 'g'
	typeImage     = 'I'
	typeSound     = 's'
	typeMIME      = 'M'
)

// isText reports whether an item of type t is sent as text: RFC 1436 §3.8
// sends types 0, 4 (BinHex) and 6 (uuencode) as lines ending with a lone
// "." line; 'h' and 'M' are text by their nature (HTML, a MIME message).
func isText(t byte) bool {
	switch t {
	case typeText, typeBinHex, typeUUEncoded, typeHTML, typeMIME:
		return true
	}
	return false
}

// isMenu reports whether the reply to an item of type t is a menu: a
// directory (1) or the result of a full-text search (7), RFC 1436 §3.
func isMenu(t byte) bool { return t == typeMenu || t == typeSearch }

// notRetrievable explains why an item of type t cannot be fetched as a byte
// stream or menu, or returns "" when it can.
func notRetrievable(t byte) string {
	switch t {
	case typeCSO:
		return "type-2 item is a CSO phone-book server, which speaks its own protocol (use a ph client)"
	case typeError:
		return "type-3 item is an error message, not a document"
	case typeTelnet, typeTN3270:
		return "type-" + string(t) + " item is a terminal session (open it with a telnet client)"
	case typeInfo:
		return "type-i item is an information line, not a document"
	}
	return ""
}

// kindOf maps an item type to the listing's entry kind.
func kindOf(t byte) schemes.Kind {
	switch t {
	case typeMenu:
		return schemes.KindDirectory
	case typeSearch:
		return schemes.KindSearch
	case typeInfo, typeError:
		return schemes.KindInfo
	case typeCSO, typeTelnet, typeTN3270:
		return schemes.KindOther
	}
	return schemes.KindFile
}

// menuContentType is the MIME type of a menu's own bytes (--raw-listing); the name
// pygopherd and the Gopher+ documents use.
const menuContentType = "application/gopher-menu"

// contentType names the MIME type of an item of type t whose selector is
// sel: the type decides when it is specific; for the generic binary, image,
// sound and document types the selector's extension refines it.
func contentType(t byte, sel string) string {
	switch t {
	case typeText:
		return "text/plain"
	case typeMenu, typeSearch:
		return menuContentType
	case typeBinHex:
		return "application/mac-binhex40"
	case typeUUEncoded:
		return "text/x-uuencode"
	case typeHTML:
		return "text/html"
	case typeGIF:
		return "image/gif"
	case typeMIME:
		return "message/rfc822"
	case 'p':
		return "image/png"
	case 'P':
		return "application/pdf"
	case 'r':
		return "application/rtf"
	case 'x':
		return "application/xml"
	case 'c':
		return "text/calendar"
	}
	if ext := path.Ext(sel); ext != "" {
		if ct := schemes.TypeByExtension(ext); ct != "" {
			return ct
		}
	}
	switch t {
	case typeBinary, typeDOS:
		return "application/octet-stream"
	case 'd':
		return "application/pdf"
	}
	return ""
}
