package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/internal/progress"
	"github.com/urlget/urlget/internal/xfer"
	"github.com/urlget/urlget/mirror"
	"github.com/urlget/urlget/uri"
)

// recursionOptions are the flags of a recursive retrieval (--recursive,
// --mirror), named as wget names them; where curl gives wget's short
// letter another meaning (-r, -N, -A, -R, -H, -D, -k, -m, -l, -np's -n)
// only the long name is there.
type recursionOptions struct {
	recursive    bool
	mirror       bool
	level        string
	noParent     bool
	accept       []string
	reject       []string
	acceptRegex  string
	rejectRegex  string
	spanHosts    bool
	domains      []string
	schemes      []string
	noHostDirs   bool
	cutDirs      int
	timestamping bool
	delete       bool
	deleteEmpty  bool
	maxDelete    string
	dryRun       bool
	convertLinks bool
	execute      []string
	wait         float64
	randomWait   bool
	maxEntries   int
}

func addRecursionFlags(fs *pflag.FlagSet, o *options) {
	r := &o.rec
	fs.BoolVar(&r.recursive, "recursive", false, "fetch the URL and everything its listings and pages link to, into --output-dir")
	fs.BoolVar(&r.mirror, "mirror", false, "--recursive --level inf --timestamping: keep a local copy up to date")
	fs.StringVar(&r.level, "level", "5", "with --recursive, follow links `n` deep at most ('inf': no limit)")
	fs.BoolVar(&r.noParent, "no-parent", false, "with --recursive, never go above the start URL's directory (also -np)")
	fs.StringSliceVar(&r.accept, "accept", nil, "with --recursive, fetch only files whose names match `list` (globs or suffixes)")
	fs.StringSliceVar(&r.reject, "reject", nil, "with --recursive, skip files whose names match `list` (globs or suffixes)")
	fs.StringVar(&r.acceptRegex, "accept-regex", "", "with --recursive, follow only URLs matching `regex`")
	fs.StringVar(&r.rejectRegex, "reject-regex", "", "with --recursive, skip URLs matching `regex`")
	fs.BoolVar(&r.spanHosts, "span-hosts", false, "with --recursive, follow links to other hosts")
	fs.StringSliceVar(&r.domains, "domains", nil, "with --span-hosts, only to hosts in `list`")
	fs.StringSliceVar(&r.schemes, "schemes", nil, "with --recursive, follow links into the schemes in `list` (default: the start URL's and its TLS twin)")
	fs.BoolVar(&r.noHostDirs, "no-host-directories", false, "with --recursive, no HOST[:PORT] directory (also -nH)")
	fs.IntVar(&r.cutDirs, "cut-dirs", 0, "with --recursive, leave out the first `n` directories of each path")
	fs.BoolVar(&r.timestamping, "timestamping", false, "with --recursive, fetch a file only when the remote one is newer or of another size")
	fs.BoolVar(&r.delete, "delete", false, "with --mirror, remove the files an earlier run wrote that the remote no longer has")
	fs.BoolVar(&r.deleteEmpty, "delete-emptied", false, "with --delete, empty a local directory whose listing came back empty")
	fs.StringVar(&r.maxDelete, "max-delete", strconv.Itoa(mirror.DefaultMaxDelete), "with --delete, delete at most `n` files in one run ('inf': no bound)")
	fs.BoolVar(&r.dryRun, "dry-run", false, "with --recursive, transfer nothing and print what --delete would remove")
	fs.BoolVar(&r.convertLinks, "convert-links", false, "with --recursive, point the saved pages' and menus' links at the local copies")
	fs.StringArrayVar(&r.execute, "execute", nil, "wget's `command`: robots=off ignores robots.txt (also -e robots=off)")
	fs.Float64Var(&r.wait, "wait", 0, "with --recursive, wait `seconds` between requests to one host")
	fs.BoolVar(&r.randomWait, "random-wait", false, "with --wait, vary the wait between 0.5 and 1.5 times")
	fs.IntVar(&r.maxEntries, "max-entries", mirror.DefaultMaxEntries, "with --recursive, take at most `n` links from one listing or page")
}

// wgetArgs rewrites wget's two-letter options, which no flag parser
// reads as one (-nH would be -n -H), and "-e robots=off" (curl's -e is
// --referer, which takes a URL, never "robots=…") to their long names.
func wgetArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "-nH":
			a = "--no-host-directories"
		case a == "-np":
			a = "--no-parent"
		case a == "-e" && i+1 < len(args) && isWgetCommand(args[i+1]):
			i++
			a = "--execute=" + args[i]
		case strings.HasPrefix(a, "-e") && isWgetCommand(a[2:]):
			a = "--execute=" + a[2:]
		}
		out = append(out, a)
	}
	return out
}

