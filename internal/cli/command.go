package cli

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/glob"
	"github.com/urlget/urlget/internal/outfile"
	"github.com/urlget/urlget/internal/progress"
	"github.com/urlget/urlget/internal/xfer"
	"github.com/urlget/urlget/mirror"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
	"github.com/urlget/urlget/warc/warcsink"
)

// Exit statuses. Where curl has the same condition the number is curl's
// (see the README's table).
const (
	exitOK             = 0
	exitUnsupported    = 1   // no fetcher for the scheme, or the URL names nothing retrievable
	exitUsage          = 2   // bad command line
	exitBadURL         = 3   // malformed URL
	exitProxyResolve   = 5   // the proxy's name did not resolve
	exitResolve        = 6   // host name did not resolve
	exitConnect        = 7   // connection refused or unreachable
	exitProtocol       = 8   // the server broke its protocol
	exitAccessDenied   = 9   // the server refused access
	exitTruncated      = 18  // the transfer ended early
	exitHTTP           = 22  // HTTP status 400 or above
	exitWrite          = 23  // writing the output failed
	exitMaxDelete      = 25  // --delete stopped at --max-delete (rsync's number)
	exitRead           = 26  // a URL list (--url @FILE) cannot be read
	exitTimeout        = 28  // a timeout expired
	exitRange          = 33  // the server cannot resume (-C), or a range no server could serve
	exitTLS            = 35  // the TLS handshake failed
	exitPastEnd        = 36  // a range or -C offset past the end of an ftp: or file: file
	exitRedirects      = 47  // more redirects than --max-redirs
	exitProxyTunnel    = 56  // the proxy refused the CONNECT tunnel
	exitRecv           = 56  // receiving failed: a TLS alert after the handshake
	exitLocalCert      = 58  // the client certificate or key cannot be used (-E, --key)
	exitCipher         = 59  // --ciphers names no cipher suite
	exitPeerCert       = 60  // the server's certificate was not verified
	exitTooLarge       = 63  // larger than --max-filesize
	exitLoginDenied    = 67  // the server refused the login
	exitNotFound       = 78  // the resource does not exist
	exitPinned         = 90  // the server's public key is not the pinned one (--pinnedpubkey)
	exitCertStatus     = 91  // the stapled certificate status is not good (--cert-status)
	exitProxy          = 97  // the SOCKS handshake failed
	exitInterrupted    = 130 // SIGINT; other signals 128 plus their number
	exitOther          = 1
	writeOutMaxVarName = 40
)

// exitCode maps an error from the taxonomy to the command's exit status.
func exitCode(err error) int {
	var se *schemes.Error
	if errors.As(err, &se) && se.Code >= 400 && se.Code <= 599 && strings.HasPrefix(se.URL, "http") {
		return exitHTTP
	}
	if code, ok := ftpExitCode(err); ok {
		return code
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, mirror.ErrMaxDelete):
		return exitMaxDelete
	case errors.Is(err, errRange), errors.Is(err, schemes.ErrBadRange):
		return exitRange
	case errors.Is(err, schemes.ErrPastEnd):
		return exitPastEnd
	case errors.Is(err, errList):
		return exitRead
	case errors.Is(err, schemes.ErrWrite), xfer.ClassifyWrite(err) != xfer.NotWrite:
		return exitWrite
	case errors.Is(err, schemes.ErrTooManyRedirects):
		return exitRedirects
	case errors.Is(err, schemes.ErrBadURL):
		return exitBadURL
	case errors.Is(err, schemes.ErrNotRetrievable):
		return exitUnsupported
	case errors.Is(err, schemes.ErrProxyResolve):
		return exitProxyResolve
	case errors.Is(err, schemes.ErrProxyTunnel):
		return exitProxyTunnel
	case errors.Is(err, schemes.ErrProxyHandshake):
		return exitProxy
	case errors.Is(err, schemes.ErrResolve):
		return exitResolve
	case errors.As(err, new(*bindError)):
		return exitInterface
	case errors.Is(err, schemes.ErrTLSHandshake):
		return exitTLS
	case errors.Is(err, schemes.ErrCertificate):
		return exitPeerCert
	case errors.Is(err, schemes.ErrPinnedKey):
		return exitPinned
	case errors.Is(err, schemes.ErrCertStatus):
		return exitCertStatus
	case errors.Is(err, schemes.ErrTLSAlert):
		return exitRecv
	case errors.Is(err, schemes.ErrConnect):
		return exitConnect
	case errors.Is(err, schemes.ErrAccessDenied):
		return exitAccessDenied
	case errors.Is(err, schemes.ErrTruncated):
		return exitTruncated
	case errors.Is(err, schemes.ErrTimeout):
		return exitTimeout
	case errors.Is(err, schemes.ErrTooLarge):
		return exitTooLarge
	case errors.Is(err, schemes.ErrLoginFailed):
		return exitLoginDenied
	case errors.Is(err, schemes.ErrNotFound):
		return exitNotFound
	case errors.Is(err, schemes.ErrProtocol):
		return exitProtocol
	}
	return exitOther
}

