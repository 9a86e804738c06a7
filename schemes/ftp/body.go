package ftp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"strings"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// transfer is one data connection's bytes, ended by the server's final
// reply on the control connection (RFC 959 §4.2: 226 or 250). It returns
// io.EOF only when that reply says the transfer completed and, for a binary
// transfer of known size, every byte arrived; anything else is
// ErrTruncated, never a silent short file.
type transfer struct {
	f      *Fetcher
	c      *conn
	d      net.Conn
	op     string
	n      int64 // bytes read so far
	expect int64 // bytes the transfer must carry, -1 when unknown
	done   bool
	err    error
	ahead  bool // passive (EPSV or PASV) and not the last request: the next EPSV may go out early
	// res, when set, gets the final reply's code (and a PostQuote
	// command's) as its StatusCode.
	res *schemes.Resource
}

// Read reads the data connection; at its end it checks the final reply.
func (t *transfer) Read(p []byte) (int, error) {
	if t.done {
		return 0, t.errOrEOF()
	}
	n, err := t.d.Read(p)
	t.n += int64(n)
	if err != nil {
		t.end(err)
		if n > 0 {
			return n, nil
		}
		return 0, t.errOrEOF()
	}
	return n, nil
}

// WriteTo copies the data connection to w directly, so that a plain TCP
// data connection is spliced by the kernel into a file or pipe whose
// ReadFrom knows how.
func (t *transfer) WriteTo(w io.Writer) (int64, error) {
	if t.done {
		return 0, t.err
	}
	var n int64
	var err error
	if rf, ok := w.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(t.d)
	} else {
		n, err = io.Copy(w, t.d)
	}
	t.n += n
	if err == nil {
		err = io.EOF
	} else if ne := (*net.OpError)(nil); !errors.As(err, &ne) && !errors.Is(err, net.ErrClosed) {
		// The destination failed, not the connection.
		t.done, t.err = true, err
		t.c.closeData()
		t.discard()
		return n, err
	}
	t.end(err)
	if t.err != nil {
		return n, t.err
	}
	return n, nil
}

func (t *transfer) errOrEOF() error {
	if t.err != nil {
		return t.err
	}
	return io.EOF
}

// end finishes the transfer after the data connection reported err.
func (t *transfer) end(err error) {
	t.done = true
	t.c.closeData()
	if !errors.Is(err, io.EOF) {
		// A reset or a timeout on the data connection: the control
		// connection's state is unknown now.
		t.err = t.c.netErrData(t.op, err)
		if se := (*schemes.Error)(nil); errors.As(t.err, &se) && se.Kind == schemes.ErrProtocol {
			se.Kind, se.Temporary = schemes.ErrTruncated, true
		}
		t.discard()
		return
	}
	// Every byte is in and the server has closed the data connection: it
	// sends its 226 now. The EPSV for the next transfer goes out before
	// that reply is read rather than after, so that it reaches the server
	// about when the server is done writing 226, not a crossing of the
	// network later; its reply is read as sendAhead describes.
	if t.ahead && (t.expect < 0 || t.n >= t.expect) {
		t.c.sendAhead()
	}
	r, rerr := t.c.readReply(t.op)
	if rerr == nil && t.res != nil {
		t.res.StatusCode = r.code
	}
	switch {
	case rerr != nil:
		// RFC 959 §4.2: the transfer is complete only once 226 or 250
		// says so; a control connection that ends first truncated it.
		var se *schemes.Error
		if errors.As(rerr, &se) && (se.Kind == schemes.ErrProtocol || se.Kind == schemes.ErrConnect) {
			se.Kind, se.Temporary = schemes.ErrTruncated, true
		}
		t.err = rerr
		t.discard()
		return
	case r.code == 226 || r.code == 250:
		if t.expect >= 0 && t.n < t.expect {
			e := t.c.req.Fail(schemes.ErrTruncated, t.op, r.code, r.last(),
				fmt.Errorf("received %d of %d bytes", t.n, t.expect))
			e.Temporary = true
			t.err = e
		}
	default:
		e := t.c.replyErr(t.op, r)
		if r.code/100 != 5 {
			e.Kind = schemes.ErrTruncated
		}
		e.Temporary = e.Temporary || r.code/100 == 4
		t.err = e
	}
	if t.err == nil && len(t.f.PostQuote) > 0 {
		// curl sends its -Q -CMD commands once the transfer is done,
		// and only when it succeeded.
		if err := t.c.quote(t.f.PostQuote); err != nil {
			t.err = err
		}
		if t.res != nil && t.c.lastCode != 0 {
			t.res.StatusCode = t.c.lastCode
		}
	}
	t.release()
}

