package warc

import (
	"bytes"
	"crypto/sha1"
	"hash"
	"strconv"
	"strings"
)

// maxHTTPHeader bounds the header section an httpMessage looks for the end
// of; a block whose header runs on past it has no payload (its digest is
// left out) rather than held whole.
const maxHTTPHeader = 1 << 20

// httpMessage follows an HTTP/1.x message as its bytes are written, to
// digest its payload and read what an index wants from its header.
//
// WARC 1.1 §6.3.2 and §5.9: the payload of an application/http block is
// its entity body (RFC 2616 §7.2; §4.3: the message body with any
// transfer coding taken off, what RFC 9112 §6 and RFC 9110 §6.4 now call
// the content). The block keeps the bytes as they crossed the
// connection, chunked framing included; the payload digest is of the body
// with Transfer-Encoding: chunked taken off, so that two captures of one
// document chunked differently have one digest, as the IIPC settled
// (iipc/warc-specifications#22) and Heritrix and wget-lua now do. warcio
// and GNU wget digest the framed bytes; for a body without
// Transfer-Encoding, the usual case, all of them agree. A content coding
// (gzip) is part of the entity and stays in the digest.
type httpMessage struct {
	head    []byte // the header section so far, until it ends
	inBody  bool
	tooLong bool
	payload hash.Hash
	chunked *dechunker

	status   int    // a response's status code, 0 if none
	mime     string // the Content-Type's media type, lower case
	location string // a response's Location
}

func newHTTPMessage() *httpMessage {
	return &httpMessage{payload: sha1.New()}
}

func (m *httpMessage) Write(p []byte) (int, error) {
	n := len(p)
	if m.tooLong {
		return n, nil
	}
	if !m.inBody {
		old := len(m.head)
		m.head = append(m.head, p...)
		// Search from a little before the new bytes, as the blank line
		// may straddle two writes.
		from := max(old-3, 0)
		end, sep := -1, 0
		if i := bytes.Index(m.head[from:], []byte("\r\n\r\n")); i >= 0 {
			end, sep = from+i, 4
		}
		// RFC 9112 §2.2: a recipient may take a bare LF as a line's end.
		if i := bytes.Index(m.head[from:], []byte("\n\n")); i >= 0 && (end < 0 || from+i < end) {
			end, sep = from+i, 2
		}
		if end < 0 {
			if len(m.head) > maxHTTPHeader {
				m.tooLong, m.head = true, nil
			}
			return n, nil
		}
		body := m.head[end+sep:]
		m.head = m.head[:end]
		m.parseHead()
		m.inBody = true
		p = body
	}
	if m.chunked != nil {
		m.chunked.Write(p)
	} else {
		m.payload.Write(p)
	}
	return n, nil
}

// parseHead reads the start line and the fields an index and the
// payload's framing need.
func (m *httpMessage) parseHead() {
	lines := strings.Split(strings.ReplaceAll(string(m.head), "\r\n", "\n"), "\n")
	if f := strings.Fields(lines[0]); len(f) >= 2 && strings.HasPrefix(f[0], "HTTP/") {
		if c, err := strconv.Atoi(f[1]); err == nil && c >= 100 && c <= 999 {
			m.status = c
		}
	}
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-type":
			mt, _, _ := strings.Cut(value, ";")
			m.mime = strings.ToLower(cleanValue(mt))
		case "location":
			m.location = cleanValue(value)
		case "transfer-encoding":
			// RFC 9112 §6.1: chunked is the last coding when present.
			codings := strings.Split(strings.ToLower(value), ",")
			if strings.TrimSpace(codings[len(codings)-1]) == "chunked" {
				m.chunked = &dechunker{out: m.payload}
			}
		}
	}
	m.head = nil
}

// payloadDigest returns the payload's digest, or "" when the header
// section never ended.
func (m *httpMessage) payloadDigest() string {
	if !m.inBody {
		return ""
	}
	return Digest(m.payload)
}

// dechunker takes the chunked framing off a body as it is written (RFC
// 9112 §7.1), writing the chunks' data to out. Framing it cannot read
// ends the decoding: the payload is what came before.
type dechunker struct {
	out   hash.Hash
	state int
	size  int64  // data left in this chunk
	line  int    // bytes of the current trailer line
	hex   []byte // the current chunk-size's digits
}

const (
	chSize = iota
	chExt
	chData
	chDataCR
	chDataLF
	chTrailer
	chDone
)

func (d *dechunker) Write(p []byte) {
	for len(p) > 0 && d.state != chDone {
		switch d.state {
		case chSize:
			c := p[0]
			p = p[1:]
			switch {
			case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
				if len(d.hex) == 15 { // past any size a block can have
					d.state = chDone
					continue
				}
				d.hex = append(d.hex, c)
			case c == ';' || c == ' ' || c == '\t' || c == '\r':
				d.state = chExt
			case c == '\n':
				d.endSize()
			default:
				d.state = chDone
			}
		case chExt:
			c := p[0]
			p = p[1:]
			if c == '\n' {
				d.endSize()
			}
		case chData:
			n := int64(len(p))
			if n > d.size {
				n = d.size
			}
			d.out.Write(p[:n])
			p = p[n:]
			d.size -= n
			if d.size == 0 {
				d.state = chDataCR
			}
		case chDataCR:
			switch p[0] {
			case '\r':
				d.state = chDataLF
			case '\n':
				d.state = chSize
			default:
				d.state = chDone
			}
			p = p[1:]
		case chDataLF:
			if p[0] == '\n' {
				d.state = chSize
			} else {
				d.state = chDone
			}
			p = p[1:]
		case chTrailer:
			c := p[0]
			p = p[1:]
			if c == '\n' {
				if d.line == 0 {
					d.state = chDone
				}
				d.line = 0
			} else if c != '\r' {
				d.line++
			}
		}
	}
}

// endSize ends a chunk-size line: a last chunk (size 0) starts the
// trailer section, any other its data.
func (d *dechunker) endSize() {
	n, err := strconv.ParseInt(string(d.hex), 16, 64)
	d.hex = d.hex[:0]
	if err != nil {
		d.state = chDone // no digits
		return
	}
	d.size = n
	if d.size == 0 {
		d.state = chTrailer
		return
	}
	d.state = chData
}