// withFlagHint adds to an error the library reports when it lacks something
// the command line can give, the flags that give it: the library says what
// is missing in its own words, the command says how to supply it.
func withFlagHint(err error) error {
	var hint string
	switch {
	case err == nil:
		return nil
	case errors.Is(err, schemes.ErrNoNewsServer):
		hint = "use --nntp-server or set NNTPSERVER"
	case errors.Is(err, schemes.ErrNoSearchTerms):
		hint = "give them with --search TERMS"
	case errors.Is(err, schemes.ErrActiveFTPProxy):
		hint = "leave -P out"
	case errors.Is(err, schemes.ErrNoCredentials):
		hint = "give them in the URL, with -u user:password or in .netrc (--netrc)"
	default:
		return err
	}
	return &hintedError{err: err, hint: hint}
}

// hintedError is an error with the command's hint appended after "; ".
type hintedError struct {
	err  error
	hint string
}

func (e *hintedError) Error() string { return e.err.Error() + "; " + e.hint }
func (e *hintedError) Unwrap() error { return e.err }

// errInterrupted is the kind given to a transfer stopped by a signal.
var errInterrupted = errors.New("interrupted")

// errRange is the cause when -C asked to resume and the server sent the
// body from its start instead.
var errRange = errors.New("the server does not support resuming (byte ranges)")

// command runs the transfers of one invocation.
type command struct {
	opts   *options
	stdin  *os.File
	stdout io.Writer
	stderr io.Writer
	client *fetch.Client
	// archive is --warc-file's sink, set on every Client the run builds
	// (the mirror's too); nil without it.
	archive *warcsink.Sink
	cancel  context.CancelFunc // ends the run's context; see catchInterrupts
	signal  atomic.Int32       // the signal that ended it, once caught

	progress *progress.Bar
	headers  *headerDump // -D and -i, nil without them

	// sharedFetchers: the options' fetchers may serve a later operation
	// of the command line (--next), which closes them.
	sharedFetchers bool
}

// transfer holds what -w reports about one URL.
type transfer struct {
	url         string
	effective   string
	filename    string
	size        int64
	contentType string
	err         error
	code        int
	start       time.Time
	end         time.Time
	httpCode    int
	toFile      bool // the body was for a file (-o, -O): --json-lines reports it
	unchanged   bool // -z or --etag-compare found the copy held current

	// For -w (output.go): the URL's place among those given (urlnum),
	// its text as given when a scheme was guessed for it, whether the
	// server was reached (a resource or a status came), and what the
	// fetch recorded, nil without -w.
	num     int
	given   string
	reached bool
	metrics *schemes.Metrics
	// entryPath: FTP's login directory, -w's %{ftp_entry_path}, as the
	// resource tells it.
	entryPath string
}

