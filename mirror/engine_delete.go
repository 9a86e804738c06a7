package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/urlget/urlget/internal/hostsched"
	"github.com/urlget/urlget/mirror/links"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// --delete removes only what an earlier run of urlget wrote into the tree
// and recorded in its manifest (manifest.go), never what merely lies
// there: the user's own files beside a mirror, another mirror's sharing
// an -nH tree, a file the user changed since. And it does so only on the
// word of a listing that is whole and trustworthy: one read to its end
// (a gopher menu to its "." line, RFC 1436; an FTP listing to its 226,
// RFC 959 §4.2; an NNTP block to its ".", RFC 3977 §3.1.1), not empty
// where the manifest says the directory had files, and not from another
// server than the start URL's after a redirect.

// DefaultMaxDelete is how many files one run deletes at most when
// Options.MaxDelete is 0: enough for the files a real archive drops
// between two runs, and a bound on what a server that suddenly lists
// nothing, or a mistaken start URL, can take.
const DefaultMaxDelete = 100

// ErrMaxDelete is what Run returns when --delete stopped at its bound
// (Options.MaxDelete) with more files to delete.
var ErrMaxDelete = errors.New("more files to delete than --max-delete allows; the rest were kept")

// The reasons a deletion or a kept file is reported with.
const (
	reasonPageless  = "no page of the run links to it"
	reasonMenuless  = "no menu of the run links to it"
	reasonEdited    = "changed since urlget wrote it (size, time, inode or link target differ)"
	reasonThrough   = "a directory on its path is a symbolic link"
	reasonMaxDelete = "past the --max-delete bound"
)

// deleter is --delete's state in a run.
type deleter struct {
	mf      *manifest
	ok      bool      // the manifest was read: deletions may happen
	scopes  []string  // each start URL as the manifest records it
	dirs    []string  // each start URL's local directory
	moved   []bool    // the start URL redirected to another server
	max     int       // the bound; < 0 none
	count   int       // files deleted (or that a dry run would delete)
	stopped bool      // the bound was reached with more to delete
	emptied []emptied // gopher menus that came back empty
}

// scopeOf is the form of a start URL the manifest records: normalized
// (RFC 3986 §6), its password removed.
func scopeOf(u uri.URL) string { return noPassword(u.Normalize()) }

// noPassword is u's text without its password, when it has one.
func noPassword(u uri.URL) string {
	s := u.Redacted()
	if info, ok := u.RawUserinfo(); ok && strings.Contains(info, ":") {
		s = strings.Replace(s, ":****@", "@", 1)
	}
	return s
}

// startDeleter loads the manifest and says, once, why nothing will be
// deleted when it cannot be used.
func (e *engine) startDeleter(start []uri.URL) {
	var mf *manifest
	if e.o.Delete {
		mf = loadManifest(e.store.root)
	} else {
		mf = lazyManifest(e.store.root)
	}
	e.del.mf = mf
	if mf.bad != nil {
		mf.old, mf.dirs = map[string]*record{}, map[string]string{}
	}
	for _, u := range start {
		e.del.scopes = append(e.del.scopes, scopeOf(u))
		d, err := e.o.Layout.dir(u)
		if err != nil {
			d = "\x00" // no local directory: nothing is below it
		}
		e.del.dirs = append(e.del.dirs, d)
	}
	e.del.moved = make([]bool, len(start))
	e.del.max = e.o.MaxDelete
	if e.del.max == 0 {
		e.del.max = DefaultMaxDelete
	}
	if e.recording() { // a dry run merges no journal either
		if err := mf.settle(); err != nil && mf.bad == nil {
			e.notice("", fmt.Sprintf("the journal of an earlier run could not be merged into the manifest: %v", err))
		}
	}
	if !e.o.Delete {
		return
	}
	switch {
	case mf.bad != nil:
		e.notice("", fmt.Sprintf("%v; --delete deletes nothing this run", mf.bad))
	case !mf.found:
		e.notice("", fmt.Sprintf("no manifest of an earlier run in %s (%s/%s): --delete deletes nothing this run, and the manifest is written for the next", e.o.Dir, StateDir, manifestName))
	default:
		e.del.ok = true
	}
}

