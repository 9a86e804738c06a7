package cli

import (
	"io"
)

// With --json-lines, every URL whose body goes to a file (-o, -O, --output-dir,
// a URL list, a recursion) is reported on standard output by one JSON
// line once its transfer ends, for scripts to follow a run of many files:
//
//	{"url":"http://h/a.txt","path":"a.txt","size":1234,"status":"fetched","exit":0}
//	{"url":"http://h/b.txt","path":"b.txt","status":"failed","exit":22,"error":"…"}
//
// A body going to standard output is not reported: the line would land in
// the output. Listings printed to standard output keep their own JSON
// lines, one an entry (listingJSON).

// The statuses of a jobReport.
const (
	reportFetched   = "fetched"   // the body was written whole
	reportUnchanged = "unchanged" // the local file is the remote one already (--timestamping)
	reportSkipped   = "skipped"   // not fetched by choice (a filter, robots.txt)
	reportFailed    = "failed"    // the transfer or the writing failed; see exit and error
	reportDeleted   = "deleted"   // removed locally, gone remotely (--delete)
	reportLinked    = "linked"    // a remote symbolic link, made again locally (--recursive)
	// reportInterrupted: in flight when a signal stopped the run (--recursive);
	// its exit is the signal's status (130 for SIGINT).
	reportInterrupted = "interrupted"
	// reportSummary is the last object of a recursion (--recursive): its counts,
	// bytes, seconds and exit status, with no url.
	reportSummary = "summary"
)

// jobReport is what --json-lines tells of one URL written to a file.
type jobReport struct {
	URL    string // as given; its password is masked when written
	Path   string // the local file, "" when none was chosen
	Size   int64  // the bytes written
	Status string // one of the report* constants
	Exit   int    // the URL's exit status, 0 when it came
	Err    error  // why it failed, nil when it did not
	Reason string // why --delete deleted or kept a file; a notice's text
}

// writeJobReport writes r to w as one JSON line: url, path, size, status,
// exit and error, leaving out an empty path, an error that is none, and a
// size of 0 where nothing was written (failed, skipped, deleted). The
// error is one line and names the URL with its password masked, as the
// message on stderr does.
func writeJobReport(w io.Writer, r jobReport) error {
	var o jsonObject
	o.str("url", maskedText(r.URL))
	if r.Path != "" {
		o.str("path", r.Path)
	}
	if r.Size != 0 || r.Status == reportFetched || r.Status == reportUnchanged {
		o.int("size", r.Size)
	}
	o.str("status", r.Status)
	o.int("exit", int64(r.Exit))
	if r.Reason != "" {
		o.str("reason", oneLine(r.Reason))
	}
	if r.Err != nil {
		o.str("error", oneLine(r.Err.Error()))
	}
	_, err := w.Write(append(o.bytes(), '\n'))
	return err
}

// report tells what -w and --json-lines say of a transfer that ended: -w's
// format, and with --json-lines the transfer's JSON line when its body was for
// a file.
func (c *command) report(t transfer) {
	if c.opts.writeOut != "" {
		c.writeOut(t)
	}
	if !c.opts.jsonLines || !t.toFile {
		return
	}
	r := jobReport{URL: t.url, Path: t.filename, Size: t.size, Status: reportFetched, Exit: t.code, Err: t.err}
	if t.unchanged {
		r.Status = reportUnchanged
	}
	if t.err != nil {
		r.Status = reportFailed
	}
	writeJobReport(c.stdout, r)
}