func (c *command) run(ctx context.Context, q *urlQueue) int {
	defer q.close()
	cl, err := c.newClient()
	if err != nil {
		fmt.Fprintf(c.stderr, "urlget: %v\n", err)
		return setupExit(err)
	}
	c.client = cl
	if !c.sharedFetchers {
		defer cl.Close()
	}
	if c.headers, err = newHeaderDump(c.opts, c.stdout); err != nil {
		fmt.Fprintf(c.stderr, "urlget: %v\n", err)
		return exitWrite
	}
	// Set whether or not there is a dump: an http fetcher shared with
	// an earlier operation (--next) may carry its function.
	c.opts.http.OnResponse = nil
	if c.headers != nil {
		c.opts.http.OnResponse = c.headers.response
		defer c.headers.close()
	}
	if f, ok := c.stdout.(*os.File); ok && !c.opts.head {
		// A reader at the other end of a pipe then takes up to 1 MiB at a
		// time instead of the default 64 KiB, and both sides switch less.
		xfer.GrowPipe(f)
	}
	if p := c.opts.out.meter(c.opts, c.stderr); p != nil {
		c.progress = p
		cl.Progress = func(p fetch.Progress) { c.progress.Update(p.Done, p.Total, p.Final) }
	}
	if c.cancel != nil {
		defer c.catchInterrupts()()
	}
	if c.opts.parallel && c.parallelizable() {
		return c.runParallel(ctx, q)
	}
	status := exitOK
	// ahead holds the transfers of the following URLs that were started
	// early (see prefetchable), in order, so that their connections and
	// requests overlap the writing of the current body.
	var ahead []chan *started
	// told is how many of the URLs after the current one the client was
	// told of (expect); a new run is told when fewer than maxAhead/2
	// remain, so that each URL's request is built about twice, not
	// maxAhead times.
	told := 0
	for {
		var st *started
		if len(ahead) > 0 {
			st = <-ahead[0]
			ahead = ahead[1:]
		} else {
			raw, u, m, ok := q.next()
			if !ok {
				break
			}
			var next []uri.URL
			if told--; told < maxAhead/2 {
				next = q.ahead(maxAhead)
				told = len(next)
			}
			st = c.start(ctx, raw, u, m, q.last(), next)
		}
		for st.res != nil && len(ahead) < prefetchDepth {
			raw, ok := q.peek(0)
			if !ok || !c.prefetchable(raw) {
				break
			}
			if next := q.ahead(1); len(next) == 1 && c.client.SendsAhead(fetch.Request{URL: next[0], Head: c.opts.head, Raw: c.opts.rawListing}) {
				// Its request goes out pipelined behind the current
				// one's (expect): it is made in its turn.
				break
			}
			_, u, m, _ := q.next()
			told--
			ch := make(chan *started, 1)
			go func(raw string, u uri.URL, m queued, last bool) { ch <- c.start(ctx, raw, u, m, last, nil) }(raw, u, m, q.last())
			ahead = append(ahead, ch)
		}
		t := c.finishRetrying(ctx, st)
		c.settle(ctx, &t)
		if t.err != nil {
			status = t.code
		}
		c.report(t)
		if stop := c.opts.out.failedEarly(t.err); ctx.Err() != nil || stop {
			for _, ch := range ahead {
				if st := <-ch; st.res != nil {
					closeRes(st.res)
				}
			}
			if ctx.Err() == nil {
				return status // --fail-early
			}
			return c.interruptedStatus()
		}
	}
	return status
}

// settle gives a transfer that ended its exit status, and tells its error
// on stderr in one line (not with -s): a transfer a signal cut short is
// "interrupted", with the signal's status.
func (c *command) settle(ctx context.Context, t *transfer) {
	if t.err != nil && ctx.Err() != nil {
		t.err = &schemes.Error{URL: maskedText(t.url), Kind: errInterrupted, Err: t.err}
	}
	if t.err == nil {
		return
	}
	t.code = exitCode(t.err)
	if t.code == exitInterrupted {
		t.code = c.interruptedStatus()
	}
	switch {
	case errors.Is(t.err, errBinaryOutput):
		// curl tells only its warning, muted by -s as warnings are.
		if !c.opts.silent {
			fmt.Fprintln(c.stderr, binaryWarning)
		}
	case !c.opts.silent || c.opts.showError:
		fmt.Fprintf(c.stderr, "urlget: %s\n", oneLine(t.err.Error()))
	}
}

