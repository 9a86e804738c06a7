// Package waistest runs WAIS servers for tests in the net/http/httptest
// shape: a live server that searches a small corpus and serves documents in
// pieces with freeWAIS-sf's quirks, and a replay server that plays back
// recorded freeWAIS-sf replies and checks the client's requests against the
// recorded ones.
package waistest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/urlget/urlget/integration/internal/testnet"
)

// Document is one document of the test server's database.
type Document struct {
	// Name is the file name; it goes into the id and the headline.
	Name string
	// Type is the WAIS type; "" means TEXT.
	Type string
	// Text is the content. For a large document leave it nil and set
	// Content and Size instead; such a document is found by Keywords and
	// its name only.
	Text    []byte
	Content io.ReaderAt
	Size    int64
	// Keywords are extra words the document is found by.
	Keywords []string
}

func (d *Document) size() int64 {
	if d.Text != nil || d.Content == nil {
		return int64(len(d.Text))
	}
	return d.Size
}

func (d *Document) readAt(p []byte, off int64) {
	if d.Content == nil {
		copy(p, d.Text[off:])
		return
	}
	_, _ = d.Content.ReadAt(p, off)
}

// Config describes a test server.
type Config struct {
	// Database is the database name; "" means "test".
	Database string
	// Documents are the database's documents.
	Documents []Document
	// HostName is written into document ids; "" means "waistest.example".
	HostName string
	// MaxReply is the largest reply body; "" means 100000, freeWAIS-sf's.
	// A larger reply is sent as an empty message (FORMAT.md §6).
	MaxReply int
	// KeepRequests is how many requests Requests keeps: 0 means 10000, a
	// negative value none (a benchmark measuring the client's memory, a
	// server that runs for long).
	KeepRequests int
	// Fault, when set, sees every reply before it is sent: n counts the
	// requests of the connection from 0. It returns the bytes to send
	// instead and whether to hang up after them.
	Fault func(n int, reply []byte) (out []byte, hangUp bool)
}

// Server is a live WAIS test server on 127.0.0.1.
type Server struct {
	// URL is "wais://127.0.0.1:port/database".
	URL string
	// Addr is "127.0.0.1:port".
	Addr string

	cfg     Config
	l       *testnet.Listener
	docs    []*doc
	catalog *doc
	info    *doc

	requests testnet.Recorder[Request]
}

// Request is one message the server received.
type Request struct {
	Conn  int    // the connection, counted from 0
	PDU   int    // 20 InitRequest, 22 SearchRequest
	Query string // "3" keyword search, "1" retrieval
	Seed  string // the seed words of a keyword search
	Unit  string // the range unit of a retrieval: "wb" or "wl"
	Start int64  // the range of a retrieval
	End   int64
	Type  string // the type term of a retrieval
	Raw   []byte // the whole message
}

type doc struct {
	*Document
	id       []byte
	headline string
	lines    int64
	score    int64 // for pseudo-documents
}

// maxKept bounds the requests a server remembers.
const maxKept = 10000

// NewServer starts a server on 127.0.0.1:0. It panics when it cannot
// listen, as httptest.NewServer does.
func NewServer(cfg Config) *Server {
	if cfg.Database == "" {
		cfg.Database = "test"
	}
	if cfg.HostName == "" {
		cfg.HostName = "waistest.example"
	}
	if cfg.MaxReply == 0 {
		cfg.MaxReply = 100000
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("waistest: " + err.Error())
	}
	s := &Server{cfg: cfg, Addr: ln.Addr().String()}
	s.requests.Limit = maxKept
	if cfg.KeepRequests > 0 {
		s.requests.Limit = cfg.KeepRequests
	}
	s.URL = "wais://" + s.Addr + "/" + cfg.Database
	server := cfg.HostName + ":" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	dbPath := "/waistest/db/" + cfg.Database
	var cat strings.Builder
	fmt.Fprintf(&cat, "Catalog for database: %s\n%d total documents\n\n", dbPath, len(cfg.Documents))
	for i := range cfg.Documents {
		d := &cfg.Documents[i]
		if d.Type == "" {
			d.Type = "TEXT"
		}
		local := fmt.Sprintf("0 %d /waistest/corpus/%s", d.size(), d.Name)
		var id []byte
		id = str(id, 1, server)
		id = str(id, 2, dbPath)
		id = str(id, 3, local)
		id = str(id, 4, server)
		id = str(id, 5, dbPath)
		id = str(id, 6, local)
		id = num(id, 7, 0)
		dd := &doc{Document: d, id: id, headline: d.Name + "   /waistest/corpus/", lines: -1}
		if d.Text != nil {
			dd.lines = int64(bytes.Count(d.Text, []byte{'\n'}))
		}
		s.docs = append(s.docs, dd)
		fmt.Fprintf(&cat, "Headline: %s\nDocID: %s\n", dd.headline, local)
	}
	pseudo := func(name, typ, headline string, text []byte) *doc {
		var id []byte
		id = str(id, 2, cfg.Database)
		id = str(id, 3, "0 0 "+dbPath+"."+name)
		id = num(id, 7, 0)
		return &doc{Document: &Document{Name: cfg.Database + "." + name, Type: typ, Text: text}, id: id,
			headline: headline, lines: int64(bytes.Count(text, []byte{'\n'}))}
	}
	s.catalog = pseudo("cat", "TEXT", "Catalog for database: "+cfg.Database, []byte(cat.String()))
	s.info = pseudo("src", "WSRC", "Information on database: "+cfg.Database,
		[]byte(fmt.Sprintf("(:source\n   :version  3\n   :database-name \"%s\"\n)\n", dbPath)))
	s.l = testnet.Serve(ln, func(c net.Conn, n int) { s.handle(n, c) })
	return s
}

