package fetch

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// Archive receives what a Client's fetches exchanged with their servers,
// for an archive such as a WARC file (ISO 28500:2017, WARC 1.1): a
// program sets Client.Archive to archive what it fetches. The interface
// lies here, not in the package that writes the archive, so that fetch
// imports no archive format.
//
// An HTTP request's credential fields reach it masked unless the Client's
// ArchiveCredentials keeps them (archivemask.go); nothing else of what
// crossed the wire is changed.
//
// Begin is called once for each attempt Do makes (a retry is an attempt of
// its own, with its own exchanges), from the goroutine that called Do: a
// Client used from several goroutines (curl's -Z) calls Begin, and the
// Captures it returned, from all of them at once.
type Archive interface {
	// Begin starts the capture of one attempt at target, the URL as
	// given to the fetcher (its host in ASCII form) with any password
	// removed. It returns nil to capture nothing of this attempt.
	Begin(target string) Capture
}

// Capture receives one attempt's exchanges (the schemes.Capture the
// fetcher reports into, see there), then what the fetcher returned, the
// body's bytes as the caller reads them, and the attempt's end. Its
// methods are called from one goroutine at a time: the one that called Do,
// then the one reading the Resource.
type Capture interface {
	schemes.Capture

	// Fetched tells what the fetcher returned: the Resource, whose
	// metadata (URL, ContentType as urlget determined it, Size,
	// ModTime, status, Header) the record needs, or the error it failed
	// with. res's Body and Listing are the caller's: the capture must
	// not read them. End follows.
	Fetched(res *schemes.Resource, err error)

	// Body receives the bytes of the Resource's Body as the caller reads
	// them, in order; the caller reads them once, the capture sees
	// them as they pass. p is valid only during the call.
	Body(p []byte)

	// End ends the attempt, once: err is nil when the Body or Listing
	// was read to its end (or there was none), else what cut it short:
	// the fetch's error, the reading's (a timeout, a size limit, a
	// connection that broke, of the schemes taxonomy), or, for one the
	// caller closed before its end, an error wrapping
	// schemes.ErrTruncated. What arrived before it is all the capture
	// got (WARC-Truncated, WARC 1.1 §5.15).
	End(err error)
}

// errClosedEarly is why a body or listing closed before its end was cut.
var errClosedEarly = &schemes.Error{Kind: schemes.ErrTruncated, Op: "close", Err: errors.New("closed by the caller before its end")}

// archivedURL is u as an archive names it: its password removed, the user
// name kept (WARC-Target-URI, WARC 1.1 §5.14, names what was fetched, and a
// password is no part of that).
func archivedURL(u uri.URL) string {
	s := u.String()
	ui, ok := u.RawUserinfo()
	if !ok {
		return s
	}
	user, _, hasPW := strings.Cut(ui, ":")
	if !hasPW {
		return s
	}
	return strings.Replace(s, "//"+ui+"@", "//"+user+"@", 1)
}

// captured returns a copy of req for one attempt whose exchanges cp
// captures: its Capture set, its Trace telling cp the conversation's
// lines too, and its Dialer telling cp the addresses it connects to.
//
// An http: or https: URL keeps the Client's Trace, nil when there is
// none: its capture has every exchange byte for byte, which the lines
// only repeat, and a request without a Trace may go out pipelined.
func captured(req *schemes.Request, cp Capture) *schemes.Request {
	r := *req
	r.Capture = cp
	if trace := req.Trace; trace != nil || !isHTTP(req.URL) {
		r.Trace = func(dir schemes.Direction, line string) {
			trace.TraceLine(dir, line)
			cp.Line(dir, line)
		}
	}
	r.Dialer = capturingDialer{req.Dialer, cp}
	return &r
}

// isHTTP reports whether u is an http: or https: URL.
func isHTTP(u uri.URL) bool {
	s := u.Scheme()
	return s == "http" || s == "https"
}

// capturingDialer tells a capture the address of each connection dialled.
type capturingDialer struct {
	d  schemes.Dialer
	cp Capture
}

