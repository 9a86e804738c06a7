package schemes

import (
	"io"
	"net"
)

// Capture receives what one fetch exchanged with its servers, as it
// crossed the wire, for an archive: the WARC request and response records
// of HTTP (ISO 28500:2017, WARC 1.1 §6.5, §6.3), the resource and metadata
// records of the other protocols (§6.4, §6.6). fetch.Client sets
// Request.Capture when it archives; a fetcher reports into it what only the
// fetcher sees. It is nil otherwise, and a fetcher then does no work for it.
//
// The bytes passed to its methods are valid only during the call. One
// fetch calls its Capture from one goroutine at a time; the captures of
// fetches running at once are called at once.
type Capture interface {
	// Exchange starts the record of one HTTP/1.x request and its
	// response, sent to target (the request URL without userinfo, or
	// host:port for a CONNECT) on a connection to remote (the proxy's
	// address for a proxy or a tunnel through it). A redirect, an
	// authentication challenge answered and a CONNECT are exchanges of
	// their own. It has the shape of the http fetcher's Recorder, which
	// a Capture therefore is too.
	Exchange(target string, remote net.Addr) Exchange

	// Connected tells the address of a connection the fetch opened or
	// took from its fetcher's idle ones (an FTP or NNTP session kept
	// from an earlier fetch): the server's, or the proxy's a connection
	// goes through (WARC-IP-Address, WARC 1.1 §5.10). An FTP data
	// connection is one too; the first is the server's.
	Connected(remote net.Addr)

	// Line receives one line of the protocol conversation, as
	// Request.Trace does, secrets already masked (TraceSecret): the FTP
	// control exchange, the gopher selector, NNTP commands and status
	// lines, the WAIS query, and the client's notes (Info).
	Line(dir Direction, line string)

	// Listing receives bytes of a listing as the server sent them (an FTP
	// LIST, NLST or MLSD data connection, a gophermap with its "." line,
	// an NNTP OVER, XOVER or LIST data block with its dot stuffing and
	// final "." line, RFC 3977 §3.1.1, a WAIS search response with its
	// header, as req.Raw would return it), or, for a file: directory,
	// its entries' names one a line. A listing the caller asked for Raw
	// comes as its Body instead and is not reported here.
	Listing(p []byte)
}

// Exchange receives the bytes of one HTTP/1.x request and its response
// (Capture.Exchange).
type Exchange interface {
	// Request receives bytes of the request as written. p is valid only
	// during the call.
	Request(p []byte)
	// Response receives bytes of the response as read, interim (1xx)
	// responses included. p is valid only during the call.
	Response(p []byte)
	// End ends the exchange, once: err is nil when the response was
	// read to its last byte, else what cut it short (the body closed
	// before its end, of schemes.ErrTruncated's kind; a connection that
	// failed; a timeout). It is called as soon as the response ends, not
	// when its body is closed later. An exchange ended before any
	// Response is a request that went out and got no answer.
	End(err error)
}

// CaptureListing returns r, reporting the bytes read from it to c's
// Listing: r itself when c is nil, so that a fetch that archives nothing
// reads its listing as before.
func CaptureListing(r io.Reader, c Capture) io.Reader {
	if c == nil {
		return r
	}
	return &listingTap{r: r, c: c}
}

type listingTap struct {
	r io.Reader
	c Capture
}

func (t *listingTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.c.Listing(p[:n])
	}
	return n, err
}
