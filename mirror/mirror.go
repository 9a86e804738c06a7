package mirror

import (
	"regexp"
	"time"
)

// Options are the choices of one recursive retrieval. The zero value
// mirrors nothing beyond the start URLs' own level; see each field.
type Options struct {
	// Dir is the output directory (--output-dir); "" means ".".
	Dir string
	// Layout maps URLs to paths below Dir.
	Layout Layout

	// Level is how many links deep the recursion goes from a start URL
	// (--level, default 5); a negative value means no limit.
	Level int
	// NoParent keeps the recursion at or below each start URL's directory
	// (or gopher selector, or newsgroup) on the start URL's server; links
	// to other servers are not held by it, as wget's -np does not hold them.
	NoParent bool
	// Accept and Reject are comma-separated lists of file name patterns
	// (wget's -A and -R): a pattern with *, ? or [ is a glob, any other
	// a suffix. They apply to files, never to the listings and pages a
	// recursion goes through.
	Accept, Reject []string
	// AcceptRegex and RejectRegex are matched against the whole URL.
	AcceptRegex, RejectRegex *regexp.Regexp
	// SpanHosts lets the recursion leave the start URLs' hosts; Domains,
	// when not empty, lists the domains it may go to then.
	SpanHosts bool
	Domains   []string
	// Schemes lists the schemes the recursion may follow links into; nil
	// means the start URLs' schemes and their TLS twins.
	Schemes []string

	// Timestamping fetches a file only when the remote one is newer or of
	// another size than the local copy (--timestamping). A gopher menu gives sizes
	// and times only when the client's gopher fetcher asks for its items'
	// Gopher+ attributes (gopher.Fetcher.Attributes), as the command's --timestamping
	// sets it.
	Timestamping bool
	// Delete removes local files the remote no longer has (--delete; the
	// command allows it with --mirror only), and only those an earlier
	// run recorded in the tree's manifest (StateDir) as its own, within
	// the same start URL, unchanged since: see docs/mirror.md.
	Delete bool
	// DeleteEmptied lets --delete empty a local directory whose listing
	// came back empty where the manifest says it had files; without it
	// an empty listing (a server that could not read the directory and
	// said nothing) deletes nothing.
	DeleteEmptied bool
	// MaxDelete bounds the files one run deletes (rsync's --max-delete):
	// 0 means DefaultMaxDelete, a negative value no bound. Past it
	// nothing more is deleted and Run returns ErrMaxDelete.
	MaxDelete int
	// DryRun transfers no file and deletes nothing: listings are read,
	// and http(s) pages (known by their local names) for their links,
	// without being saved; what --delete would remove is reported as
	// WouldDelete.
	DryRun bool
	// Robots honours robots.txt for http(s) and gopher.
	Robots bool
	// Wait is the pause between two requests to one host; RandomWait
	// varies it between 0.5 and 1.5 times, as wget's --random-wait.
	Wait       time.Duration
	RandomWait bool

	// Parallel is how many transfers run at once (default 4); PerHost
	// caps those to one server, as internal/hostsched.Key names it: the
	// protocol, host and port, as -Z counts them (default Parallel).
	Parallel int
	PerHost  int

	// ConvertLinks rewrites the links of saved HTML pages and gopher
	// menus to the local copies once the run is over.
	ConvertLinks bool
	// Search lets the recursion run gopher type-7 searches with the
	// client's search terms.
	Search bool
	// MaxEntries bounds the links taken from one listing or page;
	// 0 means DefaultMaxEntries. The rest of a longer one is left out and
	// the listing counts as failed (schemes.ErrTooLarge).
	MaxEntries int

	// Report, when not nil, is called once for every URL the run handled,
	// from one goroutine at a time.
	Report func(Report)
	// Progress, when not nil, is called as the job advances.
	Progress func(Stats)
}

// Status says what became of one URL of a recursion.
type Status string

// The statuses a Report carries.
const (
	Fetched   Status = "fetched"   // transferred and saved (or listed)
	Unchanged Status = "unchanged" // --timestamping: the local copy is up to date
	Skipped   Status = "skipped"   // robots.txt or a filter kept it out
	Failed    Status = "failed"    // the fetch or the write failed: Err says why
	Deleted   Status = "deleted"   // --delete removed the local copy
	Linked    Status = "linked"    // a symbolic link, made again locally
	// Interrupted: the run was stopped (Ctrl-C) while the URL was being
	// fetched; what arrived is kept as its part for the next run to
	// resume where the server gave a validator to resume it on
	// (Report.Kept). Not a failure: Stats.Failed does not count it.
	Interrupted Status = "interrupted"
	// --delete's other answers: a file it left alone (Reason says why),
	// one --dry-run would have deleted, and a word on the whole run (no
	// manifest, a manifest that cannot be read, the --max-delete bound).
	Kept        Status = "kept"
	WouldDelete Status = "would-delete"
	Notice      Status = "notice"
)

// Report tells what became of one URL.
type Report struct {
	URL    string // password masked
	Path   string // the local copy, relative to Dir; "" when none
	Size   int64  // body bytes written this run
	Status Status
	Reason string // why a URL was skipped ("robots.txt"), deleted or kept
	Err    error
	// Kept tells, for a file interrupted or failed, that what arrived is
	// kept as its part for the next run to resume.
	Kept bool
}

// Stats sums up a run so far.
type Stats struct {
	Done, Queued, Failed int64
	Bytes                int64
}
