package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/progress"
	"github.com/urlget/urlget/schemes"
)

// outOptions holds the flags of what the command prints and keeps: traces, the progress meter, buffering, retries told, files kept or removed, protocols allowed.
type outOptions struct {
	// Retries (curl's --retry-connrefused, --retry-all-errors) and
	// --fail-early.
	retryConnRefused bool
	retryAllErrors   bool
	failEarly        bool

	// The meter: -# draws curl's bar, --no-progress-meter none.
	hashBar         bool
	noProgressMeter bool
	// noBuffer: -N, --no-buffer: a listing is written entry by entry.
	noBuffer bool

	// --stderr FILE, and the traces: --trace, --trace-ascii, --trace-time.
	stderrFile string
	traceFile  string // the last of --trace and --trace-ascii names it
	traceASCII bool   // and that last was --trace-ascii
	traceTime  bool
	trace      *tracer // the trace being written, nil without one

	// Output files: --no-clobber, --remove-on-error, --xattr.
	noClobber     bool
	removeOnError bool
	xattr         bool

	// Protocols: --proto, --proto-redir, --proto-default, and
	// --disallow-username-in-url.
	proto          string
	protoRedir     string
	protoDefault   string
	allowed        protoSet // the schemes --proto allows
	redirAllowed   protoSet // the schemes --proto-redir allows
	noURLUsername  bool
	rate           string
	rateGap        rateLimiter // --rate's gap between transfer starts
	parallelImmed  bool
	manual         bool
	styledOutput   bool
	stderr, stdout io.Writer // where the run's messages and output go, once open has chosen
	stdoutTTY      bool      // stdout is a terminal: bodies for it are checked for binary bytes
}

// addOutFlags defines the flags of what the command prints and keeps: traces, the progress meter, buffering, retries told, files kept or removed, protocols allowed.
func addOutFlags(fs *pflag.FlagSet, o *options) {
	x := &o.out
	fs.BoolVar(&x.retryConnRefused, "retry-connrefused", false, "with --retry, retry a refused connection too")
	fs.BoolVar(&x.retryAllErrors, "retry-all-errors", false, "with --retry, retry every failure")
	fs.BoolVar(&x.failEarly, "fail-early", false, "stop at the first URL that fails (default: fetch them all)")
	fs.BoolVarP(&x.hashBar, "progress-bar", "#", false, "draw the progress as a bar of '#'s and a percentage")
	fs.BoolVar(&x.noProgressMeter, "no-progress-meter", false, "draw no progress meter; errors are still shown")
	if fs.Lookup("no-buffer") == nil {
		// -N's letter is defined with curl's other letters in cli.go,
		// on its own variable; checkOutFlags reads the flag either way.
		fs.Bool("no-buffer", false, "write a listing entry by entry, never held in a buffer")
	}
	fs.StringVar(&x.stderrFile, "stderr", "", "write what goes to stderr to `file` ('-' is stdout)")
	fs.Var(traceFlag{x, false}, "trace", "write every byte sent and received to `file`, in hex and text ('-' stdout, '%' stderr)")
	fs.Var(traceFlag{x, true}, "trace-ascii", "as --trace, text only, to `file`")
	fs.BoolVar(&x.traceTime, "trace-time", false, "start each trace and -v line with the time of day")
	addOutFileFlags(fs, x)
	addOutProtoFlags(fs, x)
	curlNote(fs, "trace", "passwords (PASS, AUTHINFO PASS, Authorization) are masked; a listing's data is not dumped; http is traced over HTTP/1.1")
	curlNote(fs, "trace-ascii", "passwords masked, as --trace")
	curlNote(fs, "progress-bar", "with the size unknown a plain -=O=- goes to and fro, without curl's sine of '#'s")
	curlNote(fs, "no-progress-meter", "urlget's default meter is one line (percentage, size, rate, time left), drawn only when stderr is a terminal")
	curlNote(fs, "no-buffer", "bodies are never held back in urlget; the flag makes listings come out entry by entry")
	curlNote(fs, "retry", "the warning is one line, never wrapped; gopher and NNTP replies that say 'try later' are retried as FTP's 4xx; a body already begun on stdout is not fetched again")
}

// outFlagCategories are the --help categories of the flags above.
var outFlagCategories = map[string]string{
	"retry-connrefused":        "connection",
	"retry-all-errors":         "connection",
	"fail-early":               "connection",
	"progress-bar":             "verbose",
	"no-progress-meter":        "verbose",
	"no-buffer":                "output",
	"stderr":                   "verbose",
	"trace":                    "verbose",
	"trace-ascii":              "verbose",
	"trace-time":               "verbose",
	"no-clobber":               "output",
	"remove-on-error":          "output",
	"xattr":                    "output",
	"proto":                    "connection",
	"proto-redir":              "connection http",
	"proto-default":            "connection",
	"disallow-username-in-url": "auth",
	"rate":                     "connection",
	"parallel-immediate":       "connection",
	"manual":                   "urlget",
	"styled-output":            "verbose",
}

