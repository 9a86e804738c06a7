package schemes

import "sync"

// Opening keeps the beginning of a session's conversation (an FTP control
// connection, an NNTP connection) kept between fetches, for the archive of
// each later fetch on it: the fetch that opened the session has in its
// own conversation the greeting, the TLS upgrade, the login (its secrets
// masked) and the commands that set the session up (TYPE, MODE READER),
// which a later fetch on the session does not send again. Replay tells
// them to a later fetch's Capture ahead of its own lines, so that each
// metadata record of an archive (WARC 1.1 §6.6) says how its session was
// opened, read on its own.
//
// It is kept only for a session opened by a captured fetch (NewOpening):
// a fetch that archives nothing pays nothing. Its methods may be called
// on a nil *Opening.
type Opening struct {
	mu    sync.Mutex
	url   string // the URL of the fetch that opened the session, password removed
	lines []openingLine
	size  int
	ended bool
	cut   bool // lines past maxOpening were left out
}

type openingLine struct {
	dir  Direction
	line string
}

// maxOpening bounds the bytes of conversation an Opening keeps: a login
// and a session's set-up take a few hundred.
const maxOpening = 64 << 10

// NewOpening returns the Opening of a session that req opens, nil when req
// is not captured for an archive.
func NewOpening(req *Request) *Opening {
	if req == nil || req.Capture == nil {
		return nil
	}
	return &Opening{url: req.URL.Redacted()}
}

// Tee returns a Tracer that passes each line to t and keeps it, until End;
// t itself once the Opening has ended, or when o is nil.
func (o *Opening) Tee(t Tracer) Tracer {
	if o == nil {
		return t
	}
	o.mu.Lock()
	ended := o.ended
	o.mu.Unlock()
	if ended {
		return t
	}
	return func(dir Direction, line string) {
		o.add(dir, line)
		t.TraceLine(dir, line)
	}
}

func (o *Opening) add(dir Direction, line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended || o.cut {
		return
	}
	if o.size+len(line) > maxOpening {
		o.cut = true
		return
	}
	o.size += len(line)
	o.lines = append(o.lines, openingLine{dir, line})
}

// Keeping reports whether o keeps the lines traced through Tee: it is not
// nil and has not ended.
func (o *Opening) Keeping() bool {
	if o == nil {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return !o.ended
}

// End ends what o keeps: the fetch that opened the session is over.
func (o *Opening) End() {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.ended = true
	o.mu.Unlock()
}

// Replay tells c, the Capture of a later fetch on the session, the lines
// kept, between two notes (Info lines) that set them apart from the
// fetch's own: they crossed the wire before this fetch began. A session
// opened by a fetch that was not captured has no lines kept: c is told
// so. Nothing is done when c is nil.
func (o *Opening) Replay(c Capture) {
	if c == nil {
		return
	}
	if o == nil {
		c.Line(Info, "earlier on this session: its opening was not recorded")
		c.Line(Info, "this fetch, on the same session:")
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	c.Line(Info, "earlier on this session, in the fetch of "+o.url+" that opened it:")
	for _, l := range o.lines {
		c.Line(l.dir, l.line)
	}
	if o.cut {
		c.Line(Info, "(the rest of that fetch's conversation left out)")
	}
	c.Line(Info, "this fetch, on the same session:")
}