// Close ends the transfer; closed early, it drops the control connection
// too, since the server's state for it is unknown.
func (t *transfer) Close() error {
	if !t.done {
		t.done = true
		t.err = errors.New("closed")
		t.discard()
	}
	return nil
}

func (t *transfer) release() {
	if t.c != nil {
		t.f.put(t.c)
		t.c = nil
	}
}

func (t *transfer) discard() {
	if t.c != nil {
		t.c.broken = true
		t.f.put(t.c)
		t.c = nil
	}
}

// crlfReader turns the network's CRLF line ends into local newlines for
// TYPE A transfers (RFC 959 §3.1.1.1); a lone CR is kept as it is.
type crlfReader struct {
	r   io.Reader
	buf []byte
	out []byte
	cr  bool // the last chunk ended in CR: its fate depends on the next byte
	err error
}

func newCRLFReader(r io.Reader) *crlfReader {
	return &crlfReader{r: r, buf: make([]byte, 32<<10+1)}
}

func (c *crlfReader) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		if c.err != nil {
			if c.cr {
				c.cr = false
				c.out = []byte{'\r'}
				break
			}
			return 0, c.err
		}
		n, err := c.r.Read(c.buf[1:])
		c.err = err
		chunk := c.buf[1 : 1+n]
		if c.cr {
			chunk = c.buf[:1+n]
			chunk[0] = '\r'
			c.cr = false
		}
		j := 0
		for i := 0; i < len(chunk); i++ {
			b := chunk[i]
			if b == '\r' {
				if i+1 == len(chunk) {
					c.cr = true
					break
				}
				if chunk[i+1] == '\n' {
					continue
				}
			}
			chunk[j] = b
			j++
		}
		c.out = chunk[:j]
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	return n, nil
}

