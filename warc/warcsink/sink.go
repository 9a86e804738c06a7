// Package warcsink archives what a fetch.Client fetches as WARC 1.1
// records (ISO 28500:2017): New returns the Client's Archive, which turns
// each attempt's capture into records of a warc.Writer, request and
// response records for HTTP's exchanges, resource and metadata records
// for the other schemes (docs/warc.md, "Records per scheme").
//
// It is the sink of the command's --warc-file, and a program's too:
//
//	w, _ := warc.Create("crawl", warc.Options{Software: "mytool/1.0"})
//	sink := warcsink.New(w, warcsink.Options{})
//	c := &fetch.Client{Archive: sink}
//	… fetch, read each body to its end …
//	err := errors.Join(sink.Err(), w.Close())
package warcsink

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

// Sink is a fetch.Archive that writes WARC records: it turns each
// attempt's capture into records of one warc.Writer. Its captures run at
// once when the Client is used from several goroutines (curl's -Z, a
// mirror); the Writer writes their records one at a time. A record that
// cannot be written does not stop the fetches: Err reports it.
type Sink struct {
	w     *warc.Writer
	dedup *warc.Dedup // the earlier captures of Options.Dedup, nil without

	mu  sync.Mutex
	err error // the first record that could not be written
}

// Options configure a Sink.
type Options struct {
	// Dedup, when set, holds earlier captures (warc.ReadCDX, wget's
	// --warc-dedup): a whole response or resource whose payload digest
	// it holds for the same URL is written as a revisit record (profile
	// identical-payload-digest, WARC 1.1 §6.7.2) instead.
	Dedup *warc.Dedup
}

// New returns the Sink that writes the records of a Client's fetches to
// w. The caller closes w after the fetches, and Sink.Err tells whether a
// record could not be written.
func New(w *warc.Writer, opt Options) *Sink {
	return &Sink{w: w, dedup: opt.Dedup}
}

