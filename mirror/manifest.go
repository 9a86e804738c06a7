package mirror

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The manifest's files in StateDir.
const (
	manifestName = "manifest"
	journalName  = "manifest.journal"
	manifestHead = "urlget-manifest 1"
)

// maxManifestLine bounds one line of the manifest: a path and a URL of
// the longest a file system and a server give, with room to spare.
const maxManifestLine = 1 << 20

// ErrBadManifest is what a manifest that cannot be read is (errors.Is):
// --delete then deletes nothing.
var ErrBadManifest = errors.New("the manifest of the files urlget wrote cannot be read")

// record is what the manifest keeps of one file urlget committed: where,
// from what, what it was on disk then (to know it unchanged), and the
// start URL of the run that wrote it (the scope --delete holds to).
type record struct {
	path  string // relative to the tree, slash-separated
	url   string // the URL it came from, its password removed
	scope string // the start URL of the run that wrote it, password removed
	size  int64
	mtime int64 // nanoseconds since 1970
	dev   uint64
	ino   uint64
	ctime int64  // the inode's change time, nanoseconds; 0 when unknown
	etag  string // the HTTP entity tag it came with
	lmod  string // its Last-Modified (or listing time), RFC 3339
	link  string // a symbolic link's target; "" for a file
}

// manifest is the manifest as read at the start of a run, and what the
// run adds to it.
//
// Every file committed is appended at once, one write(2) a line and no
// fsync, to .urlget/manifest.journal; at the end of the run (however it
// ends, Ctrl-C included, since Run returns then) the manifest and the
// journal are merged into a new manifest, written under a new name and
// renamed over the old one, and the journal is removed. A run killed
// outright leaves its journal, which the next run merges when it starts:
// what was committed is never lost from the record, and the manifest
// itself is never half written. One write per file keeps a tree of
// 10,000 files at some milliseconds.
type manifest struct {
	mu     sync.Mutex
	old    map[string]*record // read at the start (manifest, then journal)
	dirs   map[string]string  // directories urlget made: path → scope
	found  bool               // a manifest or journal was there
	bad    error              // it could not be read: nothing is deleted
	news   map[string]*record // committed by this run
	ndirs  map[string]string
	drop   map[string]bool // deleted, or no longer urlget's
	sorted []*record       // old's records by path, made when first asked
	jr     *os.File        // the journal, nil until the first record
	jerr   error           // the journal could not be made
	root   *os.Root
	// lazy: not read yet. A run without --delete reads the manifest only
	// when it has something to add to it, so that an unchanged --mirror
	// run of a large tree costs no parse and no rewrite.
	lazy bool
	// ident is the manifest file at the start of the run (or as this
	// run last wrote it), nil when there was none.
	ident os.FileInfo
	wrote bool
}

// validRel reports whether p may name a file of the manifest: a clean
// relative path inside the tree, outside the state directory.
func validRel(p string) bool {
	if p == "" || p == "." || !filepath.IsLocal(p) || path.Clean(p) != p || strings.ContainsRune(p, '\\') {
		return false
	}
	first, _, _ := strings.Cut(p, "/")
	return first != StateDir
}

// loadManifest reads the tree's manifest and a journal a killed run left.
// It never fails: a missing manifest leaves found false, one that cannot
// be read sets bad. The state directory must be a directory of its own,
// never a symbolic link: one could lead the record to files elsewhere.
func loadManifest(root *os.Root) *manifest {
	m := &manifest{root: root, old: map[string]*record{}, dirs: map[string]string{},
		news: map[string]*record{}, ndirs: map[string]string{}, drop: map[string]bool{}}
	fi, err := root.Lstat(StateDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return m
	case err != nil:
		m.bad = fmt.Errorf("%w: %s: %w", ErrBadManifest, StateDir, err)
		return m
	case !fi.IsDir():
		m.found = true
		m.bad = fmt.Errorf("%w: %s is not a directory (a symbolic link is never followed)", ErrBadManifest, StateDir)
		return m
	}
	m.identify()
	dup := map[entryKey]bool{}
	for i, name := range []string{manifestName, journalName} {
		rel := StateDir + "/" + name
		f, err := openPlain(root, rel)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		m.found = true
		if err == nil {
			// The journal's lines come after the manifest's and replace
			// them: a file fetched again. Within one file, two lines for
			// one path are not urlget's doing, and both are ignored.
			err = m.parse(f, i == 1, dup)
			f.Close()
		}
		if err != nil {
			m.bad = fmt.Errorf("%w: %s: %w", ErrBadManifest, rel, err)
			return m
		}
	}
	return m
}

