package cli

import (
	"bytes"
	"errors"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/warc"
)

// warcSink is the fetch.Archive of --warc-file: it turns each attempt's
// capture into WARC 1.1 records (ISO 28500:2017) of one warc.Writer,
// request and response records for HTTP's exchanges, resource and
// metadata records for the other schemes (docs/warc.md, "Records per
// scheme"). Its captures run at once under -Z and in a mirror; the
// Writer writes their records one at a time.
type warcSink struct {
	w     *warc.Writer
	dedup *warc.Dedup // --warc-dedup's captures, nil without it

	mu  sync.Mutex
	err error // the first record that could not be written
}

// fail keeps the first error in writing a record: the run goes on, and
// its end reports it (exitWrite).
func (s *warcSink) fail(err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

// firstErr returns the first error in writing a record, nil if none.
func (s *warcSink) firstErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Begin starts the capture of one attempt; target is the URL without its
// password (fetch.Archive), the WARC-Target-URI of its records.
func (s *warcSink) Begin(target string) fetch.Capture {
	return &warcCapture{s: s, target: target, date: time.Now()}
}

// emptyDigest is the payload digest of nothing: no payload is taken for a
// revisit of another, or every empty body would refer to the first.
var emptyDigest = warc.DigestOf(nil)

// maxRevisitHead bounds the HTTP header section kept for a revisit
// record's block; past it the response is written whole.
const maxRevisitHead = 1 << 20

// warcCapture is one attempt's records being built.
type warcCapture struct {
	s      *warcSink
	target string
	date   time.Time

	ip        string       // the first connection's remote address (WARC-IP-Address)
	lines     bytes.Buffer // the conversation, for the metadata record
	listing   *warc.Record // the raw listing's resource record
	body      *warc.Record // the document's resource record
	ctype     string       // the document's type, as urlget determined it
	exchanges []*warcExchange
	http      bool     // HTTP exchanges hold this attempt's bytes
	written   []string // IDs of the resource (or revisit) records written
	ended     bool
}

// warcExchange is the request and response records of one HTTP
// exchange, each naming the other in WARC-Concurrent-To (WARC 1.1 §5.7).
type warcExchange struct {
	c        *warcCapture
	target   string
	ip       string
	reqID    string
	req      *warc.Record
	resp     *warc.Record
	head     []byte // the response's header section, for a revisit
	headDone bool
	answered bool // a byte of the response came
	ended    bool
}

// addrIP returns the address of a connection's far end without its port.
func addrIP(a net.Addr) string {
	if a == nil {
		return ""
	}
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP.String()
	case *net.UDPAddr:
		return a.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return ""
	}
	return host
}

func (c *warcCapture) begin(h warc.Header) *warc.Record {
	h.Date = c.date
	r, err := c.s.w.Begin(h)
	if err != nil {
		c.s.fail(err)
		return nil
	}
	return r
}

// Exchange starts the records of one HTTP exchange: a redirect, an
// answered challenge and a CONNECT are exchanges of their own.
func (c *warcCapture) Exchange(target string, remote net.Addr) schemes.Exchange {
	c.http = true
	reqID, respID := warc.NewRecordID(), warc.NewRecordID()
	ip := addrIP(remote)
	x := &warcExchange{c: c, target: target, ip: ip, reqID: reqID}
	x.req = c.begin(warc.Header{Type: warc.Request, ID: reqID, TargetURI: target, IPAddress: ip,
		ContentType: warc.HTTPRequestType, ConcurrentTo: []string{respID}})
	x.resp = c.begin(warc.Header{Type: warc.Response, ID: respID, TargetURI: target, IPAddress: ip,
		ContentType: warc.HTTPResponseType, ConcurrentTo: []string{reqID}})
	c.exchanges = append(c.exchanges, x)
	return x
}

func (x *warcExchange) Request(p []byte) {
	if x.req != nil && !x.ended {
		x.req.Write(p)
	}
}

