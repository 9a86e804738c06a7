package mirror

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/hostsched"
	"github.com/urlget/urlget/internal/xfer"
	"github.com/urlget/urlget/mirror/links"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/news"
	"github.com/urlget/urlget/uri"
)

// DefaultLevel is wget's default depth for a recursion (its --level),
// the value to give Options.Level for it: a zero Level mirrors nothing
// beyond the start URLs' own level.
const DefaultLevel = 5

// DefaultParallel is how many transfers a recursion runs at once when
// Options.Parallel is 0.
const DefaultParallel = 4

// DefaultMaxEntries bounds the links taken from one listing or page when
// Options.MaxEntries is 0: enough for any real archive's directory, and a
// bound on what a hostile server's endless listing can queue.
const DefaultMaxEntries = 1 << 20

// ErrTooManyEntries is the cause given when a listing or page holds more
// entries than Options.MaxEntries; its error is of kind schemes.ErrTooLarge.
var ErrTooManyEntries = errors.New("more entries than the limit; the rest were left out")

// ErrCollided is the cause given when two URLs of one run map to the same
// local path: the second is not written over the first.
var ErrCollided = errors.New("another URL of this run was saved under the same local name")

// ErrStopped is what an error that ended a whole run is (errors.Is),
// rather than one URL: the queue's temporary file failing, or the disk
// filling up. The transfers under way when it happened end with it, and
// are not counted as failures of their own.
var ErrStopped = errors.New("the run stopped")

// errRobots is the reason a URL robots.txt keeps out is skipped.
const reasonRobots = "robots.txt"

// engine is one run of Run.
type engine struct {
	c      *fetch.Client
	o      Options
	store  *store
	starts []startPoint
	// startURLs are the start URLs as given, by item.start: the origin
	// each one's credentials belong to (fetch.Request.Start).
	startURLs []uri.URL
	// schemesOK is the set of schemes links may lead into; hostsOK the
	// start URLs' hosts.
	schemesOK map[string]bool
	hostsOK   map[string]bool
	maxItems  int

	mu     sync.Mutex
	cond   *sync.Cond
	q      queue
	seen   *urlSet // URLs queued (normalized, without fragment)
	saved  *urlSet // local paths written
	active int     // items being processed
	fatal  error   // ends the run: the disk is full, the queue failed
	cancel context.CancelFunc
	done   <-chan struct{} // the run's context's: closed once it is stopped or interrupted
	stats  Stats
	first  error
	gates  map[string]*hostGate // by hostsched.Key
	hosts  *hostsched.Limiter   // Options.PerHost transfers to one server
	robots map[string]*robotsEntry
	pages  *os.File // pages to convert: "kind\trel\tbase" lines
	// owners holds which URL claimed each local name (claimFor); twins
	// the URLs that found their name claimed, fetched to be compared
	// once the transfers are over (engine_twin.go).
	owners    *os.File
	ownersW   *bufio.Writer
	ownersBuf []byte // claimFor's line, kept for the next one
	twins     []twin
	twinCount int // twins fetched, up to maxTwins
	conflicts int

	reportMu sync.Mutex
	del      deleter // --delete and the manifest

	// sentValidators holds the validators worked out for URLs whose
	// requests were sent ahead, by URL, until their turn.
	sentValidators sync.Map
}

// startPoint is what the recursion keeps of a start URL for --no-parent.
type startPoint struct {
	family, host, prefix string
}

// Run mirrors the start URLs into opts.Dir through c and returns the
// totals and the first failure (nil when every URL came).
//
// The walk is breadth first, as wget's: every URL one link away from the
// start is fetched before any two links away, so that --level cuts the
// tree evenly and a run stopped early has the top of the tree whole. Up to
// Options.Parallel URLs are fetched at once, in queue order.
func Run(ctx context.Context, c *fetch.Client, opts Options, start []uri.URL) (Stats, error) {
	e, err := newEngine(c, opts, start)
	if err != nil {
		return Stats{}, err
	}
	defer e.close()
	ctx, e.cancel = context.WithCancel(ctx)
	defer e.cancel()
	e.done = ctx.Done()
	stop := context.AfterFunc(ctx, func() {
		e.mu.Lock()
		e.cond.Broadcast()
		e.mu.Unlock()
	})
	defer stop()
	if e.o.Delete || e.recording() {
		e.startDeleter(start)
	}
	for i, u := range start {
		e.consider(item{depth: 0, start: i, kind: schemes.KindOther, size: -1}, u, true)
	}
	n := e.o.Parallel
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.work(ctx)
		}()
	}
	wg.Wait()
	if e.fatal == nil && ctx.Err() == nil {
		e.settleTwins()
	}
	if e.fatal == nil && ctx.Err() == nil && e.o.Delete && e.stats.Failed == 0 {
		e.sweep(start)
	}
	if e.fatal == nil && ctx.Err() == nil && e.o.ConvertLinks && !e.o.DryRun {
		e.convertAll()
	}
	derr := e.finishDeleter()
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.stats
	st.Queued = e.q.len()
	switch {
	case e.fatal != nil:
		return st, e.fatal
	case e.first == nil && ctx.Err() != nil:
		return st, ctx.Err()
	case e.first == nil:
		return st, derr
	}
	return st, e.first
}