func init() {
	for name, cats := range outFlagCategories {
		flagCategories[name] = cats
	}
}

// checkOutFlags checks those flags once parsed.
func checkOutFlags(fs *pflag.FlagSet, o *options) error {
	x := &o.out
	x.noBuffer = fs.Lookup("no-buffer").Value.String() == "true"
	if x.traceFile != "" {
		// curl: a trace overrides -v, whose lines it holds already.
		o.verbose = false
	}
	return checkOutProtoFlags(fs, o)
}

// open sets up where the run writes, before any transfer: --stderr's file
// in place of stderr, and the trace's; a file that cannot be made is
// warned of and left out, as curl leaves it. It returns the run's stderr
// and the function that closes what it opened.
func (x *outOptions) open(stdout, stderr io.Writer) (io.Writer, func()) {
	var closers []io.Closer
	done := func() {
		for _, c := range closers {
			c.Close()
		}
	}
	switch x.stderrFile {
	case "":
	case "-":
		stderr = stdout
	default:
		f, err := os.OpenFile(x.stderrFile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			// curl goes on with stderr as it was, after a warning.
			fmt.Fprintf(stderr, "Warning: --stderr: %v\n", err)
			break
		}
		closers = append(closers, f)
		stderr = f
	}
	x.stdout, x.stderr = stdout, stderr
	// Asked once for the run, not once a URL.
	x.stdoutTTY = isTerminal(stdout)
	if name := x.traceFile; name != "" {
		var w io.Writer
		switch name {
		case "-":
			w = stdout
		case "%":
			w = stderr
		default:
			f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
			if err != nil {
				// curl goes on untraced, after a warning.
				fmt.Fprintf(stderr, "Warning: --trace: %v\n", err)
				break
			}
			closers = append(closers, f)
			w = f
		}
		if w != nil {
			x.trace = newTracer(w, x.traceASCII, x.traceTime)
		}
	}
	return stderr, done
}

// configure sets those flags on the client.
func (x *outOptions) configure(o *options, cl *fetch.Client) error {
	cl.RetryConnRefused = x.retryConnRefused
	cl.RetryAllErrors = x.retryAllErrors
	if o.retry > 0 && !o.silent && x.stderr != nil {
		cl.OnRetry = func(r fetch.Retry) { x.warnRetry(r.Err, r.Reason, r.Wait, r.Left) }
	}
	if x.trace != nil {
		cl.Trace = x.trace.line
		o.http.Recorder = x.trace
		o.http.TraceNotesOnly = true
	}
	return x.configureProto(o, cl)
}

// meter returns the progress meter of the run drawn on stderr, nil when
// none is drawn: -s and --no-progress-meter draw none; -# draws curl's
// bar wherever stderr goes, as curl does; the default meter only on a
// terminal.
func (x *outOptions) meter(o *options, stderr io.Writer) *progress.Bar {
	switch {
	case o.silent || x.noProgressMeter:
		return nil
	case x.hashBar:
		return progress.NewHashBar(stderr, terminalWidth(stderr))
	case isTerminal(stderr):
		return progress.NewBar(stderr)
	}
	return nil
}

// terminalWidth is the width -# draws over: $COLUMNS, else the
// terminal's, else curl's 79.
func terminalWidth(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return n
		}
	}
	return progress.DefaultHashWidth
}

// serial reports whether the out flags keep the transfers of a run one
// after another: a trace tells one transfer's bytes at a time.
func (x *outOptions) serial() bool { return x.trace != nil }

// errBinaryOutput ends a body bound for a terminal that holds a NUL byte
// in its first bytes, as curl does (tool_cb_wrt.c): a write error, exit
// 23.
var errBinaryOutput error = binaryOutputError{}

// binaryOutputError is errBinaryOutput's type: a write error
// (schemes.ErrWrite) that the run tells with curl's warning alone.
type binaryOutputError struct{}

func (binaryOutputError) Error() string {
	return `binary output can mess up your terminal; use "--output -" to tell urlget to output it to your terminal anyway, or consider "--output <FILE>" to save to a file`
}

// Is makes it a write error.
func (binaryOutputError) Is(target error) bool { return target == schemes.ErrWrite }

// binaryWarning is what curl prints for errBinaryOutput, urlget's name in
// place of curl's.
const binaryWarning = `Warning: Binary output can mess up your terminal. Use "--output -" to tell urlget to output it to your terminal anyway, or consider "--output <FILE>" to save to a file.`

