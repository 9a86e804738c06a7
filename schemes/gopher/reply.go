package gopher

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/urlget/urlget/schemes"
)

// shape says how a reply is read.
type shape uint8

const (
	shapeBinary shape = iota // bytes until the server closes
	shapeText                // RFC 1436 text: CRLF lines, "." terminator
	shapeMenu                // RFC 1436 menu lines
)

// shapeOf returns how the reply to an item of type t is read.
func shapeOf(t byte) shape {
	switch {
	case isMenu(t):
		return shapeMenu
	case isText(t):
		return shapeText
	}
	return shapeBinary
}

// readPlusHeader reads the Gopher+ header line. found is false when the
// reply does not start with one: a Gopher0 server answers a Gopher+ request
// as a plain one, and that reply is then read as such. A "-" header is
// followed by an error block, which becomes the returned error.
func (f *Fetcher) readPlusHeader(s *session) (h plusHeader, found bool, err error) {
	line, perr := peekLine(s.br, maxPlusHeader)
	if perr != nil && !errors.Is(perr, errNoLine) && perr != io.EOF {
		return h, false, s.fail("read Gopher+ header", perr)
	}
	trimmed := bytes.TrimRight(line, "\r\n")
	h, ok := parsePlusHeader(trimmed)
	if !ok || len(trimmed) == len(line) {
		s.trace.TraceLine(schemes.Info, "no Gopher+ header in the reply; reading it as a Gopher0 reply")
		return plusHeader{}, false, nil
	}
	s.trace.TraceLine(schemes.Received, string(trimmed))
	_, _ = s.br.Discard(len(line))
	if h.ok {
		return h, true, nil
	}
	// Gopher+ §2.3: the error block, framed like any reply.
	var src io.Reader = s.br
	switch {
	case h.length >= 0:
		src = io.LimitReader(src, h.length)
	case h.length == plusUntilDot:
		src = newTextReader(src, true, true)
	}
	block, rerr := io.ReadAll(io.LimitReader(src, maxErrorBlock))
	if rerr != nil && len(block) == 0 {
		return h, true, s.fail("read Gopher+ error", rerr)
	}
	pe := parsePlusError(string(block))
	for l := range strings.SplitSeq(pe.message, "\n") {
		s.trace.TraceLine(schemes.Received, l)
	}
	kind, temp := schemes.ErrNotRetrievable, false
	switch pe.code {
	case 1:
		kind = schemes.ErrNotFound
	case 2:
		temp = true
	case 3:
		// The item has moved; the message names where to.
		kind = schemes.ErrNotFound
	}
	e := s.req.Fail(kind, "Gopher+", pe.code, pe.message, nil)
	e.Temporary = temp
	return h, true, e
}

// sniffError looks at a reply that starts like an error menu line ('3' or
// 'i', four TAB-separated fields). When the whole reply is short and holds
// nothing but error and information lines it is the server saying the
// item does not exist; the error lines' text is returned. Nothing is
// consumed.
func sniffError(s *session) (msg string, isErr bool, err error) {
	// Look at the first byte before waiting for a whole line: most items
	// start otherwise, and their bytes may come slowly.
	if b, err := s.br.Peek(1); err != nil {
		if err == io.EOF {
			return "", false, nil
		}
		return "", false, s.fail("read", err)
	} else if b[0] != typeError && b[0] != typeInfo {
		return "", false, nil
	}
	first, perr := peekLine(s.br, schemes.MaxLineLength)
	if len(first) == 0 || (first[0] != typeError && first[0] != typeInfo) || bytes.Count(first, []byte{'\t'}) < 3 {
		if perr != nil && perr != io.EOF && !errors.Is(perr, errNoLine) {
			return "", false, s.fail("read", perr)
		}
		return "", false, nil
	}
	data, complete, perr := peekAll(s.br, readBufferSize)
	if perr != nil && perr != io.EOF {
		return "", false, s.fail("read", perr)
	}
	if !complete {
		return "", false, nil
	}
	msg, isErr = errorMenu(data)
	return msg, isErr, nil
}

// menu returns the reply as a streamed listing, after reading ahead past
// any leading information lines to tell an error menu from a real one.
func (f *Fetcher) menu(s *session, req *schemes.Request, srv server, res *schemes.Resource, framing int64) (*schemes.Resource, error) {
	l := f.menuReader(s, req, srv, framing, 1)
	msg, isErr, err := l.lookahead()
	if err != nil {
		return nil, err
	}
	if isErr {
		return nil, req.Fail(schemes.ErrNotFound, "", 0, msg, nil)
	}
	if req.Head {
		return res, nil
	}
	res.Listing = l
	return res, nil
}

// menuReader reads the lines of a menu reply framed as a Gopher+ header
// said (framing), at most perItem times the Fetcher's menu line limit.
func (f *Fetcher) menuReader(s *session, req *schemes.Request, srv server, framing int64, perItem int) *menuListing {
	br := s.br
	if framing >= 0 {
		br = bufio.NewReaderSize(&exactReader{s: s, r: s.br, remain: framing, length: framing}, readBufferSize)
	}
	max := f.MaxMenuLines
	if max <= 0 {
		max = DefaultMaxMenuLines
	}
	return &menuListing{
		br:      br,
		capture: req.Capture,
		srv:     srv,
		max:     max * perItem,
		fail:    s.fail,
		closer:  s,
		tooLarge: func(err error) error {
			return req.Fail(schemes.ErrTooLarge, "read menu", 0, "", err)
		},
		truncated: func(err error) error {
			e := req.Fail(schemes.ErrTruncated, "read menu", 0, "", err)
			e.Temporary = true
			return e
		},
	}
}