// identify remembers which file the manifest is at the start of a run,
// so that one written over it during the run (replaced) is not taken for
// it.
func (m *manifest) identify() {
	m.ident, _ = m.root.Lstat(StateDir + "/" + manifestName)
}

// replaced reports whether the manifest is no longer the file it was at
// the start of the run, nor one this run wrote; m.mu is held.
func (m *manifest) replaced() bool {
	fi, err := m.root.Lstat(StateDir + "/" + manifestName)
	if err != nil || m.ident == nil {
		return err == nil && m.ident == nil && !m.wrote
	}
	return !os.SameFile(fi, m.ident) || fi.Size() != m.ident.Size() || !fi.ModTime().Equal(m.ident.ModTime())
}

// lazyManifest is the manifest of a run that only adds to it: read when
// the run ends with something to add (write), or at once when a killed
// run left its journal, which settle merges first.
func lazyManifest(root *os.Root) *manifest {
	if _, err := root.Lstat(StateDir + "/" + journalName); err == nil {
		return loadManifest(root)
	}
	m := &manifest{root: root, lazy: true, old: map[string]*record{}, dirs: map[string]string{},
		news: map[string]*record{}, ndirs: map[string]string{}, drop: map[string]bool{}}
	m.identify()
	return m
}

// openPlain opens rel for reading only when it is a regular file of one
// link: not a symbolic link, not a name hard-linked from elsewhere.
func openPlain(root *os.Root, rel string) (*os.File, error) {
	fi, err := root.Lstat(rel)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, err
	}
	if fi2, err := f.Stat(); err != nil || !os.SameFile(fi, fi2) || linkCount(fi2) != 1 {
		f.Close()
		return nil, errors.New("not a file of urlget's own (replaced, or hard-linked)")
	}
	return f, nil
}

// entryKey names one line's entry: a file (or link), or a directory, of a
// path. Its path is the line's own substring, so that telling duplicates
// apart costs no copy of it.
type entryKey struct {
	kind byte // 'f' or 'd'
	path string
}

// parse reads one manifest or journal. A line that is not of the format
// fails the whole file; an entry whose path could lead outside the tree
// or into the state directory is ignored.

func (m *manifest) parse(r io.Reader, journal bool, dup map[entryKey]bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	seen := map[entryKey]bool{}
	first := true
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			rest := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(rest) <= maxManifestLine {
				line, err = br.ReadSlice('\n')
				rest = append(rest, line...)
			}
			if len(rest) > maxManifestLine {
				return fmt.Errorf("line %d is too long", n)
			}
			line = rest
		}
		if err == io.EOF {
			if len(line) > 0 && !journal {
				return fmt.Errorf("line %d is cut short", n)
			}
			// A journal's last line may be cut short by what killed
			// its run: that file is simply not recorded.
			return nil
		}
		if err != nil {
			return err
		}
		s := string(line[:len(line)-1])
		if first {
			if s != manifestHead {
				return errors.New("not a manifest of this urlget")
			}
			first = false
			continue
		}
		kind, rec, dir, err := parseLine(s)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		p := dir
		if kind != 'd' {
			// A file or a link: one name, one record.
			kind, p = 'f', rec.path
		}
		if !validRel(p) {
			continue
		}
		key := entryKey{kind, p}
		if seen[key] || dup[key] {
			dup[key] = true
			delete(m.old, p)
			delete(m.dirs, p)
			continue
		}
		seen[key] = true
		if kind == 'f' {
			m.old[p] = rec
		} else {
			m.dirs[p] = rec.scope
		}
	}
}