// isWgetCommand reports whether s is one of the wget commands -e takes
// here: robots=on or robots=off.
func isWgetCommand(s string) bool {
	k, v, ok := strings.Cut(s, "=")
	return ok && strings.EqualFold(strings.TrimSpace(k), "robots") && (v == "on" || v == "off")
}

// checkRecursionFlags checks the recursion flags once parsed and fills
// what --mirror implies.
func checkRecursionFlags(fs *pflag.FlagSet, o *options) error {
	r := &o.rec
	if r.mirror {
		r.recursive = true
		r.timestamping = true
		if !fs.Changed("level") {
			r.level = "inf"
		}
	}
	for _, name := range []string{"level", "no-parent", "accept", "reject", "accept-regex", "reject-regex", "span-hosts", "domains", "schemes",
		"no-host-directories", "cut-dirs", "convert-links", "execute", "wait", "random-wait", "max-entries"} {
		if fs.Changed(name) && !r.recursive {
			return fmt.Errorf("--%s works with --recursive or --mirror", name)
		}
	}
	if r.timestamping && !r.recursive {
		return errors.New("--timestamping works with --recursive or --mirror")
	}
	if r.delete && !r.mirror {
		return errors.New("--delete works with --mirror only")
	}
	for _, name := range []string{"delete-emptied", "max-delete"} {
		if fs.Changed(name) && !r.delete {
			return fmt.Errorf("--%s works with --delete", name)
		}
	}
	if r.dryRun && !r.recursive {
		return errors.New("--dry-run works with --recursive or --mirror")
	}
	if _, err := r.maxDeleteValue(); err != nil {
		return err
	}
	if !r.recursive {
		return nil
	}
	if _, err := r.levelValue(); err != nil {
		return err
	}
	if len(o.outputs) > 0 || o.remoteNameAll {
		return errors.New("--recursive saves under --output-dir; -o and -O do not apply")
	}
	if o.continueAt != "" {
		return errors.New("--recursive resumes partial files by itself; leave -C out")
	}
	if o.head || o.rawListing {
		return errors.New("--recursive fetches bodies and listings; leave -I and --raw-listing out")
	}
	for _, x := range []string{r.acceptRegex, r.rejectRegex} {
		if _, err := regexp.Compile(x); err != nil {
			return fmt.Errorf("bad regular expression %q: %v", x, err)
		}
	}
	if r.cutDirs < 0 {
		return errors.New("--cut-dirs must not be negative")
	}
	if r.wait < 0 || math.IsNaN(r.wait) {
		return errors.New("--wait must not be negative")
	}
	if r.maxEntries < 1 {
		return errors.New("--max-entries must be at least 1")
	}
	for _, s := range r.schemes {
		if s == "" || strings.ContainsAny(s, ":/") {
			return fmt.Errorf("--schemes takes scheme names such as http,ftp, not %q", s)
		}
	}
	return nil
}

// levelValue is --level as mirror.Options.Level: "inf" and 0 (as wget
// reads it) mean no limit, -1.
func (r *recursionOptions) levelValue() (int, error) {
	n, err := countOrInf("level", r.level, 0)
	if n == 0 {
		n = -1
	}
	return n, err
}

// maxDeleteValue is --max-delete as mirror.Options.MaxDelete: "inf"
// means no bound, -1.
func (r *recursionOptions) maxDeleteValue() (int, error) {
	return countOrInf("max-delete", r.maxDelete, 1)
}

