package http

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"strconv"
	"strings"

	"github.com/urlget/urlget/schemes"
)

// checkPart checks a 206 answer to a request for req.Range (curl's -r)
// before a byte of it is written: one part (a Content-Range, RFC 9110
// §14.4) must lie within a range that was asked for, with a Content-Length
// that counts exactly its bytes, so that a server cannot pass other bytes,
// or more of them, for the part; the Resource then gives the part's place
// (Offset, and Size one past its end). Several parts come as
// multipart/byteranges (§14.6), each with its own Content-Range, and are
// passed on as they are, as curl writes them.
func checkPart(req *schemes.Request, resp *response, res *schemes.Resource) error {
	bad := func(format string, a ...any) error {
		return req.Fail(schemes.ErrProtocol, resp.Request.Method, resp.StatusCode, resp.Status, fmt.Errorf(format, a...))
	}
	asked, err := schemes.ParseRanges(req.Range)
	if err != nil {
		return bad("206 response to a Range the request could not have sent: %v", err)
	}
	cr := resp.Header.Get("Content-Range")
	if cr == "" {
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); len(asked) > 1 && strings.EqualFold(mt, "multipart/byteranges") {
			return nil
		}
		return bad("206 response without a Content-Range")
	}
	first, last, total, ok := partRange(cr)
	if !ok {
		return bad("206 response with unusable Content-Range %q", cr)
	}
	held := false
	for _, r := range asked {
		held = held || r.Holds(first, last, total)
	}
	if !held {
		return bad("206 response with Content-Range %q, which is not the range asked for (bytes=%s)", cr, req.Range)
	}
	if n := resp.ContentLength; n >= 0 && n != last-first+1 {
		return bad("206 response with Content-Range %q and Content-Length %d, which disagree", cr, n)
	}
	res.Offset, res.Size = first, last+1
	return nil
}

// partRange parses "bytes first-last/complete" (RFC 9110 §14.4); total is
// -1 when the complete length is "*".
func partRange(v string) (first, last, total int64, ok bool) {
	first, total, ok = contentRange(v)
	if !ok {
		return 0, 0, 0, false
	}
	rng, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(v, "bytes ")), "/")
	_, l, _ := strings.Cut(rng, "-")
	last, err := strconv.ParseInt(l, 10, 64)
	return first, last, total, err == nil
}

// partBody is a 206's part whose length only its Content-Range gives: a
// byte past it is the server's error, not part of the range, and so is
// an end before it.
type partBody struct {
	rc   io.ReadCloser
	req  *schemes.Request
	left int64
}

// Read reads the part, and fails if the body goes on past it or stops
// short of it.
func (p *partBody) Read(b []byte) (int, error) {
	if p.left <= 0 {
		// One byte more than the part is enough to know.
		var one [1]byte
		if n, _ := io.ReadFull(p.rc, one[:]); n > 0 {
			return 0, p.req.Fail(schemes.ErrProtocol, "GET", http206, "", errors.New("the 206 body goes on past its Content-Range"))
		}
		return 0, io.EOF
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	n, err := p.rc.Read(b)
	p.left -= int64(n)
	if err == io.EOF && p.left > 0 {
		err = p.req.Fail(schemes.ErrTruncated, "GET", http206, "", fmt.Errorf("the 206 body ended %d bytes short of its Content-Range", p.left))
	} else if err == io.EOF {
		err = nil
	}
	return n, err
}

// Close closes the body.
func (p *partBody) Close() error { return p.rc.Close() }

// http206 is the status a partBody's errors name.
const http206 = 206