// spec returns where the body of the i-th URL of the command line goes:
// the i-th -o or -O, else -O when --remote-name-all, else standard output.
// A URL from a list (i < 0) goes to a file named like the remote one, as
// in curl. It is worked out per URL rather than kept in a table, so that a
// run holds nothing per URL beyond the argument itself.
func (c *command) spec(i int) outputSpec {
	switch {
	case i < 0:
		return outputSpec{remote: true}
	case i < len(c.opts.outputs):
		return c.opts.outputs[i]
	case c.opts.remoteNameAll:
		return outputSpec{remote: true}
	}
	return outputSpec{}
}

// catchInterrupts turns SIGINT, SIGTERM, SIGHUP and SIGQUIT into the end
// of the run's context, so that a transfer into a file stops, its
// temporary file is removed (with -C, what arrived stays for resuming), and
// the command exits 128 plus the signal's number with a message, leaving
// any existing target as it was. It returns the function that lets the
// signals go again.
//
// Every run catches them, those writing to standard output too: a run
// stopped by a signal then always ends the same way, with a one-line
// message and 128 plus the signal's number, rather than, for SIGQUIT, with
// the Go runtime's dump of every goroutine.
func (c *command) catchInterrupts() (release func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			if n, ok := s.(syscall.Signal); ok {
				c.signal.Store(int32(n))
			}
			c.cancel()
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

// interruptedStatus is the exit status of a run that a signal stopped:
// 128 plus the signal's number, as a shell reports a process the signal
// killed (SIGINT 130, SIGTERM 143).
func (c *command) interruptedStatus() int {
	if n := c.signal.Load(); n > 0 {
		return 128 + int(n)
	}
	return exitInterrupted
}

func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

// prefetchSchemes are the schemes whose next URL may be started while the
// current body is written: each transfer is a connection of its own (gopher)
// or one of the pool's (http, https), so starting one early changes nothing
// on the wire but the timing. Schemes with a session (FTP's login directory,
// an NNTP session) are left in strict order so that a run logs in once. A
// plain http URL whose request the client sends ahead, pipelined on the
// connection of the one before it (RFC 9112 §9.3.2; fetch.Client.SendsAhead),
// is not started early either: its answer comes in order behind the current
// body, and a transfer started early would look for it while that
// connection is still the current body's, and ask a second time on
// another. Through a proxy, which pipelines nothing, it is.
var prefetchSchemes = map[string]bool{"gopher": true, "gophers": true, "http": true, "https": true}

// prefetchDepth is how many URLs may be started ahead of the one being
// written: enough to hide a connection's round trip behind the writing of
// small bodies, few enough that a run holds only a handful of connections.
const prefetchDepth = 4

// prefetchable reports whether the URL after the current one may be
// started ahead. Never with -v, whose trace must not interleave two
// transfers, nor with -C, whose offset depends on files written in order,
// nor when -w reports times, which start with each transfer's turn.
func (c *command) prefetchable(raw string) bool {
	if c.opts.verbose || c.opts.continueAt != "" || c.progress != nil || c.headers != nil || c.opts.http.Jar != nil || writeOutTimed(c.opts.writeOut) ||
		c.opts.out.serial() || c.opts.out.rateGap.gap > 0 || c.opts.out.failEarly {
		return false
	}
	i := strings.Index(raw, ":")
	return i > 0 && prefetchSchemes[strings.ToLower(raw[:i])]
}

// expect tells the client what follows req, which is about to be made:
// the URLs of ahead, or, when req is the run's last, that nothing does
// (FTP then leaves its connection unready for another). Those URLs'
// requests are told as start will make them, but for the resume offset
// of -C -, which their files give only when their turn comes.
func (c *command) expect(req fetch.Request, ahead []uri.URL, last bool) {
	if c.opts.out.failEarly {
		// Nothing after a URL is sent before it succeeded.
		ahead = nil
	}
	if len(ahead) == 0 && !last {
		return
	}
	var offset int64
	if c.opts.continueAt != "-" {
		offset = req.Offset
	}
	reqs := make([]fetch.Request, 0, 1+len(ahead))
	reqs = append(reqs, req)
	for _, u := range ahead {
		reqs = append(reqs, fetch.Request{URL: u, Offset: offset, Head: req.Head, Raw: req.Raw,
			Range: req.Range, IfModifiedSince: req.IfModifiedSince, IfUnmodifiedSince: req.IfUnmodifiedSince, IfNoneMatch: req.IfNoneMatch})
	}
	c.client.Expect(reqs, last)
}

// started is a transfer whose request is made and whose body is not yet
// written.
type started struct {
	t      transfer
	res    *schemes.Resource
	target string
	named  bool // the server chose target's name (-O, -J)
	forced bool // "-o -": the body goes to stdout, binary or not
	// u, m and last are start's, for a start again (finishRetrying).
	u      uri.URL
	m      queued
	last   bool
	offset int64
	head   []byte // the response headers -i writes before the body
	state  stateResult
}

// maxAhead is how many of the following URLs the client is told of at
// once (fetch.Client.Expect), enough for NNTP to keep its pipeline full.
const maxAhead = 32

// start resolves the output file name and the resume offset of one URL,
// raw as given and u parsed, and makes its request; last tells that no URL
// of the run follows it; ahead, when not empty, lists the URLs that follow
// it in order, for the client to be told of them (expect).
func (c *command) start(ctx context.Context, raw string, u uri.URL, m queued, last bool, ahead []uri.URL) *started {
	st := &started{t: transfer{url: raw, start: time.Now(), err: m.err, num: m.num, given: m.given}, u: u, m: m, last: last}
	t := &st.t
	if c.opts.writeOut != "" {
		t.metrics = schemes.NewMetrics(t.start)
	}
	spec := c.spec(m.cli)
	t.toFile = spec.file != "" || spec.remote
	if t.err != nil {
		return st
	}
	spec.file = glob.Name(spec.file, m.globs)
	if spec.file == "-" {
		// curl's "-o -": standard output, asked for by name.
		spec.file, st.forced, t.toFile = "", true, false
	}
	if err := c.opts.out.checkURL(u); err != nil {
		t.err = err
		return st
	}

	if spec.file != "" || spec.remote {
		name, err := c.targetName(u, spec)
		if err != nil {
			t.err = err
			return st
		}
		st.target = name
		st.named = spec.remote
		t.filename = name
	}

	if c.opts.continueAt == "-" {
		if st.target != "" {
			// The file itself, not what a link there leads to: a link
			// is not written through (outfile.OpenResume).
			if fi, err := os.Lstat(st.target); err == nil && fi.Mode().IsRegular() {
				st.offset = fi.Size()
			}
		}
	} else if c.opts.continueAt != "" {
		st.offset, _ = strconv.ParseInt(c.opts.continueAt, 10, 64)
	}

	req := fetch.Request{URL: u, Offset: st.offset, Head: c.opts.head, Raw: c.opts.rawListing}
	c.opts.out.rateGap.wait(ctx)
	if st.state.skip = c.prepareState(ctx, &req, st); st.state.skip {
		return st
	}
	c.expect(req, ahead, last)
	req.Metrics = t.metrics
	res, err := c.client.Do(ctx, req)
	st.head = c.headers.take()
	if err != nil {
		t.err = err
		var se *schemes.Error
		if errors.As(err, &se) && se.Code >= 100 {
			// A status that failed the transfer: HTTP's, or
			// FTP's last reply, as curl's response_code.
			t.httpCode = se.Code
			t.reached = true
			if strings.HasPrefix(se.URL, "http") {
				t.effective = se.URL
			}
		}
		return st
	}
	t.reached = true
	t.effective = res.URL
	t.contentType = res.ContentType
	t.httpCode = httpCode(res)
	t.entryPath = res.EntryPath
	if c.stateResponse(req, st, res); st.state.skip {
		if c.opts.head {
			// -I shows the 304's head.
			st.res = res
		}
		return st
	}
	if st.offset > 0 && res.Offset != st.offset && res.Body != nil {
		res.Body.Close()
		t.err = &schemes.Error{Kind: schemes.ErrProtocol, URL: res.URL, Err: errRange}
		return st
	}
	if c.opts.remoteHeaderName && spec.remote {
		if err := c.nameFromHeader(st, res); err != nil {
			closeRes(res)
			t.err = err
			return st
		}
	}
	st.res = res
	return st
}

// finish writes a started transfer's resource to stdout or its output
// file: atomically, or with -C in place.
func (c *command) finish(ctx context.Context, st *started) (t transfer) {
	t = st.t
	defer func() {
		t.end = time.Now()
		t.err = withFlagHint(t.err)
	}()
	if t.err != nil {
		if st.target == "" && !c.opts.head {
			// curl's -i shows an error response's headers, not its body.
			c.stdout.Write(st.head)
		}
		return t
	}
	if st.state.skip {
		// -z or --etag-compare: the copy held is current; no file is
		// made or touched, as curl makes none. -i still shows the
		// response's head.
		switch {
		case st.target != "":
		case c.opts.head && st.res != nil:
			renderHead(st.res, c.stdout)
		default:
			c.stdout.Write(st.head)
		}
		t.unchanged = true
		return t
	}
	res, target, offset := st.res, st.target, st.offset
	// -m bounds the writing too: a FIFO with no reader, or one whose
	// reader stopped reading, must not hold the run past it.
	wctx := ctx
	if c.opts.maxTime > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(ctx, t.start.Add(seconds(c.opts.maxTime)))
		defer cancel()
	}

	var out io.Writer = c.stdout
	if target == "" && res.Body != nil && !c.opts.head {
		out = c.opts.out.guardTerminal(c.stdout, st.forced)
	}
	var file *outfile.File
	if target != "" {
		var err error
		if c.opts.createDirs {
			err = os.MkdirAll(filepath.Dir(target), 0o755)
		}
		switch {
		case err != nil:
		case c.opts.continueAt != "":
			file, err = outfile.OpenResume(wctx, target, offset, st.named)
		case st.named:
			file, err = outfile.CreateNamed(target)
		default:
			file, err = outfile.Create(wctx, target)
		}
		if err != nil {
			closeRes(res)
			t.err = outputError(ctx, wctx, res.URL, target, err)
			return t
		}
		out = file
		defer file.WatchWrites(wctx)()
	}

	if c.progress != nil {
		// The bar is drawn only when the body goes to a file (-o, -O, or a
		// redirected stdout): on a terminal it would mix with the body.
		c.progress.SetActive(file != nil || !isTerminal(c.stdout))
	}
	var n int64
	var err error
	if len(st.head) > 0 && !c.opts.head {
		_, err = out.Write(st.head)
	}
	if err == nil {
		n, err = c.emit(res, out)
	} else {
		closeRes(res)
	}
	if err == nil && res.StatusError != nil && c.opts.head && (c.opts.fail || c.opts.http.FailWithBody) {
		// -I shows an error's headers and -f still fails it, as curl
		// (followRedirects has the fetcher return them).
		err = res.StatusError
	}
	t.size = n
	// Read again once the body is in: FTP's code is the reply that
	// ended the transfer (226), as curl's response_code.
	t.httpCode = httpCode(res)
	if c.progress != nil {
		c.progress.Finish()
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if file != nil {
		if err != nil && (!c.errorPageKept(err) || c.opts.out.removeOnError) {
			if c.opts.out.removeOnError {
				file.Remove()
			} else {
				file.Abort()
			}
		} else {
			c.stateCommit(file, st)
			if name, cerr := c.commit(file, target); cerr != nil {
				err = &schemes.Error{Kind: schemes.ErrWrite, URL: res.URL, Err: cerr}
			} else {
				t.filename = name
				if c.opts.out.xattr {
					setXattr(c.stderr, name, res.URL, res.ContentType)
				}
			}
		}
	}
	if err != nil && !errors.Is(err, schemes.ErrTimeout) && (xfer.ClassifyWrite(err) != xfer.NotWrite || file != nil && wctx.Err() != nil) {
		err = outputError(ctx, wctx, res.URL, target, err)
	}
	t.err = err
	return t
}

// outputError is the error for an output file, target, that could not be
// opened or written: a timeout when -m's time ran out meanwhile (wctx),
// else a write error. A signal (ctx) is left for the run to report. The
// timeout leaves out its cause, the expired write deadline, which would
// otherwise pass for a write error.
func outputError(ctx, wctx context.Context, url, target string, err error) error {
	if ctx.Err() == nil && errors.Is(wctx.Err(), context.DeadlineExceeded) {
		op := "writing the output"
		if target != "" {
			op = "writing " + target
		}
		return &schemes.Error{Kind: schemes.ErrTimeout, URL: url, Op: op}
	}
	return &schemes.Error{Kind: schemes.ErrWrite, URL: url, Err: err}
}

func closeRes(res *schemes.Resource) {
	if res.Body != nil {
		res.Body.Close()
	}
	if res.Listing != nil {
		res.Listing.Close()
	}
}

func httpCode(res *schemes.Resource) int { return res.StatusCode }

// emit writes the resource to w: the body's bytes, the listing rendered, or
// with -I the metadata. It returns the number of body bytes written.
func (c *command) emit(res *schemes.Resource, w io.Writer) (int64, error) {
	switch {
	case res.Body != nil:
		defer res.Body.Close()
		if tr := c.opts.out.trace; tr != nil {
			// --trace dumps the body's bytes as they are read.
			scheme, _, _ := strings.Cut(res.URL, ":")
			return io.Copy(w, tr.dataReader(scheme, res.Body))
		}
		// io.Copy hands the work to Body.WriteTo, which lets the kernel move
		// the bytes when source and destination allow it.
		return io.Copy(w, res.Body)
	case res.Listing != nil:
		defer res.Listing.Close()
		bw := bufio.NewWriterSize(w, 64<<10)
		n, err := c.renderListing(res, bw)
		if ferr := bw.Flush(); err == nil && ferr != nil {
			err = ferr
		}
		return n, err
	default:
		bw := bufio.NewWriter(w)
		renderHead(res, bw)
		return 0, bw.Flush()
	}
}

// renderHead prints what -I shows: the protocol's own header lines when the
// fetcher gave any, else size, type and time in HTTP header form, as curl
// prints them for ftp: and file:.
func renderHead(res *schemes.Resource, w io.Writer) {
	if len(res.Header) > 0 || res.Status != "" {
		if res.Status != "" {
			sp := ""
			if res.Proto == "HTTP/2" && !strings.Contains(res.Status, " ") {
				// curl writes HTTP/2's missing reason phrase as
				// empty: "HTTP/2 200 ".
				sp = " "
			}
			fmt.Fprintf(w, "%s %s%s\r\n", res.Proto, res.Status, sp)
		}
		for _, h := range res.Header {
			fmt.Fprintf(w, "%s: %s\r\n", h[0], h[1])
		}
		fmt.Fprint(w, "\r\n")
		return
	}
	if res.Size >= 0 {
		fmt.Fprintf(w, "Content-Length: %d\r\n", res.Size)
	}
	if res.ContentType != "" {
		fmt.Fprintf(w, "Content-Type: %s\r\n", res.ContentType)
	}
	if !res.ModTime.IsZero() {
		fmt.Fprintf(w, "Last-Modified: %s\r\n", res.ModTime.UTC().Format(http.TimeFormat))
	}
	fmt.Fprint(w, "\r\n")
}

// renderListing prints a listing: one JSON object a line with --json-lines; one
// name a line when the fetcher asks for exactly the server's names (FTP
// ;type=d); else a table of kind, size, time, name and URL.
func (c *command) renderListing(res *schemes.Resource, w *bufio.Writer) (int64, error) {
	var count int64
	for {
		e, err := res.Listing.Next()
		if err == io.EOF {
			return count, nil
		}
		if err != nil {
			return count, err
		}
		count++
		switch {
		case c.opts.jsonLines:
			w.Write(listingJSON(e))
			if err := w.WriteByte('\n'); err != nil {
				return count, err
			}
		case schemes.NamesOnly(res.Listing):
			w.WriteString(e.Name)
			w.WriteByte('\n')
		case e.Kind == schemes.KindInfo:
			fmt.Fprintf(w, "%-9s %s\n", "info", e.Name)
		default:
			size := "-"
			if e.Size >= 0 {
				size = strconv.FormatInt(e.Size, 10)
			}
			when := "-"
			if !e.ModTime.IsZero() {
				when = e.ModTime.UTC().Format("2006-01-02 15:04")
			}
			fmt.Fprintf(w, "%-9s %12s %16s  %s  %s\n", e.Kind, size, when, e.Name, e.URL)
		}
		if err := c.opts.out.entryDone(w); err != nil {
			return count, err
		}
	}
}

// targetName decides the local file name for -o or -O. -O takes the URL's
// last path segment, decoded, and refuses names that could leave the output
// directory or mean nothing.
func (c *command) targetName(u uri.URL, spec outputSpec) (string, error) {
	name := spec.file
	if spec.remote {
		n, err := remoteName(u)
		if err != nil {
			return "", err
		}
		name = n
	}
	if c.opts.outputDir != "" && !filepath.IsAbs(name) {
		name = filepath.Join(c.opts.outputDir, name)
	}
	return name, nil
}

// remoteName is -O's file name: the decoded last segment of the URL's path
// (for ftp:, the RFC 1738 §3.2.2 <name> without ;type=).
func remoteName(u uri.URL) (string, error) {
	var name string
	if u.Scheme() == "ftp" || u.Scheme() == "ftps" {
		if v, err := u.FTP(); err == nil {
			name = v.Name
		}
	} else {
		p := u.Path()
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			p = p[i+1:]
		}
		var err error
		name, err = uri.Unescape(p)
		if err != nil {
			name = ""
		}
	}
	if err := safeName(name); err != nil {
		return "", &schemes.Error{Kind: schemes.ErrBadURL, URL: u.Redacted(), Err: err}
	}
	return name, nil
}

