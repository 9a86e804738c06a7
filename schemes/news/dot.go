package news

import (
	"bufio"
	"bytes"
	"io"
)

// dotReader decodes a multi-line data block (RFC 3977 §3.1.1): it removes
// the dot added to a line that began with one, turns each CRLF into LF and
// ends at the line holding a lone dot. It decodes what textproto's
// DotReader does, byte for byte, but a line at a time within the
// bufio.Reader's buffer instead of a byte at a time, which made that
// decoding most of the CPU time of a large article.
type dotReader struct {
	r    *bufio.Reader
	rest []byte // decoded bytes not yet returned, inside r's buffer
	lf   bool   // a line feed is due after rest
	mid  bool   // the next slice read continues a line
	err  error  // io.EOF after the final line; the failure otherwise
	// tap, when not nil, gets the block's bytes as they came, dot
	// stuffing, CRLF and the final line included, for an archive
	// (schemes.Capture's Listing).
	tap func([]byte)
}

func newDotReader(r *bufio.Reader) *dotReader {
	return &dotReader{r: r}
}

// Read returns decoded bytes of the data block, and io.EOF once its final
// line has been read. A connection that ends before that line is
// io.ErrUnexpectedEOF, as with textproto.
func (d *dotReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case len(d.rest) > 0:
			c := copy(p[n:], d.rest)
			n += c
			d.rest = d.rest[c:]
			continue
		case d.lf:
			p[n] = '\n'
			n++
			d.lf = false
			continue
		case d.err != nil:
		case n > 0 && d.r.Buffered() == 0:
			// Hand over what is decoded rather than wait for the server.
		default:
			d.next()
			continue
		}
		break
	}
	if n > 0 {
		return n, nil
	}
	return 0, d.err
}

// next reads the next slice of the data block (a whole line, or as much of
// a long one as the buffer holds) and leaves its decoded bytes in rest.
// rest points into r's buffer, which stays valid because r is read again
// only once rest is used up.
func (d *dotReader) next() {
	line, err := d.r.ReadSlice('\n')
	wire := line
	start := !d.mid
	d.mid = err == bufio.ErrBufferFull
	if start && len(line) > 0 && line[0] == '.' {
		// The terminating line: a dot alone, before CRLF (or a bare LF,
		// which textproto takes too).
		if err == nil && (len(line) == 2 || len(line) == 3 && line[1] == '\r') {
			d.err = io.EOF
			if d.tap != nil {
				d.tap(wire)
			}
			return
		}
		line = line[1:]
	}
	switch err {
	case nil:
		line = line[:len(line)-1]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		d.lf = true
	case bufio.ErrBufferFull:
		// A CR at the buffer's end may be the first half of a CRLF: leave
		// it for the next slice, which then starts a byte earlier.
		if len(line) > 0 && line[len(line)-1] == '\r' {
			if d.r.UnreadByte() == nil {
				line = line[:len(line)-1]
				wire = wire[:len(wire)-1]
			}
		}
	case io.EOF:
		// Cut short. A CR at the very end is dropped, as textproto does:
		// no LF came to say what it was.
		line = bytes.TrimSuffix(line, []byte{'\r'})
		d.err = io.ErrUnexpectedEOF
	default:
		d.err = err
	}
	d.rest = line
	if d.tap != nil {
		d.tap(wire)
	}
}
