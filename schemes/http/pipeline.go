package http

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// Pipelining (RFC 9112 §9.3.2): when the caller has told which requests
// come after this one (Expect), their GET requests go out on its connection
// right behind its own, and the server answers them in order while the
// first body is still being read. A run of small files then costs one
// round trip for many files rather than one each: the requests of a
// directory's files reach the server together, as FTP's and NNTP's
// pipelined commands do. The requests are written and the responses read
// by the wire layer (wire.go), one Exchange each for a Recorder.
//
// It is taken for a plain http: GET from the first byte, with no proxy
// between (an HTTP proxy gets the absolute form on the ordinary path), no
// trace to show and no response header to dump. A redirect to follow
// goes on from its answer on the ordinary path. A connection the server
// closed before any byte of the answer sends the request again on the
// ordinary path, which RFC 9112 §9.3.1 allows for GET, an idempotent
// method; an answer that came in part, or malformed, is the fetch's
// answer, never asked for again.

// pipelineDepth is how many requests one connection has in flight at most:
// enough to cover a round trip of 10 ms with files of a few KiB, few
// enough that a server's limit on requests per connection (nginx's
// keepalive_requests, 1000 by default) is seldom met mid-pipeline.
const pipelineDepth = 16

// pipeDrainLimit is the most of an unread body that is read and dropped to
// keep its connection for the responses behind it; a longer one ends the
// connection instead.
const pipeDrainLimit = 256 << 10

// pipeline is a connection with requests sent and responses not yet read.
type pipeline struct {
	key  string // host:port
	c    *conn
	sent []sentRequest // in the order sent: the next response is sent[0]'s
}

// sentRequest is a request in flight on a pipeline, with what it is looked
// up by, worked out once: the request target, and the URL it was made for
// as the caller wrote it (schemes.Request.URL).
type sentRequest struct {
	req *outRequest
	uri string // req.url.RequestURI()
	raw string // the uri.URL's String()
	x   Exchange
}

// pipelinable reports whether r may take the pipelined path.
func (f *Fetcher) pipelinable(req *schemes.Request, r *outRequest) bool {
	if r.url.Scheme != "http" || r.method != http.MethodGet || req.Offset > 0 ||
		req.Trace != nil || f.OnResponse != nil || f.Jar != nil || f.shaped() {
		return false
	}
	if f.HSTS != nil && f.HSTS.Secure(r.url.Hostname()) {
		// The ordinary path sends it over https (RFC 6797 §8.3).
		return false
	}
	if _, p, err := hopRoute(req, r.url); err != nil || p != nil {
		return false
	}
	return true
}

// SendsAhead implements schemes.AheadSender: a plain http GET that the
// pipeline may carry (pipelinable) is sent ahead when told of.
func (f *Fetcher) SendsAhead(req *schemes.Request) bool {
	if req.URL.Scheme() != "http" || req.Head {
		return false
	}
	target, err := f.requestURL(req.URL)
	if err != nil {
		return false
	}
	r, err := f.newRequest(req, target, http.MethodGet)
	return err == nil && f.pipelinable(req, r)
}

// Expect implements schemes.Expecter: the GET requests of the plain http:
// URLs of reqs go out ahead, each as its own fetch builds it, on the
// connection of the request before them to the same server. Their answers
// come in that order, each read by its own fetch once the body before it
// is closed: a caller makes them one after another, as told. One made
// while that connection still serves an earlier body, or out of turn,
// finds its answer out of reach and is sent again elsewhere.
func (f *Fetcher) Expect(reqs []*schemes.Request, end bool) {
	f.expected.Add(reqs, end)
}

