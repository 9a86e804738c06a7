// Package file fetches file: URLs (RFC 1738 §3.10, RFC 8089) from the local
// file system. A regular file is returned as the open *os.File itself, so that
// copying it to a file, a pipe or a socket can use the kernel's copy paths
// (copy_file_range, sendfile, splice), and a directory as a listing of file:
// URLs.
package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// Fetcher retrieves file: URLs. Its zero value is ready to use; it holds no
// state, so one value serves any number of goroutines.
//
// A directory is returned as a Listing even when the request asks for Raw:
// a local directory has no listing text of its own to pass through, so the
// command renders the entries as it would any other listing.
type Fetcher struct{}

// ErrSlashInSegment is the cause given for a file: URL whose path holds an
// encoded slash ("%2F") inside a segment: no local file name can contain
// "/", and decoding it would silently name a different file.
var ErrSlashInSegment = errors.New(`a path segment holds an encoded "/" (%2F), which no local file name can contain`)

// ErrRemoteHost is the cause given for a file: URL that names a host other
// than this machine.
var ErrRemoteHost = errors.New("only local files can be fetched (the host must be empty or localhost)")

// dirBatch is how many directory entries are read from the kernel at once:
// enough to amortize the system call, few enough that a directory of a
// million names is never held in memory whole.
const dirBatch = 256

// Fetch opens the local file or directory that req.URL names.
// ProxyWays implements schemes.ProxyAware: a local file goes through no
// proxy.
func (f *Fetcher) ProxyWays(*schemes.Request) (schemes.ProxyWays, error) { return 0, nil }

func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, err := req.URL.File()
	if err != nil {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	// RFC 8089 §2: an empty host and "localhost" both mean this machine;
	// any other host names a file this client has no way to reach.
	if v.Host != "" && !strings.EqualFold(v.Host, "localhost") {
		return nil, req.Fail(schemes.ErrNotRetrievable, "", 0, "", fmt.Errorf("host %q: %w", v.Host, ErrRemoteHost))
	}
	// The File view decodes the whole path, so an encoded "/" would become a
	// separator; look for it in the text as written. RFC 1738 §3.10 gives
	// file: URLs no query, so a "?" and what follows it belong to the path.
	raw := req.URL.Path()
	if q, ok := req.URL.Query(); ok {
		raw += "?" + q
	}
	if strings.Contains(raw, "%2F") || strings.Contains(raw, "%2f") {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", ErrSlashInSegment)
	}
	name := v.Path

	fh, err := os.Open(name)
	if err != nil {
		return nil, fsError(req, "open", err)
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, fsError(req, "stat", err)
	}
	if cp := req.Capture; cp != nil {
		// What the fetch did, for an archive's metadata record: the
		// local counterpart of another scheme's conversation.
		cp.Line(schemes.Info, "open "+strconv.Quote(name))
		cp.Line(schemes.Info, fmt.Sprintf("stat: %s, %d bytes, modified %s", st.Mode(), st.Size(), st.ModTime().UTC().Format(time.RFC3339Nano)))
	}
	res := &schemes.Resource{
		URL:     req.URL.Redacted(),
		Size:    -1,
		ModTime: st.ModTime(),
	}

	if st.IsDir() {
		res.Header = append(res.Header,
			[2]string{"Kind", schemes.KindDirectory.String()},
			[2]string{"Last-Modified", st.ModTime().UTC().Format(timeFormat)})
		if req.Head {
			fh.Close()
			return res, nil
		}
		res.Listing = &listing{
			capture: req.Capture,
			ctx:     ctx,
			dir:     fh,
			path:    name,
			base:    "file://" + v.Host + dirURLPath(name),
		}
		return res, nil
	}

	res.Name = filepath.Base(name)
	res.ContentType = schemes.TypeByExtension(filepath.Ext(name))
	if st.Mode().IsRegular() {
		res.Size = st.Size()
		res.Header = append(res.Header,
			[2]string{"Content-Length", strconv.FormatInt(st.Size(), 10)},
			[2]string{"Accept-Ranges", "bytes"})
		if req.MaxSize > 0 && res.Size > req.MaxSize {
			fh.Close()
			return nil, req.Fail(schemes.ErrTooLarge, "", 0, "",
				fmt.Errorf("file is %d bytes, more than the limit of %d", res.Size, req.MaxSize))
		}
	}
	// The same fields, in the same order, as curl shows for a file: URL.
	res.Header = append(res.Header, [2]string{"Last-Modified", st.ModTime().UTC().Format(timeFormat)})
	if res.ContentType != "" {
		res.Header = append(res.Header, [2]string{"Content-Type", res.ContentType})
	}
	if req.Head {
		fh.Close()
		return res, nil
	}
	if req.Offset > 0 && st.Mode().IsRegular() {
		if req.Offset > st.Size() {
			fh.Close()
			return nil, req.Fail(schemes.ErrNotRetrievable, "seek", 0, "",
				fmt.Errorf("resume offset %d is %w of the %d-byte file", req.Offset, schemes.ErrPastEnd, st.Size()))
		}
		if _, err := fh.Seek(req.Offset, io.SeekStart); err != nil {
			fh.Close()
			return nil, fsError(req, "seek", err)
		}
		res.Offset = req.Offset
	}
	if req.Offset == 0 && req.Range != "" && st.Mode().IsRegular() {
		// curl's -r: a seek to the first range's start, and no more
		// than its length.
		return fileRange(req, fh, st.Size(), res)
	}
	if !st.Mode().IsRegular() {
		// A FIFO or a character device may block for ever; closing the file
		// when ctx ends wakes a reader blocked in the runtime poller. Reads
		// of a regular file always complete, so it needs no watcher.
		stop := context.AfterFunc(ctx, func() { fh.Close() })
		res.Body = &watchedFile{File: fh, stop: stop}
		return res, nil
	}
	res.Body = fh
	return res, nil
}