func (x *warcExchange) Response(p []byte) {
	if x.resp == nil || x.ended {
		return
	}
	x.resp.Write(p)
	x.answered = x.answered || len(p) > 0
	if x.c.s.dedup != nil && !x.headDone && len(x.head) <= maxRevisitHead {
		old := len(x.head)
		x.head = append(x.head, p...)
		if i := bytes.Index(x.head[max(old-3, 0):], []byte("\r\n\r\n")); i >= 0 {
			x.head = x.head[:max(old-3, 0)+i+4]
			x.headDone = true
		}
	}
}

// End writes the request, then the response (or, for a payload
// --warc-dedup's index holds, a revisit record whose block is the
// response's header section, WARC 1.1 §6.7.2).
func (x *warcExchange) End(err error) {
	if x.ended {
		return
	}
	x.ended = true
	s := x.c.s
	if !x.answered {
		// No byte of an answer: a request sent ahead on a connection
		// that closed, or one that failed. A record of the server's
		// is what an archive holds, and there is none.
		if x.req != nil {
			x.req.Discard()
		}
		if x.resp != nil {
			x.resp.Discard()
		}
		return
	}
	if x.req != nil {
		_, cerr := x.req.Commit()
		s.fail(cerr)
	}
	if x.resp == nil {
		return
	}
	if err != nil {
		x.resp.Truncate(truncation(err))
	} else if x.headDone {
		if rv := x.c.revisit(x.resp, x.target, x.ip, []string{x.reqID}, x.head, warc.HTTPResponseType); rv != nil {
			x.resp = rv
		}
	}
	_, cerr := x.resp.Commit()
	s.fail(cerr)
}

// revisit returns, for a whole record whose payload --warc-dedup's index
// holds at url, a revisit record in its place (profile
// identical-payload-digest, WARC 1.1 §6.7.2) holding block, and discards
// the record; nil when the payload is new.
func (c *warcCapture) revisit(r *warc.Record, url, ip string, concurrent []string, block []byte, ctype string) *warc.Record {
	if c.s.dedup == nil {
		return nil
	}
	d := r.PayloadDigest()
	if d == "" || d == emptyDigest {
		return nil
	}
	prev, ok := c.s.dedup.Lookup(d, url)
	if !ok {
		return nil
	}
	// The revisit keeps the record's ID: the request names it.
	// WARC-Refers-To is the earlier record's ID, with its URI and date
	// in WARC-Refers-To-Target-URI and WARC-Refers-To-Date (WARC 1.1
	// §5, as §6.7.2 asks of this profile).
	id := r.ID()
	r.Discard()
	rv := c.begin(warc.Header{Type: warc.Revisit, ID: id, TargetURI: url, IPAddress: ip,
		ContentType: ctype, ConcurrentTo: concurrent, RefersTo: prev.RecordID, PayloadDigest: d,
		RefersToTargetURI: prev.URL, RefersToDate: prev.Date})
	if rv != nil && len(block) > 0 {
		rv.Write(block)
	}
	return rv
}

// truncation returns the WARC-Truncated reason (WARC 1.1 §5) of what
// cut a transfer short.
func truncation(err error) string {
	switch {
	case errors.Is(err, schemes.ErrTimeout):
		return warc.TruncatedTime
	case errors.Is(err, schemes.ErrTooLarge):
		return warc.TruncatedLength
	case errors.Is(err, schemes.ErrTruncated):
		return warc.TruncatedDisconnect
	}
	return warc.TruncatedUnspecified
}

// Connected keeps the first connection's address: the server's (or the
// proxy's), WARC-IP-Address (WARC 1.1 §5.10) of the records.
func (c *warcCapture) Connected(remote net.Addr) {
	if c.ip == "" {
		c.ip = addrIP(remote)
	}
}

// Line keeps a line of the conversation for the metadata record; the
// fetcher has masked its secrets (PASS ****).
func (c *warcCapture) Line(dir schemes.Direction, line string) {
	c.lines.WriteByte(byte(dir))
	c.lines.WriteByte(' ')
	c.lines.WriteString(line)
	c.lines.WriteString("\r\n")
}

