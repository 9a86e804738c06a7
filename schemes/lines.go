package schemes

import (
	"bytes"
	"io"
)

// MaxLineLength is the longest protocol line (reply, menu line, overview
// line) a fetcher accepts by default. Protocol lines are short by design
// (RFC 959 replies, RFC 3977 §3.1.1 caps commands at 512 octets); 8 KiB
// leaves room for generous servers and still bounds memory against a peer
// that never sends a line end.
const MaxLineLength = 8 << 10

// ErrLineTooLong is the cause given when a peer sends a line longer than the
// limit; the error that carries it is of kind ErrProtocol, which it wraps.
var ErrLineTooLong error = &kindError{"line longer than the limit", ErrProtocol}

// kindError is a message wrapping one of the kinds. Written out rather
// than made with fmt.Errorf, which at package initialization would run
// fmt in every process, fetch or not.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg + ": " + e.kind.Error() }
func (e *kindError) Unwrap() error { return e.kind }

// LineLimitReader returns a reader that passes r's bytes through unchanged
// but fails with ErrLineTooLong once more than max bytes arrive without a
// line feed. Wrap a control connection with it before handing it to
// net/textproto or bufio, whose line readers grow without bound.
func LineLimitReader(r io.Reader, max int) io.Reader {
	if max <= 0 {
		max = MaxLineLength
	}
	return &lineLimitReader{r: r, max: max}
}

type lineLimitReader struct {
	r   io.Reader
	max int
	run int // bytes since the last line feed
	err error
}

func (l *lineLimitReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	chunk := p[:n]
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			l.run += len(chunk)
			break
		}
		l.run += i
		if l.run > l.max {
			break
		}
		l.run = 0
		chunk = chunk[i+1:]
	}
	if l.run > l.max {
		l.err = ErrLineTooLong
		return 0, l.err
	}
	return n, err
}