// Close closes the underlying transfer.
func (c *crlfReader) Close() error {
	if cl, ok := c.r.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// listing streams a directory listing's entries from its data connection.
type listing struct {
	t     *transfer
	br    *bufio.Reader
	base  string // URL of the directory the names are relative to
	nlst  bool
	mlsd  bool
	now   time.Time
	done  bool
	final error
}

func newListing(t *transfer, base string, nlst, mlsd bool) *listing {
	return &listing{
		t: t,
		// An archive gets the data connection's bytes as they came
		// (schemes.Capture's Listing), whatever the parser makes of them.
		br:   bufio.NewReaderSize(schemes.LineLimitReader(schemes.CaptureListing(t, t.c.req.Capture), schemes.MaxLineLength), 16<<10),
		base: base, nlst: nlst, mlsd: mlsd, now: time.Now(),
	}
}

// NamesOnly reports whether the listing is NLST's (;type=d), whose entries
// are shown as the server's names alone (schemes.NameLister).
func (l *listing) NamesOnly() bool { return l.nlst }

// Next returns the next entry. Lines no parser can read are kept as
// KindInfo entries holding the line, never dropped.
func (l *listing) Next() (schemes.Entry, error) {
	for {
		if l.done {
			return schemes.Entry{}, l.final
		}
		line, err := l.br.ReadString('\n')
		if err != nil {
			l.done = true
			if err == io.EOF {
				l.final = io.EOF
			} else {
				l.final = err
				if errors.Is(err, schemes.ErrLineTooLong) {
					l.final = l.t.c.req.Fail(schemes.ErrProtocol, l.t.op, 0, "", err)
					l.t.Close()
				}
			}
			if line == "" {
				continue
			}
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line == "" {
			continue
		}
		e, ok := l.entry(line)
		if ok {
			return e, nil
		}
	}
}

// entry turns one line into an entry; ok is false for "." and "..".
func (l *listing) entry(line string) (schemes.Entry, bool) {
	if l.nlst {
		// RFC 959 §4.1.3: NLST sends names only, relative to the
		// directory the command ran in. Some servers (Pure-FTPd) list
		// the directory itself and its parent as well.
		if b := path.Base(line); b == "." || b == ".." {
			return schemes.Entry{}, false
		}
		if !nlstName(line) {
			// A name that is not a path below the directory ("..",
			// "a/../../b", "/etc") is shown, never given a URL.
			return schemes.Entry{Name: line, Kind: schemes.KindInfo, Size: -1, Raw: line}, true
		}
		return schemes.Entry{URL: l.base + uri.EscapePath(line), Name: line, Kind: schemes.KindOther, Size: -1, Raw: line}, true
	}
	var le listEntry
	var ok bool
	if l.mlsd {
		le, ok = parseMLSD(line)
	} else {
		le, ok = parseListLine(line, l.now)
	}
	if !ok {
		return schemes.Entry{Name: line, Kind: schemes.KindInfo, Size: -1, Raw: line}, true
	}
	if le.skip {
		return schemes.Entry{}, false
	}
	if !schemes.IsEntryName(le.name) {
		// "..", "a/b", a name with CR or LF: not an entry of this
		// directory, whatever the server says. Shown, never walked.
		return schemes.Entry{Name: le.name, Kind: schemes.KindInfo, Size: -1, Raw: line}, true
	}
	u := l.base + uri.EscapeSegment(le.name)
	if le.kind == schemes.KindDirectory {
		u += "/"
	}
	if le.target != "" {
		if le.fields == nil {
			le.fields = map[string]string{}
		}
		le.fields["target"] = le.target
	}
	if len(le.fields) == 0 {
		le.fields = nil
	}
	return schemes.Entry{URL: u, Name: le.name, Kind: le.kind, Size: le.size, ModTime: le.mod, Fields: le.fields, Raw: line}, true
}

// Close ends the listing and its transfer.
func (l *listing) Close() error {
	l.done = true
	if l.final == nil {
		l.final = io.EOF
	}
	return l.t.Close()
}

// nlstName reports whether an NLST line names something below the listed
// directory: RFC 959 §4.1.3 lets a server give names relative to it with
// their subdirectories ("sub/file"), so "/" may separate components, but
// none may be empty, "." or "..", nor hold NUL, CR or LF.
func nlstName(line string) bool {
	for _, c := range strings.Split(line, "/") {
		if !schemes.IsEntryName(c) {
			return false
		}
	}
	return true
}

// partBody is the body of a range (curl's -r) that ends before the file
// does: it ends after left bytes and closes the transfer there, which
// drops the data connection and its control connection, whose state the
// unfinished RETR leaves unknown (curl closes them too).
type partBody struct {
	rc   io.ReadCloser
	left int64
}

// Read reads at most the bytes left of the part.
func (p *partBody) Read(b []byte) (int, error) {
	if p.left <= 0 {
		p.rc.Close()
		return 0, io.EOF
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	n, err := p.rc.Read(b)
	p.left -= int64(n)
	if p.left <= 0 && err == nil {
		p.rc.Close()
		err = io.EOF
	}
	return n, err
}

// Close closes the transfer.
func (p *partBody) Close() error { return p.rc.Close() }