// pipelined serves the request r built for req on a pipelined connection:
// one that sent it ahead already, or a new one when requests were told to
// follow it (Expect). ok is false when the request is left to the ordinary
// path.
func (f *Fetcher) pipelined(ctx context.Context, req *schemes.Request, r *outRequest) (res *schemes.Resource, err error, ok bool) {
	ahead, _ := f.expected.Take(req)
	if !f.pipelinable(req, r) {
		return nil, nil, false
	}
	key := hostPort(r.url)
	target := r.url.RequestURI()
	p := f.takePipeline(key, target)
	if p == nil {
		if len(ahead) == 0 {
			return nil, nil, false
		}
		c, err := req.Dialer.DialContext(ctx, "tcp", key)
		if err != nil {
			return nil, nil, false
		}
		p = &pipeline{key: key, c: newConn(key, c, c, f.Recorder)}
	}
	bind := netconn.BindClose(ctx, p.c.raw)
	fail := func() (*schemes.Resource, error, bool) {
		bind.Stop()
		p.close()
		return nil, nil, false
	}
	// Responses to requests sent ahead that were not asked for after
	// all (their URLs were found up to date, or refused by robots.txt)
	// are read and dropped.
	// So is one sent for this URL with other header fields (other
	// conditions, a run before whose validators were older): its answer
	// might not be the one this request asks for.
	for len(p.sent) > 0 && (p.sent[0].uri != target || !sameFields(p.sent[0].req, r)) {
		if !p.skip() {
			return fail()
		}
	}
	var out []byte
	if len(p.sent) == 0 {
		var x Exchange
		if p.c.records(req.Capture) {
			x = p.c.exchange(req.Capture, r.recordedAs())
		}
		b := r.bytes()
		if x != nil {
			x.Request(b)
		}
		out = append(out, b...)
		p.sent = append(p.sent, sentRequest{req: r, uri: target, raw: req.URL.String(), x: x})
	}
	out = p.sendAhead(f, req, ahead, out)
	if len(out) > 0 {
		if _, err := p.c.nc.Write(out); err != nil {
			return fail()
		}
	}
	p.c.rx = p.sent[0].x
	start := p.c.nread
	resp, err := readResponse(p.c, http.MethodGet)
	if err != nil && p.c.nread == start {
		// Nothing of the answer came (the server closed an idle
		// connection, or one past its limit): the ordinary path asks
		// again.
		return fail()
	}
	if err != nil {
		// The server answered, and the answer is the fetch's: a
		// malformed or cut one is not asked for again.
		bind.Stop()
		err = endExchange(p.sent[0].x, netconn.Cause(ctx, err))
		p.sent = p.sent[1:]
		p.close()
		return nil, doError(ctx, req, r.method, err), true
	}
	x := p.sent[0].x
	p.sent = p.sent[1:]
	resp.req = r
	resp.Request = &http.Request{Method: r.method, URL: r.url, Header: r.header(), Host: r.host}
	m := schemes.MetricsFrom(ctx)
	if m != nil {
		// The request went ahead, perhaps with an earlier fetch's: it
		// is counted here, with the answer it brought.
		m.Reused(p.c.raw, false)
		m.Request(r.method, r.url.String(), int64(len(r.bytes())))
	}
	pb := &pipeBody{rc: resp.Body, f: f, p: p, x: x, bind: bind, closeAfter: !resp.keep, ctx: ctx, req: req}
	if resp.Body == http.NoBody {
		pb.Close()
	} else {
		resp.Body = pb
	}
	if isRedirect(resp.StatusCode) && !f.NoFollow {
		// A redirect to follow goes on from this answer on the
		// ordinary path: asking again there would send the GET a
		// second time for the same answer. A 304 is no redirect (RFC
		// 9110 §15.4.5): it is the answer, as a redirect is under
		// NoFollow. A 401 is the answer too: with Basic credentials
		// (the only ones this path sends) there is no challenge to
		// answer.
		final, err := f.follow(ctx, req, r, resp)
		if err != nil {
			return nil, doError(ctx, req, r.method, err), true
		}
		res, err = f.resource(ctx, req, final)
		return res, err, true
	}
	if m != nil {
		m.Response(responseHead(resp), headSize(resp))
	}
	res, err = f.resource(ctx, req, resp)
	return res, err, true
}

