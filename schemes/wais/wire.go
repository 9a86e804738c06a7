package wais

import (
	"errors"
	"fmt"
	"strconv"
)

// The wire layer: the 25-byte WAIS message header, compressed integers and
// tagged items, as freeWAIS and freeWAIS-sf write them (testdata/wais/FORMAT.md
// §1–§3). Everything here works on byte slices already bounded by the
// message length; nothing allocates in proportion to a number read from the
// wire.

// headerLen is the size of the WAIS message header that precedes every body.
const headerLen = 25

// Message types and the header version this client writes (FORMAT.md §1).
const (
	msgZ3950      = 'z'
	headerVersion = '2'
)

// headerServer is the 10-byte "server" field of the header; the server only
// copies it back.
const headerServer = "wais      "

// maxCompressed is the largest value a compressed integer may carry here:
// freeWAIS writes at most 4 bytes of 7 bits.
const maxCompressed = 1<<28 - 1

// errShort is the cause when an item runs past the end of its container.
var errShort = errors.New("item runs past the end of its container")

// header is the decoded 25-byte message header.
type header struct {
	Length  int  // body length in bytes
	Type    byte // 'z' for a Z39.50 APDU
	Version byte // header version, '2'
}

// parseHeader decodes a 25-byte header. The length must be ten decimal
// digits; a version above 2 is refused, as the server refuses it.
func parseHeader(b []byte) (header, error) {
	if len(b) < headerLen {
		return header{}, errShort
	}
	n := 0
	for _, c := range b[:10] {
		if c < '0' || c > '9' {
			return header{}, fmt.Errorf("message header length %q is not decimal", b[:10])
		}
		n = n*10 + int(c-'0')
	}
	h := header{Length: n, Type: b[10], Version: b[11]}
	if h.Type != msgZ3950 {
		return h, fmt.Errorf("message type %q is not a Z39.50 message", h.Type)
	}
	if h.Version < '1' || h.Version > headerVersion {
		return h, fmt.Errorf("message header version %q is not supported", h.Version)
	}
	return h, nil
}

// appendHeader writes the header for a body of n bytes; n is below 10^10
// because every request this client builds is a few hundred bytes.
func appendHeader(dst []byte, n int) []byte {
	s := strconv.Itoa(n)
	for i := len(s); i < 10; i++ {
		dst = append(dst, '0')
	}
	dst = append(dst, s...)
	dst = append(dst, msgZ3950, headerVersion)
	dst = append(dst, headerServer...)
	// FORMAT.md §1: no compression, no encoding, checksum not computed.
	return append(dst, ' ', ' ', '0')
}

// appendCompressed writes v as a compressed integer: big-endian base 128,
// the top bit set on every byte but the last, shortest form (FORMAT.md §3.1).
func appendCompressed(dst []byte, v int) []byte {
	if v < 0 || v > maxCompressed {
		panic("wais: compressed integer out of range")
	}
	var tmp [4]byte
	i := len(tmp) - 1
	tmp[i] = byte(v & 0x7f)
	for v >>= 7; v > 0; v >>= 7 {
		i--
		tmp[i] = byte(v&0x7f) | 0x80
	}
	return append(dst, tmp[i:]...)
}

// appendItem writes one tagged item: tag, length, value (FORMAT.md §3.2).
func appendItem(dst []byte, tag int, value []byte) []byte {
	dst = appendCompressed(dst, tag)
	dst = appendCompressed(dst, len(value))
	return append(dst, value...)
}

// appendString writes a string-valued item.
func appendString(dst []byte, tag int, s string) []byte {
	dst = appendCompressed(dst, tag)
	dst = appendCompressed(dst, len(s))
	return append(dst, s...)
}

// appendNumber writes a number item in the fewest big-endian bytes; a
// negative number always takes four (FORMAT.md §3.2).
func appendNumber(dst []byte, tag int, v int64) []byte {
	var n int
	switch {
	case v < 0 || v >= 1<<24:
		n = 4
	case v >= 1<<16:
		n = 3
	case v >= 1<<8:
		n = 2
	default:
		n = 1
	}
	dst = appendCompressed(dst, tag)
	dst = appendCompressed(dst, n)
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(uint32(v)>>(8*i)))
	}
	return dst
}

