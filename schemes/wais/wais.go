// Package wais fetches wais URLs (RFC 1738 §3.9) from servers that speak
// Z39.50-1988 with the WAIS extensions, as freeWAIS and freeWAIS-sf do.
// A search URL gives a listing of the hits, each with its own document URL,
// and a document URL gives the document, retrieved in pieces and streamed.
package wais

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// Defaults of a Fetcher.
const (
	// DefaultPieceSize is the largest piece of a document asked for in one
	// request. freeWAIS-sf refuses reply bodies over 100000 bytes, and a
	// text reply costs its text, about 60 bytes and the document id
	// (testdata/wais/FORMAT.md §6): 96 KiB fits with an id of up to 1 KiB,
	// and a longer id, or a smaller record size granted in the Init, makes
	// the pieces smaller (Fetch). Each piece is a round trip: 1 GiB from a
	// local server took 1.13 s and 0.60 s of CPU in 64 KiB pieces, 0.86 s
	// and 0.46 s in 96 KiB ones.
	DefaultPieceSize = 96 << 10

	// DefaultMaxHits is the MaxDocumentsRetrieved of a search, the number
	// waissearch asks for.
	DefaultMaxHits = 40
)

// Limits on what the client sends and accepts.
const (
	// maxReplyBody bounds a reply body: the client asks for records of at
	// most clientRecordSize, so anything far larger is not a WAIS reply.
	maxReplyBody = 1 << 20

	// clientRecordSize is the PreferredMessageSize and MaximumRecordSize
	// of the client's Init: the largest reply freeWAIS-sf sends anyway.
	clientRecordSize = 100000

	// minPieceSize is where halving the piece size after an oversize
	// reply stops.
	minPieceSize = 256

	// pieceOverhead is what a text reply costs besides the text and the id
	// (FORMAT.md §6: about 60 bytes), with a margin.
	pieceOverhead = 512

	maxDatabaseLength = 1024
	maxSeedLength     = 8 << 10
	maxTypeLength     = 64
)

// Fetcher fetches wais URLs. The zero value is ready to use; each Fetch
// opens its own connection, so a Fetcher needs no Close.
type Fetcher struct {
	// PieceSize is the largest piece of a document asked for in one
	// request; 0 means DefaultPieceSize. After an Init that grants a
	// smaller record size, or an oversize reply, the client asks for less.
	PieceSize int

	// MaxHits is the most documents a search asks for; 0 means
	// DefaultMaxHits.
	MaxHits int
}

// Fetch runs a search (wais://host:port/database?search, or a database
// with req.Search) and returns a Listing of the hits, or retrieves a
// document (wais://host:port/database/wtype/wpath) and returns its Body.
// A database without search terms is not retrievable as it is.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	w, err := req.URL.WAIS()
	if err != nil {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	if err := checkDatabase(req, w.Database); err != nil {
		return nil, err
	}
	if w.WType != "" {
		return f.document(ctx, req, w)
	}
	seed, ok := searchTerms(req, w)
	if !ok {
		return nil, req.Fail(schemes.ErrNotRetrievable, "", 0, "",
			fmt.Errorf("%s is a WAIS database, which is searched, not retrieved, and %w (a URL carries them as %s?terms)",
				req.URL.Redacted(), schemes.ErrNoSearchTerms, req.URL.Redacted()))
	}
	return f.search(ctx, req, w.Database, seed)
}

// checkDatabase refuses a database name that cannot go into DatabaseNames:
// control bytes, or 0x1F, which separates several names there.
func checkDatabase(req *schemes.Request, db string) error {
	if err := req.CheckArg("database", db); err != nil {
		return err
	}
	if strings.IndexByte(db, databaseSeparator) >= 0 || len(db) > maxDatabaseLength {
		return req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("database name holds a 0x1F byte or is too long"))
	}
	return nil
}

// searchTerms returns the seed words: the URL's own search when it has one
// (RFC 1738 §3.9, "+" meaning space as libwww reads it), else --search.
func searchTerms(req *schemes.Request, w uri.WAIS) (string, bool) {
	if w.HasSearch {
		if raw, ok := req.URL.Query(); ok {
			if s, err := uri.Unescape(strings.ReplaceAll(raw, "+", " ")); err == nil {
				return s, true
			}
		}
		return w.Search, true
	}
	if req.Search != nil {
		return *req.Search, true
	}
	return "", false
}

// errOversize is what exchange returns for the empty message a server sends
// when its reply would pass its size limit (FORMAT.md §1, §6).
var errOversize = errors.New("server refused a reply over its size limit")

