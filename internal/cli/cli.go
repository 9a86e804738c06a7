// Package cli is the urlget command: its flags (curl's names and
// meanings), the runs of URLs one at a time, in parallel (-Z) and
// recursively (--recursive), the toolkit subcommands (`urlget
// parse|resolve|normalize|equal`), and what the command prints. The
// program's main calls Main.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/hsts"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/ftp"
	"github.com/urlget/urlget/schemes/gopher"
	httpscheme "github.com/urlget/urlget/schemes/http"
	"github.com/urlget/urlget/schemes/news"
	"github.com/urlget/urlget/uri"
)

// version is the program's version, printed by --version.
const version = "0.3.0"

// Main runs the command with the arguments args (without the program's
// name) and returns its exit status. The runtime keeps its own choice of
// processors (GOMAXPROCS, which follows a container's CPU limit only while
// no one sets a number), for one transfer and for many at once alike.
//
// The one thing it sets for the whole process is SIGPIPE, ignored as curl
// ignores it: a reader that closes the pipe on standard output (| head)
// then makes the next write fail with EPIPE, which ends the run as a
// write error, exit 23 and one line on stderr, where the signal would
// kill the process (exit 141) or leave the run to end as if it had
// succeeded.
func Main(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	signal.Ignore(syscall.SIGPIPE)
	return run(args, stdin, stdout, stderr)
}

// run is the whole command: it parses args, fetches every URL and returns
// the exit status.
func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "parse":
			return runParse(args[1:], stdout, stderr)
		case "resolve":
			return runResolve(args[1:], stdout, stderr)
		case "normalize":
			return runNormalize(args[1:], stdout, stderr)
		case "equal":
			return runEqual(args[1:], stdout, stderr)
		}
	}
	ops, code := parseCommandLine(args, stdout, stderr)
	if ops == nil {
		return code
	}
	// --stderr and --trace are global: their files are opened once,
	// for every operation.
	stderr, closeOut := ops[0].opts.out.open(stdout, stderr)
	defer closeOut()
	for _, op := range ops[1:] {
		op.opts.out.adopt(&ops[0].opts.out)
	}
	return runOperations(ops, stdin, stdout, stderr)
}