func newEngine(c *fetch.Client, o Options, start []uri.URL) (*engine, error) {
	if o.Dir == "" {
		o.Dir = "."
	}
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	if o.PerHost <= 0 || o.PerHost > o.Parallel {
		o.PerHost = o.Parallel
	}
	e := &engine{
		c: c, o: o,
		schemesOK: map[string]bool{},
		hostsOK:   map[string]bool{},
		seen:      newURLSet(),
		saved:     newURLSet(),
		gates:     map[string]*hostGate{},
		hosts:     hostsched.NewLimiter(o.PerHost),
		robots:    map[string]*robotsEntry{},
		maxItems:  o.MaxEntries,
	}
	if e.maxItems == 0 {
		e.maxItems = DefaultMaxEntries
	}
	e.cond = sync.NewCond(&e.mu)
	for _, s := range o.Schemes {
		e.schemesOK[strings.ToLower(s)] = true
	}
	for _, u := range start {
		if len(o.Schemes) == 0 {
			e.schemesOK[u.Scheme()] = true
			if t := tlsTwin(u.Scheme()); t != "" {
				e.schemesOK[t] = true
			}
		}
		e.hostsOK[strings.ToLower(u.Hostname())] = true
		e.starts = append(e.starts, startOf(u))
		e.startURLs = append(e.startURLs, u)
	}
	families := map[string]bool{}
	for s := range e.schemesOK {
		families[family(s)] = true
	}
	if len(families) > 1 {
		e.o.Layout.SchemeDirs = true
	}
	if e.o.Layout.NewsHost == "" {
		// news: URLs name no server (RFC 1738 §3.6): theirs is the
		// news fetcher's, or NNTPSERVER's.
		var h string
		if nf, ok := c.Fetchers["news"].(*news.Fetcher); ok {
			h = nf.Server
		}
		if h == "" {
			h = os.Getenv("NNTPSERVER")
		}
		e.o.Layout.NewsHost = h
	}
	s, err := openStore(o.Dir)
	if err != nil {
		return nil, err
	}
	e.store = s
	if e.recording() {
		s.OnMkdir(e.madeDir)
	}
	if o.ConvertLinks {
		f, err := os.CreateTemp("", "urlget-pages-")
		if err != nil {
			s.Close()
			return nil, err
		}
		os.Remove(f.Name())
		e.pages = f
	}
	return e, nil
}

func (e *engine) close() {
	e.q.close()
	if e.pages != nil {
		e.pages.Close()
	}
	if e.owners != nil {
		e.owners.Close()
	}
	for _, t := range e.twins {
		os.Remove(t.tmp)
	}
	e.store.Close()
}

// tlsTwin is the scheme that names the same resources over TLS, or the
// same without it (uri.SchemeOf); "" for a scheme with none.
func tlsTwin(s string) string {
	info, _ := uri.SchemeOf(s)
	return info.Twin
}

// family names the protocol a scheme speaks, TLS or not (uri.SchemeOf):
// the scheme directory of a run that crosses schemes.
func family(s string) string {
	info, _ := uri.SchemeOf(s)
	return info.Family
}

// startOf returns what --no-parent keeps of a start URL: the directory a
// recursion must stay in. A URL that names a directory (its path ends in
// "/", a gopher menu, a newsgroup) is its own; a file's is the directory
// it is in.
func startOf(u uri.URL) startPoint {
	sp := startPoint{family: family(u.Scheme()), host: hostsched.Key(u)}
	p, isDir := resolvedParentPath(u)
	if !isDir {
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			p = p[:i+1]
		} else {
			p = ""
		}
	}
	sp.prefix = p
	return sp
}

// parentPath returns the part of u that --no-parent compares (the path,
// a gopher selector, a newsgroup) and whether u names a directory.
func parentPath(u uri.URL) (string, bool) {
	switch u.Scheme() {
	case "gopher", "gophers":
		g, err := u.Gopher()
		if err != nil {
			return u.Path(), false
		}
		return g.Selector, g.Type == '1'
	case "news", "snews":
		n, err := u.News()
		if err != nil || n.MessageID != "" {
			return "", false
		}
		return n.Group, true
	case "nntp", "nntps":
		n, err := u.NNTP()
		if err != nil {
			return u.Path(), false
		}
		return n.Group, !n.HasArticle
	}
	p := u.Path()
	return p, p == "" || strings.HasSuffix(p, "/")
}

// resolvedParentPath is parentPath with the dot segments removed (RFC
// 3986 §5.2.4) from a path, or from a gopher selector that is written as
// one, as the server will resolve them: --no-parent compares where a URL
// leads, not how it is spelled, so that "/pub/../etc/" is not below
// "/pub/". %-escapes of unreserved characters are decoded first (RFC
// 3986 §6.2.2.2), so "%2E%2E" counts as "..".
func resolvedParentPath(u uri.URL) (string, bool) {
	switch u.Scheme() {
	case "gopher", "gophers":
		p, dir := parentPath(u)
		return cleanSelector(p), dir
	case "news", "snews", "nntp", "nntps":
		return parentPath(u)
	}
	_, dir := parentPath(u)
	return normalizedPath(u), dir
}

// normalizedPath is u's path normalized (RFC 3986 §6.2.2): as it is when
// it holds no percent-escape to case or decode and no segment that could
// be a dot segment, which is what nearly every listing's entry is, so
// that the walk normalizes only the few that need it.
func normalizedPath(u uri.URL) string {
	p := u.Path()
	if p != "" && !strings.Contains(p, "%") && !strings.Contains(p, "/.") && !strings.HasPrefix(p, ".") {
		return p
	}
	return u.Normalize().Path()
}

// cleanSelector removes the dot segments of a gopher selector that reads
// as a path ("/a/../b" is "/b"), keeping its final "/"; any other
// selector is opaque (RFC 1436 §2) and kept as it is.
func cleanSelector(sel string) string {
	if !strings.HasPrefix(sel, "/") {
		return sel
	}
	c := path.Clean(sel)
	if strings.HasSuffix(sel, "/") && c != "/" {
		c += "/"
	}
	return c
}

// onServer reports whether u is on the start point's server: its
// protocol, host and port. --no-parent holds only there, as wget's does:
// a link to another server (which --schemes or --span-hosts let in) has
// no directory of the start's to stay below.
func (sp startPoint) onServer(u uri.URL) bool {
	return family(u.Scheme()) == sp.family && hostsched.Key(u) == sp.host
}

// under reports whether u lies at or below the start point.
func (sp startPoint) under(u uri.URL) bool {
	if !sp.onServer(u) {
		return false
	}
	p, _ := resolvedParentPath(u)
	switch {
	case sp.prefix == "" || p == sp.prefix:
		return true
	case strings.HasSuffix(sp.prefix, "/"):
		return strings.HasPrefix(p, sp.prefix)
	}
	return strings.HasPrefix(p, sp.prefix+"/") || strings.HasPrefix(p, sp.prefix+".") && (u.Scheme() == "news" || u.Scheme() == "nntp")
}