// session is one connection to a WAIS server.
type session struct {
	ctx       context.Context
	req       *schemes.Request
	conn      net.Conn
	bind      netconn.Binding
	hdr       [headerLen]byte
	buf       []byte // the last reply body; reused
	maxRecord int64  // the record size the server granted
	closeOnce sync.Once
}

// dial connects to the URL's server (port 210 by default) and sends the
// Init: freeWAIS servers do without it, others need it (FORMAT.md §5.1).
func dial(ctx context.Context, req *schemes.Request) (*session, error) {
	addr := req.URL.Addr()
	_, conn, err := netconn.Dial(ctx, req, addr, nil)
	if err != nil {
		return nil, err
	}
	s := &session{ctx: ctx, req: req, conn: conn, maxRecord: clientRecordSize}
	// The end of ctx ends any read or write in progress.
	s.bind = netconn.Bind(ctx, conn, nil)
	body, err := s.exchange("Init", encodeInit(initRequest{
		PreferredMessageSize: clientRecordSize,
		MaximumRecordSize:    clientRecordSize,
		IDAuthentication:     "urlget",
		ImplementationName:   "urlget",
	}))
	if err == errOversize {
		err = req.Fail(schemes.ErrProtocol, "Init", 0, "", errors.New("empty reply to the InitRequest"))
	}
	if err != nil {
		s.close()
		return nil, err
	}
	ir, err := decodeInitResponse(body)
	if err != nil {
		s.close()
		return nil, req.Fail(schemes.ErrProtocol, "Init", 0, "", err)
	}
	req.Trace.TraceLine(schemes.Received, fmt.Sprintf("InitResponse accepted=%t MaximumRecordSize=%d %s %s",
		ir.Accepted, ir.MaximumRecordSize, ir.ImplementationName, ir.ImplementationVersion))
	if !ir.Accepted {
		s.close()
		return nil, req.Fail(schemes.ErrAccessDenied, "Init", 0, "server refused the InitRequest", nil)
	}
	if ir.MaximumRecordSize > 0 && ir.MaximumRecordSize < s.maxRecord {
		s.maxRecord = ir.MaximumRecordSize
	}
	return s, nil
}

func (s *session) close() {
	s.closeOnce.Do(func() {
		s.bind.Stop()
		s.conn.Close()
	})
}

// exchange sends one message and reads the one reply, returning its body.
// The body stays valid until the next exchange. An empty reply is
// errOversize; the connection stays usable then.
func (s *session) exchange(op string, msg []byte) ([]byte, error) {
	s.req.Trace.TraceLine(schemes.Sent, fmt.Sprintf("%s (%d bytes)", op, len(msg)))
	if _, err := s.conn.Write(msg); err != nil {
		return nil, s.netError(op, err)
	}
	if _, err := io.ReadFull(s.conn, s.hdr[:]); err != nil {
		return nil, s.netError(op, err)
	}
	h, err := parseHeader(s.hdr[:])
	if err != nil {
		return nil, s.req.Fail(schemes.ErrProtocol, op, 0, "", err)
	}
	if h.Length == 0 {
		s.req.Trace.TraceLine(schemes.Received, "empty message: reply over the server's size limit")
		return nil, errOversize
	}
	// Check the announced length before allocating anything for it.
	if h.Length > maxReplyBody {
		return nil, s.req.Fail(schemes.ErrProtocol, op, 0, "",
			fmt.Errorf("reply announces %d bytes, over the %d-byte limit", h.Length, maxReplyBody))
	}
	if cap(s.buf) < h.Length {
		s.buf = make([]byte, h.Length)
	}
	s.buf = s.buf[:h.Length]
	if _, err := io.ReadFull(s.conn, s.buf); err != nil {
		return nil, s.netError(op, err)
	}
	return s.buf, nil
}

// netError classifies a read or write error, preferring the context's own
// error when the context ended the connection.
func (s *session) netError(op string, err error) error {
	return s.req.NetError(op, netconn.Cause(s.ctx, err))
}

// diagnosticError maps a diagnostic to the taxonomy: freeWAIS answers S1
// for a database it does not have and SF for a document id it does not know
// (FORMAT.md §5.8).
func diagnosticError(req *schemes.Request, op string, d diagnostic) error {
	kind := schemes.ErrNotRetrievable
	switch d.Code {
	case "S1", "SF":
		kind = schemes.ErrNotFound
	}
	return req.Fail(kind, op, 0, "diagnostic "+d.String(), nil)
}

