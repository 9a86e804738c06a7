package uri

import (
	"fmt"
	"strconv"
	"strings"
)

// Error is the error Parse, ParseReference, Unescape and the scheme views return:
// it names the problem and the 1-based byte column where it was found.
type Error struct {
	Input string // the text that was parsed, password included
	Col   int    // 1-based byte column of the offending character in Input
	Msg   string // what is wrong, without the column
}

// Error formats the error on one line, masking any password in the input and
// quoting it so that control bytes show as escapes.
func (e *Error) Error() string {
	return "invalid URL " + strconv.Quote(maskPassword(e.Input)) + ": " + e.Msg + " at column " + strconv.Itoa(e.Col)
}

func newError(s string, i int, msg string) *Error {
	return &Error{Input: s, Col: i + 1, Msg: msg}
}

// badChar describes the byte s[i], which the grammar does not allow where it is.
func badChar(s string, i int) *Error {
	c := s[i]
	switch {
	case c == ' ':
		return newError(s, i, "space")
	case c == '\t':
		return newError(s, i, "control byte TAB (0x09)")
	case c == '\n':
		return newError(s, i, "control byte LF (0x0A)")
	case c == '\r':
		return newError(s, i, "control byte CR (0x0D)")
	case c == 0:
		return newError(s, i, "control byte NUL (0x00)")
	case c < 0x20 || c == 0x7f:
		return newError(s, i, fmt.Sprintf("control byte 0x%02X", c))
	case c >= 0x80:
		return newError(s, i, fmt.Sprintf("non-ASCII byte 0x%02X (percent-encode it)", c))
	case c == '%':
		end := min(i+3, len(s))
		return newError(s, i, fmt.Sprintf("%q is not a percent-escape (%% must be followed by two hex digits)", s[i:end]))
	}
	return newError(s, i, fmt.Sprintf("character %q not allowed here", c))
}

// maskPassword replaces the password of a URL-like text with "****", also when
// the text is not a valid URL, so that error messages never show it.
func maskPassword(s string) string {
	i := strings.Index(s, "//")
	if i < 0 {
		return s
	}
	start := i + 2
	end := len(s)
	if k := strings.IndexAny(s[start:], "/?#"); k >= 0 {
		end = start + k
	}
	at := strings.LastIndexByte(s[start:end], '@')
	if at < 0 {
		return s
	}
	at += start
	colon := strings.IndexByte(s[start:at], ':')
	if colon < 0 {
		return s
	}
	colon += start
	return s[:colon+1] + "****" + s[at:]
}