// sendAhead writes the GET requests of ahead, the requests told to follow
// req, while they are on the same server, up to pipelineDepth in flight,
// each built as its own fetch will build it: its own conditions and
// credentials, never req's. They are appended to out, which is written in
// one piece.
func (p *pipeline) sendAhead(f *Fetcher, req *schemes.Request, ahead []*schemes.Request, out []byte) []byte {
	if len(p.sent) >= pipelineDepth {
		return out
	}
	// What is in flight, by the URL as written (the run of URLs sends
	// the same ones again and again, and most are in flight already) and
	// by request target (the same resource written otherwise).
	raws := make(map[string]bool, len(p.sent))
	queued := make(map[string]bool, len(p.sent))
	for _, r := range p.sent {
		raws[r.raw] = true
		queued[r.uri] = true
	}
	for _, ar := range ahead {
		if len(p.sent) >= pipelineDepth {
			return out
		}
		u := ar.URL
		raw := u.String()
		if raws[raw] {
			// Sent with an earlier request of the run of URLs.
			continue
		}
		if u.Scheme() != "http" {
			return out
		}
		if ui, ok := u.RawUserinfo(); !sameUserinfo(req.URL, ui, ok) {
			// A URL's userinfo is its own credential: one that names
			// another user (or none where req names one) waits for its
			// own connection rather than share req's.
			return out
		}
		if ar.Offset > 0 || ar.Head {
			// Its own fetch will not take the pipelined path.
			continue
		}
		target, err := f.requestURL(u)
		if err != nil {
			return out
		}
		if queued[target.RequestURI()] {
			continue
		}
		next, err := f.newRequest(ar, target, http.MethodGet)
		if err != nil || hostPort(next.url) != p.key {
			// The run goes on to another server: the pipeline ends here.
			return out
		}
		b := next.bytes()
		var x Exchange
		if p.c.records(ar.Capture) {
			x = p.c.exchange(ar.Capture, next.recordedAs())
		}
		if x != nil {
			x.Request(b)
		}
		out = append(out, b...)
		uri := next.url.RequestURI()
		p.sent = append(p.sent, sentRequest{req: next, uri: uri, raw: raw, x: x})
		raws[raw], queued[uri] = true, true
	}
	return out
}

// sameUserinfo reports whether u's userinfo is ui (ok: defined).
func sameUserinfo(u uri.URL, ui string, ok bool) bool {
	rui, rok := u.RawUserinfo()
	return rok == ok && rui == ui
}

// sameFields reports whether two requests carry the same header fields,
// so that the answer to one is the answer to the other.
func sameFields(a, b *outRequest) bool {
	return a.host == b.host && slices.Equal(a.fields, b.fields)
}

// skip reads and drops the next response; false when the connection can
// serve no more.
func (p *pipeline) skip() bool {
	x := p.sent[0].x
	p.c.rx = x
	resp, err := readResponse(p.c, http.MethodGet)
	if err != nil {
		endExchange(x, err)
		return false
	}
	p.sent = p.sent[1:]
	return p.drain(resp, x)
}

// drain reads the rest of a response's body, if short, and reports
// whether the connection still serves the responses behind it.
func (p *pipeline) drain(resp *response, x Exchange) bool {
	n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, pipeDrainLimit+1))
	ok := err == nil && n <= pipeDrainLimit && resp.keep
	if ok {
		endExchange(x, nil)
	} else {
		endExchange(x, errors.New("response dropped"))
	}
	return ok
}

// close closes p's connection, ending the records of the exchanges still
// in flight on it.
func (p *pipeline) close() error {
	err := p.c.Close()
	for _, s := range p.sent {
		endExchange(s.x, errors.New("connection closed before the response"))
	}
	p.sent = nil
	return err
}

// busy reports whether p has requests in flight: the answers to them are
// on its connection only, so it is kept beyond maxIdlePerHost.
func (p *pipeline) busy() bool { return len(p.sent) > 0 }

