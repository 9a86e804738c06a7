package mirror

import (
	"fmt"
	"strings"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// Symbolic links in listings (an FTP directory's "name -> target" LIST
// line, MLSD's type=OS.unix=slink:target, a local directory's links) are
// made again in the local tree, as lftp's mirror and cp -R make them,
// rather than walked or fetched: a link to "." or ".." would lead a walk
// round without end, one to a directory would store that directory twice,
// and an FTP link's own size and time (all a listing tells of it) say
// nothing of its target's, so --timestamping could never find its copy up to date.
//
// The local link leads to where the copy of its target goes (Layout),
// written relative to the link: it stays inside the output directory
// whatever the remote one says, and the tree can be moved. The target is
// expected among the copies only when it lies at or below the URL the run
// started from; a link to anywhere else is not made. A local link to a
// file there is copied as a file instead (fetching its URL opens the
// target, as before links were made); any other is skipped, with a reason.

// symlinkTarget returns the target of a listing entry that is a symbolic
// link, as the server wrote it.
func symlinkTarget(en schemes.Entry) (string, bool) {
	if t := en.Fields["link"]; t != "" {
		// A local directory's (schemes/file): its Kind is its target's.
		return t, true
	}
	if t := en.Fields["target"]; en.Kind == schemes.KindLink && t != "" {
		// An FTP listing's.
		return t, true
	}
	return "", false
}

// parentRef is "..", the reference to a directory's parent.
var parentRef, _ = uri.ParseReference("..")

// linkTargetURL resolves a link's target as the server's file system
// would: a relative one against the link's directory, an absolute one
// from the server's root (for FTP the root an anonymous login sees: RFC
// 1738 §3.2.2 paths start at the login directory, "/" for an anonymous
// one). The bytes a path may not hold as they are go %-encoded.
func linkTargetURL(link uri.URL, target string) (uri.URL, error) {
	ref := uri.EscapePath(target)
	if first, _, _ := strings.Cut(ref, "/"); strings.Contains(first, ":") {
		ref = "./" + ref // a first segment with ":" is not a scheme (RFC 3986 §4.2)
	}
	r, err := uri.ParseReference(ref)
	if err != nil {
		return uri.URL{}, err
	}
	if strings.HasSuffix(link.Path(), "/") {
		// A local link to a directory is listed with the "/" of one
		// (schemes/file): its target is relative to the directory
		// holding it, not to the one it leads to.
		link = link.ResolveReference(parentRef)
	}
	return link.ResolveReference(r), nil
}

// symlink makes the local link for the listing entry en, a symbolic link
// to target found in the listing of it.start's tree, and reports whether
// that took care of the entry; false leaves a local link to a file outside
// the tree to be fetched as a file.
func (e *engine) symlink(it item, ref uri.URL, en schemes.Entry, target string) bool {
	masked := ref.Redacted()
	// The rules apply as to what the link stands for: the name patterns
	// to a file, not to a directory.
	probe := it
	probe.kind = schemes.KindFile
	if en.Kind == schemes.KindDirectory {
		probe.kind = schemes.KindDirectory
	}
	if !e.allowed(probe, ref) {
		return true
	}
	to, err := linkTargetURL(ref, target)
	if err != nil || !e.starts[it.start].under(to) {
		if ref.Scheme() == "file" && en.Kind == schemes.KindFile {
			return false
		}
		e.report(Report{URL: masked, Status: Skipped, Reason: fmt.Sprintf("a symbolic link to %q, outside the directory mirrored", target)})
		return true
	}
	rel, err := e.o.Layout.path(ref, pageFile)
	if err != nil {
		e.fail(masked, "", &schemes.Error{Kind: schemes.ErrBadURL, URL: masked, Err: err})
		return true
	}
	var toRel string
	if en.Kind == schemes.KindDirectory || strings.HasSuffix(to.Path(), "/") {
		toRel, err = e.o.Layout.dir(to)
	} else {
		toRel, err = e.o.Layout.path(to, pageFile)
	}
	if err != nil {
		e.report(Report{URL: masked, Status: Skipped, Reason: fmt.Sprintf("a symbolic link to %q, which has no local name", target)})
		return true
	}
	if reason := refusedName(rel); reason != "" {
		e.report(Report{URL: masked, Status: Skipped, Reason: reason})
		return true
	}
	if reason := refusedName(toRel); reason != "" {
		// A link into urlget's own state would let the server's tree
		// reach it.
		e.report(Report{URL: masked, Status: Skipped, Reason: reason})
		return true
	}
	text := relPath(rel, toRel)
	e.mu.Lock()
	e.seen.add(visitKey(ref))
	e.mu.Unlock()
	if !e.claimFor(rel, ref) {
		// A link and another URL's file cannot both be rel.
		_, owner := e.owner(rel)
		e.collided(ref, rel, owner)
		return true
	}
	if old, err := e.store.Readlink(rel); err == nil && old == text {
		e.report(Report{URL: masked, Path: rel, Status: Unchanged})
		return true
	}
	if e.o.DryRun {
		e.report(Report{URL: masked, Path: rel, Status: Skipped, Reason: reasonDryRun})
		return true
	}
	if err := e.store.Symlink(rel, text); err != nil {
		e.fail(masked, rel, &schemes.Error{Kind: schemes.ErrWrite, URL: masked, Op: "linking " + rel, Err: err})
		return true
	}
	e.recordLink(it, ref, rel, text)
	e.report(Report{URL: masked, Path: rel, Status: Linked})
	return true
}
