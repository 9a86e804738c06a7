package warc

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// DefaultSpool is the size past which a block goes to a temporary file
// rather than memory, when Options.Spool is zero.
const DefaultSpool = 1 << 20

// Options configure a Writer. The zero value writes one NAME.warc.gz.
type Options struct {
	// NoCompression writes NAME.warc, plain, instead of NAME.warc.gz.
	NoCompression bool
	// MaxSize, when positive, rolls over to a new file once a file has
	// reached it: the files are then named as wget's --warc-max-size
	// names them, NAME-00000.warc.gz, NAME-00001.warc.gz, …, each
	// starting with its own warcinfo record. A record is never split, so
	// a file ends past MaxSize by at most its last record.
	MaxSize int64
	// Spool is the block size past which a record's block is spooled to a
	// temporary file in the archive's directory (0: DefaultSpool).
	Spool int64
	// Software is the warcinfo's software field, e.g. "urlget/0.3.0".
	Software string
	// Info are more warcinfo fields after software, format and
	// conformsTo: the command's options (passwords masked by the caller),
	// the robots policy ("robots: classic" or "off", as wget writes).
	Info []Field
	// Indexes receive an Entry for each response, resource, revisit and
	// metadata record written, e.g. a CDXWriter and a CDXJWriter.
	Indexes []Index
}

// Index receives the index entry of each record a Writer writes.
type Index interface {
	Add(Entry) error
}

// Entry describes a written record, for an index.
type Entry struct {
	Type      Type
	ID        string // WARC-Record-ID
	TargetURI string
	Date      time.Time
	// MIME is the payload's media type: the HTTP Content-Type's for a
	// response, the record's Content-Type for a resource; "" if unknown.
	MIME string
	// Status is a response's HTTP status code, 0 when there is none.
	Status int
	// Redirect is a response's Location, "" when there is none.
	Redirect string
	// BlockDigest and PayloadDigest are as written, "sha1:" and base32;
	// PayloadDigest is "" when the record has none.
	BlockDigest, PayloadDigest string
	// File is the base name of the WARC file, Offset the record's start
	// in it and Length its length there: of its gzip member when
	// compressed, of its header and block when not.
	File           string
	Offset, Length int64
}

// ErrClosed is the error for a record begun or committed after its
// Writer's Close.
var ErrClosed = errors.New("warc: writer closed")

// Writer writes the records of one archive name to its files. Its
// methods may be called from several goroutines: records are built apart
// and written one at a time.
type Writer struct {
	dir, base string
	opt       Options

	mu       sync.Mutex
	f        *os.File
	name     string // base name of the current file
	size     int64
	serial   int
	records  int // records in the current file past its warcinfo
	infoID   string
	closed   bool
	firstErr error

	packers chan *packer // free packers, at most GOMAXPROCS
}

// Create starts an archive: it creates NAME.warc.gz (NAME.warc when
// uncompressed, NAME-00000.warc.gz with MaxSize) and writes its warcinfo.
// It never overwrites or appends to a file: if the first file's name is
// taken, Create fails with an error for which errors.Is(err, fs.ErrExist)
// holds, and the caller chooses another name.
func Create(name string, opt Options) (*Writer, error) {
	if opt.Spool <= 0 {
		opt.Spool = DefaultSpool
	}
	w := &Writer{
		dir: filepath.Dir(name), base: filepath.Base(name), opt: opt,
		packers: make(chan *packer, runtime.GOMAXPROCS(0)),
	}
	if err := w.openNext(); err != nil {
		return nil, err
	}
	return w, nil
}

// FileName returns the name of the n-th file (from 0) of an archive, as
// Create and rolling over name them; with maxSize 0 there is one file.
func FileName(name string, n int, compressed bool, maxSize int64) string {
	ext := ".warc"
	if compressed {
		ext += ".gz"
	}
	if maxSize > 0 {
		return fmt.Sprintf("%s-%05d%s", name, n, ext)
	}
	return name + ext
}

