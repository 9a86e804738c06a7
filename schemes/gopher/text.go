package gopher

import "io"

// textReader decodes a text item as RFC 1436 §3.8 sends it: lines end in
// CRLF, the item ends at a line holding a lone ".", and a line that starts
// with "." had another "." put before it. It streams: nothing but one input
// buffer and at most two pending bytes are held, whatever the line lengths.
type textReader struct {
	r    io.Reader
	dot  bool // the item ends at a lone "." line, and dot-doubling is undone
	crlf bool // CRLF becomes LF
	buf  []byte
	in   []byte // input not yet decoded
	err  error  // the source's error, returned once in is drained
	st   textState
	held []byte // decoded bytes that did not fit the caller's buffer
	hbuf [2]byte
	done bool // the terminating "." line was seen
}

type textState uint8

const (
	stLineStart textState = iota // at the start of a line
	stMid                        // inside a line
	stCR                         // a CR was read and not yet written
	stDot                        // a "." was read at the start of a line
	stDotCR                      // ".\r" was read at the start of a line
)

func newTextReader(r io.Reader, dot, crlf bool) *textReader {
	return &textReader{r: r, dot: dot, crlf: crlf, buf: make([]byte, 32<<10)}
}

// Read decodes into p. It blocks on the source only when it has nothing at
// all to return.
func (t *textReader) Read(p []byte) (int, error) {
	n := 0
	emit := func(b byte) {
		if n < len(p) {
			p[n] = b
			n++
			return
		}
		t.held = append(t.held, b)
	}
	for n < len(p) {
		if len(t.held) > 0 {
			c := copy(p[n:], t.held)
			n += c
			t.held = t.held[c:]
			if len(t.held) == 0 {
				t.held = t.hbuf[:0]
			}
			continue
		}
		if t.done {
			break
		}
		if len(t.in) == 0 {
			if t.err != nil {
				t.flushAtEOF(emit)
				break
			}
			if n > 0 {
				break
			}
			m, err := t.r.Read(t.buf)
			t.in, t.err = t.buf[:m], err
			continue
		}
		b := t.in[0]
		switch t.st {
		case stLineStart:
			if t.dot && b == '.' {
				t.in = t.in[1:]
				t.st = stDot
				continue
			}
			t.st = stMid
		case stMid:
			// Copy the run of ordinary bytes in one go.
			i := 0
			for i < len(t.in) && n+i < len(p) {
				c := t.in[i]
				if c == '\n' || (c == '\r' && t.crlf) {
					break
				}
				p[n+i] = c
				i++
			}
			n += i
			t.in = t.in[i:]
			if len(t.in) == 0 || n == len(p) {
				continue
			}
			c := t.in[0]
			t.in = t.in[1:]
			if c == '\n' {
				emit('\n')
				t.st = stLineStart
			} else {
				t.st = stCR
			}
		case stCR:
			if b == '\n' {
				t.in = t.in[1:]
				emit('\n')
				t.st = stLineStart
				continue
			}
			emit('\r')
			t.st = stMid
		case stDot:
			switch b {
			case '.':
				// RFC 1436 §3.8: a leading "." was doubled by the server.
				t.in = t.in[1:]
				emit('.')
				t.st = stMid
			case '\n':
				t.done = true
			case '\r':
				t.in = t.in[1:]
				t.st = stDotCR
			default:
				// A server that did not double the dot: keep the line as sent.
				emit('.')
				t.st = stMid
			}
		case stDotCR:
			if b == '\n' {
				t.done = true
				continue
			}
			emit('.')
			if t.crlf {
				t.st = stCR
			} else {
				emit('\r')
				t.st = stMid
			}
		}
	}
	if n > 0 {
		return n, nil
	}
	if t.done {
		return 0, io.EOF
	}
	if t.err != nil && len(t.held) == 0 && len(t.in) == 0 {
		return 0, t.err
	}
	return 0, nil
}

// flushAtEOF writes what a state still holds when the source ends: a CR
// that no LF followed. A "." alone at the very end is the terminator whose
// line end was lost, so it ends the item.
func (t *textReader) flushAtEOF(emit func(byte)) {
	switch t.st {
	case stCR:
		emit('\r')
	case stDot, stDotCR:
		t.done = true
	}
	t.st = stMid
}