// work takes items from the queue until it is empty and no item is being
// processed (one could still add to it), or the run ends.
func (e *engine) work(ctx context.Context) {
	for {
		batch, ok := e.next(ctx)
		if !ok {
			return
		}
		// A batch holds its server's place (--parallel-host) from its
		// first request to its last body: its requests are in flight on
		// one connection together.
		var gate *hostGate
		if len(batch) > 1 {
			if u, err := uri.Parse(batch[0].url); err == nil {
				gate = e.gate(u)
				if gate.acquire(ctx, e.o) != nil {
					gate = nil
				}
			}
		}
		if len(batch) > 1 {
			e.expect(batch)
		}
		for _, it := range batch {
			e.process(ctx, it, gate != nil)
			e.mu.Lock()
			e.active--
			e.stats.Done++
			if e.active == 0 && e.q.len() == 0 {
				e.cond.Broadcast()
			}
			st := e.stats
			st.Queued = e.q.len()
			e.mu.Unlock()
			if e.o.Progress != nil {
				e.reportMu.Lock()
				e.o.Progress(st)
				e.reportMu.Unlock()
			}
		}
		if gate != nil {
			gate.release()
		}
	}
}

// batchMax is the most URLs of one http server a worker takes at once, in
// queue order: the fetcher sends their requests ahead on one connection
// (fetch.Client.Expect, HTTP/1.1 pipelining, up to 16 in flight), so that
// a directory of small files costs a round trip per 16 files rather than
// per file. A batch longer than the pipeline keeps it full: each answer
// read sends the next request, whose segment carries the acknowledgment
// of what came. Where the pipeline ends with the batch, the server's last
// answers wait: one round trip, and on a server whose answers are corked
// and then held by Nagle's algorithm (nginx's tcp_nopush, Debian's
// default) a delayed acknowledgment of 40 ms. Measured on 2,000 files of
// 4 KiB from nginx, 64 against 16: 0.45 s against 1.43 s over loopback,
// 0.80 s against 1.89 s 10 ms away.
const batchMax = 64

// batchSize is how many URLs a worker takes at once: the queue shared
// among the workers, so that a short queue (a start page's few links)
// keeps them all busy, and at most batchMax. The item already taken
// counts as queued.
func (e *engine) batchSize() int {
	per := (e.q.len() + 1 + int64(e.o.Parallel) - 1) / int64(e.o.Parallel)
	return int(max(1, min(per, batchMax)))
}

// expect tells the client the requests of a batch, in the order they
// will be made, so that the fetcher sends them ahead: each as process will
// make it, under --timestamping with its local copy's validators, worked out now and
// kept for its turn (sentValidators). Under --timestamping an item whose listing gave
// its size and time is left out: upToDate most often finds it unchanged
// without a request, and its local file is not looked at here for one
// that may never be made. A part to resume is not looked at either: its
// request asks for a range, which is never sent ahead.
func (e *engine) expect(batch []item) {
	reqs := make([]fetch.Request, 0, len(batch))
	for _, it := range batch {
		if e.o.Timestamping && it.size >= 0 && !it.mod.IsZero() {
			continue
		}
		u, err := uri.Parse(it.url)
		if err != nil {
			continue
		}
		req := fetch.Request{URL: u, Start: e.startURLs[it.start]}
		if e.o.Timestamping {
			req.IfModifiedSince, req.IfNoneMatch = e.validators(u)
		}
		reqs = append(reqs, req)
	}
	e.c.Expect(reqs, false)
}

// batchKey is the server of an http: URL, which items must share to be
// taken together; "" for any other URL.
func batchKey(raw string) string {
	if !strings.HasPrefix(raw, "http://") {
		return ""
	}
	rest := raw[len("http://"):]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return strings.ToLower(rest)
}

func (e *engine) next(ctx context.Context) ([]item, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		if e.fatal != nil || ctx.Err() != nil {
			return nil, false
		}
		it, ok, err := e.q.pop()
		if err != nil {
			e.stop(fmt.Errorf("%w: the queue of URLs could not be read back from its temporary file: %w (%w)", ErrStopped, err, schemes.ErrWrite))
			return nil, false
		}
		if ok {
			batch := []item{it}
			if k := batchKey(it.url); k != "" && e.o.Wait <= 0 {
				// --wait spaces each request: none goes ahead.
				size := e.batchSize()
				for len(batch) < size {
					nx, ok, err := e.q.peek()
					if err != nil || !ok || batchKey(nx.url) != k {
						break
					}
					e.q.pop()
					batch = append(batch, nx)
				}
			}
			e.active += len(batch)
			return batch, true
		}
		if e.active == 0 {
			return nil, false
		}
		e.cond.Wait()
	}
}

// consider queues a link found at parent's place (or a start URL, when
// isStart) if the recursion's rules let it in and it was not queued
// before.
func (e *engine) consider(it item, ref uri.URL, isStart bool) {
	ref = ref.WithoutFragment()
	if !isStart && !e.allowed(it, ref) {
		return
	}
	it.url = ref.String()
	key := visitKey(ref)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.seen.add(key) {
		return
	}
	if err := e.q.push(it); err != nil {
		e.stop(fmt.Errorf("%w: the queue of URLs could not be written to its temporary file: %w (%w)", ErrStopped, err, schemes.ErrWrite))
	}
	e.cond.Signal()
}

// visitKey is the form under which a URL counts as seen: normalized
// (RFC 3986 §6), and for gopher with the type a menu's empty path stands
// for written out (RFC 1738 §3.4: "gopher://host/" is "gopher://host/1"),
// so that a menu's links back to the top find it seen.
func visitKey(u uri.URL) string {
	k := u.Normalize().String()
	if s := u.Scheme(); (s == "gopher" || s == "gophers") && (u.Path() == "" || u.Path() == "/") {
		k = strings.TrimSuffix(k, "/") + "/1"
	}
	return k
}

