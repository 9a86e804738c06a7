package news

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/urlget/urlget/schemes"
)

// errHeaderLine is the cause when an article's header line passes the limit.
var errHeaderLine = errors.New("article header line longer than " + strconv.Itoa(schemes.MaxLineLength) + " bytes")

// holder owns a session for the lifetime of a body or listing, and gives it
// back exactly once: to the pool when the data block was read to its end,
// closed otherwise.
type holder struct {
	s    *session
	once sync.Once
}

// finish releases the session; complete says the data block was read whole.
func (h *holder) finish(complete bool) {
	h.once.Do(func() {
		if !complete {
			h.s.broken = true
		}
		h.s.line.bound(true)
		h.s.release()
	})
}

// dotBody streams a multi-line data block, dot-unstuffed with LF line ends
// by textproto's DotReader (RFC 3977 §3.1.1). For an article it bounds each
// header line (RFC 5536 §3.1 via RFC 5322 §2.1.1 keeps them short).
type dotBody struct {
	h      holder
	r      io.Reader
	op     string
	header bool // still inside the article's header block
	run    int  // bytes since the last line feed in the header
	err    error
}

func newDotBody(s *session, op string, article bool) *dotBody {
	return &dotBody{h: holder{s: s}, r: newDotReader(s.tp.R), op: op, header: article}
}

// Read reads decoded bytes of the data block; io.EOF once its final line
// has been read.
func (b *dotBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.r.Read(p)
	if b.header && n > 0 {
		if b.scanHeader(p[:n]) {
			err = errHeaderLine
		}
	}
	switch {
	case err == io.EOF:
		b.err = io.EOF
		b.h.finish(true)
	case err != nil:
		b.err = b.h.s.ioErr(b.op, err)
		b.h.finish(false)
	}
	return n, b.err
}

// scanHeader follows header lines through p and reports one too long; the
// first empty line ends the header.
func (b *dotBody) scanHeader(p []byte) bool {
	for _, c := range p {
		if c != '\n' {
			b.run++
			if b.run > schemes.MaxLineLength {
				return true
			}
			continue
		}
		if b.run == 0 {
			b.header = false
			return false
		}
		b.run = 0
	}
	return false
}

// Close releases the session; closing before the end drops the connection,
// which is the only way to stop an NNTP data block.
func (b *dotBody) Close() error {
	b.h.finish(b.err == io.EOF)
	if b.err == nil {
		b.err = errors.New("read of closed body")
	}
	return nil
}

// lineListing streams the lines of a data block (OVER, XOVER, LIST ACTIVE)
// as entries.
type lineListing struct {
	h     holder
	op    string
	r     *bufio.Reader
	entry func(line string) schemes.Entry
	err   error
}

func newLineListing(s *session, op string, entry func(line string) schemes.Entry) *lineListing {
	d := newDotReader(s.tp.R)
	if c := s.req.Capture; c != nil {
		d.tap = c.Listing
	}
	return &lineListing{
		h:     holder{s: s},
		op:    op,
		r:     bufio.NewReader(d),
		entry: entry,
	}
}

// Next returns the entry for the next line, or io.EOF after the last.
func (l *lineListing) Next() (schemes.Entry, error) {
	if l.err != nil {
		return schemes.Entry{}, l.err
	}
	// ReadString, not textproto's ReadLine, so that a line cut short by
	// a failure is never taken for a whole one.
	line, err := l.r.ReadString('\n')
	if err == io.EOF && line != "" {
		err = nil
	}
	line = strings.TrimSuffix(line, "\n")
	if err == io.EOF {
		l.err = io.EOF
		l.h.finish(true)
		return schemes.Entry{}, io.EOF
	}
	if err != nil {
		l.err = l.h.s.ioErr(l.op, err)
		l.h.finish(false)
		return schemes.Entry{}, l.err
	}
	return l.entry(line), nil
}

// Close releases the session; it is safe to call twice.
func (l *lineListing) Close() error {
	l.h.finish(l.err == io.EOF)
	if l.err == nil {
		l.err = errors.New("listing closed")
	}
	return nil
}

// headListing lists a group on a server without overviews: HEAD for each
// article number in the range (RFC 3977 §6.2.2), skipping the numbers the
// server has no article for (423).
type headListing struct {
	s          *session
	t          target
	next, high int64
	h          holder
	err        error
}

func newHeadListing(s *session, t target, low, high int64) *headListing {
	return &headListing{s: s, t: t, next: low, high: high, h: holder{s: s}}
}

// head fetches the next existing article's header; io.EOF past the range.
func (l *headListing) head() (int64, [][2]string, error) {
	if l.err != nil {
		return 0, nil, l.err
	}
	for l.next <= l.high {
		n := l.next
		l.next++
		op := "HEAD " + strconv.FormatInt(n, 10)
		code, msg, err := l.s.cmd(op, op)
		if err != nil {
			return 0, nil, l.fail(err)
		}
		switch code {
		case 221:
			h, err := l.s.readHeader(op)
			if err != nil {
				return 0, nil, l.fail(err)
			}
			return n, h, nil
		case 423:
			continue
		}
		return 0, nil, l.fail(l.s.replyErr(op, code, msg))
	}
	l.err = io.EOF
	l.h.finish(true)
	return 0, nil, io.EOF
}

func (l *headListing) fail(err error) error {
	l.err = err
	l.h.finish(!l.s.broken)
	return err
}

// Next returns the entry for the next article.
func (l *headListing) Next() (schemes.Entry, error) {
	n, h, err := l.head()
	if err != nil {
		return schemes.Entry{}, err
	}
	o := overview{Number: n, Bytes: -1, Lines: -1}
	for _, f := range h {
		switch strings.ToLower(f[0]) {
		case "subject":
			o.Subject = f[1]
		case "from":
			o.From = f[1]
		case "date":
			o.Date = f[1]
		case "message-id":
			o.MessageID = trimAngles(f[1])
		case "references":
			o.References = f[1]
		case "bytes":
			o.Bytes = parseCount(f[1])
		case "lines":
			o.Lines = parseCount(f[1])
		}
	}
	return l.t.articleEntry(o), nil
}

// Close releases the session; it is safe to call twice.
func (l *headListing) Close() error {
	if l.err == nil {
		// Between articles no data block is pending: the session stays good.
		l.err = errors.New("listing closed")
	}
	l.h.finish(!l.s.broken)
	return nil
}

// headRawBody is the raw form of a headListing: each article's header
// fields as the server sent them (continuation lines unfolded), one per
// line, and an empty line after each article.
type headRawBody struct {
	l   *headListing
	buf strings.Builder
	out *strings.Reader
}

func (b *headRawBody) Read(p []byte) (int, error) {
	for b.out == nil || b.out.Len() == 0 {
		_, h, err := b.l.head()
		if err != nil {
			return 0, err
		}
		b.buf.Reset()
		for _, f := range h {
			b.buf.WriteString(f[0])
			b.buf.WriteString(": ")
			b.buf.WriteString(f[1])
			b.buf.WriteByte('\n')
		}
		b.buf.WriteByte('\n')
		b.out = strings.NewReader(b.buf.String())
	}
	return b.out.Read(p)
}

func (b *headRawBody) Close() error { return b.l.Close() }
