package waistest

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The server side of the WAIS wire format (testdata/wais/FORMAT.md), written
// apart from the client's so that each is held against the other and both
// against the recordings.

const headerLen = 25

// maxRequest is the largest request body read: freeWAIS-sf reads requests
// into a 100000-byte buffer (FORMAT.md §1).
const maxRequest = 100000

var errShort = errors.New("item runs past its container")

// readMessage reads one message: the 25-byte header and its body.
func readMessage(r io.Reader) (hdr [headerLen]byte, body []byte, err error) {
	if _, err = io.ReadFull(r, hdr[:]); err != nil {
		return hdr, nil, err
	}
	n, err := strconv.Atoi(string(hdr[:10]))
	if err != nil || n < 0 {
		return hdr, nil, fmt.Errorf("header length %q", hdr[:10])
	}
	if hdr[10] != 'z' || hdr[11] > '2' {
		return hdr, nil, fmt.Errorf("header type %q version %q", hdr[10], hdr[11])
	}
	if n > maxRequest {
		return hdr, nil, fmt.Errorf("request of %d bytes", n)
	}
	body = make([]byte, n)
	_, err = io.ReadFull(r, body)
	return hdr, body, err
}

// putHeader writes the reply header for a body of n bytes, copying type,
// version, server name, compression and encoding from the request as
// freeWAIS-sf does (FORMAT.md §1).
func putHeader(dst []byte, req [headerLen]byte, n int) []byte {
	dst = append(dst, fmt.Sprintf("%010d", n)...)
	dst = append(dst, req[10:24]...)
	return append(dst, '0')
}

// cint appends a compressed integer (FORMAT.md §3.1).
func cint(dst []byte, v int) []byte {
	var tmp [5]byte
	i := len(tmp) - 1
	tmp[i] = byte(v & 0x7f)
	for v >>= 7; v > 0; v >>= 7 {
		i--
		tmp[i] = byte(v&0x7f) | 0x80
	}
	return append(dst, tmp[i:]...)
}

func item(dst []byte, tag int, v []byte) []byte {
	return append(cint(cint(dst, tag), len(v)), v...)
}

func str(dst []byte, tag int, s string) []byte {
	return append(cint(cint(dst, tag), len(s)), s...)
}

// num appends a number item in the fewest bytes (FORMAT.md §3.2).
func num(dst []byte, tag int, v int64) []byte {
	n := 1
	for n < 4 && v >= 1<<(8*n) {
		n++
	}
	if v < 0 {
		n = 4
	}
	dst = cint(cint(dst, tag), n)
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(uint32(v)>>(8*i)))
	}
	return dst
}

// diag appends a diagnostic record, the one item that is not TLV
// (FORMAT.md §3.3).
func diag(dst []byte, code, info string) []byte {
	n := 2 + len(info) + 1
	dst = append(dst, 28, byte(n>>8), byte(n))
	dst = append(dst, code...)
	dst = append(dst, info...)
	return append(dst, 1, 0x1d)
}

// reader reads tagged items from a request.
type reader struct {
	b   []byte
	off int
}

func (r *reader) more() bool { return r.off < len(r.b) }

func (r *reader) cint() (int, error) {
	v := 0
	for i := 0; i < 4; i++ {
		if r.off >= len(r.b) {
			return 0, errShort
		}
		c := r.b[r.off]
		r.off++
		v = v<<7 | int(c&0x7f)
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errors.New("compressed integer over 4 bytes")
}

func (r *reader) item() (int, []byte, error) {
	tag, err := r.cint()
	if err != nil {
		return 0, nil, err
	}
	n, err := r.cint()
	if err != nil {
		return 0, nil, err
	}
	if len(r.b)-r.off < n {
		return 0, nil, errShort
	}
	v := r.b[r.off : r.off+n]
	r.off += n
	return tag, v, nil
}

func (r *reader) fixed(n int) (int, error) {
	if len(r.b)-r.off < n {
		return 0, errShort
	}
	v := 0
	for _, c := range r.b[r.off : r.off+n] {
		v = v<<8 | int(c)
	}
	r.off += n
	return v, nil
}

func getNum(v []byte) int64 {
	var u int64
	for _, c := range v {
		u = u<<8 | int64(c)
	}
	return u
}

// splitBody returns the Z39.50 part and the WAIS part of a body
// (FORMAT.md §2).
func splitBody(body []byte) (z, w []byte, err error) {
	if len(body) < 3 {
		return nil, nil, errShort
	}
	n := int(body[0])<<8 | int(body[1])
	if 2+n > len(body) || n == 0 {
		return nil, nil, errShort
	}
	return body[2 : 2+n], body[2+n:], nil
}