// Close stops the server and waits for its connections to end.
func (s *Server) Close() {
	s.l.Close()
}

// Requests returns the messages received so far, in order.
func (s *Server) Requests() []Request {
	return s.requests.All()
}

// handle answers one connection: one reply per request until the client
// hangs up (FORMAT.md intro).
func (s *Server) handle(connNo int, c net.Conn) {
	limit := s.cfg.MaxReply
	var out []byte
	for n := 0; ; n++ {
		hdr, body, err := readMessage(c)
		if err != nil {
			return
		}
		r := Request{Conn: connNo, Raw: append(append([]byte{}, hdr[:]...), body...)}
		rep, keep := s.answer(&r, body, &limit)
		if s.cfg.KeepRequests >= 0 {
			s.requests.Record(r)
		}
		if !keep {
			// FORMAT.md §5.6: the server's child dies on a retrieval
			// without a type term; the client sees the connection close.
			return
		}
		// FORMAT.md §6: a reply over the limit becomes an empty message
		// on a connection that stays open.
		if rep.len() > limit {
			rep = reply{}
		}
		if err := s.send(c, n, hdr, rep, &out); err != nil {
			return
		}
	}
}

// send writes one reply. freeWAIS-sf writes a reply in two pieces
// (FORMAT.md §1); so does this server, the document text going out in
// pieces of its own read from the document as they are sent.
func (s *Server) send(c net.Conn, n int, hdr [headerLen]byte, rep reply, buf *[]byte) error {
	out := putHeader((*buf)[:0], hdr, rep.len())
	out = append(out, rep.head...)
	if s.cfg.Fault != nil {
		// A fault sees the whole reply; test documents are small.
		text := make([]byte, rep.n)
		if rep.n > 0 {
			rep.d.readAt(text, rep.start)
		}
		out = append(append(out, text...), rep.tail...)
		out, hangUp := s.cfg.Fault(n, out)
		if _, err := c.Write(out); err != nil {
			return err
		}
		if hangUp {
			return errors.New("hang up")
		}
		return nil
	}
	if _, err := c.Write(out); err != nil {
		return err
	}
	const piece = 32 << 10
	if cap(out) < piece {
		out = make([]byte, piece)
	}
	*buf = out[:0]
	for off := 0; off < rep.n; off += piece {
		k := min(piece, rep.n-off)
		rep.d.readAt(out[:k], rep.start+int64(off))
		if _, err := c.Write(out[:k]); err != nil {
			return err
		}
	}
	if len(rep.tail) > 0 {
		if _, err := c.Write(rep.tail); err != nil {
			return err
		}
	}
	return nil
}

// answer builds the reply body to one request; keep is false when the
// connection must close without one.
func (s *Server) answer(r *Request, body []byte, limit *int) (rep reply, keep bool) {
	z, w, err := splitBody(body)
	if err != nil {
		return reply{}, false
	}
	r.PDU = int(z[0])
	switch r.PDU {
	case 20:
		return reply{head: s.initResponse(z, limit)}, true
	case 22:
		return s.search(r, z, w)
	}
	// PDUs 24–29: freeWAIS-sf answers with the empty message.
	return reply{}, true
}

// reply is a reply body: head, then n bytes of document d from start, then
// tail.
type reply struct {
	head  []byte
	d     *doc
	start int64
	n     int
	tail  []byte
}

func (r reply) len() int { return len(r.head) + r.n + len(r.tail) }