// openNext closes the current file, if any, and creates the next with its
// warcinfo record. Called with mu held, or before the Writer is shared.
func (w *Writer) openNext() error {
	if w.f != nil {
		if err := w.f.Close(); err != nil {
			return err
		}
		w.f = nil
		w.serial++
	}
	path := FileName(filepath.Join(w.dir, w.base), w.serial, !w.opt.NoCompression, w.opt.MaxSize)
	// O_EXCL: an archive is never written over nor appended to, so a file
	// cut short by an earlier run keeps its records as they are.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	w.f, w.name, w.size, w.records = f, filepath.Base(path), 0, 0
	w.infoID = NewRecordID()
	info := []Field{
		{"software", w.opt.Software},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
	}
	var block bytes.Buffer
	for _, fl := range append(info, w.opt.Info...) {
		if fl.Value == "" && fl.Name == "software" {
			continue
		}
		if !validName(fl.Name) {
			f.Close()
			os.Remove(path)
			return fmt.Errorf("%w: %q", ErrFieldName, fl.Name)
		}
		// WARC 1.1 §6.2: the warcinfo block is application/warc-fields,
		// named fields as in the header.
		block.WriteString(fl.Name + ": " + cleanValue(fl.Value) + "\r\n")
	}
	h := &Header{
		Type: Warcinfo, ID: w.infoID, Date: time.Now(), ContentType: "application/warc-fields",
		Fields: []Field{{"WARC-Filename", w.name}},
	}
	r := &Record{w: w, h: *h, block: sha1.New()}
	r.buf.Write(block.Bytes())
	r.block.Write(block.Bytes())
	r.n = int64(block.Len())
	p := w.getPacker()
	defer w.putPacker(p)
	p.buf.Reset()
	e, err := r.pack(p, w.infoID, !w.opt.NoCompression)
	if err == nil {
		_, err = w.write(r, p, e)
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		w.f = nil
		return err
	}
	return nil
}

// WarcinfoID returns the WARC-Record-ID of the current file's warcinfo.
func (w *Writer) WarcinfoID() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.infoID
}

// Close closes the current file. Records begun and not committed are
// refused afterwards.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.f == nil {
		return w.firstErr
	}
	err := w.f.Close()
	w.f = nil
	return errors.Join(w.firstErr, err)
}

// Begin starts a record: the caller writes its block into it as the bytes
// arrive, then calls Commit (or Discard). An HTTP request or response
// block (Content-Type HTTPRequestType or HTTPResponseType) is the message
// as it crossed the connection, header section and body.
func (w *Writer) Begin(h Header) (*Record, error) {
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if h.ID == "" {
		h.ID = NewRecordID()
	}
	if h.Date.IsZero() {
		h.Date = time.Now()
	}
	// WARC-Date and the indexes keep seconds: the entry says what the
	// header says.
	h.Date = h.Date.UTC().Truncate(time.Second)
	for _, f := range h.Fields {
		if !validName(f.Name) {
			return nil, fmt.Errorf("%w: %q", ErrFieldName, f.Name)
		}
	}
	if err := checkHeader(&h); err != nil {
		return nil, err
	}
	r := &Record{w: w, h: h, block: sha1.New()}
	if hasPayload(h.Type) && strings.HasPrefix(strings.ToLower(h.ContentType), "application/http") {
		r.http = newHTTPMessage()
	} else if h.Type == Resource {
		r.payload = true
	}
	return r, nil
}

// Record is a record being built: an io.Writer for its block. Its
// methods are for one goroutine.
type Record struct {
	w       *Writer
	h       Header
	buf     bytes.Buffer
	sp      *spool // the block past the Writer's bound, nil before
	n       int64
	block   hash.Hash
	http    *httpMessage
	payload bool // the payload is the whole block (resource)
	err     error
	done    bool
}

// ID returns the record's WARC-Record-ID.
func (r *Record) ID() string { return r.h.ID }

// Truncate marks the block as cut short, with one of the Truncated*
// reasons (WARC-Truncated, WARC 1.1 §5.15): what was written is what
// arrived.
func (r *Record) Truncate(reason string) { r.h.Truncated = reason }

// PayloadDigest returns the digest of the payload written so far, as
// Commit would write it: the whole block's for a resource, the entity
// body's for an HTTP block (WARC 1.1 §5.9), "" when there is none yet (an
// HTTP header section not ended) or none at all. A caller deduplicating
// against an index (revisit records, §6.7.2) asks it before Commit.
func (r *Record) PayloadDigest() string {
	switch {
	case r.h.Type == Revisit:
		return r.h.PayloadDigest
	case r.http != nil:
		return r.http.payloadDigest()
	case r.payload:
		return Digest(r.block)
	}
	return ""
}