// appendFixed writes v as n raw big-endian bytes, for the untagged fixed
// fields of a PDU.
func appendFixed(dst []byte, v, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

// decoder reads items from a byte slice. It never slices past the end of
// b and reports errShort instead.
type decoder struct {
	b   []byte
	off int
}

// done reports whether every byte has been read.
func (d *decoder) done() bool { return d.off >= len(d.b) }

// byte1 reads one raw byte.
func (d *decoder) byte1() (byte, error) {
	if d.off >= len(d.b) {
		return 0, errShort
	}
	c := d.b[d.off]
	d.off++
	return c, nil
}

// fixed reads an n-byte big-endian unsigned number (n ≤ 4).
func (d *decoder) fixed(n int) (int, error) {
	if len(d.b)-d.off < n {
		return 0, errShort
	}
	v := 0
	for _, c := range d.b[d.off : d.off+n] {
		v = v<<8 | int(c)
	}
	d.off += n
	return v, nil
}

// compressed reads a compressed integer of at most 4 bytes.
func (d *decoder) compressed() (int, error) {
	v := 0
	for i := 0; i < 4; i++ {
		c, err := d.byte1()
		if err != nil {
			return 0, err
		}
		v = v<<7 | int(c&0x7f)
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errors.New("compressed integer longer than 4 bytes")
}

// take returns the next n bytes, checked against what is left.
func (d *decoder) take(n int) ([]byte, error) {
	if n < 0 || len(d.b)-d.off < n {
		return nil, errShort
	}
	v := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return v, nil
}

// tagDiagnostic is the diagnostic record, the one item that is not
// tag-length-value (FORMAT.md §3.3).
const tagDiagnostic = 28

// diagnosticEnd is the end-of-record byte after a diagnostic.
const diagnosticEnd = 0x1d

// item reads one tagged item. A diagnostic record (tag 28) has a 2-byte
// big-endian length and a trailing 0x1D not counted in it; its value is
// returned without that trailer.
func (d *decoder) item() (tag int, value []byte, err error) {
	if tag, err = d.compressed(); err != nil {
		return 0, nil, err
	}
	if tag == tagDiagnostic {
		n, err := d.fixed(2)
		if err != nil {
			return 0, nil, err
		}
		if value, err = d.take(n); err != nil {
			return 0, nil, err
		}
		end, err := d.byte1()
		if err != nil {
			return 0, nil, err
		}
		if end != diagnosticEnd {
			return 0, nil, fmt.Errorf("diagnostic record ends with 0x%02x, not 0x1d", end)
		}
		return tag, value, nil
	}
	return d.tlv(tag)
}

// tlv reads the length and value of an item whose tag has been read.
func (d *decoder) tlv(tag int) (int, []byte, error) {
	n, err := d.compressed()
	if err != nil {
		return 0, nil, err
	}
	value, err := d.take(n)
	if err != nil {
		return 0, nil, err
	}
	return tag, value, nil
}

// plainItem reads one tag-length-value item with no special case, for the
// inside of a document id whose tags have their own meanings.
func (d *decoder) plainItem() (int, []byte, error) {
	tag, err := d.compressed()
	if err != nil {
		return 0, nil, err
	}
	return d.tlv(tag)
}

// number decodes a number item's value: 1 to 4 big-endian bytes, a 4-byte
// value being signed (FORMAT.md §3.2).
func number(v []byte) (int64, error) {
	if len(v) == 0 || len(v) > 4 {
		return 0, fmt.Errorf("number of %d bytes", len(v))
	}
	var u uint32
	for _, c := range v {
		u = u<<8 | uint32(c)
	}
	if len(v) == 4 {
		return int64(int32(u)), nil
	}
	return int64(u), nil
}