// recording reports whether the run keeps the manifest: a --mirror (or
// --timestamping) run does, so that a later --delete knows what it wrote; a dry run
// changes nothing.
func (e *engine) recording() bool {
	return (e.o.Delete || e.o.Timestamping) && !e.o.DryRun
}

// finishDeleter writes the manifest once the run is over, Ctrl-C
// included, and returns ErrMaxDelete when the bound held deletions back.
// A manifest that could not be read is replaced by this run's records,
// so that the next run can delete again what this one wrote.
func (e *engine) finishDeleter() error {
	if e.del.mf == nil {
		return nil
	}
	if !e.recording() {
		e.del.mf.close()
	} else if err := e.del.mf.write(e.del.mf.bad != nil); err != nil {
		e.notice("", fmt.Sprintf("the manifest %s/%s could not be written: %v", StateDir, manifestName, err))
	}
	if e.del.stopped {
		e.notice("", fmt.Sprintf("%v (%d deleted)", ErrMaxDelete, e.del.max))
		return ErrMaxDelete
	}
	return nil
}

// notice reports a word on the whole run.
func (e *engine) notice(masked, text string) {
	e.report(Report{URL: masked, Status: Notice, Reason: text})
}

// recordFile adds a file just committed to the manifest.
func (e *engine) recordFile(it item, final uri.URL, rel, etag string, mod time.Time) {
	if e.del.mf == nil || !e.recording() || !validRel(rel) {
		return
	}
	fi, err := e.store.Stat(rel)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	e.del.mf.add(newRecord(fi, rel, noPassword(final), e.del.scopes[it.start], etag, mod))
}

// etagOf returns the entity tag the local copy rel (fi) came with, for
// --timestamping's If-None-Match: from the file's user.etag extended attribute, or,
// where the file system keeps none, from the manifest, when the file is
// still the one recorded there. A file system that keeps them and has
// none for the file (a page that came with no ETag) is not asked past:
// the manifest would say the same, at the cost of reading it whole.
func (e *engine) etagOf(rel string, fi os.FileInfo) string {
	if t, known := e.store.etag(rel); known || e.del.mf == nil {
		return t
	}
	if r := e.del.mf.lookup(rel); r != nil && r.unchanged(fi) {
		return r.etag
	}
	return ""
}

// recordLink adds a symbolic link just made to the manifest.
func (e *engine) recordLink(it item, ref uri.URL, rel, target string) {
	if e.del.mf == nil || !e.recording() || !validRel(rel) {
		return
	}
	fi, err := e.store.Stat(rel)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return
	}
	r := newRecord(fi, rel, noPassword(ref), e.del.scopes[it.start], "", time.Time{})
	r.size, r.link = 0, target
	e.del.mf.add(r)
}

// madeDir records a directory the store made.
func (e *engine) madeDir(dir string) {
	if e.del.mf != nil && e.recording() && validRel(dir) {
		e.del.mf.addDir(dir, "")
	}
}