// search runs a keyword search and returns the hits as a Listing.
func (f *Fetcher) search(ctx context.Context, req *schemes.Request, db, seed string) (*schemes.Resource, error) {
	if err := req.CheckArg("search", seed); err != nil {
		return nil, err
	}
	if len(seed) > maxSeedLength {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("search terms longer than the limit"))
	}
	maxHits := f.MaxHits
	if maxHits <= 0 {
		maxHits = DefaultMaxHits
	}
	maxHits = min(maxHits, 1<<20)
	s, err := dial(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.close()
	op := fmt.Sprintf("search %q in %s", seed, db)
	var body []byte
	for {
		body, err = s.exchange(fmt.Sprintf("SearchRequest database=%s seed=%q max=%d", db, seed, maxHits),
			encodeKeywordSearch(db, seed, maxHits))
		// An oversize reply: ask for fewer documents on the same connection.
		if err == errOversize && maxHits > 1 {
			maxHits /= 2
			continue
		}
		if err == errOversize {
			return nil, req.Fail(schemes.ErrTooLarge, op, 0, "", err)
		}
		if err != nil {
			return nil, err
		}
		break
	}
	resp, err := decodeSearchResponse(body)
	if err != nil {
		return nil, req.Fail(schemes.ErrProtocol, op, 0, "", err)
	}
	req.Trace.TraceLine(schemes.Received, fmt.Sprintf("SearchResponse %d headers, %d diagnostics", resp.Headers, len(resp.Diagnostics)))
	for _, d := range resp.Diagnostics {
		req.Trace.TraceLine(schemes.Received, "diagnostic "+d.String())
	}
	if resp.Headers == 0 && len(resp.Diagnostics) > 0 {
		return nil, diagnosticError(req, op, resp.Diagnostics[0])
	}
	res := &schemes.Resource{URL: req.URL.Redacted(), Size: -1}
	if req.Raw {
		// The reply is bounded by maxReplyBody; keep a copy past the
		// connection's life.
		raw := append(append(make([]byte, 0, headerLen+len(body)), s.hdr[:]...), body...)
		res.Body = io.NopCloser(bytes.NewReader(raw))
		res.Size = int64(len(raw))
		return res, nil
	}
	if req.Capture != nil {
		// An archive gets the reply as it came, its header too: what
		// req.Raw would return.
		req.Capture.Listing(s.hdr[:])
		req.Capture.Listing(body)
	}
	l := &hitListing{
		it:   resp.iter(),
		base: "wais://" + uri.JoinHostPort(req.URL.Hostname(), port(req.URL)) + "/" + uri.EscapeSegment(db) + "/",
		db:   db,
		// The records are decoded lazily from body, which the listing
		// keeps: the connection is closed, so nothing reuses it.
		hits: resp.Headers,
	}
	if resp.Headers == 1 {
		it := resp.iter()
		h, _, _ := it.nextHeader()
		// FORMAT.md §5.9: no hits comes back as the catalog, a
		// pseudo-document with score 0 and no server in its id.
		l.noHits = h.Score == 0 && !idHasServer(h.ID)
	}
	hits := strconv.Itoa(resp.Headers)
	if l.noHits {
		hits = "0"
	}
	res.Header = [][2]string{{"Database", db}, {"Search", seed}, {"Hits", hits}}
	if !req.Head {
		res.Listing = l
	}
	return res, nil
}

// port returns the URL's port as written, "" when it has none.
func port(u uri.URL) string {
	p, _ := u.Port()
	return p
}

// hitListing is the Listing of a search reply, decoding one document
// header per Next.
type hitListing struct {
	it     recordIter
	base   string // wais://host:port/database/
	db     string
	hits   int
	noHits bool
	info   bool // the "no hits" entry has been given
}