func (d capturingDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := d.d.DialContext(ctx, network, address)
	if err == nil {
		d.cp.Connected(c.RemoteAddr())
	}
	return c, err
}

// captureEnd calls a capture's End once, whichever way the attempt ends.
type captureEnd struct {
	once sync.Once
	cp   Capture
}

func (e *captureEnd) end(err error) {
	e.once.Do(func() { e.cp.End(err) })
}

// capturedBody passes a body's bytes to its capture as the caller reads
// them, through Read or through WriteTo (io.Copy's), which keeps the
// body's own: its timeouts and the destination's write errors come back
// as without an archive. The Client reads such a body plainly, every
// byte through user space (Config.Plain).
type capturedBody struct {
	rc  io.ReadCloser
	cp  Capture
	end *captureEnd
}

func (b *capturedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.cp.Body(p[:n])
	}
	switch {
	case err == io.EOF:
		b.end.end(nil)
	case err != nil:
		b.end.end(err)
	}
	return n, err
}

// WriteTo copies the body to w with the body's WriteTo, each piece told to
// the capture before w gets it.
func (b *capturedBody) WriteTo(w io.Writer) (int64, error) {
	wt, ok := b.rc.(io.WriterTo)
	if !ok {
		return io.Copy(w, readerOnly{b})
	}
	n, err := wt.WriteTo(bodyTee{w: w, cp: b.cp})
	b.end.end(err)
	return n, err
}

// bodyTee tells a capture the bytes a body writes on their way to w. It
// has Write alone: no copy path of the kernel's can pass it by.
type bodyTee struct {
	w  io.Writer
	cp Capture
}

func (t bodyTee) Write(p []byte) (int, error) {
	t.cp.Body(p)
	return t.w.Write(p)
}

// readerOnly hides every method of a reader but Read, so that io.Copy
// does not call the WriteTo it wraps again.
type readerOnly struct{ io.Reader }

func (b *capturedBody) Close() error {
	b.end.end(errClosedEarly)
	return b.rc.Close()
}

// capturedListing ends its capture with the listing: at io.EOF, at an
// error, or closed before its end.
type capturedListing struct {
	schemes.Listing
	end *captureEnd
}

func (l *capturedListing) Next() (schemes.Entry, error) {
	e, err := l.Listing.Next()
	switch {
	case err == io.EOF:
		l.end.end(nil)
	case err != nil:
		l.end.end(err)
	}
	return e, err
}

func (l *capturedListing) Close() error {
	l.end.end(errClosedEarly)
	return l.Listing.Close()
}

// NamesOnly passes on the listing's (schemes.NameLister).
func (l *capturedListing) NamesOnly() bool { return schemes.NamesOnly(l.Listing) }

// aheads holds the captures of the requests Expect told a fetcher about
// while the Client archives, until Do fetches their URLs: HTTP sends such
// a request ahead on a pipeline (RFC 9112 §9.3.2) before its own fetch
// begins, and records its exchange into the request's Capture then.
type aheads struct {
	mu sync.Mutex
	m  map[string][]*aheadCapture // by URL, in the order told
}

// add keeps a capture for a request of url told ahead.
func (h *aheads) add(url string, a *aheadCapture) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string][]*aheadCapture{}
	}
	h.m[url] = append(h.m[url], a)
}

// take returns the first capture kept for url, nil when there is none.
func (h *aheads) take(url string) *aheadCapture {
	h.mu.Lock()
	defer h.mu.Unlock()
	as := h.m[url]
	if len(as) == 0 {
		return nil
	}
	if len(as) == 1 {
		delete(h.m, url)
	} else {
		h.m[url] = as[1:]
	}
	return as[0]
}

// reset forgets every capture kept: their requests will not be fetched.
func (h *aheads) reset() {
	h.mu.Lock()
	h.m = nil
	h.mu.Unlock()
}

