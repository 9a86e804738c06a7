package gopher

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
)

// Gopher+ reply lengths (Gopher+ §2.3): besides a byte count, the first line
// of a reply may say "read until a lone '.' line" or "read until the server
// closes the connection".
const (
	plusUntilDot   = -1
	plusUntilClose = -2
)

// maxPlusHeader bounds the Gopher+ header line: a sign, a sign and at most
// 19 digits, a line end.
const maxPlusHeader = 32

// plusHeader is the first line of a Gopher+ reply: "+<length>" when the item
// follows, "-<length>" when an error block follows.
type plusHeader struct {
	ok     bool  // '+': the item follows; '-': an error block follows
	length int64 // a byte count, plusUntilDot or plusUntilClose
}

// parsePlusHeader reads a Gopher+ header line (without its line end):
// "+" or "-", then "-1", "-2" or a decimal byte count.
func parsePlusHeader(line []byte) (plusHeader, bool) {
	line = bytes.TrimRight(line, " \t")
	if len(line) < 2 || len(line) > maxPlusHeader || (line[0] != '+' && line[0] != '-') {
		return plusHeader{}, false
	}
	h := plusHeader{ok: line[0] == '+'}
	num := line[1:]
	switch string(num) {
	case "-1":
		h.length = plusUntilDot
		return h, true
	case "-2":
		h.length = plusUntilClose
		return h, true
	}
	if len(num) > 18 {
		// More than 18 digits may not fit an int64; no item is that large.
		return plusHeader{}, false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return plusHeader{}, false
		}
		h.length = h.length*10 + int64(c-'0')
	}
	return h, true
}

// errNoLine says a peeked line did not end within the limit.
var errNoLine = errors.New("no line end within the limit")

// peekLine returns the first line buffered in br, its line end included,
// without consuming it. It reads no further than max bytes; when no line
// ends within them it returns what it has and errNoLine, and when the
// stream ends first it returns what it has and the stream's error.
func peekLine(br *bufio.Reader, max int) ([]byte, error) {
	if max > br.Size() {
		max = br.Size()
	}
	n := 1
	for {
		b, err := br.Peek(n)
		if buf := br.Buffered(); buf > len(b) {
			b, _ = br.Peek(min(buf, max))
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return b[:i+1], nil
		}
		if err != nil {
			return b, err
		}
		if len(b) >= max {
			return b, errNoLine
		}
		n = len(b) + 1
	}
}

// peekAll returns everything buffered in br up to max bytes without
// consuming it, reading until the stream ends or max bytes are buffered.
// complete tells whether the stream ended within max bytes.
func peekAll(br *bufio.Reader, max int) (data []byte, complete bool, err error) {
	if max > br.Size() {
		max = br.Size()
	}
	n := 1
	for {
		b, err := br.Peek(n)
		if buf := br.Buffered(); buf > len(b) {
			b, _ = br.Peek(min(buf, max))
		}
		if err != nil {
			return b, true, err
		}
		if len(b) >= max {
			return b, false, nil
		}
		n = len(b) + 1
	}
}

// plusError is the error block of a Gopher+ "-" reply (Gopher+ §2.3): its
// first line starts with an error code, 1 (item is not available), 2 (try
// again later) or 3 (item has moved, followed by where to).
type plusError struct {
	code    int
	message string
}

// parsePlusError reads an error block's text (its "." line already
// removed): the code from the first line, the whole text as the message.
func parsePlusError(block string) plusError {
	block = strings.TrimRight(strings.ReplaceAll(block, "\r\n", "\n"), "\n")
	var e plusError
	first, _, _ := strings.Cut(block, "\n")
	first = strings.TrimSpace(first)
	i := 0
	for i < len(first) && i < 4 && first[i] >= '0' && first[i] <= '9' {
		e.code = e.code*10 + int(first[i]-'0')
		i++
	}
	if i == 0 {
		e.code = 0
	}
	e.message = strings.TrimSpace(block)
	return e
}