// A line is tab-separated fields, strings quoted as Go quotes them:
//
//	f PATH URL SCOPE SIZE MTIME DEV INO ETAG LASTMOD CTIME   a file urlget wrote
//	l PATH URL SCOPE MTIME DEV INO TARGET CTIME              a symbolic link it made
//
// CTIME, the inode's change time, came later: a line without it (from an
// earlier version) is read, and its file compared without it.
//
//	d PATH SCOPE                                       a directory it made
func parseLine(s string) (byte, *record, string, error) {
	fields := strings.Split(s, "\t")
	bad := errors.New("not a manifest entry")
	q := func(i int) string {
		if bad != nil || i >= len(fields) {
			return ""
		}
		f := fields[i]
		if len(f) >= 2 && f[0] == '"' && f[len(f)-1] == '"' && !strings.ContainsAny(f[1:len(f)-1], "\\\"") {
			// What strconv.Quote leaves as it is: most paths and
			// URLs, read without a copy.
			return f[1 : len(f)-1]
		}
		v, err := strconv.Unquote(f)
		if err != nil {
			bad = err
		}
		return v
	}
	num := func(i int) uint64 {
		v, err := strconv.ParseUint(fields[i], 10, 63)
		if err != nil {
			bad = err
		}
		return v
	}
	switch {
	case (len(fields) == 10 || len(fields) == 11) && fields[0] == "f":
		bad = nil
		r := &record{path: q(1), url: q(2), scope: q(3), size: int64(num(4)), mtime: int64(num(5)),
			dev: num(6), ino: num(7), etag: q(8), lmod: q(9)}
		if len(fields) == 11 {
			r.ctime = int64(num(10))
		}
		if bad == nil && (r.url == "" || r.scope == "") {
			bad = errors.New("a file without its URL")
		}
		return 'f', r, "", bad
	case (len(fields) == 8 || len(fields) == 9) && fields[0] == "l":
		bad = nil
		r := &record{path: q(1), url: q(2), scope: q(3), mtime: int64(num(4)), dev: num(5), ino: num(6), link: q(7)}
		if len(fields) == 9 {
			r.ctime = int64(num(8))
		}
		if bad == nil && (r.url == "" || r.scope == "" || r.link == "") {
			bad = errors.New("a link without its URL or target")
		}
		return 'l', r, "", bad
	case len(fields) == 3 && fields[0] == "d":
		bad = nil
		dir, scope := q(1), q(2)
		return 'd', &record{scope: scope}, dir, bad
	}
	return 0, nil, "", bad
}

func (r *record) line() string { return string(r.appendLine(nil)) }

// appendLine appends r's line to b, without fmt: the manifest of a large
// tree is written in one go at the end of every run.
func (r *record) appendLine(b []byte) []byte {
	if r.link != "" {
		b = append(b, "l\t"...)
		for _, v := range []string{r.path, r.url, r.scope} {
			b = strconv.AppendQuote(b, v)
			b = append(b, '\t')
		}
		for _, v := range []uint64{uint64(r.mtime), r.dev, r.ino} {
			b = strconv.AppendUint(b, v, 10)
			b = append(b, '\t')
		}
		b = strconv.AppendQuote(b, r.link)
		b = append(b, '\t')
		b = strconv.AppendUint(b, uint64(r.ctime), 10)
		return append(b, '\n')
	}
	b = append(b, "f\t"...)
	for _, v := range []string{r.path, r.url, r.scope} {
		b = strconv.AppendQuote(b, v)
		b = append(b, '\t')
	}
	for _, v := range []uint64{uint64(r.size), uint64(r.mtime), r.dev, r.ino} {
		b = strconv.AppendUint(b, v, 10)
		b = append(b, '\t')
	}
	b = strconv.AppendQuote(b, r.etag)
	b = append(b, '\t')
	b = strconv.AppendQuote(b, r.lmod)
	b = append(b, '\t')
	b = strconv.AppendUint(b, uint64(r.ctime), 10)
	return append(b, '\n')
}

func dirLine(dir, scope string) string {
	return "d\t" + strconv.Quote(dir) + "\t" + strconv.Quote(scope) + "\n"
}

// stateDir makes the state directory when missing; one that is not a
// directory of its own (a symbolic link) is refused.
func (m *manifest) stateDir() error {
	err := m.root.Mkdir(StateDir, 0o755)
	if err == nil || errors.Is(err, fs.ErrExist) {
		fi, lerr := m.root.Lstat(StateDir)
		if lerr != nil {
			return lerr
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory (a symbolic link is never followed)", StateDir)
		}
		return nil
	}
	return err
}

// add records a file committed this run, at once in the journal.
func (m *manifest) add(r *record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.news[r.path] = r
	delete(m.drop, r.path)
	m.journal(r.line())
}