// watchedFile is a non-regular file closed when its request's context ends.
type watchedFile struct {
	*os.File
	stop func() bool
}

// Close stops the context watcher and closes the file.
func (w *watchedFile) Close() error {
	w.stop()
	err := w.File.Close()
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}

// fsError classifies a file-system error into the schemes taxonomy.
func fsError(req *schemes.Request, op string, err error) error {
	kind := schemes.ErrNotRetrievable
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		kind = schemes.ErrNotFound
	case errors.Is(err, fs.ErrPermission):
		kind = schemes.ErrAccessDenied
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// The URL already names the file; the errno alone reads better.
		err = pe.Err
	}
	return req.Fail(kind, op, 0, "", err)
}

// dirURLPath returns the %-encoded URL path of directory p, ending in "/".
func dirURLPath(p string) string {
	e := uri.EscapePath(p)
	if !strings.HasSuffix(e, "/") {
		e += "/"
	}
	return e
}

// listing streams a directory's entries, dirBatch names at a time, in the
// order the file system returns them.
type listing struct {
	// capture, when not nil, gets the names read (schemes.Capture's Listing).
	capture schemes.Capture
	ctx     context.Context
	dir     *os.File
	path    string // the directory's file name
	base    string // the directory's URL, ending in "/"
	batch   []os.DirEntry
	err     error
}

// Next returns the next entry of the directory, or io.EOF after the last.
func (l *listing) Next() (schemes.Entry, error) {
	for len(l.batch) == 0 {
		if l.err != nil {
			return schemes.Entry{}, l.err
		}
		if err := l.ctx.Err(); err != nil {
			return schemes.Entry{}, err
		}
		if l.dir == nil {
			return schemes.Entry{}, os.ErrClosed
		}
		l.batch, l.err = l.dir.ReadDir(dirBatch)
		if l.err != nil && l.err != io.EOF {
			l.err = fmt.Errorf("reading directory %s: %w", l.path, l.err)
		}
	}
	de := l.batch[0]
	l.batch[0] = nil
	l.batch = l.batch[1:]
	if l.capture != nil {
		// A directory has no bytes of its own: an archive gets its
		// entries' names, one a line, in the order read.
		l.capture.Listing([]byte(de.Name() + "\n"))
	}
	return l.entry(de), nil
}

// entry describes one directory entry. A symbolic link is described by what
// it points to, since fetching its URL opens the target; a dangling link is
// a KindLink entry of unknown size.
func (l *listing) entry(de os.DirEntry) schemes.Entry {
	name := de.Name()
	e := schemes.Entry{Name: name, Kind: schemes.KindOther, Size: -1}
	full := filepath.Join(l.path, name)
	var info fs.FileInfo
	var err error
	if de.Type()&fs.ModeSymlink != 0 {
		e.Kind = schemes.KindLink
		if target, lerr := os.Readlink(full); lerr == nil {
			e.Fields = map[string]string{"link": target}
		}
		info, err = os.Stat(full)
	} else {
		info, err = de.Info()
	}
	if err == nil {
		e.ModTime = info.ModTime()
		switch {
		case info.IsDir():
			e.Kind = schemes.KindDirectory
		case info.Mode().IsRegular():
			e.Kind = schemes.KindFile
			e.Size = info.Size()
		case e.Kind != schemes.KindLink:
			e.Kind = schemes.KindOther
		}
	} else if de.IsDir() {
		e.Kind = schemes.KindDirectory
	}
	e.URL = l.base + uri.EscapeSegment(name)
	if e.Kind == schemes.KindDirectory {
		e.URL += "/"
	}
	return e
}

// Close closes the directory; it is safe to call twice.
func (l *listing) Close() error {
	if l.dir == nil {
		return nil
	}
	err := l.dir.Close()
	l.dir = nil
	l.batch = nil
	return err
}

// timeFormat is HTTP's date format (RFC 9110 §5.6.7), used for the
// Last-Modified line that -I shows, so that file: and http: read alike.
const timeFormat = "Mon, 02 Jan 2006 15:04:05 GMT"

// fileRange serves req.Range's first range of fh, a regular file of size
// bytes.
func fileRange(req *schemes.Request, fh *os.File, size int64, res *schemes.Resource) (*schemes.Resource, error) {
	r, err := schemes.ParseRange(schemes.FirstRange(req.Range))
	if err != nil {
		fh.Close()
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	start, n, err := r.Bounds(size)
	if err != nil {
		fh.Close()
		return nil, req.Fail(schemes.RangeErrorKind(err), "seek", 0, "", err)
	}
	if _, err := fh.Seek(start, io.SeekStart); err != nil {
		fh.Close()
		return nil, fsError(req, "seek", err)
	}
	res.Offset, res.Size = start, start+n
	res.Body = &limitedFile{LimitedReader: io.LimitedReader{R: fh, N: n}, f: fh}
	return res, nil
}

// limitedFile is the part of a file a range names.
type limitedFile struct {
	io.LimitedReader
	f *os.File
}

// Close closes the file.
func (l *limitedFile) Close() error { return l.f.Close() }