// runOperation fetches the URLs of one operation of the command line and
// returns its exit status. shared says the operation's fetchers may serve
// a later operation: the caller closes them.
func runOperation(op operation, shared bool, stdin *os.File, stdout, stderr io.Writer) int {
	o, urls := op.opts, op.urls
	for i := range o.urlArgs {
		a := &o.urlArgs[i]
		if !a.isList() {
			continue
		}
		l, err := openURLList(a.value[1:], stdin)
		if err != nil {
			for _, b := range o.urlArgs[:i] {
				if b.list != nil {
					b.list.close()
				}
			}
			fmt.Fprintf(stderr, "urlget: %v\n", err)
			return exitRead
		}
		a.list = l
	}
	q := newURLQueue(urls, o.urlArgs)
	q.globbing = !o.globOff
	q.guess = o.out.guess
	q.query = o.httpReq.query
	if o.verbose {
		q.guessed = func(url string) {
			// The text as given is the guess without its scheme, and
			// masked as the guess is (RedactText needs the scheme to
			// find a password).
			m := uri.RedactText(url)
			_, given, _ := strings.Cut(m, "://")
			fmt.Fprintf(stderr, "* %s names no scheme: taken for %s\n", given, m)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &command{opts: o, stdin: stdin, stdout: stdout, stderr: stderr, cancel: cancel, sharedFetchers: shared}
	if err := o.loadHSTS(); err != nil {
		fmt.Fprintf(stderr, "urlget: %v\n", err)
		return exitRead
	}
	defer o.saveHSTS(stderr)
	archive, closeArchive, err := openWarc(o, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "urlget: %v\n", err)
		return exitWrite
	}
	c.archive = archive
	var status int
	if o.rec.recursive {
		status = c.runRecursive(ctx, q)
	} else {
		status = c.run(ctx, q)
	}
	if archive != nil {
		// A record that could not be written, or an archive that did not
		// close whole, fails the run as a failed write does.
		if err := errors.Join(archive.Err(), closeArchive()); err != nil {
			fmt.Fprintf(stderr, "urlget: --warc-file %s: %v\n", o.warc.name, err)
			if status == exitOK {
				status = exitWrite
			}
		}
	}
	o.httpState.saveCookies(stdout, stderr)
	return status
}

// urlFlag collects --url values, each with its place among the positional
// URLs, so that the run keeps the command line's order.
type urlFlag struct {
	args *[]urlArg
	fs   *pflag.FlagSet // its Args are the positional URLs before the flag
}

func (f urlFlag) String() string { return "" }
func (f urlFlag) Type() string   { return "url" }
func (f urlFlag) Set(v string) error {
	if v == "@" {
		return errors.New("@ names no file (@FILE, or @- for standard input)")
	}
	*f.args = append(*f.args, urlArg{at: len(f.fs.Args()), value: v})
	return nil
}

// outputSpec is one -o FILE or -O, in the order given: each applies to the
// next URL, as in curl.
type outputSpec struct {
	file   string
	remote bool
}

// outputList collects -o and -O in the order they appear on the command line.
type outputList struct {
	specs  *[]outputSpec
	remote bool
}

func (l outputList) String() string { return "" }
func (l outputList) Type() string {
	if l.remote {
		return "bool"
	}
	return "file"
}
func (l outputList) Set(v string) error {
	if l.remote {
		if v != "true" {
			return fmt.Errorf("takes no value")
		}
		*l.specs = append(*l.specs, outputSpec{remote: true})
		return nil
	}
	*l.specs = append(*l.specs, outputSpec{file: v})
	return nil
}

// options holds the parsed command line.
type options struct {
	outputs       []outputSpec
	urlArgs       []urlArg // --url values, in order
	remoteNameAll bool
	outputDir     string
	createDirs    bool
	silent        bool
	showError     bool
	verbose       bool
	user          string
	hasUser       bool
	netrc         bool
	netrcOptional bool
	netrcFile     string
	continueAt    string
	maxTime       float64
	connectTime   float64
	speedLimit    int64
	speedTime     float64
	retry         int
	retryDelay    float64
	retryMaxTime  float64
	maxFilesize   int64
	head          bool
	writeOut      string
	jsonLines     bool // --json-lines
	rawListing    bool // --raw-listing
	insecure      bool
	cacert        string
	search        string
	hasSearch     bool

	// Each protocol's fetcher, its flags set on it as they are parsed;
	// newClient registers them. Nil ones are made with their defaults.
	ftp  *ftp.Fetcher
	news *news.Fetcher
	// registry is every scheme's fetcher, made once (fetchers).
	registry map[string]schemes.Fetcher
	gopher   *gopher.Fetcher
	http     *httpscheme.Fetcher

	// --hsts: the file and the cache read from it (hstsflags.go).
	hstsFile string
	hsts     *hsts.Cache

	// location: -L; locationTrusted: --location-trusted, which implies
	// -L.
	location        bool
	locationTrusted bool

	// Proxies: -x, --noproxy, --proxy-user, -p (proxyflags.go).
	proxyOpts proxyOptions

	// http (httpflags.go): -f given, -i, -D and -J.
	fail             bool
	include          bool
	dumpHeader       string
	remoteHeaderName bool

	// Name resolution (resolveflags.go): --resolve, -4, -6.
	resolve []fetch.ResolveEntry
	network string // "tcp4" with -4, "tcp6" with -6

	// Globbing, config files and the rate limit (cliflags.go).
	globOff   bool
	limitRate int64

	// Recursion (recurse.go): --recursive, --mirror and their flags.
	rec recursionOptions
	// --warc-file and its companions (warcflags.go).
	warc warcOptions
	// Parallel transfers (parallel.go): -Z, --parallel-max and
	// --parallel-host.
	parallel     bool
	parallelMax  int
	parallelHost int

	// curl's letters and names that urlget once gave other meanings
	// (lettersflags.go): -r/--range, -N/--no-buffer, --raw, --json.
	rangeSpec string // -r, checked (checkRange); "" for the whole resource
	noBuffer  bool   // -N; --buffer takes it back
	curlRaw   bool   // --raw: no HTTP content or transfer decoding

	// The flags of one concern each, in its own file.
	httpReq   httpReqOptions
	httpState httpStateOptions
	conn      connOptions
	ftpX      ftpXOptions
	out       outOptions
}

const usageText = `Usage: urlget [options] URL...
       urlget [options] --url @FILE
       urlget parse URL...
       urlget resolve [--draft2003] [--nonstrict] BASE REF...
       urlget normalize URL...
       urlget equal URL1 URL2

Retrieves each URL (ftp, ftps, http, https, gopher, gophers, news, nntp, nntps,
wais, file) and writes it to standard output, or to the files -o and -O name.
Listings (directories, menus, newsgroups, search results) are printed one entry
a line, each with its own URL; --json-lines prints JSON lines instead.

Options:
`

// parseFlags parses the command line of a fetch, args. It returns the
// options and the positional URLs, or nil and the exit status.
func parseFlags(args []string, stdout, stderr io.Writer) (*options, []string, int) {
	o := &options{ftp: &ftp.Fetcher{}, news: &news.Fetcher{}, gopher: &gopher.Fetcher{}, http: &httpscheme.Fetcher{}}
	fs := pflag.NewFlagSet("urlget", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	var help, showVersion bool
	var ftpMethod string
	var maxRedirs int
	fs.Var(urlFlag{args: &o.urlArgs, fs: fs}, "url", "fetch `url`; @FILE fetches the URLs in FILE, one a line, each to a file named like the remote one (@- reads standard input)")
	fs.VarP(outputList{specs: &o.outputs}, "output", "o", "write the next URL's body to `file` (one -o per URL)")
	rn := fs.VarPF(outputList{specs: &o.outputs, remote: true}, "remote-name", "O", "write the next URL's body to a local file named like the remote one")
	rn.NoOptDefVal = "true"
	fs.BoolVar(&o.remoteNameAll, "remote-name-all", false, "use -O for every URL")
	fs.StringVar(&o.outputDir, "output-dir", "", "write -o and -O files into `dir`")
	fs.BoolVar(&o.createDirs, "create-dirs", false, "create the directories -o and --output-dir name")
	fs.BoolVarP(&o.silent, "silent", "s", false, "no progress bar, no error messages")
	fs.BoolVarP(&o.showError, "show-error", "S", false, "with -s, still show error messages")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "show the protocol conversation on stderr")
	fs.StringVarP(&o.user, "user", "u", "", "credentials `user[:password]` for URLs that name none")
	fs.BoolVarP(&o.netrc, "netrc", "n", false, "read credentials from ~/.netrc")
	fs.BoolVar(&o.netrcOptional, "netrc-optional", false, "read ~/.netrc when it exists")
	fs.StringVar(&o.netrcFile, "netrc-file", "", "read credentials from `file`")
	fs.BoolVar(&o.locationTrusted, "location-trusted", false, "send credentials to other hosts too (redirects, --recursive links)")
	fs.StringVarP(&o.continueAt, "continue-at", "C", "", "resume at `offset`; '-' resumes where the output file ends")
	fs.Float64VarP(&o.maxTime, "max-time", "m", 0, "give up on a transfer after `seconds`")
	fs.Float64Var(&o.connectTime, "connect-timeout", 0, "give up after `seconds` without the first byte of a reply (default 120)")
	fs.Int64VarP(&o.speedLimit, "speed-limit", "Y", 0, "give up when slower than `bytes` a second for --speed-time (default 1 with -y)")
	fs.Float64VarP(&o.speedTime, "speed-time", "y", 0, "give up after `seconds` slower than --speed-limit (default 30 with -Y)")
	fs.IntVar(&o.retry, "retry", 0, "retry transient failures `n` times")
	fs.Float64Var(&o.retryDelay, "retry-delay", 0, "wait `seconds` between retries (default: backoff from 1s)")
	fs.Float64Var(&o.retryMaxTime, "retry-max-time", 0, "stop retrying after `seconds`")
	var maxFilesize string
	fs.StringVar(&maxFilesize, "max-filesize", "", "refuse bodies larger than `bytes` (suffixes k, M, G)")
	fs.BoolVarP(&o.head, "head", "I", false, "show size, type and time, not the body")
	fs.StringVarP(&o.writeOut, "write-out", "w", "", "print `format` after each transfer (%{url}, %{size_download}, …)")
	fs.BoolVar(&o.jsonLines, "json-lines", false, "print listings as JSON lines, and one JSON line for each URL written to a file")
	fs.BoolVar(&o.rawListing, "raw-listing", false, "print listings as the server's own bytes")
	fs.BoolVarP(&o.insecure, "insecure", "k", false, "do not verify TLS certificates")
	fs.StringVar(&o.cacert, "cacert", "", "trust the CA certificates in `file`")
	fs.StringVar(&o.search, "search", "", "search `terms` for gopher type-7 items and WAIS databases")
	fs.StringVar(&ftpMethod, "ftp-method", "multicwd", "how to reach an FTP file: multicwd (RFC 1738), singlecwd, nocwd")
	fs.BoolVar(&o.ftp.RequireTLS, "ssl-reqd", false, "require TLS on ftp: (AUTH TLS)")
	fs.StringVarP(&o.ftp.ActiveAddr, "ftp-port", "P", "", "active FTP: listen on `address` instead of passive mode")
	fs.StringVar(&o.ftp.AnonymousPassword, "ftp-anon-pass", "", "password for anonymous FTP (default: urlget@)")
	fs.BoolVar(&o.ftp.Sync, "ftp-sync", false, "send each FTP command only after the reply to the one before")
	fs.StringVar(&o.news.Server, "nntp-server", "", "news server `host[:port]` for news: URLs (default: $NNTPSERVER)")
	fs.IntVar(&o.news.MaxArticles, "max-articles", 100, "how many of a newsgroup's newest articles to list")
	fs.StringVarP(&o.http.UserAgent, "user-agent", "A", "urlget", "the User-Agent header sent with http(s) requests")
	fs.IntVar(&maxRedirs, "max-redirs", 50, "with -L, follow at most `n` http(s) redirects (-1: no limit)")
	addProxyFlags(fs, o)
	addHTTPFlags(fs, o)
	addResolveFlags(fs, o)
	addParallelFlags(fs, o)
	fs.BoolP("next", ":", false, "start another operation: options hold for the URLs of their own operation only, but for curl's global ones (-v, -s, -S, -Z, --trace…)")
	curlNote(fs, "next", "operations run one after another, with -Z too (where curl runs them all at once); an operation reuses an earlier one's connections when its options for that protocol are the same")
	fs.BoolVarP(&help, "help", "h", false, "show this help")
	fs.BoolVarP(&showVersion, "version", "V", false, "show the version")
	addCLIFlags(fs, o)
	addHSTSFlag(fs, o)
	addWarcFlags(fs, o)
	addRecursionFlags(fs, o)
	addLettersFlags(fs, o)
	addHttpReqFlags(fs, o)
	addHttpStateFlags(fs, o)
	addConnFlags(fs, o)
	addFtpXFlags(fs, o)
	addOutFlags(fs, o)
	addWriteOutFlags(fs, o)
	// Last: what the flags above do not define.
	addOutOfScopeFlags(fs)
	fs.Usage = func() { writeHelp(stderr, stderr, fs, nil) }
	args, code := withConfig(fs, args, stderr)
	if code != 0 {
		return nil, nil, code
	}
	if err := fs.Parse(wgetArgs(args)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, nil, 0
		}
		var r *refusal
		if errors.As(err, &r) {
			fmt.Fprintf(stderr, "urlget: %v\n", r)
			return nil, nil, exitUsage
		}
		fmt.Fprintf(stderr, "urlget: %v\nTry 'urlget --help'.\n", err)
		return nil, nil, exitUsage
	}
	if help {
		return nil, nil, writeHelp(stdout, stderr, fs, fs.Args())
	}
	if showVersion {
		writeVersion(stdout, fs, o)
		return nil, nil, 0
	}
	if o.out.manual {
		return nil, nil, writeManual(stdout, stderr, fs)
	}
	urls := fs.Args()
	if len(urls) == 0 && len(o.urlArgs) == 0 {
		fmt.Fprintln(stderr, "urlget: no URL given\nTry 'urlget --help'.")
		return nil, nil, exitUsage
	}
	usage := func(format string, a ...any) (*options, []string, int) {
		fmt.Fprintf(stderr, "urlget: "+format+"\n", a...)
		return nil, nil, exitUsage
	}
	// -o and -O pair with the command line's URLs; a list's URLs each
	// have their implied -O.
	if n := cliURLs(len(urls), o.urlArgs); len(o.outputs) > n {
		return usage("%d outputs (-o/-O) for %d URLs", len(o.outputs), n)
	}
	if fs.Changed("user") {
		o.hasUser = true
	}
	o.hasSearch = fs.Changed("search")
	if maxFilesize != "" {
		n, err := parseSize(maxFilesize)
		if err != nil {
			return usage("--max-filesize: %v", err)
		}
		o.maxFilesize = n
	}
	if o.continueAt != "" && o.continueAt != "-" {
		if n, err := strconv.ParseInt(o.continueAt, 10, 64); err != nil || n < 0 {
			return usage("--continue-at takes '-' or a byte offset, not %q", o.continueAt)
		}
	}
	switch ftpMethod {
	case "multicwd":
		o.ftp.Method = ftp.MultiCWD
	case "singlecwd":
		o.ftp.Method = ftp.SingleCWD
	case "nocwd":
		o.ftp.Method = ftp.NoCWD
	default:
		return usage("--ftp-method must be multicwd, singlecwd or nocwd, not %q", ftpMethod)
	}
	if maxRedirs < -1 {
		return usage("--max-redirs takes a number of at least -1 (no limit), not %d", maxRedirs)
	}
	if o.news.MaxArticles < 1 {
		return usage("--max-articles must be at least 1")
	}
	if o.jsonLines && o.rawListing {
		return usage("--json-lines and --raw-listing exclude each other")
	}
	if err := checkHTTPFlags(o); err != nil {
		return usage("%v", err)
	}
	if err := checkRecursionFlags(fs, o); err != nil {
		return usage("%v", err)
	}
	if err := checkWarcFlags(fs, o, args); err != nil {
		return usage("%v", err)
	}
	if err := checkLettersFlags(fs, o); err != nil {
		return usage("%v", err)
	}
	if err := checkHttpReqFlags(fs, o); err != nil {
		return usage("%v", err)
	}
	if err := checkHttpStateFlags(fs, o); err != nil {
		return usage("%v", err)
	}
	if err := checkConnFlags(fs, o); err != nil {
		return usage("%v", err)
	}
	if err := checkFtpXFlags(fs, o); err != nil {
		return usage("%v", err)
	}
	if err := checkOutFlags(fs, o); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			fmt.Fprintf(stderr, "urlget: %v\n", ee.err)
			return nil, nil, ee.code
		}
		return usage("%v", err)
	}
	if o.http.UserAgent == "" {
		// -A "" sends no User-Agent at all; a -H one still goes.
		o.http.RemoveHeader = append(o.http.RemoveHeader, "User-Agent")
	}
	followRedirects(fs, o, maxRedirs)
	// A menu's items' sizes and times (Gopher+ attributes) are what
	// --timestamping compares; without it they are not asked for.
	o.gopher.Attributes = o.rec.timestamping
	return o, urls, 0
}