// Next returns the next hit. After a search with no hits it gives a
// "no hits" entry and then the catalog the server sent instead.
func (l *hitListing) Next() (schemes.Entry, error) {
	if l.noHits && !l.info {
		l.info = true
		return schemes.Entry{Kind: schemes.KindInfo, Name: "no hits", Size: -1,
			Description: "search produced no result; the catalog of " + l.db + " follows"}, nil
	}
	h, ok, err := l.it.nextHeader()
	if err != nil {
		return schemes.Entry{}, err
	}
	if !ok {
		if l.hits == 0 && !l.info {
			l.info = true
			return schemes.Entry{Kind: schemes.KindInfo, Name: "no hits", Size: -1}, nil
		}
		return schemes.Entry{}, io.EOF
	}
	typ := "TEXT"
	if len(h.Types) > 0 && h.Types[0] != "" {
		typ = h.Types[0]
	}
	e := schemes.Entry{
		URL:    l.base + uri.EscapeSegment(typ) + "/" + formatWPath(h.ID, h.Length),
		Name:   strings.TrimSpace(h.Headline),
		Kind:   schemes.KindFile,
		Size:   h.Length,
		Fields: map[string]string{"type": strings.Join(h.Types, ",")},
	}
	if e.Name == "" {
		e.Name = idFileName(h.ID)
	}
	e.Description = e.Name
	for _, f := range []struct {
		name string
		v    int64
	}{{"score", h.Score}, {"lines", h.Lines}, {"size", h.Length}} {
		if f.v >= 0 {
			e.Fields[f.name] = strconv.FormatInt(f.v, 10)
		}
	}
	if h.Source != "" {
		e.Fields["source"] = h.Source
	}
	if h.Date != "" && h.Date != "0" {
		e.Fields["date"] = h.Date
	}
	if l.noHits {
		e.Fields["catalog"] = "true"
	}
	return e, nil
}

// Close releases nothing: the connection closed when the reply was read.
func (l *hitListing) Close() error { return nil }

// contentTypes maps WAIS document types to MIME types.
var contentTypes = map[string]string{
	"TEXT": "text/plain",
	"WSRC": "text/plain",
	"HTML": "text/html",
	"GIF":  "image/gif",
	"TIFF": "image/tiff",
	"PS":   "application/postscript",
}

// document retrieves one document in pieces.
func (f *Fetcher) document(ctx context.Context, req *schemes.Request, w uri.WAIS) (*schemes.Resource, error) {
	id, length, err := parseWPath(w.RawWPath)
	if err != nil {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	if err := req.CheckArg("wtype", w.WType); err != nil {
		return nil, err
	}
	if len(w.WType) > maxTypeLength {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("wtype longer than the limit"))
	}
	if req.MaxSize > 0 && length > req.MaxSize {
		return nil, req.Fail(schemes.ErrTooLarge, "", 0, "",
			fmt.Errorf("document of %d bytes, over the %d-byte limit", length, req.MaxSize))
	}
	start := max(req.Offset, 0)
	if length >= 0 && start > length {
		return nil, req.Fail(schemes.ErrNotRetrievable, "resume", 0, "",
			fmt.Errorf("offset %d is past the end of the %d-byte document", start, length))
	}
	res := &schemes.Resource{
		URL:         req.URL.Redacted(),
		ContentType: contentTypes[strings.ToUpper(w.WType)],
		Size:        length,
		Name:        idFileName(id),
		Offset:      start,
		Header:      [][2]string{{"Database", w.Database}, {"Type", w.WType}},
	}
	if length >= 0 {
		res.Header = append(res.Header, [2]string{"Length", strconv.FormatInt(length, 10)})
	}
	piece := f.PieceSize
	if piece <= 0 {
		piece = DefaultPieceSize
	}
	s, err := dial(ctx, req)
	if err != nil {
		return nil, err
	}
	// Keep a reply within the record size the server granted.
	if limit := int(s.maxRecord) - pieceOverhead - len(id); piece > limit {
		piece = max(limit, minPieceSize)
	}
	b := &docBody{s: s, db: w.Database, id: id, typ: w.WType, start: start, pos: start, end: length, piece: piece}
	if req.Head {
		// WAIS has no metadata request: ask for one byte to learn that
		// the document is there.
		b.piece = 1
	}
	// The first piece is fetched now, so that a missing database or
	// document is Fetch's error rather than the body's.
	if err := b.fill(); err != nil {
		s.close()
		return nil, err
	}
	if req.Head {
		s.close()
		return res, nil
	}
	res.Body = b
	return res, nil
}

// docBody streams a document piece by piece: one retrieval per piece, the
// reply's text handed out before the next piece is asked for, so memory
// stays at one piece whatever the document's size.
type docBody struct {
	s     *session
	db    string
	id    []byte
	typ   string
	start int64 // where the body starts
	pos   int64 // the next byte to ask for
	end   int64 // the document length, -1 when unknown
	piece int

	chunks [][]byte // text of the last reply not yet read (inside s.buf)
	last   bool     // no piece follows
	err    error    // reported once chunks are drained
	closed bool
}

