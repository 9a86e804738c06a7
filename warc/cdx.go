package warc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CDXHeader is the first line of the CDX file wget's --warc-cdx writes:
// the letters of its columns, original URL (a), date (b), the URL again,
// media type (m), status (s), payload digest (k), redirect (r), meta tags
// (M), offset (V), file name (g) and record ID (u).
const CDXHeader = " CDX a b a m s k r M V g u"

// CDXWriter writes wget's CDX index: a line per response and resource
// record, the columns of CDXHeader, "-" for what a record lacks. wget's
// --warc-dedup reads it, and so does ReadCDX.
type CDXWriter struct {
	lines
}

// lines is an index file written a line at a time.
type lines struct {
	mu sync.Mutex
	w  *bufio.Writer
	c  io.Closer
}

// createIndex creates an index file, never over an existing one: an
// existing name is an error for which errors.Is(err, fs.ErrExist) holds.
func createIndex(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// add writes one line, and flushes it: an index cut short by a killed
// run still names the records written before.
func (l *lines) add(line string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.WriteString(line)
	return l.w.Flush()
}

// Close flushes the index and closes its file, if it was created here.
func (l *lines) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.w.Flush()
	if l.c != nil {
		err = errors.Join(err, l.c.Close())
	}
	return err
}

// CreateCDX creates a CDX file (never over an existing one) and writes
// its header line.
func CreateCDX(path string) (*CDXWriter, error) {
	f, err := createIndex(path)
	if err != nil {
		return nil, err
	}
	c := NewCDXWriter(f)
	c.c = f
	return c, c.add("")
}

// NewCDXWriter writes a CDX index to w, starting with its header line.
func NewCDXWriter(w io.Writer) *CDXWriter {
	c := &CDXWriter{lines{w: bufio.NewWriter(w)}}
	c.w.WriteString(CDXHeader + "\n")
	return c
}

// cdxField makes a value one CDX column: no spaces or control bytes
// (percent-encoded), "-" when empty.
func cdxField(v string) string {
	if v == "" {
		return "-"
	}
	return cleanURI(v)
}

// Add writes the line of a response or resource record; a revisit or any
// other record is left out, as wget leaves out its revisits, so that the
// index names only records that hold their payload.
func (c *CDXWriter) Add(e Entry) error {
	if e.Type != Response && e.Type != Resource {
		return nil
	}
	status := "-"
	if e.Status != 0 {
		status = strconv.Itoa(e.Status)
	}
	digest := strings.TrimPrefix(e.PayloadDigest, "sha1:")
	u := cdxField(e.TargetURI)
	return c.add(fmt.Sprintf("%s %s %s %s %s %s %s - %d %s %s\n",
		u, Timestamp(e.Date), u, cdxField(e.MIME), status, cdxField(digest),
		cdxField(e.Redirect), e.Offset, cdxField(e.File), cleanID(e.ID)))
}

// CDXJWriter writes a CDXJ index as pywb and warcio's cdx-index write it:
// a line per response, resource, revisit and metadata record (those
// warcio's cdx-index lists), its SURT key, its
// 14-digit timestamp and a JSON object (url, mime, status, digest,
// length, offset, filename). The lines come in the order written; pywb
// wants them sorted (`sort` with LC_ALL=C does it).
type CDXJWriter struct {
	lines
}

// CreateCDXJ creates a CDXJ file, never over an existing one.
func CreateCDXJ(path string) (*CDXJWriter, error) {
	f, err := createIndex(path)
	if err != nil {
		return nil, err
	}
	c := NewCDXJWriter(f)
	c.c = f
	return c, nil
}

// NewCDXJWriter writes a CDXJ index to w.
func NewCDXJWriter(w io.Writer) *CDXJWriter {
	return &CDXJWriter{lines{w: bufio.NewWriter(w)}}
}

// cdxjLine is the JSON of a CDXJ line, in pywb's field order.
type cdxjLine struct {
	URL      string `json:"url"`
	MIME     string `json:"mime,omitempty"`
	Status   string `json:"status,omitempty"`
	Digest   string `json:"digest,omitempty"`
	Length   string `json:"length"`
	Offset   string `json:"offset"`
	Filename string `json:"filename"`
}

// Add writes the line of a response, resource, revisit or metadata
// record.
func (c *CDXJWriter) Add(e Entry) error {
	if e.Type != Response && e.Type != Resource && e.Type != Revisit && e.Type != Metadata {
		return nil
	}
	l := cdxjLine{
		URL: cleanURI(e.TargetURI), MIME: e.MIME,
		// The base32 alone, as warcio's cdx-index and pywb write it.
		Digest: strings.TrimPrefix(e.PayloadDigest, "sha1:"),
		Length: strconv.FormatInt(e.Length, 10), Offset: strconv.FormatInt(e.Offset, 10),
		Filename: e.File,
	}
	if e.Type == Revisit {
		// pywb's mark for a record whose payload is elsewhere.
		l.MIME = "warc/revisit"
	}
	if e.Status != 0 {
		l.Status = strconv.Itoa(e.Status)
	}
	js, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return c.add(SURT(e.TargetURI) + " " + Timestamp(e.Date) + " " + string(js) + "\n")
}