// parseSize reads a byte count with an optional k, M or G suffix (powers of
// 1024, as curl's --max-filesize).
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, errors.New("not a size: empty")
	}
	mult := int64(1)
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult, s = 1<<10, s[:len(s)-1]
	case "M":
		mult, s = 1<<20, s[:len(s)-1]
	case "G":
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	return n * mult, nil
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// fetchers is the registry of the run: every scheme urlget implements,
// the protocols its flags configure with their fetchers (fetch's default
// registry for the rest). Schemes of one protocol share its fetcher, and
// so its connections.
func (o *options) fetchers() map[string]schemes.Fetcher {
	if o.registry != nil {
		return o.registry
	}
	if o.ftp == nil {
		o.ftp = &ftp.Fetcher{}
	}
	if o.news == nil {
		o.news = &news.Fetcher{}
	}
	if o.gopher == nil {
		o.gopher = &gopher.Fetcher{}
	}
	if o.http == nil {
		o.http = &httpscheme.Fetcher{}
	}
	r := fetch.DefaultFetchers()
	r["ftp"], r["ftps"] = o.ftp, o.ftp
	r["gopher"], r["gophers"] = o.gopher, o.gopher
	r["http"], r["https"] = o.http, o.http
	for _, s := range news.Schemes {
		r[s] = o.news
	}
	o.registry = r
	return r
}