// pipelinesKept is how many pipelines to one server a Fetcher keeps, idle
// or not: one for each transfer that may run to it at once (the command's
// --parallel-host allows 64 at most), and room for ones whose last
// answers sent ahead were never asked for (the URLs behind them turned out
// up to date or refused by robots.txt).
const pipelinesKept = 64

// pipelines returns the Fetcher's pipelined connections, by host:port. Of
// those with nothing in flight it keeps at most maxIdlePerHost to a
// server, as the pool of plain connections keeps. One with answers still
// to read is kept while there is room: closing it would have its requests
// made again. Past pipelinesKept the oldest idle one goes, else the
// oldest, which holds answers its worker has most likely moved past.
func (f *Fetcher) pipelines() *netconn.Pool[string, *pipeline] {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pipes == nil {
		f.pipes = &netconn.Pool[string, *pipeline]{
			MaxIdle: maxIdlePerHost,
			MaxKept: pipelinesKept,
			Busy:    (*pipeline).busy,
			Drop:    (*pipeline).close,
		}
	}
	return f.pipes
}

// takePipeline returns the pipeline to key that sent the request for uri
// ahead, else one that has nothing in flight, else nil; it is the
// caller's until put back. Every pipeline is looked at for uri before an
// idle one is settled for: the answer sent ahead is on its connection
// only, and asking again elsewhere would fetch the URL twice.
func (f *Fetcher) takePipeline(key, uri string) *pipeline {
	p, _ := f.pipelines().TakeFunc(key, func(p *pipeline) int {
		for _, r := range p.sent {
			if r.uri == uri {
				return 2
			}
		}
		if len(p.sent) == 0 {
			return 1
		}
		return 0
	})
	return p
}

// putPipeline keeps p for the requests it sent ahead and the ones after,
// or closes it (see pipelines).
func (f *Fetcher) putPipeline(p *pipeline) {
	f.pipelines().Put(p.key, p)
}

// closePipelines closes every kept pipeline.
func (f *Fetcher) closePipelines() {
	f.pipelines().CloseIdle()
}

// pipeBody is the body of a pipelined response. Read to its end and
// closed, it gives its connection back for the responses behind it.
//
// Its exchange ends as a connBody's does: at the body's last byte, at a
// read that failed, or at Close. A body closed before its end is read to
// it, when short, for the responses behind it: the record then holds the
// whole response, as it crossed the wire.
type pipeBody struct {
	rc         io.ReadCloser
	f          *Fetcher
	p          *pipeline
	x          Exchange // nil once ended
	bind       netconn.Binding
	closeAfter bool // the server ends the connection after this response
	eof        bool
	failed     bool // a read failed: the connection serves no more
	closed     bool

	ctx context.Context
	req *schemes.Request
}

// end ends the exchange, once.
func (b *pipeBody) end(err error) {
	x := b.x
	b.x = nil
	endExchange(x, err)
}

func (b *pipeBody) Read(buf []byte) (int, error) {
	n, err := b.rc.Read(buf)
	switch {
	case err == io.EOF:
		b.eof = true
		b.end(nil)
	case err != nil && !b.failed:
		b.failed = true
		b.end(readError(b.ctx, b.req, err))
	}
	return n, err
}

func (b *pipeBody) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	if !b.eof && !b.failed {
		if fr, ok := b.rc.(framed); ok && fr.complete() {
			b.eof = true
		}
	}
	whole := b.eof
	if !b.eof && !b.failed {
		n, err := io.Copy(io.Discard, io.LimitReader(b.rc, pipeDrainLimit+1))
		whole = err == nil && n <= pipeDrainLimit
	}
	b.rc.Close()
	if whole {
		b.end(nil)
	} else {
		b.end(errClosedEarly)
	}
	if b.bind.Stop() && whole && !b.closeAfter {
		b.f.putPipeline(b.p)
	} else {
		b.p.close()
	}
	// The body was read to its end, or dropped by the caller's choice:
	// nothing of the transfer failed.
	return nil
}