func (s *Server) initResponse(z []byte, limit *int) []byte {
	rd := reader{b: z, off: 1}
	for rd.more() {
		tag, v, err := rd.item()
		if err != nil {
			break
		}
		if tag == 6 {
			if m := int(getNum(v)); m > 0 && m < *limit {
				*limit = m
			}
		}
	}
	out := []byte{21, 1}
	out = item(out, 3, []byte{0x80})
	out = item(out, 4, []byte{0x80})
	out = num(out, 5, int64(*limit))
	out = num(out, 6, int64(*limit))
	out = str(out, 8, "waistest")
	out = str(out, 9, "urlget WAIS test server")
	out = str(out, 10, "1")
	var g []byte
	g = num(g, 100, 0)
	g = num(g, 101, 0)
	return finish(out, item(nil, 99, g))
}

// finish prefixes the Z39.50 part's length and appends the WAIS part.
func finish(z, w []byte) []byte {
	out := make([]byte, 0, 2+len(z)+len(w))
	out = append(out, byte(len(z)>>8), byte(len(z)))
	out = append(out, z...)
	return append(out, w...)
}

// searchResponse builds a SearchResponse around the records of group 99.
func searchResponse(status byte, records int, refID []byte, group []byte) []byte {
	z := []byte{23, status, 0, 0, 0, byte(records >> 16), byte(records >> 8), byte(records), 0, 0, 0}
	z = num(z, 27, 0)
	if refID != nil {
		z = item(z, 2, refID)
	}
	return finish(z, item(nil, 99, group))
}

func (s *Server) search(r *Request, z, w []byte) (reply, bool) {
	rd := reader{b: z, off: 1}
	if _, err := rd.fixed(10); err != nil {
		return reply{}, false
	}
	var db string
	var refID []byte
	for rd.more() {
		tag, v, err := rd.item()
		if err != nil {
			return reply{}, false
		}
		switch tag {
		case 18:
			db = string(v)
		case 20:
			r.Query = string(v)
		case 2:
			refID = v
		}
	}
	if db != s.cfg.Database {
		g := diag(nil, "S1", "The following database is not available: /waistest/db/"+db)
		return reply{head: searchResponse(0, 1, refID, g)}, true
	}
	if r.Query == "1" {
		return s.retrieve(r, w, refID)
	}
	return reply{head: s.keywords(r, w)}, true
}