// allowed applies the recursion's rules to a link: schemes, depth,
// hosts, --no-parent, the name and URL patterns.
func (e *engine) allowed(it item, ref uri.URL) bool {
	s := ref.Scheme()
	switch {
	case !e.schemesOK[s]:
		return false
	case it.kind == schemes.KindSearch && !e.o.Search:
		return false
	case it.kind == schemes.KindLink || it.kind == schemes.KindInfo:
		// A symbolic link is made locally (engine_symlink.go), not
		// followed: one to "." or ".." would lead the walk round
		// without end.
		return false
	case e.o.Level >= 0 && it.depth > e.o.Level:
		return false
	}
	host := strings.ToLower(ref.Hostname())
	if !e.hostsOK[host] && s != "news" && s != "snews" {
		if !e.o.SpanHosts || !inDomains(host, e.o.Domains) {
			return false
		}
	}
	if sp := e.starts[it.start]; e.o.NoParent && sp.onServer(ref) && !sp.under(ref) {
		return false
	}
	text := ref.String()
	if e.o.AcceptRegex != nil && !e.o.AcceptRegex.MatchString(text) {
		return false
	}
	if e.o.RejectRegex != nil && e.o.RejectRegex.MatchString(text) {
		return false
	}
	if (len(e.o.Accept) > 0 || len(e.o.Reject) > 0) && isFileLink(it, ref) {
		name := lastName(ref)
		if len(e.o.Accept) > 0 && !matchAny(e.o.Accept, name) {
			return false
		}
		if matchAny(e.o.Reject, name) {
			return false
		}
	}
	return true
}

// inDomains reports whether host is one of domains or below one; an
// empty list holds every host.
func inDomains(host string, domains []string) bool {
	if len(domains) == 0 {
		return true
	}
	for _, d := range domains {
		d = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(d), "."))
		if d != "" && (host == d || strings.HasSuffix(host, "."+d)) {
			return true
		}
	}
	return false
}

// isFileLink reports whether the name patterns apply to a link: to files,
// not to the directories, menus and pages a recursion passes through.
func isFileLink(it item, ref uri.URL) bool {
	switch it.kind {
	case schemes.KindDirectory:
		return false
	case schemes.KindFile, schemes.KindArticle:
		return true
	}
	if _, dir := parentPath(ref); dir {
		return false
	}
	return !links.IsHTML("", lastName(ref))
}