// Read hands out the text of the current piece and fetches the next one
// when it is used up.
func (b *docBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		for len(b.chunks) > 0 {
			if len(b.chunks[0]) == 0 {
				b.chunks = b.chunks[1:]
				continue
			}
			n := copy(p, b.chunks[0])
			b.chunks[0] = b.chunks[0][n:]
			return n, nil
		}
		if b.err != nil {
			return 0, b.err
		}
		if b.closed {
			return 0, errors.New("read of a closed WAIS document")
		}
		if b.last {
			return 0, io.EOF
		}
		if err := b.fill(); err != nil {
			b.err = err
		}
	}
}

// Close ends the retrieval and closes the connection.
func (b *docBody) Close() error {
	b.closed = true
	b.chunks = nil
	b.s.close()
	return nil
}

// fill asks for the next piece. FORMAT.md §5.6: every retrieval names the
// type and a half-open byte range, since freeWAIS sends nothing for a
// request without a range and crashes on one without a type.
func (b *docBody) fill() error {
	req := b.s.req
	want := int64(b.piece)
	if b.end >= 0 {
		want = min(want, b.end-b.pos)
	}
	if want <= 0 {
		b.finish()
		return nil
	}
	var body []byte
	var err error
	op := ""
	for {
		op = fmt.Sprintf("retrieve %s bytes [%d,%d)", b.typ, b.pos, b.pos+want)
		// A cancelled context ends the connection (dial's
		// netconn.Bind), but from a goroutine of its own: until that
		// has run, the next piece could still be asked for and
		// answered.
		if cerr := b.s.ctx.Err(); cerr != nil {
			return b.s.netError("SearchRequest "+op, cerr)
		}
		body, err = b.s.exchange("SearchRequest "+op, encodeRetrieval(b.db, b.id, b.typ, unitBytes, b.pos, b.pos+want))
		if err != errOversize {
			break
		}
		// FORMAT.md §6: the reply would pass the server's limit; the
		// connection is still open, so ask for half as much.
		if want/2 < minPieceSize {
			return req.Fail(schemes.ErrTooLarge, op, 0, "", err)
		}
		want /= 2
		b.piece = int(want)
	}
	if err != nil {
		return err
	}
	resp, err := decodeSearchResponse(body)
	if err != nil {
		return req.Fail(schemes.ErrProtocol, op, 0, "", err)
	}
	var got int64
	b.chunks = b.chunks[:0]
	it := resp.iter()
	for {
		t, ok, err := it.nextText()
		if err != nil {
			return req.Fail(schemes.ErrProtocol, op, 0, "", err)
		}
		if !ok {
			break
		}
		got += int64(len(t.Text))
		b.chunks = append(b.chunks, t.Text)
	}
	outOfRange := false
	for _, d := range resp.Diagnostics {
		req.Trace.TraceLine(schemes.Received, "diagnostic "+d.String())
		// FORMAT.md §5.8: a range past the end gives the rest and SF
		// "Request out of range"; any other diagnostic is a failure.
		if d.Code == "SF" && strings.Contains(strings.ToLower(d.AddInfo), "range") {
			outOfRange = true
			continue
		}
		b.chunks = b.chunks[:0]
		return diagnosticError(req, op, d)
	}
	req.Trace.TraceLine(schemes.Received, fmt.Sprintf("SearchResponse %d bytes of text", got))
	if resp.Texts == 0 && !outOfRange {
		// FORMAT.md §5.6: what freeWAIS sends for a request it cannot
		// serve as asked (p10); a retrieval is always expected to carry text.
		return req.Fail(schemes.ErrProtocol, op, 0, "", errors.New("reply carries no document text"))
	}
	if got > want {
		b.chunks = b.chunks[:0]
		return req.Fail(schemes.ErrProtocol, op, 0, "", fmt.Errorf("%d bytes of text for a %d-byte piece", got, want))
	}
	if resp.Texts == 0 && outOfRange && b.pos == b.start && b.start > 0 {
		return req.Fail(schemes.ErrNotRetrievable, "resume", 0, "diagnostic SF Request out of range",
			fmt.Errorf("offset %d is past the end of the document", b.start))
	}
	b.pos += got
	if got < want || outOfRange {
		b.finish()
		if b.end >= 0 && b.pos < b.end {
			b.err = req.Fail(schemes.ErrTruncated, op, 0, "",
				fmt.Errorf("document ended at byte %d of the %d the URL names", b.pos, b.end))
		}
		return nil
	}
	if b.end >= 0 && b.pos >= b.end {
		b.finish()
	}
	return nil
}

// finish marks the last piece and lets the server go: the text of the
// last reply stays readable because it lives in the session's buffer.
func (b *docBody) finish() {
	b.last = true
	b.s.close()
}