// safeName refuses -O and -J names that are empty, "." or "..", or that
// hold a path separator or a control character (NUL, newline, escape
// sequences): a server must not choose where a file lands, nor write to
// the terminal through a name shown later.
func safeName(name string) error {
	switch {
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("-O: refusing the file name %q, which holds a control character; use -o", name)
	case name == "":
		return errors.New("-O: the URL has no file name; use -o")
	case name == "." || name == "..":
		return fmt.Errorf("-O: refusing the file name %q; use -o", name)
	case strings.ContainsAny(name, "/\x00"):
		return fmt.Errorf("-O: refusing the file name %q, which holds a path separator; use -o", name)
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// jobTerminal reports whether the job line may be drawn on w; tests
// replace it to draw on a buffer.
var jobTerminal = isTerminal

// newJobs returns the job line of a parallel run or a recursion drawn on
// w, or nil when w is no terminal.
func newJobs(w io.Writer) *progress.Jobs { return progress.NewJobs(w, jobTerminal(w)) }

// tlsConfig builds the base TLS configuration from -k and --cacert.
func tlsConfig(insecure bool, cacert string) (*tls.Config, error) {
	c := &tls.Config{InsecureSkipVerify: insecure} //nolint:gosec // -k is the user's explicit choice
	if cacert != "" {
		pem, err := os.ReadFile(cacert)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--cacert %s: no certificates found", cacert)
		}
		c.RootCAs = pool
	}
	return c, nil
}
