package schemes

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ByteRange is one byte range of Request.Range (RFC 9110 §14.1.2):
// "first-last", "first-" (Last -1) or "-suffix" (First -1, the last
// Suffix bytes).
type ByteRange struct {
	First  int64
	Last   int64
	Suffix int64
}

// Causes of a range a fetcher cannot serve, each under a kind of the
// taxonomy, for the command's exit codes (curl's 33 and 36).
var (
	// ErrBadRange, under ErrBadURL: a Range no server could serve
	// ("5-3", a number too large, no number at all); under
	// ErrNotRetrievable, one the server does not serve (an FTP server
	// that refuses REST). curl's exit 33 for both.
	ErrBadRange = errors.New("bad byte range")
	// ErrPastEnd, under ErrNotRetrievable: a range, or a resume offset,
	// that starts past the resource's end, or a suffix longer than it.
	ErrPastEnd = errors.New("past the end")
)

// ParseRanges reads every range of spec, a Request.Range, separated by
// commas.
func ParseRanges(spec string) ([]ByteRange, error) {
	var rs []ByteRange
	for _, s := range strings.Split(spec, ",") {
		r, err := ParseRange(s)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// ParseRange reads one range, "first-last", "first-" or "-suffix", blanks
// around the numbers allowed; a number alone is "first-", as curl's
// Curl_range reads it. The first range of a list is what ftp: and file:
// serve, curl's reading of "0-1,5-9" for them: ParseRange(FirstRange(s)).
func ParseRange(s string) (ByteRange, error) {
	bad := func() (ByteRange, error) {
		return ByteRange{}, fmt.Errorf("%w: %q", ErrBadRange, s)
	}
	first, last, dash := strings.Cut(s, "-")
	first, last = strings.TrimSpace(first), strings.TrimSpace(last)
	num := func(t string) (int64, bool) {
		if t == "" || strings.TrimLeft(t, "0123456789") != "" {
			return 0, false
		}
		n, err := strconv.ParseInt(t, 10, 64)
		return n, err == nil
	}
	a, okA := num(first)
	b, okB := num(last)
	switch {
	case okA && (!dash || last == ""):
		return ByteRange{First: a, Last: -1}, nil
	case first == "" && okB:
		return ByteRange{First: -1, Last: -1, Suffix: b}, nil
	case okA && okB && a <= b:
		return ByteRange{First: a, Last: b}, nil
	}
	return bad()
}

// RangeErrorKind is the kind of the taxonomy an error of ParseRange or
// Bounds goes under: ErrBadURL for ErrBadRange, else ErrNotRetrievable.
func RangeErrorKind(err error) error {
	if errors.Is(err, ErrBadRange) {
		return ErrBadURL
	}
	return ErrNotRetrievable
}

// FirstRange returns the first range of a list, the one ftp: and file:
// serve.
func FirstRange(spec string) string {
	s, _, _ := strings.Cut(spec, ",")
	return s
}

// Bounds resolves r against a resource of size bytes (-1 when unknown):
// the first byte and how many bytes to send from it, -1 for all that
// follow. A start beyond the end, or a suffix larger than the resource,
// cannot be served (curl's "Offset … was beyond file size", exit 36).
func (r ByteRange) Bounds(size int64) (start, n int64, err error) {
	if r.First < 0 {
		if size < 0 {
			return 0, 0, fmt.Errorf("%w: the size is unknown, so the last %d bytes cannot be found", ErrBadRange, r.Suffix)
		}
		if r.Suffix > size {
			return 0, 0, fmt.Errorf("the last %d bytes reach %w of the %d-byte file", r.Suffix, ErrPastEnd, size)
		}
		return size - r.Suffix, r.Suffix, nil
	}
	if size >= 0 && r.First > size {
		return 0, 0, fmt.Errorf("range start %d is %w of the %d-byte file", r.First, ErrPastEnd, size)
	}
	n = -1
	if r.Last >= 0 {
		n = r.Last - r.First + 1
	}
	if size >= 0 && (n < 0 || r.First+n > size) {
		n = size - r.First
	}
	return r.First, n, nil
}

// Holds reports whether the part first-last of a resource of total bytes
// (-1 when unknown), as a 206's Content-Range gives it, lies within r: it
// starts where r starts, and ends no later than r ends (a server may end a
// range early at the end of the resource, RFC 9110 §14.1.2).
func (r ByteRange) Holds(first, last, total int64) bool {
	if r.First < 0 {
		n := last - first + 1
		return n <= r.Suffix && (total < 0 || last == total-1)
	}
	return first == r.First && (r.Last < 0 || last <= r.Last)
}