// newClient builds the fetch.Client the command line describes.
func (c *command) newClient() (*fetch.Client, error) {
	o := c.opts
	cl := &fetch.Client{
		ConnectTimeout: seconds(o.connectTime),
		LowSpeedLimit:  o.speedLimit,
		LowSpeedTime:   seconds(o.speedTime),
		Timeout:        seconds(o.maxTime),
		MaxSize:        o.maxFilesize,
		Retries:        o.retry,
		RetryDelay:     seconds(o.retryDelay),
		RetryMaxTime:   seconds(o.retryMaxTime),
		LimitRate:      o.limitRate,
		Fetchers:       o.fetchers(),
		Resolve:        o.resolve,
		Network:        o.network,

		LocationTrusted: o.locationTrusted,
	}
	tlsConf, err := tlsConfig(o.insecure, o.cacert)
	if err != nil {
		return nil, err
	}
	cl.TLSConfig = tlsConf
	c.loadWriteOut()
	if err := o.proxyOpts.configure(cl); err != nil {
		return nil, err
	}
	if err := o.httpReq.configure(o, cl); err != nil {
		return nil, err
	}
	if err := o.httpState.configure(o, cl); err != nil {
		return nil, err
	}
	if err := o.conn.configure(o, cl); err != nil {
		return nil, err
	}
	if err := o.ftpX.configure(o, cl); err != nil {
		return nil, err
	}
	if err := o.out.configure(o, cl); err != nil {
		return nil, err
	}
	if o.hasSearch {
		cl.Search = &o.search
	}
	if c.archive != nil {
		// Nil otherwise: a Client without an Archive costs nothing.
		cl.Archive = c.archive
		cl.ArchiveCredentials = o.warc.keepCredentials
	}
	if o.hasUser {
		user, pw, ok := strings.Cut(o.user, ":")
		cl.User = url.User(user)
		if ok {
			cl.User = url.UserPassword(user, pw)
		}
	}
	switch {
	case o.netrcFile != "":
		n, err := fetch.ReadNetrc(o.netrcFile)
		if err != nil {
			return nil, err
		}
		cl.Netrc = n
	case o.netrc || o.netrcOptional:
		n, err := fetch.ReadNetrc(fetch.DefaultNetrcPath())
		if err != nil && !(o.netrcOptional && errors.Is(err, os.ErrNotExist)) {
			return nil, err
		}
		cl.Netrc = n
	}
	if c.stdin != nil && term.IsTerminal(int(c.stdin.Fd())) {
		in := c.stdin
		cl.Prompt = func(prompt string) (string, error) {
			fmt.Fprint(c.stderr, prompt)
			b, err := term.ReadPassword(int(in.Fd()))
			fmt.Fprintln(c.stderr)
			return string(b), err
		}
	}
	if o.verbose {
		w := c.stderr
		stamp := o.out.stamp
		cl.Trace = func(dir schemes.Direction, line string) {
			fmt.Fprintf(w, "%s%c %s\n", stamp(), dir, line)
		}
	}
	return cl, nil
}
