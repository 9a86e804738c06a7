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
	// got (WARC-Truncated, WARC 1.1 §5.13).
	End(err error)
}

// errClosedEarly is why a body or listing closed before its end was cut.
var errClosedEarly = &schemes.Error{Kind: schemes.ErrTruncated, Op: "close", Err: errors.New("closed by the caller before its end")}

// archivedURL is u as an archive names it: its password removed, the user
// name kept (WARC-Target-URI, WARC 1.1 §5.6, names what was fetched, and a
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
func captured(req *schemes.Request, cp Capture) *schemes.Request {
	r := *req
	r.Capture = cp
	trace := req.Trace
	r.Trace = func(dir schemes.Direction, line string) {
		trace.TraceLine(dir, line)
		cp.Line(dir, line)
	}
	r.Dialer = capturingDialer{req.Dialer, cp}
	return &r
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
// them. It hides the body's WriteTo: every byte goes through Read, into
// the caller's buffer and the capture (the Client reads it plainly).
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
