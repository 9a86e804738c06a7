package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxHeader bounds a record's header section as Reader reads it.
const maxHeader = 256 << 10

// ErrFormat is the error for bytes that are not a WARC record where one
// should start.
var ErrFormat = errors.New("warc: not a WARC record")

// Head is a record's header section as read back.
type Head struct {
	Version string  // "WARC/1.1"
	Fields  []Field // in the order read
	// Offset is where the record starts in the file: its gzip member's
	// first byte when compressed.
	Offset int64
	// ContentLength is the block's length.
	ContentLength int64
}

// Get returns the first value of the named field (case-insensitively),
// or "".
func (h *Head) Get(name string) string {
	for _, f := range h.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Reader reads the records of a WARC file, gzip (one member per record or
// not) or plain, as WARC 1.1 §4 and Annex D frame them.
type Reader struct {
	cr   *countReader
	zr   *gzip.Reader
	gz   bool
	br   *bufio.Reader // the current record's bytes, decompressed
	prev io.Reader     // the previous record's unread block
}

// countReader counts the bytes taken from the file, and is an
// io.ByteReader so that gzip reads no further than a member's end.
type countReader struct {
	r *bufio.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// NewReader returns a Reader of the file r, compressed or not.
func NewReader(r io.Reader) *Reader {
	cr := &countReader{r: bufio.NewReader(r)}
	magic, _ := cr.r.Peek(2)
	rd := &Reader{cr: cr, gz: len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b}
	if !rd.gz {
		rd.br = bufio.NewReader(cr)
	}
	return rd
}

// Next returns the next record's head and a reader of its block, valid
// until the next call; io.EOF at the end of the file. A record cut short
// (its block or its end shorter than the header says) is an error for
// which errors.Is(err, io.ErrUnexpectedEOF) holds.
func (r *Reader) Next() (*Head, io.Reader, error) {
	if r.prev != nil {
		if _, err := io.Copy(io.Discard, r.prev); err != nil {
			return nil, nil, err
		}
		// WARC 1.1 §4: a record ends with two CRLFs after its block.
		var end [4]byte
		if _, err := io.ReadFull(r.br, end[:]); err != nil {
			return nil, nil, fmt.Errorf("warc: record's end: %w", unexpected(err))
		}
		if string(end[:]) != "\r\n\r\n" {
			return nil, nil, fmt.Errorf("%w: no CRLF CRLF after a block", ErrFormat)
		}
		r.prev = nil
	}
	var offset int64
	if r.gz {
		inMember := false
		if r.br != nil {
			_, err := r.br.Peek(1)
			if err != nil && err != io.EOF {
				return nil, nil, err
			}
			inMember = err == nil
		}
		if !inMember {
			// The member is done (one record a member, as written here):
			// the next starts where the file stands.
			offset = r.cr.n
			if _, err := r.cr.r.Peek(1); err == io.EOF {
				return nil, nil, io.EOF
			}
			if r.zr == nil {
				zr, err := gzip.NewReader(r.cr)
				if err != nil {
					return nil, nil, err
				}
				r.zr = zr
			} else if err := r.zr.Reset(r.cr); err != nil {
				return nil, nil, err
			}
			r.zr.Multistream(false)
			r.br = bufio.NewReader(r.zr)
		} else {
			offset = -1 // a record within a member has no offset of its own
		}
	} else {
		offset = r.cr.n - int64(r.br.Buffered())
		if _, err := r.br.Peek(1); err == io.EOF {
			return nil, nil, io.EOF
		}
	}
	h, err := readHead(r.br)
	if err != nil {
		return nil, nil, err
	}
	h.Offset = offset
	r.prev = &exactReader{r: io.LimitReader(r.br, h.ContentLength), left: h.ContentLength}
	return h, r.prev, nil
}

// exactReader reports a block shorter than its Content-Length.
type exactReader struct {
	r    io.Reader
	left int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readHead reads a header section: the version line, named fields (a
// line that starts with a space or tab continues the one before, WARC 1.1
// §4), and the empty line.
func readHead(br *bufio.Reader) (*Head, error) {
	var h Head
	total := 0
	var long []byte
	line := func() (string, error) {
		l, err := br.ReadSlice('\n')
		total += len(l)
		if err == bufio.ErrBufferFull {
			// A line past the reader's buffer (a long URI): gathered
			// up to the section's bound.
			long = append(long[:0], l...)
			for err == bufio.ErrBufferFull && total <= maxHeader {
				l, err = br.ReadSlice('\n')
				total += len(l)
				long = append(long, l...)
			}
			l = long
		}
		if total > maxHeader {
			return "", fmt.Errorf("%w: header section too long", ErrFormat)
		}
		if err != nil {
			return "", unexpected(err)
		}
		l = bytes.TrimRight(l, "\r\n")
		// WARC 1.1 §4: a field holds no control bytes but the tabs of
		// linear white space; a CR alone could end a line for a reader
		// other than this one.
		if bytes.ContainsFunc(l, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
			return "", fmt.Errorf("%w: a control byte in %q", ErrFormat, l)
		}
		return string(l), nil
	}
	v, err := line()
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(v, "WARC/") {
		return nil, fmt.Errorf("%w: version line %q", ErrFormat, v)
	}
	h.Version = v
	for {
		l, err := line()
		if err != nil {
			return nil, err
		}
		if l == "" {
			break
		}
		if (l[0] == ' ' || l[0] == '\t') && len(h.Fields) > 0 {
			f := &h.Fields[len(h.Fields)-1]
			f.Value += " " + strings.TrimSpace(l)
			continue
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok || !validName(name) {
			return nil, fmt.Errorf("%w: field line %q", ErrFormat, l)
		}
		h.Fields = append(h.Fields, Field{name, strings.TrimSpace(value)})
	}
	n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%w: Content-Length %q", ErrFormat, h.Get("Content-Length"))
	}
	h.ContentLength = n
	return &h, nil
}