// lastName is the decoded last segment of a URL's path (or selector).
func lastName(u uri.URL) string {
	p, _ := parentPath(u)
	if u.Scheme() != "gopher" && u.Scheme() != "gophers" {
		if d, err := uri.Unescape(p); err == nil {
			p = d
		}
	}
	p = strings.TrimSuffix(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	if i := strings.IndexByte(p, ';'); i >= 0 && (u.Scheme() == "ftp" || u.Scheme() == "ftps") {
		p = p[:i]
	}
	return p
}

// matchAny reports whether name matches one of the comma-separated
// pattern lists: a pattern with a wildcard as a glob (path.Match), any
// other as a suffix, as wget's -A and -R read them.
func matchAny(lists []string, name string) bool {
	for _, l := range lists {
		for _, p := range strings.Split(l, ",") {
			if p == "" {
				continue
			}
			if strings.ContainsAny(p, "*?[") {
				if ok, _ := path.Match(p, name); ok {
					return true
				}
			} else if strings.HasSuffix(name, p) {
				return true
			}
		}
	}
	return false
}

// pageKind is the local form a URL's copy takes before it is fetched: a
// gopher menu is saved as its directory's gophermap, anything else under
// its own name (an http URL ending in "/" as index.html, by the layout).
func pageKind(u uri.URL) pageType {
	if g, err := u.Gopher(); err == nil && (u.Scheme() == "gopher" || u.Scheme() == "gophers") && g.Type == '1' {
		return pageGopherMenu
	}
	return pageFile
}

// process fetches one item and saves it, or walks its listing.
func (e *engine) process(ctx context.Context, it item, gated bool) {
	u, err := uri.Parse(it.url)
	if err != nil {
		e.fail(it.url, "", err)
		return
	}
	rel := it.path
	if rel == "" {
		if rel, err = e.o.Layout.path(u, pageKind(u)); err != nil {
			e.fail(u.Redacted(), "", &schemes.Error{Kind: schemes.ErrBadURL, URL: u.Redacted(), Err: err})
			return
		}
	}
	if reason := refusedName(rel); reason != "" {
		// A name of urlget's own state: the server's file is not
		// taken for urlget's, nor written where urlget's would be.
		e.report(Report{URL: u.Redacted(), Status: Skipped, Reason: reason})
		return
	}
	if it.depth > 0 && e.o.Robots && !e.robotsAllow(ctx, u, e.startURLs[it.start]) {
		// Kept out, not gone: --delete leaves its copy alone.
		e.claimFor(rel, u)
		e.report(Report{URL: u.Redacted(), Status: Skipped, Reason: reasonRobots})
		return
	}
	twin := false
	if !namesListing(u, it.kind) && !e.claimFor(rel, u) {
		// A file's local name: one URL per name and run. Another URL
		// took it: this one is the same resource (a redirect to it was
		// saved there), or a twin, whose bytes will tell.
		owner, same := e.sameResource(rel, u)
		if same {
			e.report(Report{URL: u.Redacted(), Path: rel, Status: Skipped, Reason: "saved already, from " + owner})
			return
		}
		if !e.mayTwin() {
			e.collided(u, rel, owner)
			return
		}
		twin = true
	}
	if e.o.DryRun && e.dryRun(it, u, rel) {
		return
	}
	if !twin && e.o.Timestamping && e.upToDate(it, rel) {
		e.report(Report{URL: u.Redacted(), Path: rel, Status: Unchanged})
		e.pageLinks(ctx, it, u, rel, "")
		return
	}
	req := fetch.Request{URL: u, Start: e.startURLs[it.start]}
	var part partial
	if !namesListing(u, it.kind) && pageKind(u) == pageFile && !twin {
		// Resumed only on the validator recorded when the part began
		// (If-Range, or FTP's SIZE and MDTM): a changed file is sent
		// whole, never spliced onto the old one's first bytes.
		part = e.store.Partial(rel, u.Redacted())
		req.Offset, req.IfRange = part.Offset, part.Validator
	}
	if e.o.Timestamping && !twin {
		if v, ok := e.sentValidators.LoadAndDelete(it.url); ok {
			// Worked out already for the request sent ahead.
			c := v.(validator)
			req.IfModifiedSince, req.IfNoneMatch = c.mod, c.etag
		} else if fi, err := e.store.Stat(rel); err == nil && fi.Mode().IsRegular() {
			req.IfModifiedSince, req.IfNoneMatch = fi.ModTime(), e.etagOf(rel, fi)
		}
	}
	if !gated {
		gate := e.gate(u)
		if err := gate.acquire(ctx, e.o); err != nil {
			return
		}
		defer gate.release()
	}
	res, err := e.c.Do(ctx, req)
	if err != nil {
		e.fail(u.Redacted(), rel, err)
		return
	}
	switch {
	case res.Listing != nil:
		e.walk(ctx, it, u, res, twin)
	case res.Body != nil:
		e.save(ctx, it, u, rel, res, part, twin)
	case res.NotModified:
		e.report(Report{URL: u.Redacted(), Path: rel, Status: Unchanged})
		e.pageLinks(ctx, it, u, rel, "")
	default:
		e.report(Report{URL: u.Redacted(), Status: Fetched})
	}
}

// namesListing reports whether u names a listing that is not saved (an
// FTP or local directory, a newsgroup), whose local path is a directory
// rather than a file's name.
func namesListing(u uri.URL, kind schemes.Kind) bool {
	switch u.Scheme() {
	case "http", "https", "gopher", "gophers":
		return false
	}
	_, dir := parentPath(u)
	return dir || kind == schemes.KindDirectory
}

// validators returns the conditions of a request for u under --timestamping: its
// local copy's time and entity tag, for a request told ahead (expect).
func (e *engine) validators(u uri.URL) (time.Time, string) {
	var c validator
	if rel, err := e.o.Layout.path(u, pageKind(u)); err == nil {
		if fi, err := e.store.Stat(rel); err == nil && fi.Mode().IsRegular() {
			c = validator{fi.ModTime(), e.etagOf(rel, fi)}
		}
	}
	// Kept for the URL's own turn, whose request must carry the same
	// fields to be given the answer sent ahead.
	e.sentValidators.Store(u.String(), c)
	return c.mod, c.etag
}

// validator is what --timestamping sends for a URL: its local copy's time and tag.
type validator struct {
	mod  time.Time
	etag string
}

// upToDate reports whether --timestamping may skip the fetch: the listing gave the
// remote file's size and time and the local copy has the same size and is
// not older (wget's rule), or the item is a news article, which never
// changes once posted (RFC 5536 §3.1.3), or a file of a plain gopher
// menu, which says nothing to compare, and its file is there.
func (e *engine) upToDate(it item, rel string) bool {
	s := it.url[:strings.IndexByte(it.url, ':')]
	plainGopher := (s == "gopher" || s == "gophers") && it.kind == schemes.KindFile && it.size < 0 && it.mod.IsZero()
	if !plainGopher && !(it.kind == schemes.KindArticle && it.path != "") && (it.size < 0 || it.mod.IsZero()) {
		// Nothing to compare (an http link): the request's conditions
		// decide, and the file is not looked at twice.
		return false
	}
	fi, err := e.store.Stat(rel)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if it.kind == schemes.KindArticle && it.path != "" {
		return true
	}
	if plainGopher {
		// A plain gopher menu tells neither size nor time (RFC 1436),
		// and the server then offered no Gopher+ attributes: the copy
		// that is there is kept, as an article's is.
		return true
	}
	return it.size >= 0 && !it.mod.IsZero() && fi.Size() == it.size &&
		!fi.ModTime().Before(it.mod.Truncate(time.Second))
}

// save writes a body to its local file, then looks for links in it when it
// is HTML. part is what the request resumed, if anything; twin tells
// that rel was taken by another URL of the run (engine_twin.go).
func (e *engine) save(ctx context.Context, it item, u uri.URL, rel string, res *schemes.Resource, part partial, twin bool) {
	defer res.Body.Close()
	final := u
	partRel := rel
	if res.URL != u.Redacted() {
		if f, ok := redirected(u, res.URL); ok {
			// A redirect: the copy goes where the final URL's would,
			// links resolve against it, and it counts as seen.
			final = f
			e.noteRedirect(it, u, f)
			e.mu.Lock()
			e.seen.add(visitKey(f.WithoutFragment()))
			e.mu.Unlock()
			if r, err := e.o.Layout.path(f, pageFile); err == nil && it.path == "" && r != rel {
				rel, twin = r, false
				if reason := refusedName(rel); reason != "" {
					e.report(Report{URL: f.Redacted(), Status: Skipped, Reason: reason})
					return
				}
				if !e.claimFor(rel, f) {
					owner, same := e.sameResource(rel, f)
					if same {
						// The redirect's target was saved under its
						// own name: one resource.
						e.report(Report{URL: u.Redacted(), Path: rel, Status: Skipped, Reason: "redirected to " + owner + ", saved already"})
						return
					}
					if !e.mayTwin() {
						e.collided(f, rel, owner)
						return
					}
					twin = true
				}
			}
		}
	}
	masked := final.Redacted()
	if twin {
		e.saveTwin(ctx, final, rel, it, res)
		return
	}
	if e.o.DryRun {
		// Not written: a page is read for its links (dryRun), any
		// other body left unread.
		e.report(Report{URL: masked, Path: rel, Status: Skipped, Reason: reasonDryRun})
		if links.IsHTML(res.ContentType, rel) && (e.o.Level < 0 || it.depth < e.o.Level) {
			e.linksFrom(ctx, it, final, rel, res.Body)
		}
		return
	}
	var f *storeFile
	var err error
	var reason string
	switch {
	case res.Offset > 0 && res.Offset == part.Offset && rel == partRel:
		f, err = e.store.Resume(rel, part)
	case res.Offset > 0:
		err = errors.New("the server resumed at another offset than asked")
	default:
		if part.Offset > 0 {
			// Asked for the rest of the file the part came from, and
			// sent a whole one: it changed (or cannot resume).
			reason = reasonChanged
		}
		f, err = e.store.Create(rel)
	}
	if err != nil {
		e.fail(masked, rel, &schemes.Error{Kind: schemes.ErrWrite, URL: masked, Op: "creating " + rel, Err: err})
		return
	}
	off := res.Offset
	if off > 0 {
		f.SetResume(u.Redacted(), part.Validator)
	} else {
		f.SetResume(u.Redacted(), e.validator(it, u, res))
	}
	n, err := io.Copy(f.File, res.Body)
	if err != nil {
		f.Abort(off+n > 0)
		if xfer.ClassifyWrite(err) != xfer.NotWrite {
			err = &schemes.Error{Kind: schemes.ErrWrite, URL: masked, Op: "writing " + rel, Err: err}
		}
		e.failPart(masked, rel, err, f.Kept())
		return
	}
	// The listing's time first: the next run compares the local file's
	// time with the listing's (upToDate), which for LIST may be to the
	// minute or the day only, and is then the same again.
	mod := it.mod
	if mod.IsZero() {
		mod = res.ModTime
	}
	if etag := res.ETag; etag != "" {
		// Best effort: without user extended attributes, --timestamping still has
		// the file's time for If-Modified-Since.
		_ = f.SetETag(etag)
	}
	if err := f.Commit(mod); err != nil {
		e.fail(masked, rel, &schemes.Error{Kind: schemes.ErrWrite, URL: masked, Op: "writing " + rel, Err: err})
		return
	}
	e.recordFile(it, final, rel, res.ETag, mod)
	e.mu.Lock()
	e.stats.Bytes += n
	e.mu.Unlock()
	e.report(Report{URL: masked, Path: rel, Size: n, Status: Fetched, Reason: reason})
	e.pageLinks(ctx, it, final, rel, res.ContentType)
}

// reasonChanged is said of a file whose part a run before kept but whose
// server sent it whole: the part was not of the file there now.
const reasonChanged = "changed on the server; fetched again"

// validator is what a part of u's file is resumed on later: the strong
// validator the response carried, or for FTP the exact size and time its
// listing gave (MLSD's size and modify facts mean SIZE and MDTM's, RFC
// 3659 §7.5; a time to the minute or the day, as LIST gives, compares to
// that precision, schemes.SameFile). A file in ASCII (";type=a") has
// none: its sizes do not compare.
func (e *engine) validator(it item, u uri.URL, res *schemes.Resource) string {
	if res.Validator != "" {
		return res.Validator
	}
	switch u.Scheme() {
	case "ftp", "ftps":
		if v, err := u.FTP(); err == nil && v.Type == "a" {
			return ""
		}
		return schemes.FileValidator(it.size, it.mod)
	}
	return ""
}

// redirected returns the URL a fetch of u ended at, given as masked
// (schemes.Resource.URL, its password hidden). On u's own server it keeps
// u's credentials, which the links found there then carry as u's links
// do; on another it carries none, as a redirect to another host gets none
// (curl without --location-trusted).
func redirected(u uri.URL, masked string) (uri.URL, bool) {
	f, err := uri.Parse(masked)
	if err != nil {
		return u, false
	}
	if _, has := f.RawUserinfo(); !has {
		return f, true
	}
	if strings.EqualFold(f.RawHost(), u.RawHost()) && f.Scheme() == u.Scheme() && portSuffix(f) == portSuffix(u) {
		rest := f.Path()
		if rest == "" {
			rest = "/"
		}
		if q, ok := f.Query(); ok {
			rest += "?" + q
		}
		if ref, err := uri.ParseReference(rest); err == nil {
			return u.ResolveReference(ref), true
		}
	}
	text := f.String()
	i := strings.Index(text, "//")
	at := strings.Index(text, "@")
	if i < 0 || at < i {
		return u, false
	}
	g, err := uri.Parse(text[:i+2] + text[at+1:])
	return g, err == nil
}

// pageLinks queues the links of a saved HTML page, rel, whose URL is base.
func (e *engine) pageLinks(ctx context.Context, it item, base uri.URL, rel, contentType string) {
	if !links.IsHTML(contentType, rel) {
		return
	}
	e.notePage('h', rel, base)
	if e.o.Level >= 0 && it.depth >= e.o.Level {
		return
	}
	f, err := e.store.Open(rel)
	if err != nil {
		return
	}
	defer f.Close()
	e.linksFrom(ctx, it, base, rel, f)
}

// linksFrom queues the links of the HTML page r, saved as rel, whose URL
// is base.
func (e *engine) linksFrom(ctx context.Context, it item, base uri.URL, rel string, r io.Reader) {
	n := 0
	err := links.FromHTML(bufio.NewReaderSize(r, 32<<10), base, func(ref uri.URL) {
		if n++; n > e.maxItems || ctx.Err() != nil {
			return
		}
		e.consider(item{depth: it.depth + 1, start: it.start, kind: schemes.KindOther, size: -1}, ref, false)
	})
	if err != nil {
		e.fail(base.Redacted(), rel, &schemes.Error{Kind: schemes.ErrWrite, URL: base.Redacted(), Op: "reading " + rel, Err: err})
	} else if n > e.maxItems {
		e.fail(base.Redacted(), rel, &schemes.Error{Kind: schemes.ErrTooLarge, URL: base.Redacted(), Op: "reading the links of " + rel, Err: ErrTooManyEntries})
	}
}

// notePage records a saved page for --convert-links.
func (e *engine) notePage(kind byte, rel string, base uri.URL) {
	if e.pages == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	fmt.Fprintf(e.pages, "%c\t%s\t%s\n", kind, strconv.Quote(rel), base.String())
}

// walk reads a listing, queues its entries, saves a gopher menu as its
// gophermap, and with --delete removes the local files it no longer holds.
func (e *engine) walk(ctx context.Context, it item, u uri.URL, res *schemes.Resource, isTwin bool) {
	defer res.Listing.Close()
	masked := u.Redacted()
	dir, err := e.o.Layout.dir(u)
	if err != nil {
		e.fail(masked, "", &schemes.Error{Kind: schemes.ErrBadURL, URL: masked, Err: err})
		return
	}
	var menu *storeFile
	var menuRel string
	var mw *bufio.Writer
	var cw *countWriter
	var twinMenu *os.File // a twin's menu, to be compared (engine_twin.go)
	if pageKind(u) == pageGopherMenu {
		menuRel, err = e.o.Layout.path(u, pageGopherMenu)
		if err == nil && isTwin {
			twinMenu, err = twinFile()
		} else if err == nil && e.o.DryRun {
			// Read, not written: the menu's name stays the local one.
			menu = nil
		} else if err == nil {
			menu, err = e.store.Create(menuRel)
		}
		if err != nil {
			e.fail(masked, menuRel, &schemes.Error{Kind: schemes.ErrWrite, URL: masked, Op: "creating " + menuRel, Err: err})
			return
		}
		switch {
		case twinMenu != nil:
			cw = &countWriter{w: twinMenu}
		case menu != nil:
			cw = &countWriter{w: menu.File}
		}
		if cw != nil {
			mw = bufio.NewWriterSize(cw, 32<<10)
		}
	}
	group := isGroup(u)
	var names map[string]bool
	if e.o.Delete {
		names = map[string]bool{}
	}
	var lerr error
	n, items := 0, 0 // lines, and the items among them
	for ctx.Err() == nil {
		en, err := res.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			lerr = err
			break
		}
		if n++; n > e.maxItems {
			lerr = &schemes.Error{Kind: schemes.ErrTooLarge, URL: masked, Op: "listing", Err: ErrTooManyEntries}
			break
		}
		if mw != nil {
			mw.WriteString(en.Raw)
			mw.WriteString("\r\n")
		}
		if en.URL == "" || en.Kind == schemes.KindInfo {
			continue
		}
		items++
		ref, err := uri.Parse(en.URL)
		if err != nil {
			continue
		}
		if !entryBelow(u, ref) {
			e.report(Report{URL: ref.Redacted(), Status: Skipped, Reason: "listed under a name that leads outside " + masked})
			continue
		}
		child := item{depth: it.depth + 1, start: it.start, kind: en.Kind, size: en.Size, mod: en.ModTime}
		target, isSymlink := symlinkTarget(en)
		if en.Kind == schemes.KindLink && !isSymlink {
			// A pointer to another URL (a gopher menu's h item with a
			// URL: selector): what it names shows when it is fetched.
			child.kind = schemes.KindOther
		}
		if num := en.Fields["number"]; group && num != "" {
			if _, err := strconv.ParseUint(num, 10, 63); err == nil {
				child.path = path.Join(dir, num)
			}
		}
		if names != nil {
			e.keepName(names, dir, child, ref)
		}
		if isSymlink {
			if e.symlink(child, ref, en, target) {
				continue
			}
			child.kind = schemes.KindFile
		}
		e.consider(child, ref, false)
	}
	if ctx.Err() != nil && lerr == nil {
		lerr = ctx.Err()
	}
	if twinMenu != nil {
		mw.WriteString(".\r\n")
		err := mw.Flush()
		if cerr := twinMenu.Close(); err == nil {
			err = cerr
		}
		if err != nil && lerr == nil {
			lerr = &schemes.Error{Kind: schemes.ErrWrite, URL: masked, Op: "writing " + menuRel, Err: err}
		}
		if lerr != nil {
			os.Remove(twinMenu.Name())
			e.fail(masked, menuRel, lerr)
			return
		}
		_, owner := e.owner(menuRel)
		e.addTwin(twin{rel: menuRel, url: masked, owner: owner, tmp: twinMenu.Name(), menu: true})
		return
	}
	keepOld := lerr == nil && names != nil && items == 0 && e.keepEmptiedMenu(it, u, menuRel)
	if menu != nil {
		mw.WriteString(".\r\n")
		if err := mw.Flush(); err != nil && lerr == nil {
			lerr = &schemes.Error{Kind: schemes.ErrWrite, URL: masked, Op: "writing " + menuRel, Err: err}
		}
		if lerr != nil || keepOld {
			menu.Abort(false)
		} else if err := menu.Commit(time.Time{}); err != nil {
			lerr = &schemes.Error{Kind: schemes.ErrWrite, URL: masked, Op: "writing " + menuRel, Err: err}
		} else {
			e.recordFile(it, u, menuRel, "", time.Time{})
			e.notePage('g', menuRel, u)
		}
	}
	if lerr != nil {
		e.fail(masked, menuRel, lerr)
		return
	}
	if madeDir(u) && !e.o.DryRun {
		// Made whether or not the listing held anything: an empty
		// remote directory is a local one too. A dry run makes none.
		if err := e.store.MkdirAll(dir); err != nil {
			e.fail(masked, dir, &schemes.Error{Kind: schemes.ErrWrite, URL: masked, Op: "making " + dir, Err: err})
			return
		}
	}
	var size int64
	if cw != nil {
		size = cw.n
	}
	e.report(Report{URL: masked, Path: menuRel, Size: size, Status: Fetched})
	if names != nil {
		// Only a listing read to its end says what is gone: one cut
		// short would have the rest deleted.
		if menuRel != "" {
			names[path.Base(menuRel)] = true
		}
		e.pruneListing(it, u, dir, names, items == 0)
	}
}