// countOrInf reads the value of a flag that takes a count of at least
// least, or "inf" (-1).
func countOrInf(name, s string, least int) (int, error) {
	if s == "inf" {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < least {
		what := "a number"
		if least > 0 {
			what = fmt.Sprintf("a number of at least %d", least)
		}
		return 0, fmt.Errorf("--%s takes %s or 'inf', not %q", name, what, s)
	}
	return n, nil
}

// robots reports whether robots.txt is honoured: unless -e robots=off.
func (r *recursionOptions) robots() bool {
	on := true
	for _, x := range r.execute {
		if isWgetCommand(x) {
			on = strings.HasSuffix(x, "=on")
		}
	}
	return on
}

// mirrorOptions builds the mirror.Options the command line describes.
func (c *command) mirrorOptions() mirror.Options {
	o := c.opts
	r := &o.rec
	level, _ := r.levelValue()
	maxDelete, _ := r.maxDeleteValue()
	mo := mirror.Options{
		Dir:           o.outputDir,
		Layout:        mirror.Layout{NoHostDirs: r.noHostDirs, CutDirs: r.cutDirs},
		Level:         level,
		NoParent:      r.noParent,
		Accept:        r.accept,
		Reject:        r.reject,
		SpanHosts:     r.spanHosts,
		Domains:       r.domains,
		Timestamping:  r.timestamping,
		Delete:        r.delete,
		DeleteEmptied: r.deleteEmpty,
		MaxDelete:     maxDelete,
		DryRun:        r.dryRun,
		Robots:        r.robots(),
		Wait:          seconds(r.wait),
		RandomWait:    r.randomWait,
		ConvertLinks:  r.convertLinks,
		Search:        o.hasSearch,
		MaxEntries:    r.maxEntries,
	}
	mo.Parallel, mo.PerHost = o.parallelMax, o.parallelHost
	for _, s := range r.schemes {
		mo.Schemes = append(mo.Schemes, strings.ToLower(s))
	}
	if r.acceptRegex != "" {
		mo.AcceptRegex = regexp.MustCompile(r.acceptRegex)
	}
	if r.rejectRegex != "" {
		mo.RejectRegex = regexp.MustCompile(r.rejectRegex)
	}
	return mo
}

// runRecursive is the run of --recursive and --mirror: every URL of the command
// line is a start of one recursion into --output-dir.
func (c *command) runRecursive(ctx context.Context, q *urlQueue) int {
	defer q.close()
	status := exitOK
	var starts []uri.URL
	for {
		_, u, m, ok := q.next()
		if !ok {
			break
		}
		if m.err != nil {
			c.printError(m.err)
			status = exitCode(m.err)
			continue
		}
		starts = append(starts, u)
	}
	if len(starts) == 0 {
		return status
	}
	cl, err := c.newClient()
	if err != nil {
		fmt.Fprintf(c.stderr, "urlget: %v\n", err)
		return setupExit(err)
	}
	c.client = cl
	if !c.sharedFetchers {
		defer cl.Close()
	}
	if c.cancel != nil {
		defer c.catchInterrupts()()
	}
	mo := c.mirrorOptions()
	var jobs *progress.Jobs
	if !c.opts.silent && !c.opts.out.noProgressMeter {
		jobs = newJobs(c.stderr)
	}
	if jobs != nil {
		jobs.Trailing = true
		// The bytes as each body's transfer reads them, not as files
		// complete: a large file shows its progress as it comes.
		tally := &jobTally{p: jobs, bodies: map[string]bodyCount{}}
		cl.Progress = tally.body
		mo.Progress = func(s mirror.Stats) { tally.counts(s.Done, s.Queued, s.Failed) }
		// Messages go above the job's line rather than through it.
		c.stderr = jobs.Above(c.stderr)
		c.opts.out.stderr = c.stderr // --retry's warnings too
	}
	sum := mirrorSummary{start: time.Now()}
	mo.Report = func(r mirror.Report) {
		sum.add(r)
		err := withFlagHint(r.Err)
		if r.Status == mirror.Interrupted {
			// In flight when the run was stopped: said so, with the
			// signal's status, rather than as the error the cut-off
			// transfer ended with.
			err = errInterrupted
			if c.opts.jsonLines {
				writeJobReport(c.stdout, jobReport{URL: r.URL, Path: r.Path, Status: reportInterrupted, Exit: c.interruptedStatus(), Err: err})
			}
			if !c.opts.silent || c.opts.showError {
				kept := ""
				if r.Kept {
					kept = "; what arrived is kept for the next run"
				}
				fmt.Fprintf(c.stderr, "urlget: %s: %v%s\n", maskedText(r.URL), err, kept)
			}
			return
		}
		if c.opts.jsonLines {
			jr := jobReport{URL: r.URL, Path: r.Path, Size: r.Size, Status: string(r.Status), Err: err}
			switch {
			case deleteStatus(r.Status):
				jr.Reason = r.Reason
			case r.Reason != "" && err == nil:
				jr.Err = errors.New(r.Reason)
			}
			if err != nil {
				jr.Exit = exitCode(err)
			}
			writeJobReport(c.stdout, jr)
		}
		switch r.Status {
		case mirror.Failed:
			c.printError(err)
		case mirror.Notice:
			c.printError(errors.New(r.Reason))
		case mirror.Kept:
			c.printError(fmt.Errorf("kept %s (%s): %s", r.Path, r.URL, r.Reason))
		case mirror.WouldDelete:
			if !c.opts.jsonLines {
				fmt.Fprintf(c.stdout, "would delete %s (%s): %s\n", r.Path, maskedText(r.URL), r.Reason)
			}
		case mirror.Fetched, mirror.Skipped:
			if !c.opts.jsonLines && !c.opts.silent && (r.Status == mirror.Fetched && r.Reason != "" || r.Status == mirror.Skipped && strings.HasPrefix(r.Reason, "refused:")) {
				// A file fetched again because it changed, a remote
				// name refused: said once, as a failure is.
				fmt.Fprintf(c.stderr, "urlget: %s: %s\n", maskedText(r.URL), r.Reason)
			}
		}
	}
	st, err := mirror.Run(ctx, cl, mo, starts)
	jobs.Stop()
	code := c.recursionStatus(ctx, st, err, status)
	c.summarize(&sum, code)
	return code
}

// recursionStatus is the exit status of a recursion that ended with st
// and err, printing why the run failed; status is that of the command
// line's URLs before it.
func (c *command) recursionStatus(ctx context.Context, st mirror.Stats, err error, status int) int {
	if ctx.Err() != nil {
		return c.interruptedStatus()
	}
	if err == nil {
		return status
	}
	if st.Failed > 0 && (!c.opts.silent || c.opts.showError) {
		fmt.Fprintf(c.stderr, "urlget: %d of %d URLs failed\n", st.Failed, st.Done)
	}
	switch {
	case xfer.ClassifyWrite(err) == xfer.DiskFull:
		if !c.opts.silent || c.opts.showError {
			fmt.Fprintln(c.stderr, "urlget: the disk is full: the run stopped; run it again to resume once there is room")
		}
	case errors.Is(err, mirror.ErrMaxDelete):
		// Said by the run's notice already.
	case errors.Is(err, mirror.ErrStopped), st.Failed == 0:
		// What stopped the whole run is no URL's failure, printed as
		// they were.
		c.printError(err)
	}
	return exitCode(err)
}

// deleteStatus reports whether a report is one of --delete's, whose
// reason is no error: deleted, kept, would-delete, or a notice.
func deleteStatus(s mirror.Status) bool {
	switch s {
	case mirror.Deleted, mirror.Kept, mirror.WouldDelete, mirror.Notice:
		return true
	}
	return false
}

// printError prints one failure on one line, unless -s without -S.
func (c *command) printError(err error) {
	if err != nil && (!c.opts.silent || c.opts.showError) {
		fmt.Fprintf(c.stderr, "urlget: %s\n", oneLine(err.Error()))
	}
}

// mirrorSummary counts what became of a recursion's URLs, for the line
// that ends the run.
type mirrorSummary struct {
	start                                  time.Time
	fetched, unchanged, failed, skipped    int64
	deleted, linked, interrupted, listings int64
	bytes                                  int64
}

// add counts one report; the mirror calls Report from one goroutine at
// a time.
func (s *mirrorSummary) add(r mirror.Report) {
	switch r.Status {
	case mirror.Fetched:
		if r.Path == "" {
			s.listings++ // a directory listed, nothing saved
		} else {
			s.fetched++
		}
		s.bytes += r.Size
	case mirror.Unchanged:
		s.unchanged++
	case mirror.Failed:
		s.failed++
	case mirror.Skipped:
		s.skipped++
	case mirror.Deleted:
		s.deleted++
	case mirror.Linked:
		s.linked++
	case mirror.Interrupted:
		s.interrupted++
	}
}

// text is the summary line: "Mirrored 120 files (3 unchanged, 1
// failed), 8.1 MiB in 2.3 s", with the skipped, deleted, linked and
// interrupted files when there are any.
func (s *mirrorSummary) text(elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Mirrored %d file%s (%d unchanged, %d failed", s.fetched, plural(s.fetched), s.unchanged, s.failed)
	for _, x := range []struct {
		n    int64
		what string
	}{{s.skipped, "skipped"}, {s.deleted, "deleted"}, {s.linked, "links made"}, {s.interrupted, "interrupted"}} {
		if x.n > 0 {
			fmt.Fprintf(&b, ", %d %s", x.n, x.what)
		}
	}
	fmt.Fprintf(&b, "), %s in %.1f s", progress.HumanBytes(s.bytes), elapsed.Seconds())
	return b.String()
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// summarize ends a recursion with its summary: one line on stderr
// (none with -s), and with --json-lines a last object of status "summary"
// holding the counts, the bytes, the seconds and the run's exit status.
func (c *command) summarize(s *mirrorSummary, code int) {
	elapsed := time.Since(s.start)
	if !c.opts.silent {
		fmt.Fprintln(c.stderr, s.text(elapsed))
	}
	if !c.opts.jsonLines {
		return
	}
	var o jsonObject
	o.str("status", reportSummary)
	o.int("fetched", s.fetched)
	o.int("unchanged", s.unchanged)
	o.int("failed", s.failed)
	o.int("skipped", s.skipped)
	o.int("deleted", s.deleted)
	o.int("linked", s.linked)
	o.int("interrupted", s.interrupted)
	o.int("bytes", s.bytes)
	o.key("seconds")
	o.b = strconv.AppendFloat(o.b, elapsed.Seconds(), 'f', 3, 64)
	o.int("exit", int64(code))
	c.stdout.Write(append(o.bytes(), '\n'))
}
