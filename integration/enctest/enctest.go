// Package enctest encodes test bodies in the HTTP content codings urlget
// decodes (RFC 9110 §8.4.1), for servers in tests that send them.
package enctest

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// Codings are the codings Encode knows. "rawdeflate" is deflate (RFC 1951)
// without the zlib wrapper (RFC 1950) that RFC 9110 §8.4.1.2 asks for,
// as some servers send it under the name "deflate".
var Codings = []string{"gzip", "deflate", "rawdeflate", "br", "zstd"}

// Encode returns data in one content coding.
func Encode(coding string, data []byte) ([]byte, error) {
	var b bytes.Buffer
	var w io.WriteCloser
	var err error
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&b)
	case "deflate":
		w = zlib.NewWriter(&b)
	case "rawdeflate":
		w, err = flate.NewWriter(&b, flate.BestSpeed)
	case "br":
		w = brotli.NewWriter(&b)
	case "zstd":
		w, err = zstd.NewWriter(&b)
	default:
		return nil, fmt.Errorf("enctest: no coding %q", coding)
	}
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Name is the Content-Encoding a coding is sent under.
func Name(coding string) string {
	if coding == "rawdeflate" {
		return "deflate"
	}
	return coding
}
