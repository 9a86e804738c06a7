package http

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/urlget/urlget/schemes"
)

// acceptEncoding is what --compressed asks for: every coding the body can
// be decoded from (RFC 9110 §12.5.3).
const acceptEncoding = "gzip, deflate, br, zstd"

// zstdMaxWindow is the largest Zstandard window a body may need: RFC 9659
// §3 limits the window of the "zstd" content coding to 8 MB, so that a
// server cannot make the client hold more.
const zstdMaxWindow = 8 << 20

// decodable are the content codings decoder undoes.
var decodable = map[string]bool{"gzip": true, "x-gzip": true, "deflate": true, "br": true, "zstd": true}

// codings returns the content codings of a Content-Encoding value in the
// order they were applied (RFC 9110 §8.4), lower case, without "identity".
func codings(v string) []string {
	var cs []string
	for _, c := range strings.Split(v, ",") {
		c = strings.ToLower(strings.TrimSpace(c))
		if c != "" && c != "identity" {
			cs = append(cs, c)
		}
	}
	return cs
}

// decoder returns a reader of r's bytes with one content coding undone,
// and what closes it (nil when nothing needs closing).
func decoder(coding string, r io.Reader) (io.Reader, io.Closer, error) {
	switch coding {
	case "gzip", "x-gzip": // RFC 9110 §8.4.1.3: x-gzip is gzip
		z, err := gzip.NewReader(r)
		return z, z, err
	case "deflate":
		// RFC 9110 §8.4.1.2: "deflate" is the zlib format (RFC 1950),
		// but some servers send raw deflate (RFC 1951); the zlib
		// header's check bits tell them apart, as curl and browsers do.
		br := bufio.NewReader(r)
		if h, err := br.Peek(2); err == nil && h[0]&0x0f == 8 && (uint(h[0])<<8|uint(h[1]))%31 == 0 {
			z, err := zlib.NewReader(br)
			return z, z, err
		}
		z := flate.NewReader(br)
		return z, z, nil
	case "br":
		return brotli.NewReader(r), nil, nil
	case "zstd":
		z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, nil, err
		}
		return z, z.IOReadCloser(), nil
	}
	return nil, nil, fmt.Errorf("unknown content coding %q", coding)
}

// endBody is a response body seen through its decoders, if any, whose last
// read returns end (the status error of --fail-with-body) in place of
// io.EOF when end is set. Errors of the decoders themselves are the
// server's: a body that does not decode is a protocol error.
type endBody struct {
	r       io.Reader
	inner   *body       // the response body itself
	pending []string    // codings whose decoders the first read builds
	closers []io.Closer // the decoders, outermost first, then the body
	req     *schemes.Request
	coding  string // the codings undone, for messages
	end     error
	bodyErr error // the last error of the body itself, which a decoder may wrap
}

// bodyReader reads the response body for the decoders, keeping its errors
// (a timeout, a cancelled transfer, a truncated body) so that they are
// reported as they are, not as bytes that do not decode.
type bodyReader struct{ e *endBody }

func (r bodyReader) Read(p []byte) (int, error) {
	n, err := r.e.inner.Read(p)
	if err != nil && err != io.EOF {
		r.e.bodyErr = err
	}
	return n, err
}

func (e *endBody) Read(p []byte) (int, error) {
	if e.pending != nil {
		if err := e.decoders(); err != nil {
			return 0, err
		}
	}
	n, err := e.r.Read(p)
	switch {
	case err == io.EOF && e.end != nil:
		err = e.end
	case err != nil && err != io.EOF:
		err = e.decodeError(e.coding, err)
	}
	return n, err
}

// decoders builds the decoders of the pending codings on the first read,
// so that Fetch returns without waiting for the body's first bytes, and an
// empty body (a 204, an empty error page) reads as empty whatever its
// Content-Encoding says.
func (e *endBody) decoders() error {
	cs := e.pending
	e.pending = nil
	br := bufio.NewReader(bodyReader{e})
	e.r = br
	if _, err := br.Peek(1); err == io.EOF {
		return nil
	}
	// The last coding applied is undone first (RFC 9110 §8.4).
	for i := len(cs) - 1; i >= 0; i-- {
		r, c, err := decoder(cs[i], e.r)
		if err != nil {
			return e.decodeError(cs[i], err)
		}
		e.r = r
		if c != nil {
			e.closers = append([]io.Closer{c}, e.closers...)
		}
	}
	return nil
}

// decodeError reports a read error: the body's own as it is, a decoder's
// as the server's protocol error.
func (e *endBody) decodeError(coding string, err error) error {
	if e.bodyErr != nil {
		return e.bodyErr
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
		err = errors.New("it ends early")
	}
	return e.req.Fail(schemes.ErrProtocol, "decode body", 0, "", fmt.Errorf("the %s-encoded body does not decode: %w", coding, err))
}

// Close closes the decoders and then the body.
func (e *endBody) Close() error {
	var err error
	for _, c := range e.closers {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// wrapBody undoes b's content codings when the request asked for
// --compressed (cs lists them, as applied), and makes its end return end
// when that is set. Without either it returns b itself, so that the
// body's own WriteTo keeps its kernel copies.
func wrapBody(req *schemes.Request, b *body, cs []string, end error) io.ReadCloser {
	if len(cs) == 0 && end == nil {
		return b
	}
	return &endBody{r: b, inner: b, pending: cs, req: req, coding: strings.Join(cs, ", "), end: end, closers: []io.Closer{b}}
}