// Write adds bytes to the block, spooling past the Writer's bound.
func (r *Record) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.done {
		return 0, ErrClosed
	}
	if r.sp == nil && int64(r.buf.Len()+len(p)) > r.w.opt.Spool {
		sp, err := r.w.newSpool()
		if err == nil {
			err = sp.write(r.buf.Bytes())
		}
		if err != nil {
			if sp != nil {
				sp.close(r.w)
			}
			r.err = err
			return 0, err
		}
		r.freeBuf()
		r.sp = sp
	}
	if r.sp != nil {
		if err := r.sp.write(p); err != nil {
			r.err = err
			return 0, err
		}
	} else {
		if r.buf.Cap() == 0 {
			// A block starts in a buffer of an earlier record's: most
			// are a few KiB, and growing each from nothing cost more
			// allocations than the record's others together.
			b := blockBufs.Get().(*[]byte)
			r.buf = *bytes.NewBuffer((*b)[:0])
		}
		r.buf.Write(p)
	}
	r.n += int64(len(p))
	r.block.Write(p)
	if r.http != nil {
		r.http.Write(p)
	}
	return len(p), nil
}

// Discard drops the record unwritten.
func (r *Record) Discard() {
	r.done = true
	if r.sp != nil {
		r.sp.close(r.w)
		r.sp = nil
	}
	r.freeBuf()
}

// blockBufs holds buffers for the blocks of records, each of at most
// maxBlockBuf bytes.
var blockBufs = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

const maxBlockBuf = 64 << 10

// freeBuf gives the block's buffer back for another record.
func (r *Record) freeBuf() {
	if c := r.buf.Cap(); c > 0 && c <= maxBlockBuf {
		b := r.buf.Bytes()[:0]
		blockBufs.Put(&b)
	}
	r.buf = bytes.Buffer{}
}

// Commit writes the whole record to the archive, hands its entry to the
// Writer's indexes and returns it. On an error in writing, the file is
// cut back to where the record began, so that it still ends at a record
// boundary; an index's error comes after the record is written. A record
// is ended by Commit or Discard, which free its spool file.
//
// The record is packed by the goroutine that commits it, outside the
// Writer's lock: the records of a mirror's transfers are compressed at
// once, on as many cores as there are transfers, and the lock covers
// only the writes. A spooled block was compressed as it came, and only
// its header is packed here.
func (r *Record) Commit() (Entry, error) {
	if r.done {
		return Entry{}, ErrClosed
	}
	defer r.Discard()
	if r.err != nil {
		return Entry{}, r.err
	}
	conformBlock(&r.h, r.n)
	w := r.w
	if r.sp != nil {
		if err := r.sp.finish(); err != nil {
			return Entry{}, err
		}
	}
	p := w.getPacker()
	defer w.putPacker(p)
	for {
		w.mu.Lock()
		info, closed := w.infoID, w.closed || w.f == nil
		w.mu.Unlock()
		if closed {
			return Entry{}, ErrClosed
		}
		p.buf.Reset()
		e, err := r.pack(p, info, !w.opt.NoCompression)
		if err != nil {
			return e, err
		}
		w.mu.Lock()
		if err := w.ready(); err != nil {
			w.mu.Unlock()
			return Entry{}, err
		}
		if w.infoID != info {
			// The archive rolled over to a file with another warcinfo
			// while this record was packed: packed again, it names the
			// new one.
			w.mu.Unlock()
			continue
		}
		e, err = w.index(w.write(r, p, e))
		w.mu.Unlock()
		return e, err
	}
}

// CommitAll commits records of w in order, as Commit commits each, and
// returns their entries: the records of one exchange, a request and its
// response, which go to the file with one write when none is spooled,
// one after the other in the same file. A record that cannot be
// committed (ended already, or failed) fails the ones after it too; all
// are ended.
func (w *Writer) CommitAll(rs ...*Record) ([]Entry, error) {
	for _, r := range rs {
		defer r.Discard()
	}
	for _, r := range rs {
		if r.sp != nil {
			// A spooled block goes from its spool to the file: each
			// record on its own.
			es := make([]Entry, 0, len(rs))
			for _, r := range rs {
				e, err := r.Commit()
				if err != nil {
					return es, err
				}
				es = append(es, e)
			}
			return es, nil
		}
		if r.done {
			return nil, ErrClosed
		}
		if r.err != nil {
			return nil, r.err
		}
		conformBlock(&r.h, r.n)
	}
	p := w.getPacker()
	defer w.putPacker(p)
	es := make([]Entry, len(rs))
	ends := make([]int, len(rs))
	for {
		w.mu.Lock()
		info, closed := w.infoID, w.closed || w.f == nil
		w.mu.Unlock()
		if closed {
			return nil, ErrClosed
		}
		p.buf.Reset()
		for i, r := range rs {
			e, err := r.pack(p, info, !w.opt.NoCompression)
			if err != nil {
				return nil, err
			}
			es[i], ends[i] = e, p.buf.Len()
		}
		if again, err := w.writeAll(info, p, es, ends); !again {
			return es, err
		}
	}
}