// entryBelow reports whether ref, an entry of the directory listing u
// (ftp, file), names something below that directory, as a listing's
// entries must: resolved (RFC 3986 §5.2.4) it starts with the directory,
// and the segments after it, %-decoded, are names (schemes.IsEntryName),
// none of them a dot segment. A hostile server's MLSD or LIST entry named
// "..", "../../etc" or "a/../../b" is refused here whatever the fetcher
// made of it. Other listings (gopher menus, newsgroups, WAIS results)
// link anywhere, and --no-parent is what holds them.
func entryBelow(u, ref uri.URL) bool {
	switch u.Scheme() {
	case "ftp", "ftps", "file":
	default:
		return true
	}
	if ref.Scheme() != u.Scheme() || !strings.EqualFold(ref.RawHost(), u.RawHost()) || portSuffix(ref) != portSuffix(u) {
		return false
	}
	dir := normalizedPath(u)
	if i := strings.LastIndex(dir, ";type="); i >= 0 && u.Scheme() != "file" {
		dir = dir[:i]
	}
	if !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	// The raw path as well as the resolved one: "a/../b" resolves below
	// the directory but is no name of it.
	raw := ref.Path()
	if strings.HasPrefix(raw, u.Path()) {
		raw = raw[len(u.Path()):]
	}
	for _, seg := range strings.Split(raw, "/") {
		if d, err := uri.Unescape(seg); err != nil || d == "." || d == ".." {
			return false
		}
	}
	rest, ok := strings.CutPrefix(normalizedPath(ref), dir)
	if !ok {
		return false
	}
	rest = strings.TrimSuffix(rest, "/")
	if i := strings.LastIndex(rest, ";type="); i >= 0 && u.Scheme() != "file" {
		rest = rest[:i]
	}
	if rest == "" {
		return false
	}
	for _, seg := range strings.Split(rest, "/") {
		d, err := uri.Unescape(seg)
		if err != nil || !schemes.IsEntryName(d) {
			return false
		}
	}
	return true
}