// fail keeps the first error in writing a record: the fetches go on, and
// Err reports it.
func (s *Sink) fail(err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

// Err returns the first error in writing a record, nil if none.
func (s *Sink) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Begin starts the capture of one attempt; target is the URL without its
// password (fetch.Archive), the WARC-Target-URI of its records.
func (s *Sink) Begin(target string) fetch.Capture {
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
	s      *Sink
	target string
	date   time.Time

	ip      string          // the first connection's remote address (WARC-IP-Address)
	lines   bytes.Buffer    // the conversation, for the metadata record
	listing *warc.Record    // the raw listing's resource record
	body    *warc.Record    // the document's resource record
	ctype   string          // the document's type, as urlget determined it
	http    bool            // HTTP exchanges hold this attempt's bytes
	written []string        // IDs of the resource (or revisit) records written
	tunnel  *tunnelExchange // a proxy's CONNECT, ended, its record not yet written
	ended   bool
}

// warcExchange is the request and response records of one HTTP
// exchange, each naming the other in WARC-Concurrent-To (WARC 1.1 §5.7),
// or the request record alone when no byte of an answer came. The
// request's bytes (a head, small) are kept until the exchange ends, when
// it is known which.
type warcExchange struct {
	c        *warcCapture
	target   string
	ip       string
	reqID    string
	respID   string
	req      bytes.Buffer
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

// Exchange starts the records of one HTTP exchange: a redirect and an
// answered challenge are exchanges of their own; a proxy's CONNECT is
// kept for a metadata record (tunnelExchange).
func (c *warcCapture) Exchange(target string, remote net.Addr) schemes.Exchange {
	c.http = true
	ip := addrIP(remote)
	if !strings.Contains(target, "://") {
		// A CONNECT, its target host:port (RFC 9110 §9.3.6).
		return &tunnelExchange{c: c, ip: ip}
	}
	reqID, respID := warc.NewRecordID(), warc.NewRecordID()
	if c.tunnel != nil {
		c.writeTunnel(target, reqID)
	}
	x := &warcExchange{c: c, target: target, ip: ip, reqID: reqID, respID: respID}
	x.resp = c.begin(warc.Header{Type: warc.Response, ID: respID, TargetURI: target, IPAddress: ip,
		ContentType: warc.HTTPResponseType, ConcurrentTo: []string{reqID}})
	return x
}

func (x *warcExchange) Request(p []byte) {
	if !x.ended {
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
// Options.Dedup holds, a revisit record whose block is the
// response's header section, WARC 1.1 §6.7.2). A request no byte of an
// answer came to (its connection closed, reset or timed out first) went
// out all the same: it is written alone, naming no response.
func (x *warcExchange) End(err error) {
	if x.ended {
		return
	}
	x.ended = true
	s := x.c.s
	var concurrent []string
	if x.answered {
		concurrent = []string{x.respID}
	} else if x.resp != nil {
		x.resp.Discard()
		x.resp = nil
	}
	var recs []*warc.Record
	if req := x.c.begin(warc.Header{Type: warc.Request, ID: x.reqID, TargetURI: x.target, IPAddress: x.ip,
		ContentType: warc.HTTPRequestType, ConcurrentTo: concurrent}); req != nil {
		req.Write(x.req.Bytes())
		recs = append(recs, req)
	}
	if x.resp != nil {
		if err != nil {
			x.resp.Truncate(truncation(err))
		} else if x.headDone {
			if rv := x.c.revisit(x.resp, x.target, x.ip, []string{x.reqID}, x.head, warc.HTTPResponseType); rv != nil {
				x.resp = rv
			}
		}
		recs = append(recs, x.resp)
	}
	// The request and its answer go to the archive together, with one
	// write.
	_, cerr := s.w.CommitAll(recs...)
	s.fail(cerr)
}

// tunnelExchange is a proxy's CONNECT and its answer (RFC 9110 §9.3.6).
// It is not written as request and response records: its target,
// host:port, is no URI for WARC-Target-URI (WARC 1.1 §5.14), and a
// response record of the proxy's "200 Connection established" would be
// indexed and replayed as a capture. It is the conversation that
// opened the tunnel, as an FTP login is, and goes into a metadata record
// (WARC 1.1 §6.6) for the URL fetched through the tunnel, naming that
// exchange's request.
type tunnelExchange struct {
	c          *warcCapture
	ip         string
	req, resp  bytes.Buffer
	ended, cut bool
}

// maxTunnel bounds the bytes of a CONNECT exchange kept: a request and
// an answer's head take a few hundred; a proxy's error page past it is
// left out, said so.
const maxTunnel = 64 << 10

func (t *tunnelExchange) keep(b *bytes.Buffer, p []byte) {
	if t.ended {
		return
	}
	if n := maxTunnel - b.Len(); len(p) > n {
		p, t.cut = p[:max(n, 0)], true
	}
	b.Write(p)
}

func (t *tunnelExchange) Request(p []byte)  { t.keep(&t.req, p) }
func (t *tunnelExchange) Response(p []byte) { t.keep(&t.resp, p) }

// End keeps the ended exchange for the capture: its record is written
// when the tunnelled exchange begins, or when the capture ends (a tunnel
// refused).
func (t *tunnelExchange) End(error) {
	if t.ended {
		return
	}
	t.ended = true
	t.c.tunnel = t
}

// writeTunnel writes the metadata record of the CONNECT kept, for target
// and concurrent to the record IDs given, as the lines of the other
// schemes' conversations ("> " sent, "< " received).
func (c *warcCapture) writeTunnel(target string, concurrent ...string) {
	t := c.tunnel
	c.tunnel = nil
	var b bytes.Buffer
	for _, part := range []struct {
		dir schemes.Direction
		buf *bytes.Buffer
	}{{schemes.Sent, &t.req}, {schemes.Received, &t.resp}} {
		for _, l := range strings.SplitAfter(part.buf.String(), "\n") {
			if l == "" {
				continue
			}
			b.WriteByte(byte(part.dir))
			// A CR inside a line (a proxy's bytes) would end it
			// for a reader of the lines: it goes as a space.
			if l = strings.ReplaceAll(strings.TrimRight(l, "\r\n"), "\r", " "); l != "" {
				b.WriteByte(' ')
				b.WriteString(l)
			}
			b.WriteString("\r\n")
		}
	}
	if t.cut {
		b.WriteString("* (cut: the exchange went on past 64 KiB)\r\n")
	}
	m := c.begin(warc.Header{Type: warc.Metadata, TargetURI: target, IPAddress: t.ip,
		ContentType: "text/plain", ConcurrentTo: concurrent})
	if m == nil {
		return
	}
	m.Write(b.Bytes())
	_, cerr := m.Commit()
	c.s.fail(cerr)
}

// revisit returns, for a whole record whose payload the Dedup index
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
	// §5.11–§5.13, which §6.7.2 recommends for this profile).
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

// truncation returns the WARC-Truncated reason (WARC 1.1 §5.15) of what
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
		// The gophermap: RFC 1436's menu lines (its Appendix; the item
		// types of §3.8) and the "." line.
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

// End writes what is left of the attempt: the resource records, marked WARC-Truncated when err cut
// them, and a metadata record of the conversation, WARC-Concurrent-To
// the resources (WARC 1.1 §6.6, §5.7).
func (c *warcCapture) End(err error) {
	if c.ended {
		return
	}
	c.ended = true
	// HTTP's exchanges end on their own, when the fetcher has read each
	// response to its end or given it up (schemes.Exchange.End).
	if c.tunnel != nil {
		// A tunnel no exchange went through: the proxy refused it, or
		// the TLS handshake inside it failed.
		c.writeTunnel(c.target)
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