// addDir records a directory the run made.
func (m *manifest) addDir(dir, scope string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.dirs[dir]; ok {
		return
	}
	if _, ok := m.ndirs[dir]; ok {
		return
	}
	m.ndirs[dir] = scope
	m.journal(dirLine(dir, scope))
}

// forget drops a file from the record: deleted, or changed by someone
// else, and no longer urlget's.
func (m *manifest) forget(p string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.drop[p] = true
	delete(m.news, p)
}

// byPath returns the records read at the start, sorted by path; m.mu is
// held. They change only when the manifest is written.
func (m *manifest) byPath() []*record {
	if m.sorted == nil {
		m.sorted = make([]*record, 0, len(m.old))
		for _, r := range m.old {
			m.sorted = append(m.sorted, r)
		}
		slices.SortFunc(m.sorted, func(a, b *record) int { return strings.Compare(a.path, b.path) })
	}
	return m.sorted
}

// lookup returns the record of the file rel: this run's, or an earlier
// run's (read now when it was not yet); nil when none.
func (m *manifest) lookup(rel string) *record {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.news[rel]; r != nil {
		return r
	}
	m.readLazy()
	return m.old[rel]
}

// readLazy reads the manifest a lazy one left unread; m.mu is held.
func (m *manifest) readLazy() {
	if m.lazy && m.replaced() {
		m.lazy = false // not the run's to read
	}
	if m.lazy {
		if l := loadManifest(m.root); l.bad == nil {
			m.old, m.dirs = l.old, l.dirs
		}
		m.lazy = false
	}
}

// forgetDir drops a directory removed.
func (m *manifest) forgetDir(p string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.dirs, p)
	delete(m.ndirs, p)
}

// journal appends one line; m.mu is held. The journal is made with
// O_EXCL, after any one a killed run left was merged and removed, so it
// is always a new file of urlget's own, never a link to something else.
func (m *manifest) journal(line string) {
	if m.jerr != nil {
		return
	}
	if m.jr == nil {
		if m.jerr = m.stateDir(); m.jerr != nil {
			return
		}
		rel := StateDir + "/" + journalName
		f, err := m.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
		if err != nil {
			m.jerr = err
			return
		}
		if _, err := f.WriteString(manifestHead + "\n"); err != nil {
			f.Close()
			m.jerr = err
			return
		}
		m.jr = f
	}
	if _, err := m.jr.WriteString(line); err != nil {
		m.jerr = err
	}
}

// settle merges a journal a killed run left into the manifest, so that
// this run's journal starts empty.
func (m *manifest) settle() error {
	if _, err := m.root.Lstat(StateDir + "/" + journalName); err != nil {
		return nil
	}
	if m.bad != nil {
		return m.bad
	}
	return m.write(true)
}

// write writes the merged manifest under a new name (O_EXCL: never into
// a file that was there) and renames it over the old one, then removes
// the journal. No fsync: a crash leaves the old manifest and the journal,
// which the next run merges. Unless force, a run that changed nothing
// leaves the manifest as it is.
func (m *manifest) write(force bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.replaced() {
		// Written by something else during the run: not the record of
		// what urlget wrote, and rewritten from what this run read, or
		// (never read) from this run's records alone.
		force, m.lazy = true, false
	}
	if !force && len(m.news) == 0 && len(m.drop) == 0 && len(m.ndirs) == 0 && m.jr == nil {
		// A journal this run did not write is no one's record.
		m.root.Remove(StateDir + "/" + journalName)
		return nil
	}
	if err := m.stateDir(); err != nil {
		return err
	}
	var b [8]byte
	rand.Read(b[:])
	tmp := StateDir + "/" + manifestName + ".tmp-" + hex.EncodeToString(b[:])
	f, err := m.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	w.WriteString(manifestHead + "\n")
	// A run that only adds (lazy, never read) copies the manifest's
	// lines through rather than holding them all: the memory of a large
	// tree's record is not a cost of an unchanged run.
	if m.lazy && !m.copyOld(w) {
		// Not copied (a line not of the format, a manifest that is not
		// urlget's own file): read, as a run that deletes reads it. One
		// that cannot be read is replaced by this run's records: fewer
		// files known is the safe side.
		w.Reset(f)
		if _, err := f.Seek(0, io.SeekStart); err != nil || f.Truncate(0) != nil {
			f.Close()
			m.root.Remove(tmp)
			return fmt.Errorf("the manifest could not be written again: %v", err)
		}
		w.WriteString(manifestHead + "\n")
		m.readLazy()
	}
	var buf []byte
	if !m.lazy {
		for p, r := range m.old {
			if _, ok := m.news[p]; !ok && !m.drop[p] {
				buf = r.appendLine(buf[:0])
				w.Write(buf)
			}
		}
	}
	for _, r := range m.news {
		buf = r.appendLine(buf[:0])
		w.Write(buf)
	}
	if !m.lazy {
		for d, s := range m.dirs {
			w.WriteString(dirLine(d, s))
		}
	}
	for d, s := range m.ndirs {
		w.WriteString(dirLine(d, s))
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = m.root.Rename(tmp, StateDir+"/"+manifestName)
	}
	if err != nil {
		m.root.Remove(tmp)
		return err
	}
	m.identify()
	m.wrote = true
	if m.jr != nil {
		m.jr.Close()
		m.jr = nil
	}
	if err := m.root.Remove(StateDir + "/" + journalName); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// What was merged is now the manifest's.
	for p, r := range m.news {
		m.old[p] = r
	}
	for p := range m.drop {
		delete(m.old, p)
	}
	for d, s := range m.ndirs {
		m.dirs[d] = s
	}
	m.news, m.ndirs, m.drop = map[string]*record{}, map[string]string{}, map[string]bool{}
	m.sorted = nil
	m.found = true
	return nil
}