// madeDir reports whether the listing u stands for a directory made
// locally: an FTP or local directory. A gopher menu has its gophermap
// and an http directory its index.html, which make theirs; a newsgroup
// or a WAIS database is no directory of the server's.
func madeDir(u uri.URL) bool {
	switch u.Scheme() {
	case "ftp", "ftps", "file":
		return true
	}
	return false
}

// countWriter counts what goes through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// isGroup reports whether u names a newsgroup, whose articles are saved
// under their numbers.
func isGroup(u uri.URL) bool {
	switch u.Scheme() {
	case "news", "snews", "nntp", "nntps":
		p, dir := parentPath(u)
		return dir && p != "" && p != "*"
	}
	return false
}

// keepName records, for --delete, the name in dir that an entry of its
// listing keeps: its file's, or the subdirectory it lies in.
func (e *engine) keepName(names map[string]bool, dir string, child item, ref uri.URL) {
	rel := child.path
	if rel == "" {
		var err error
		if child.kind == schemes.KindDirectory {
			rel, err = e.o.Layout.dir(ref)
		} else {
			rel, err = e.o.Layout.path(ref, pageKind(ref))
		}
		if err != nil {
			return
		}
	}
	prefix := dir + "/"
	if dir == "." || dir == "" {
		prefix = ""
	}
	rest, ok := strings.CutPrefix(rel, prefix)
	if !ok || rest == "" {
		return
	}
	first, _, _ := strings.Cut(rest, "/")
	names[first] = true
}