// below reports whether p is dir or lies below it.
func below(p, dir string) bool {
	return dir == "." || dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

// candidates returns the recorded files of start si below dir whose first
// name below dir gone does not hold (nil: every one), sorted.
func (e *engine) candidates(si int, dir string, kept func(first string) bool) []*record {
	m := e.del.mf
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*record
	prefix := dir + "/"
	if dir == "." || dir == "" {
		prefix = ""
	}
	// The records below dir are one run of the sorted list: a listing
	// costs the files below it, not the whole manifest's.
	sorted := m.byPath()
	i, _ := slices.BinarySearchFunc(sorted, prefix, func(r *record, p string) int { return strings.Compare(r.path, p) })
	for _, r := range sorted[i:] {
		p := r.path
		if !strings.HasPrefix(p, prefix) {
			break
		}
		if m.drop[p] || r.scope != e.del.scopes[si] {
			continue
		}
		if _, again := m.news[p]; again {
			continue
		}
		first, _, _ := strings.Cut(p[len(prefix):], "/")
		if kept != nil && kept(first) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// pruneListing deletes the recorded files of directory dir that its
// listing, read whole, no longer names. names holds the names the listing
// keeps; empty tells whether it named nothing at all. A gopher menu is
// no directory listing (a menu may name items anywhere on its server, and
// an item may be named by any menu): its files are swept once the run is
// over, as http pages' are (an empty one: keepEmptiedMenu).
func (e *engine) pruneListing(it item, u uri.URL, dir string, names map[string]bool, empty bool) {
	if !e.del.ok || e.isMoved(it.start) {
		return
	}
	masked := u.Redacted()
	if pageKind(u) == pageGopherMenu {
		return
	}
	gone := e.candidates(it.start, dir, func(first string) bool { return names[first] })
	if len(gone) == 0 {
		return
	}
	if empty && !e.o.DeleteEmptied {
		// vsftpd answers 226 and no data for a directory it cannot
		// read: an empty listing is no proof the files are gone.
		for _, r := range gone {
			e.keptEmpty(r, masked)
		}
		return
	}
	e.deleteAll(it.start, dir, gone, "no longer listed by "+masked)
}

// emptied is a gopher menu that came back empty where the last run saw
// items in it: its URL, and the start URL it was reached from.
type emptied struct {
	si  int
	url string
}

// keepEmptiedMenu reports whether the gopher menu u, which came back with
// no item, is to be taken for a failure to read it rather than for a
// menu emptied on the server: when the manifest says the last run saw
// items in it, and --delete-emptied was not given. Its old gophermap is
// kept then (the record of what it named) and the run's sweep deletes
// nothing of u's start URL: which of the files were u's, a menu (which
// may name items anywhere on its server) does not tell.
func (e *engine) keepEmptiedMenu(it item, u uri.URL, menuRel string) bool {
	if pageKind(u) != pageGopherMenu || !e.del.ok || e.o.DeleteEmptied {
		return false
	}
	r := e.del.mf.lookup(menuRel)
	if r == nil || r.size <= int64(len(".\r\n")) {
		return false
	}
	e.mu.Lock()
	e.del.emptied = append(e.del.emptied, emptied{it.start, u.Redacted()})
	e.mu.Unlock()
	return true
}

// keptEmpty reports a file kept because the listing url came back empty.
func (e *engine) keptEmpty(r *record, url string) {
	e.report(Report{URL: r.url, Path: r.path, Status: Kept,
		Reason: "the listing of " + url + " is empty where the last run saw files (--delete-emptied deletes them)"})
}

// isMoved reports whether start si was redirected to another server.
func (e *engine) isMoved(si int) bool {
	if e.del.moved == nil {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.del.moved[si]
}

// noteRedirect marks a start URL whose fetch ended on another server:
// its old files are not judged on the new server's pages.
func (e *engine) noteRedirect(it item, u, final uri.URL) {
	if it.depth != 0 || e.del.moved == nil || hostsched.Key(u) == hostsched.Key(final) {
		return
	}
	e.mu.Lock()
	e.del.moved[it.start] = true
	e.mu.Unlock()
}

// sweep deletes, for each http(s) and gopher start URL, the recorded
// files of its scheme that no page or menu of the run led to. HTML pages
// and gopher menus are not directory listings: a page names some of its
// directory's files, and others come through other pages, so only the
// whole run tells what the server still has. It runs only after a run in
// which nothing failed: a page that could not be fetched, or a menu cut
// short, would otherwise take the files below it along.
func (e *engine) sweep(start []uri.URL) {
	if !e.del.ok {
		return
	}
	for si, u := range start {
		reason := reasonPageless
		switch family(u.Scheme()) {
		case "http":
		case "gopher":
			reason = reasonMenuless
		default:
			continue
		}
		if e.isMoved(si) {
			e.notice(u.Redacted(), u.Redacted()+" redirected to another server: nothing under it is deleted")
			continue
		}
		gone := e.candidates(si, e.del.dirs[si], nil)
		var left []*record
		for _, r := range gone {
			e.mu.Lock()
			ok := e.saved.has(r.path)
			e.mu.Unlock()
			scheme, _, _ := strings.Cut(r.url, ":")
			if ok || family(strings.ToLower(scheme)) != family(u.Scheme()) {
				continue
			}
			if m, in := e.inEmptied(si); in {
				e.keptEmpty(r, m)
				continue
			}
			left = append(left, r)
		}
		e.deleteAll(si, e.del.dirs[si], left, reason)
	}
}

// inEmptied returns a gopher menu of start si that came back empty
// (keepEmptiedMenu), if any.
func (e *engine) inEmptied(si int) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, m := range e.del.emptied {
		if m.si == si {
			return m.url, true
		}
	}
	return "", false
}

// deleteAll deletes the files of gone that are still as urlget wrote
// them, then the directories urlget made that this left empty, up to
// top.
func (e *engine) deleteAll(si int, top string, gone []*record, reason string) {
	parents := map[string]bool{}
	for _, r := range gone {
		if e.deleteOne(si, r, reason) {
			parents[path.Dir(r.path)] = true
		}
	}
	for d := range parents {
		e.removeEmpty(d, top)
	}
}

// deleteOne deletes one recorded file and reports what became of it.
func (e *engine) deleteOne(si int, r *record, reason string) bool {
	m := e.del.mf
	if !below(r.path, e.del.dirs[si]) {
		return false
	}
	fi, err := e.store.lstatReal(r.path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !e.store.realPath(r.path):
		e.report(Report{URL: r.url, Path: r.path, Status: Kept, Reason: reasonThrough})
		return false
	case errors.Is(err, fs.ErrNotExist):
		m.forget(r.path) // gone already
		return false
	case err != nil:
		e.report(Report{URL: r.url, Path: r.path, Status: Kept, Reason: err.Error()})
		return false
	case !r.unchanged(fi) || r.link != "" && !e.sameLink(r):
		// No longer urlget's: never deleted, now or later.
		m.forget(r.path)
		e.report(Report{URL: r.url, Path: r.path, Status: Kept, Reason: reasonEdited})
		return false
	}
	e.mu.Lock()
	over := e.del.max >= 0 && e.del.count >= e.del.max
	if over {
		e.del.stopped = true
	} else {
		e.del.count++
	}
	e.mu.Unlock()
	if over {
		e.report(Report{URL: r.url, Path: r.path, Status: Kept, Reason: fmt.Sprintf("%s (%d)", reasonMaxDelete, e.del.max)})
		return false
	}
	if e.o.DryRun {
		e.report(Report{URL: r.url, Path: r.path, Status: WouldDelete, Reason: reason})
		return false
	}
	if err := e.store.removeFile(r.path); err != nil {
		e.fail(r.url, r.path, &schemes.Error{Kind: schemes.ErrWrite, URL: r.url, Op: "deleting " + r.path, Err: err})
		return false
	}
	m.forget(r.path)
	e.report(Report{URL: r.url, Path: r.path, Status: Deleted, Reason: reason})
	return true
}

// sameLink reports whether the link r recorded still holds its target.
func (e *engine) sameLink(r *record) bool {
	t, err := e.store.Readlink(r.path)
	return err == nil && t == r.link
}

// removeEmpty removes dir and the directories above it, up to top (not
// included), while each is one urlget made and is empty.
func (e *engine) removeEmpty(dir, top string) {
	m := e.del.mf
	for d := dir; d != "." && d != "" && d != top && below(d, top); d = path.Dir(d) {
		m.mu.Lock()
		_, made := m.dirs[d]
		if !made {
			_, made = m.ndirs[d]
		}
		m.mu.Unlock()
		if !made || e.store.removeDir(d) != nil {
			return
		}
		m.forgetDir(d)
	}
}

// reasonDryRun is why --dry-run skips a file.
const reasonDryRun = "--dry-run: not transferred"

// dryRun handles an item of a dry run without a transfer, and reports
// whether it did: listings (FTP and local directories, gopher menus,
// newsgroups) are read, for they tell what --delete would remove, and so
// are http(s) pages, known by their local names (a directory's
// index.html, NAME.html), whose links are read as they arrive and not
// saved (save); other files are not fetched.
func (e *engine) dryRun(it item, u uri.URL, rel string) bool {
	if namesListing(u, it.kind) || pageKind(u) == pageGopherMenu {
		return false
	}
	if s := u.Scheme(); (s == "http" || s == "https") && links.IsHTML("", rel) {
		return false
	}
	e.report(Report{URL: u.Redacted(), Path: rel, Status: Skipped, Reason: reasonDryRun})
	return true
}