// copyOld copies the lines of the manifest a lazy run never read to w,
// but those of the files and directories this run records anew (or
// dropped), reading one line at a time; m.mu is held. Each line is
// checked as parse checks it, and one whose path could lead outside the
// tree is left out as parse leaves it out; two lines of one path are
// copied as they are, for the run that reads them to refuse both. false
// when the manifest is not one to copy: the caller then reads it whole.
func (m *manifest) copyOld(w *bufio.Writer) bool {
	f, err := openPlain(m.root, StateDir+"/"+manifestName)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxManifestLine+1)
	sc.Split(scanWholeLines)
	if !sc.Scan() || sc.Text() != manifestHead {
		return false
	}
	for sc.Scan() {
		line := sc.Text()
		kind, rec, dir, err := parseLine(line)
		if err != nil {
			return false
		}
		if kind == 'd' {
			if _, ok := m.ndirs[dir]; ok || !validRel(dir) {
				continue
			}
		} else if _, ok := m.news[rec.path]; ok || m.drop[rec.path] || !validRel(rec.path) {
			continue
		}
		w.WriteString(line)
		w.WriteByte('\n')
	}
	return sc.Err() == nil
}

// scanWholeLines is bufio.ScanLines for a file whose every line ends in
// "\n": a last line without one was cut short, and is an error.
func scanWholeLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return 0, nil, errors.New("a line cut short")
	}
	return 0, nil, nil
}

// close ends the journal without merging it (a dry run writes nothing).
func (m *manifest) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.jr != nil {
		m.jr.Close()
		m.jr = nil
	}
}

// newRecord describes the file rel as it is on disk now.
func newRecord(fi os.FileInfo, rel, url, scope, etag string, lmod time.Time) *record {
	r := &record{path: rel, url: url, scope: scope, size: fi.Size(), mtime: fi.ModTime().UnixNano(), etag: etag}
	r.dev, r.ino = devIno(fi)
	r.ctime = ctimeOf(fi)
	if !lmod.IsZero() {
		r.lmod = lmod.UTC().Format(time.RFC3339)
	}
	return r
}

// unchanged reports whether fi is the file r recorded: same size, time,
// device, inode and change time (a link: same time, device, inode and
// change time; its target is compared by the caller). Anything else was
// changed or put there by someone else, and is not urlget's to delete.
// The change time is what tells a file written again with its old size
// and time (cp -p, touch -r) that got the old inode number back, as file
// systems reuse a freed one at once: every write, chmod, rename or utimes
// moves it, and no one can set it back.
func (r *record) unchanged(fi os.FileInfo) bool {
	dev, ino := devIno(fi)
	same := fi.ModTime().UnixNano() == r.mtime && dev == r.dev && ino == r.ino
	if r.ctime != 0 && ctimeOf(fi) != r.ctime {
		return false
	}
	if r.link != "" {
		return same && fi.Mode()&fs.ModeSymlink != 0
	}
	return same && fi.Mode().IsRegular() && fi.Size() == r.size
}