// aheadCapture is the capture of a request told ahead: what its fetcher
// reports before the request's own fetch begins is kept (the request's
// bytes, small) until that fetch claims it (attach), and then passed on.
// A response read before then is one the fetcher dropped, unasked for: no
// fetch will claim it, and its bytes are not kept.
type aheadCapture struct {
	mu    sync.Mutex
	to    schemes.Capture // nil until attached
	early []func(schemes.Capture)
}

// attach passes what was kept to to, and all that follows.
func (a *aheadCapture) attach(to schemes.Capture) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.to = to
	for _, f := range a.early {
		f(to)
	}
	a.early = nil
}

// do passes a call on, or keeps it for attach.
func (a *aheadCapture) do(f func(schemes.Capture)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.to != nil {
		f(a.to)
		return
	}
	a.early = append(a.early, f)
}

func (a *aheadCapture) Exchange(target string, remote net.Addr) schemes.Exchange {
	x := &aheadExchange{a: a}
	a.do(func(to schemes.Capture) { x.x = to.Exchange(target, remote) })
	return x
}

func (a *aheadCapture) Connected(remote net.Addr) {
	a.do(func(to schemes.Capture) { to.Connected(remote) })
}

func (a *aheadCapture) Line(dir schemes.Direction, line string) {
	a.do(func(to schemes.Capture) { to.Line(dir, line) })
}

func (a *aheadCapture) Listing(p []byte) {
	p = append([]byte(nil), p...)
	a.do(func(to schemes.Capture) { to.Listing(p) })
}

// aheadExchange is an exchange of an aheadCapture.
type aheadExchange struct {
	a *aheadCapture
	x schemes.Exchange // set under a.mu once attached
	// lost is set, under a.mu, once bytes of the response came before
	// the fetch claimed it: they were not kept, so a record of the
	// rest would begin in the middle of the response (a pipelined
	// answer the fetcher was draining when the fetch came). The rest
	// is dropped too, and with no byte of an answer the exchange
	// leaves no record.
	lost bool
}

func (x *aheadExchange) Request(p []byte) {
	p = append([]byte(nil), p...)
	x.a.do(func(schemes.Capture) { x.x.Request(p) })
}

func (x *aheadExchange) Response(p []byte) {
	x.a.mu.Lock()
	defer x.a.mu.Unlock()
	switch {
	case x.x == nil:
		x.lost = x.lost || len(p) > 0
	case !x.lost:
		x.x.Response(p)
	}
}

func (x *aheadExchange) End(err error) {
	x.a.do(func(schemes.Capture) { x.x.End(err) })
}

// serialCapture calls its Capture from one goroutine at a time: a fetch
// that claimed an aheadCapture is reported to from its own goroutine and
// from that of the fetch still sending requests ahead.
type serialCapture struct {
	mu sync.Mutex
	cp Capture
}

// with calls f under the lock.
func (s *serialCapture) with(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

func (s *serialCapture) Exchange(target string, remote net.Addr) schemes.Exchange {
	x := &serialExchange{s: s}
	s.with(func() { x.x = s.cp.Exchange(target, remote) })
	return x
}

func (s *serialCapture) Connected(remote net.Addr) { s.with(func() { s.cp.Connected(remote) }) }
func (s *serialCapture) Line(dir schemes.Direction, line string) {
	s.with(func() { s.cp.Line(dir, line) })
}
func (s *serialCapture) Listing(p []byte) { s.with(func() { s.cp.Listing(p) }) }
func (s *serialCapture) Fetched(res *schemes.Resource, err error) {
	s.with(func() { s.cp.Fetched(res, err) })
}
func (s *serialCapture) Body(p []byte) { s.with(func() { s.cp.Body(p) }) }
func (s *serialCapture) End(err error) { s.with(func() { s.cp.End(err) }) }

type serialExchange struct {
	s *serialCapture
	x schemes.Exchange
}

func (x *serialExchange) Request(p []byte)  { x.s.with(func() { x.x.Request(p) }) }
func (x *serialExchange) Response(p []byte) { x.s.with(func() { x.x.Response(p) }) }
func (x *serialExchange) End(err error)     { x.s.with(func() { x.x.End(err) }) }