// writeAll writes the records CommitAll packed into p, es their entries
// and ends where each ends in p's buffer, unless the archive rolled over
// from the warcinfo info while they were packed (again: pack them anew).
func (w *Writer) writeAll(info string, p *packer, es []Entry, ends []int) (again bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.ready(); err != nil {
		return false, err
	}
	if w.infoID != info {
		return true, nil
	}
	start := w.size
	if _, err := w.write(nil, p, Entry{}); err != nil {
		return false, err
	}
	from := 0
	for i := range es {
		es[i].File, es[i].Offset, es[i].Length = w.name, start+int64(from), int64(ends[i]-from)
		if w.opt.NoCompression {
			es[i].Length -= int64(len(recordEnd))
		}
		from = ends[i]
		if _, err := w.index(es[i], nil); err != nil {
			return false, err
		}
	}
	return false, nil
}

// ready makes sure a record can be written, rolling over to the next
// file once the current one has reached MaxSize. Called with mu held.
func (w *Writer) ready() error {
	if w.closed || w.f == nil {
		return ErrClosed
	}
	if w.opt.MaxSize > 0 && w.records > 0 && w.size >= w.opt.MaxSize {
		if err := w.openNext(); err != nil {
			w.firstErr = cmpErr(w.firstErr, err)
			return err
		}
	}
	return nil
}

// index counts a written record and hands its entry to the indexes.
// Called with mu held.
func (w *Writer) index(e Entry, err error) (Entry, error) {
	if err != nil {
		return e, err
	}
	w.records++
	for _, ix := range w.opt.Indexes {
		switch e.Type {
		case Response, Resource, Revisit, Metadata:
			if err := ix.Add(e); err != nil {
				return e, err
			}
		}
	}
	return e, nil
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// entry returns the index entry of r as it will be written, without its
// place in a file, and its header section naming the warcinfo infoID.
func (r *Record) entry(infoID string) (Entry, string, error) {
	h := &r.h
	h.Date = h.Date.UTC()
	e := Entry{
		Type: h.Type, ID: cleanID(h.ID), TargetURI: cleanURI(h.TargetURI), Date: h.Date,
		BlockDigest: Digest(r.block),
	}
	switch {
	case h.Type == Revisit:
		e.PayloadDigest = h.PayloadDigest
	case r.http != nil:
		e.PayloadDigest = r.http.payloadDigest()
	case r.payload:
		e.PayloadDigest = e.BlockDigest
	}
	if r.http != nil {
		e.Status, e.MIME, e.Redirect = r.http.status, r.http.mime, r.http.location
	} else {
		mt, _, _ := strings.Cut(h.ContentType, ";")
		e.MIME = strings.ToLower(cleanValue(mt))
	}
	head, err := formatHeader(h, infoID, r.n, e.BlockDigest, e.PayloadDigest)
	return e, head, err
}

// write appends r, packed into p (e its entry), to the current file:
// p's bytes, then the spooled block and p's tail when r has one; with r
// nil, p's bytes alone. Called with mu held.
func (w *Writer) write(r *Record, p *packer, e Entry) (Entry, error) {
	e.File, e.Offset = w.name, w.size
	k, err := w.f.Write(p.buf.Bytes())
	n := int64(k)
	if err == nil && r != nil && r.sp != nil {
		// From one file to the other by io.Copy, which the kernel does
		// without the bytes passing through here (copy_file_range on
		// Linux).
		var c int64
		c, err = io.Copy(w.f, r.sp.f)
		n += c
		if err == nil {
			k, err = w.f.Write(p.tail.Bytes())
			n += int64(k)
		}
	}
	if err != nil {
		// Cut back to the boundary; if even that fails, the file is
		// unusable for more records.
		if terr := w.f.Truncate(w.size); terr != nil {
			w.firstErr = cmpErr(w.firstErr, terr)
			w.f.Close()
			w.f = nil
		} else if _, serr := w.f.Seek(w.size, io.SeekStart); serr != nil {
			w.f.Close()
			w.f = nil
		}
		return e, err
	}
	e.Length = n
	if w.opt.NoCompression {
		// Of a plain record, the length an index gives is of its header
		// and block, without the CRLFs that end it, as warcio's
		// cdx-index gives it.
		e.Length -= int64(len(recordEnd))
	}
	w.size += n
	return e, nil
}