var wwwPrefix = regexp.MustCompile(`^www\d*\.`)

// SURT returns the Sort-friendly URI Reordering Transform of a URL as
// pywb keys a CDXJ line with it: the host's labels reversed and joined by
// commas, lower case, without a leading "www.", a non-default port after
// a colon, ")" and the path and query in lower case, the query's
// arguments sorted ("http://www.Example.com/A?b=1&a=2" is
// "com,example)/a?a=2&b=1"), an IPv4 address reversed too and an IPv6
// one kept whole, as warcio's cdx-index keys them. The scheme is left
// out, as pywb does. A URL
// of another scheme is its own key, as warcio's cdx-index keys it.
func SURT(raw string) string {
	raw = cleanURI(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) {
		return raw
	}
	host := strings.ToLower(u.Hostname())
	host = strings.TrimSuffix(wwwPrefix.ReplaceAllString(host, ""), ".")
	labels := strings.Split(host, ".")
	if strings.Contains(host, ":") { // an IPv6 address is kept whole
		labels = []string{"[" + host + "]"}
	}
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	key := strings.Join(labels, ",")
	if p := u.Port(); p != "" && !defaultPort(u.Scheme, p) {
		key += ":" + p
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	key += ")" + strings.ToLower(path)
	if u.RawQuery != "" {
		args := strings.Split(u.RawQuery, "&")
		sort.Strings(args)
		key += "?" + strings.ToLower(strings.Join(args, "&"))
	}
	return key
}

func defaultPort(scheme, port string) bool {
	switch strings.ToLower(scheme) {
	case "http":
		return port == "80"
	case "https":
		return port == "443"
	}
	return false
}

// Capture is an earlier capture of a payload, as a CDX line names it: the
// three things a revisit record refers to (WARC 1.1 §6.7.2).
type Capture struct {
	URL      string
	Date     time.Time // zero when the index has no date column
	RecordID string
}

// Dedup is the captures of a CDX index by payload digest, for writing
// revisit records instead of repeating a payload (wget's --warc-dedup).
type Dedup struct {
	byDigest map[string][]Capture
}

// Len returns the number of captures read.
func (d *Dedup) Len() int {
	n := 0
	for _, cs := range d.byDigest {
		n += len(cs)
	}
	return n
}

// Lookup returns the earliest capture of the payload digest ("sha1:…" or
// the base32 alone) at url, as wget's --warc-dedup matches both; with url
// "" it matches the digest alone (wget's --warc-dedup-url-agnostic).
func (d *Dedup) Lookup(digest, url string) (Capture, bool) {
	key := strings.ToUpper(strings.TrimPrefix(strings.TrimPrefix(digest, "sha1:"), "SHA1:"))
	for _, c := range d.byDigest[key] {
		if url == "" || c.URL == cleanURI(url) {
			return c, true
		}
	}
	return Capture{}, false
}

// maxCDXLine bounds a CDX line ReadCDX takes.
const maxCDXLine = 64 << 10

// ErrCDXHeader is the error for a CDX index whose first line is not a
// header naming the original URL (a), digest (k) and record ID (u)
// columns, wget's condition for reading it.
var ErrCDXHeader = errors.New("warc: CDX header lacks the a, k or u column")

// ReadCDX reads a CDX index, wget's or ours: its header line says where
// the original URL (a; the last 'a', as wget takes it), date (b), payload
// digest (k) and record ID (u) are. A line whose digest is not a sha1 in
// base32, whose record ID is not in angle brackets or that lacks a column
// is skipped, as wget skips it; a line longer than 64 KiB is an error.
func ReadCDX(r io.Reader) (*Dedup, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxCDXLine)
	d := &Dedup{byDigest: map[string][]Capture{}}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, ErrCDXHeader
	}
	cols := strings.Fields(sc.Text())
	if len(cols) == 0 || cols[0] != "CDX" {
		return nil, ErrCDXHeader
	}
	fa, fb, fk, fu := -1, -1, -1, -1
	for i, c := range cols[1:] {
		switch c {
		case "a":
			fa = i
		case "b":
			fb = i
		case "k":
			fk = i
		case "u":
			fu = i
		}
	}
	if fa < 0 || fk < 0 || fu < 0 {
		return nil, ErrCDXHeader
	}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) <= max(fa, fb, fk, fu) {
			continue
		}
		digest := strings.ToUpper(f[fk])
		if raw, err := b32.DecodeString(digest); err != nil || len(raw) != 20 {
			continue
		}
		id := f[fu]
		if len(id) < 3 || id[0] != '<' || id[len(id)-1] != '>' {
			continue
		}
		c := Capture{URL: cleanURI(f[fa]), RecordID: cleanID(id)}
		if fb >= 0 {
			if t, err := time.Parse("20060102150405", f[fb]); err == nil {
				c.Date = t
			}
		}
		d.byDigest[digest] = append(d.byDigest[digest], c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, cs := range d.byDigest {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].Date.Before(cs[j].Date) })
	}
	return d, nil
}
