// Package mirror copies a remote tree to a local directory and keeps the
// copy up to date: urlget's recursive retrieval (--recursive, --mirror), as wget's.
//
// Run takes start URLs of any scheme a fetch.Client fetches (ftp, http(s),
// gopher, news and nntp, wais, file) and walks breadth first from them:
// each listing (an FTP or local directory, a gopher menu, a newsgroup,
// WAIS search hits) and each HTML page is read for the URLs it leads to
// (package mirror/links), which are fetched in turn as Options allow
// (depth, --no-parent, name and URL filters, hosts, schemes, robots.txt
// by package mirror/robots). Each URL is fetched once per run, however a
// link spells it (URLs are compared normalized, RFC 3986 §6). What became
// of each URL is told to Options.Report as a Report; Run returns the
// totals (Stats) and the first failure.
//
// # The local tree
//
// A URL's copy goes to DIR/HOST[:PORT]/PATH below Options.Dir, as wget
// lays it out (Layout: the host directory left out, leading directories
// cut, a directory per scheme). A page that stands for a directory is
// saved inside it as IndexName, a gopher menu as GophermapName; FTP, file
// and news listings are not saved, their directories are made. Every
// name is the URL's segment %-decoded and made safe: no "..", no "/"
// inside a name, no control character; a segment that could not be a
// file name keeps its %-encoding. Symbolic links in FTP and local
// listings are made again as links, relative, and only to a target inside
// the copy. Options.ConvertLinks rewrites the saved pages and menus, once
// the run is over, to lead to each other's local copies.
//
// # The state directory
//
// The run keeps its own state in DIR/.urlget (StateDir): a file being
// written is a part file in .urlget/parts, created anew (O_CREAT|O_EXCL)
// and renamed to its name once whole, so that a file in the tree is whole
// or not there; the manifest (.urlget/manifest, with a journal appended
// to as files are committed) records every file a run wrote, with its
// URL, size, time, inode and validators; the copies of URLs that lost
// their local name to another URL with other bytes go below ConflictDir.
// Everything found in it is read as hostile input, and a remote name that
// would land in it is refused. When StateDir is a symbolic link or no
// directory the run stops (ErrStateDir) and writes nothing through it.
//
// # Incremental runs
//
// With Options.Timestamping a file is fetched only when the remote one is
// newer or of another size than the local copy: by FTP listing entries,
// HTTP conditional requests (If-Modified-Since, and If-None-Match with
// the ETag kept beside the file), Gopher+ attributes, a local directory's
// entries; a news article, once there, never changes. Listings and pages
// are always fetched again, since they are how the walk learns what
// changed. A file a run did not finish (an error, ctx ended) is kept as a
// part with a record of the server's strong validator, and the next run
// resumes it (HTTP Range with If-Range, FTP REST after SIZE and MDTM
// agree) only when the part and the server's file are both as recorded;
// anything else starts the file again.
//
// # Deleting
//
// Options.Delete removes local files the server no longer has, and only
// those: a file is deleted only when the manifest says a run with the
// same start URL wrote it, it is as that run left it (size, time, device
// and inode; one changed since is kept and reported), no directory on its
// path is a symbolic link, and the listing that no longer names it was
// read whole (an FTP listing to its 226 reply, an NNTP overview to its
// final "."). Over http(s) and gopher, whose pages and menus are no
// listings, the files no page or menu of the run led to are deleted once
// the run is over, and only when nothing failed. An empty listing where
// the manifest had files deletes nothing without Options.DeleteEmptied;
// a start URL redirected to another server deletes nothing; at most
// Options.MaxDelete files go in one run (ErrMaxDelete past it). A tree
// with no manifest, or one that cannot be read (ErrBadManifest), deletes
// nothing, and a Notice says so. Options.DryRun reports what would go as
// WouldDelete and changes nothing.
//
// # Safety
//
// Nothing is written outside Options.Dir, and nothing through a link: the
// tree is opened as an os.Root, so neither ".." nor a symbolic link leads
// out of it, and a file whose path has a symbolic link for a directory
// fails, named, rather than land where the link leads. A file is written
// by renaming its part over the name, never into the file that had it,
// so a link under the name is replaced and its target keeps its bytes.
// Listings are read as hostile: an entry is walked only when its URL lies
// directly below the listing's. Two remote names the file system takes
// for one are not merged (a *CollisionError); a full disk (no space,
// no quota left, a file too large for the file system)
// stops the run with every file written whole.
//
// docs/mirror.md in the source tree describes the command's flags for
// each of these and the reports they print.
package mirror