// listingType is the Content-Type of a listing's resource record: the
// bytes as the server sent them, so the type of those bytes rather than
// of the listing urlget makes of them.
func listingType(target string) string {
	scheme, _, _ := strings.Cut(target, ":")
	switch strings.ToLower(scheme) {
	case "gopher", "gophers":
		// The gophermap, RFC 1436 §3.8 menu lines and the "." line.
		return "application/gopher-menu"
	case "wais":
		// A Z39.50 search response (RFC 1625), binary.
		return "application/octet-stream"
	}
	// FTP's LIST, NLST or MLSD lines (RFC 959, RFC 3659), NNTP's OVER
	// block (RFC 3977 §8.3), a file: directory's names.
	return "text/plain"
}

// Listing writes the raw listing into its resource record as it comes.
func (c *warcCapture) Listing(p []byte) {
	if c.http || !c.beginListing() {
		return
	}
	c.listing.Write(p)
}

// beginListing begins the listing's resource record, once; false when it
// could not be begun.
func (c *warcCapture) beginListing() bool {
	if c.listing == nil {
		c.listing = c.begin(warc.Header{Type: warc.Resource, TargetURI: c.target, IPAddress: c.ip,
			ContentType: listingType(c.target)})
	}
	return c.listing != nil
}

// Fetched begins the document's resource record, its Content-Type the
// type urlget determined; an HTTP response already holds its body. A
// listing's record is begun here too: a listing of no bytes (vsftpd's
// LIST of an empty directory, an NNTP group without articles, which
// sends no OVER) is a resource record of none, what the server
// answered, rather than no record and a metadata record naming nothing.
func (c *warcCapture) Fetched(res *schemes.Resource, err error) {
	if c.http || res == nil {
		return
	}
	if res.Listing != nil {
		c.beginListing()
		return
	}
	if res.Body == nil {
		return
	}
	c.ctype = res.ContentType
	if c.ctype == "" {
		c.ctype = "application/octet-stream"
	}
	c.body = c.begin(warc.Header{Type: warc.Resource, TargetURI: c.target, IPAddress: c.ip, ContentType: c.ctype})
}

// Body writes the document's bytes as the caller reads them.
func (c *warcCapture) Body(p []byte) {
	if c.body != nil {
		c.body.Write(p)
	}
}

// End writes what is left of the attempt: HTTP exchanges not ended (cut
// by err), the resource records, marked WARC-Truncated when err cut
// them, and a metadata record of the conversation, WARC-Concurrent-To
// the resources (WARC 1.1 §6.6, §5.7).
func (c *warcCapture) End(err error) {
	if c.ended {
		return
	}
	c.ended = true
	// The attempt's end is the last exchange's: a body read to its end
	// (err nil) is a whole response, though its connection may tell
	// the exchange's end only later, when the body is closed. An
	// earlier exchange still open is not this attempt's answer: a
	// request sent ahead on a pipeline that the fetch asked again
	// elsewhere, whose response may be arriving still. Its fetcher
	// ends it (a response drained, or dropped and so cut); ended here
	// it would be committed as whole with what had come of it so far.
	if n := len(c.exchanges); n > 0 {
		c.exchanges[n-1].End(err)
	}
	c.finish(c.listing, err)
	c.finish(c.body, err)
	if c.lines.Len() == 0 || c.http {
		// HTTP's exchanges are their own record of the conversation;
		// -v's notes are not the archive's.
		return
	}
	m := c.begin(warc.Header{Type: warc.Metadata, TargetURI: c.target, IPAddress: c.ip,
		ContentType: "text/plain", ConcurrentTo: c.written})
	if m == nil {
		return
	}
	m.Write(c.lines.Bytes())
	_, cerr := m.Commit()
	c.s.fail(cerr)
}

// finish commits a resource record, or a revisit in its place.
func (c *warcCapture) finish(r *warc.Record, err error) {
	if r == nil {
		return
	}
	if err != nil {
		r.Truncate(truncation(err))
	} else if rv := c.revisit(r, c.target, c.ip, nil, nil, ""); rv != nil {
		r = rv
	}
	e, cerr := r.Commit()
	if cerr != nil {
		c.s.fail(cerr)
		return
	}
	c.written = append(c.written, e.ID)
}