// keywords answers a type-3 search: the words are OR-ed, case ignored, a
// trailing '*' truncates; no hits gives the catalog (FORMAT.md §5.3, §5.9).
func (s *Server) keywords(r *Request, w []byte) []byte {
	max := 40
	rd := reader{b: w}
	if rd.more() {
		if tag, v, err := rd.item(); err == nil && tag == 99 {
			rd = reader{b: v}
		}
	}
	for rd.more() {
		tag, v, err := rd.item()
		if err != nil {
			break
		}
		switch tag {
		case 106:
			r.Seed = string(v)
		case 114:
			max = int(getNum(v))
		}
	}
	var words []string
	for _, f := range strings.Fields(strings.ToLower(r.Seed)) {
		if f != "and" && f != "or" && f != "not" {
			words = append(words, f)
		}
	}
	type hit struct {
		d     *doc
		score int64
	}
	var hits []hit
	if len(words) == 0 {
		s.info.score, s.catalog.score = 1000, 1000
		hits = []hit{{s.info, 1000}, {s.catalog, 1000}}
	} else {
		for _, d := range s.docs {
			var sc int64
			text := strings.ToLower(d.Name + " " + strings.Join(d.Keywords, " ") + " " + string(d.Text))
			toks := strings.FieldsFunc(text, func(c rune) bool {
				return !('a' <= c && c <= 'z' || '0' <= c && c <= '9')
			})
			for _, t := range toks {
				for _, w := range words {
					if t == w || strings.HasSuffix(w, "*") && strings.HasPrefix(t, w[:len(w)-1]) {
						sc++
					}
				}
			}
			if sc > 0 {
				hits = append(hits, hit{d, sc * 100})
			}
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
		if len(hits) == 0 {
			c := *s.catalog
			c.headline = "Search produced no result. Here's the Catalog for database: " + s.cfg.Database
			hits = []hit{{&c, 0}}
		}
	}
	if len(hits) > max {
		hits = hits[:max]
	}
	var g []byte
	for _, h := range hits {
		var v []byte
		v = item(v, 116, h.d.id)
		v = num(v, 118, h.score)
		v = num(v, 120, h.d.size())
		if h.d.lines >= 0 {
			v = num(v, 131, h.d.lines)
		}
		v = item(v, 132, str(nil, 133, h.d.Type))
		v = str(v, 121, "/waistest/db/"+s.cfg.Database)
		v = str(v, 123, h.d.headline)
		g = item(g, 150, v)
	}
	return searchResponse(1, len(hits), nil, g)
}

// term is one operand of a type-1 query.
type term struct {
	attrs string
	value []byte
}

// retrieve answers a type-1 query naming an id, a type and a range
// (FORMAT.md §5.6, §5.8).
func (s *Server) retrieve(r *Request, w []byte, refID []byte) (reply, bool) {
	rd := reader{b: w}
	tag, q, err := rd.item()
	if err != nil || tag != 21 {
		return reply{}, false
	}
	var terms []term
	var attrs string
	qr := reader{b: q}
	for qr.more() {
		tag, v, err := qr.item()
		if err != nil {
			return reply{}, false
		}
		switch tag {
		case 44:
			attrs = string(v)
		case 45:
			terms = append(terms, term{attrs, v})
		}
	}
	var id []byte
	hasType, hasStart, hasEnd := false, false, false
	for _, t := range terms {
		f := strings.Fields(t.attrs)
		if len(f) < 2 {
			continue
		}
		switch {
		case f[0] == "un":
			id = t.value
		case f[0] == "wt":
			r.Type, hasType = string(t.value), true
		case (f[0] == "wb" || f[0] == "wl") && f[1] == "ro":
			r.Unit, hasStart = f[0], true
			r.Start, _ = strconv.ParseInt(string(t.value), 10, 64)
		case (f[0] == "wb" || f[0] == "wl") && f[1] == "rl":
			hasEnd = true
			r.End, _ = strconv.ParseInt(string(t.value), 10, 64)
		}
	}
	if !hasType {
		return reply{}, false
	}
	if !hasStart || !hasEnd {
		// FORMAT.md §5.6 (p10): no range, no records.
		return reply{head: searchResponse(0, 0, refID, nil)}, true
	}
	d := s.lookup(id)
	if d == nil {
		return reply{head: searchResponse(0, 1, refID, diag(nil, "SF", "Missing DocID in request"))}, true
	}
	size := d.size()
	start, end := r.Start, r.End
	if r.Unit == "wl" {
		start, end = lineOffsets(d.Text, start, end)
	}
	if start > size || start < 0 || end < start {
		return reply{head: searchResponse(0, 1, refID, diag(nil, "SF", "Request out of range"))}, true
	}
	past := end > size
	end = min(end, size)
	if end-start > 1<<30 {
		return reply{n: 1 << 30}, true // far over any limit: the empty message
	}
	n := int(end - start)
	// The text is not copied into the reply: the reply is its head, n
	// bytes of the document read as they are sent, and its tail, so that a
	// large document costs the server no more memory than a small one.
	var pre []byte
	pre = item(pre, 116, d.id)
	pre = num(pre, 117, 0)
	pre = cint(cint(pre, 127), n)
	var tail []byte
	records := 1
	if past {
		tail = diag(tail, "SF", "Request out of range")
		records++
	}
	len153 := len(pre) + n
	len99 := len(cint(cint(nil, 153), len153)) + len153 + len(tail)
	z := []byte{23, 0, 0, 0, 0, 0, 0, byte(records), 0, 0, 0}
	z = num(z, 27, 0)
	if refID != nil {
		z = item(z, 2, refID)
	}
	head := []byte{byte(len(z) >> 8), byte(len(z))}
	head = append(head, z...)
	head = cint(cint(head, 99), len99)
	head = cint(cint(head, 153), len153)
	head = append(head, pre...)
	return reply{head: head, d: d, start: start, n: n, tail: tail}, true
}

// lineOffsets turns a line range into a byte range.
func lineOffsets(text []byte, start, end int64) (int64, int64) {
	var line int64
	bs, be := int64(len(text))+1, int64(len(text))+1
	if start == 0 {
		bs = 0
	}
	if end == 0 {
		be = 0
	}
	for i, c := range text {
		if c == '\n' {
			line++
			if line == start {
				bs = int64(i + 1)
			}
			if line == end {
				be = int64(i + 1)
			}
		}
	}
	if be > int64(len(text)) {
		be = int64(len(text)) + 1
	}
	return bs, be
}

func (s *Server) lookup(id []byte) *doc {
	for _, d := range append(s.docs, s.catalog, s.info) {
		if bytes.Equal(d.id, id) {
			return d
		}
	}
	return nil
}

// ErrMismatch is the cause a replay server reports when the client's
// request differs from the recorded one.
var ErrMismatch = errors.New("request differs from the recording")