// binaryCheckBytes is how far into a body curl looks for a NUL byte.
const binaryCheckBytes = 2000

// binaryGuard is the terminal a body goes to, checked for binary bytes
// in its first binaryCheckBytes bytes; past them it writes straight on.
type binaryGuard struct {
	w    io.Writer
	seen int64
}

func (g *binaryGuard) Write(p []byte) (int, error) {
	if g.seen < binaryCheckBytes {
		head := p[:min(int64(len(p)), binaryCheckBytes-g.seen)]
		if strings.IndexByte(string(head), 0) >= 0 {
			return 0, errBinaryOutput
		}
		g.seen += int64(len(p))
	}
	return g.w.Write(p)
}

// guardTerminal returns what a body for standard output is written to:
// stdout itself, or, when it is a terminal and "-o -" did not ask for it,
// stdout behind the binary check.
func (x *outOptions) guardTerminal(stdout io.Writer, forced bool) io.Writer {
	if forced || !x.stdoutTTY {
		return stdout
	}
	return &binaryGuard{w: stdout}
}

// flushWriter flushes a listing's buffer after each entry (-N).
type flushWriter interface {
	Flush() error
}

// entryDone flushes w after a listing's entry with --no-buffer.
func (x *outOptions) entryDone(w flushWriter) error {
	if !x.noBuffer {
		return nil
	}
	return w.Flush()
}

// failedEarly reports whether a run stops after a transfer that failed
// (--fail-early).
func (x *outOptions) failedEarly(err error) bool { return x.failEarly && err != nil }

// stamp is --trace-time's prefix of a -v line: the time of day to the
// microsecond, as curl writes it; "" without the flag.
func (x *outOptions) stamp() string {
	if !x.traceTime {
		return ""
	}
	return time.Now().Format("15:04:05.000000 ")
}

// warnRetry tells a retry on stderr as curl does (tool_operate.c): the
// attempt's error, then the warning, with the wait in whole seconds.
func (x *outOptions) warnRetry(err error, reason fetch.RetryReason, wait time.Duration, left int) {
	if x.stderr == nil {
		return
	}
	if err != nil {
		fmt.Fprintf(x.stderr, "urlget: %s\n", oneLine(withFlagHint(err).Error()))
	}
	fmt.Fprintf(x.stderr, "Warning: Problem %s. Will retry in %d seconds. %d retries left.\n", reason, int64(wait.Seconds()), left)
}

// finishRetrying is finish, and with --retry it fetches again a URL whose
// body failed in one of the classes the client retries (a timeout: -m,
// --speed-limit; anything with --retry-all-errors), as curl retries a
// transfer whatever part of it failed; Do has retried what failed before
// the body. It does so only where the output can start over: a file
// written whole or not at all, a "-C -" file, which the next attempt
// resumes, or standard output before its first byte. The body retries
// have a budget of --retry of their own, the wait curl's (--retry-delay,
// else 1 s doubling), while --retry-max-time has not passed since the
// first attempt.
func (c *command) finishRetrying(ctx context.Context, st *started) transfer {
	t := c.finish(ctx, st)
	o := c.opts
	began := t.start
	wait := seconds(o.retryDelay)
	if wait <= 0 {
		wait = time.Second
	}
	for left := o.retry; left > 0 && c.restartable(st, t) && ctx.Err() == nil; left-- {
		reason := c.client.RetryReason(st.u.Scheme(), t.err)
		if reason == "" || o.retryMaxTime > 0 && time.Since(began) >= seconds(o.retryMaxTime) {
			break
		}
		if !o.silent {
			o.out.warnRetry(t.err, reason, wait, left)
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return t
		case <-timer.C:
		}
		if o.retryDelay <= 0 {
			wait = min(2*wait, 10*time.Minute)
		}
		st = c.start(ctx, st.t.url, st.u, st.m, st.last, nil)
		t = c.finish(ctx, st)
	}
	return t
}

// restartable reports whether a transfer that ended with t may start
// over: its request succeeded and its body failed (not by the binary
// check), into an output that can take the body again.
func (c *command) restartable(st *started, t transfer) bool {
	switch {
	case t.err == nil || st.res == nil || errors.Is(t.err, errBinaryOutput):
		return false
	case st.target != "":
		return c.opts.continueAt == "" || c.opts.continueAt == "-"
	}
	return t.size == 0 && len(st.head) == 0
}

// traceFlag is --trace (ascii false) or --trace-ascii: the one given last
// wins, as in curl, where each overrides the other.
type traceFlag struct {
	x     *outOptions
	ascii bool
}

func (f traceFlag) String() string { return "" }
func (f traceFlag) Type() string   { return "file" }
func (f traceFlag) Set(v string) error {
	f.x.traceFile, f.x.traceASCII = v, f.ascii
	return nil
}