// fail records a failed URL: the first failure is the run's, a full disk
// ends the run.
func (e *engine) fail(masked, rel string, err error) {
	e.failPart(masked, rel, err, false)
}

// failPart is fail for a file whose part was kept (kept) for the next
// run to resume, or not.
func (e *engine) failPart(masked, rel string, err error, kept bool) {
	e.mu.Lock()
	if e.stopped() && e.fatal == nil {
		// The caller stopped the run (Ctrl-C): whatever error the
		// transfer ended with came of that, a write error of a body cut
		// off included. Not a failure of this URL's own; its part is
		// kept for the next run where it can be resumed (Report.Kept).
		e.mu.Unlock()
		e.report(Report{URL: masked, Path: rel, Status: Interrupted, Err: context.Canceled, Kept: kept})
		return
	}
	if errors.Is(err, context.Canceled) && e.stopped() {
		// Cut short by what stopped the run, reported once.
		e.mu.Unlock()
		return
	}
	e.stats.Failed++
	if e.first == nil {
		e.first = err
	}
	if xfer.ClassifyWrite(err) == xfer.DiskFull || errors.Is(err, ErrStateDir) {
		e.stop(fmt.Errorf("%w: %w", ErrStopped, err))
	}
	e.mu.Unlock()
	e.report(Report{URL: masked, Path: rel, Status: Failed, Err: err})
}

// stopped reports whether the run's context is done.
func (e *engine) stopped() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// stop ends the run for err, the first such error; e.mu is held.
func (e *engine) stop(err error) {
	if e.fatal == nil {
		e.fatal = err
		e.cancel()
	}
}

func (e *engine) report(r Report) {
	if e.o.Report == nil {
		return
	}
	e.reportMu.Lock()
	defer e.reportMu.Unlock()
	e.o.Report(r)
}

// hostGate holds the transfers to one server to Options.PerHost and
// spaces them by Options.Wait.
type hostGate struct {
	lim  *hostsched.Limiter // the run's, shared by every server
	key  string             // the server's hostsched.Key
	mu   sync.Mutex
	next time.Time
}

func (e *engine) gate(u uri.URL) *hostGate {
	k := hostsched.Key(u)
	e.mu.Lock()
	defer e.mu.Unlock()
	g := e.gates[k]
	if g == nil {
		g = &hostGate{lim: e.hosts, key: k}
		e.gates[k] = g
	}
	return g
}

// acquire waits for a free place and for the pause --wait asks.
func (g *hostGate) acquire(ctx context.Context, o Options) error {
	if err := g.lim.Acquire(ctx, g.key); err != nil {
		return err
	}
	if o.Wait <= 0 {
		return nil
	}
	w := o.Wait
	if o.RandomWait {
		w = time.Duration(float64(w) * (0.5 + rand.Float64()))
	}
	g.mu.Lock()
	now := time.Now()
	at := g.next
	if at.Before(now) {
		at = now
	}
	g.next = at.Add(w)
	g.mu.Unlock()
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		g.release()
		return ctx.Err()
	}
}

func (g *hostGate) release() { g.lim.Release(g.key) }
