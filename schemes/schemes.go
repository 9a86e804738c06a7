// Package schemes is the contract between urlget's protocol fetchers and the
// policy that drives them: a Fetcher turns one parsed URL into one Resource.
// It holds no protocol code; each protocol lives in a subpackage.
package schemes

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/uri"
)

// A Fetcher retrieves the resource one URL names.
//
// A Fetcher is created once and used for many URLs, from one goroutine or
// several; it may keep connections open between calls (one FTP control
// connection per server and user, one NNTP session per server) and must then
// also implement io.Closer, which releases them. Fetch must honour ctx:
// cancelling it stops the transfer promptly and closes its connections,
// including while the caller is still reading the returned Resource.
//
// Fetch returns either a Resource or an error built with NewError (or one that
// wraps such an error), so that errors.Is works against the taxonomy below.
type Fetcher interface {
	Fetch(ctx context.Context, req *Request) (*Resource, error)
}

// FetcherFunc adapts a function to the Fetcher interface.
type FetcherFunc func(ctx context.Context, req *Request) (*Resource, error)

// Fetch calls f(ctx, req).
func (f FetcherFunc) Fetch(ctx context.Context, req *Request) (*Resource, error) {
	return f(ctx, req)
}

// Dialer opens network connections. The fetch package supplies one that
// applies the connect timeout and any proxy; fetchers must dial through it
// rather than with net.Dial so that this policy holds for every scheme.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// Request is one URL to fetch together with the policy the caller chose for
// it. The fetch package fills it; a fetcher reads it and never modifies it.
type Request struct {
	// URL is the parsed, absolute URL, its host in ASCII form (fetch's
	// Client converts an international name to its IDNA A-labels with
	// uri.URL.ASCII before any fetcher sees it).
	URL uri.URL

	// User holds the credentials to log in with, already resolved from
	// the URL, the -u option and .netrc in that order, and only those
	// that belong to URL's origin (see RedirectCredentials), in the form
	// of net/url's userinfo: nil when none of them named a user (FTP then
	// logs in anonymously); a user named without a password (Password
	// reports false) lets the fetcher call Prompt.
	User *url.Userinfo

	// LocationTrusted lets the credentials (User, and the credential
	// header fields a fetcher was configured with, such as HTTP's
	// Authorization and Cookie) follow a redirect to another origin, as
	// curl's --location-trusted. Without it a fetcher that follows a
	// redirect sends them only while the redirect stays on URL's scheme,
	// host and port (uri.URL.Origin).
	LocationTrusted bool

	// Foreign tells that URL lies outside the origin the caller's own
	// credentials were given for (a link of a recursion reached another
	// origin, without LocationTrusted): the fetcher then sends none of
	// the credential fields it was configured with (HTTP's Authorization
	// and Cookie header fields), as curl drops them there. User already
	// holds only URL's own credentials.
	Foreign bool

	// RedirectCredentials, when not nil, gives the credentials of a URL a
	// redirect of this fetch leads to, under the rule that gave User for
	// URL: the target's own userinfo, its host's .netrc entry, and what
	// the user gave for the start URL only on its origin (or with
	// LocationTrusted). fields tells whether the credential fields the
	// fetcher was configured with, the user's for the start, go to target
	// too.
	RedirectCredentials func(target uri.URL) (user *url.Userinfo, fields bool)

	// Prompt asks the person at the terminal for a secret without echo.
	// It is nil when there is no terminal; a fetcher that needs a password
	// it was not given then fails with ErrLoginFailed.
	Prompt func(prompt string) (string, error)

	// Offset asks for the body to start at this byte (resume, curl's -C).
	// A fetcher that cannot honour it returns the body from its start with
	// Resource.Offset 0; the caller then decides.
	Offset int64

	// IfRange, with Offset > 0, resumes only the representation it names:
	// a validator a Resource of the same URL gave (Resource.Validator) when
	// the first bytes were fetched. http: and https: send it as If-Range
	// (RFC 9110 §13.1.5), and a server whose representation changed sends
	// it whole (Resource.Offset 0); ftp: and ftps: compare it with SIZE
	// and MDTM (RFC 3659 §4, §3) before REST, and start from byte 0 when
	// either is missing or differs, or the transfer is in ASCII. "" resumes
	// unconditionally (curl's -C); other schemes ignore it.
	IfRange string

	// Head asks for the resource's metadata only (curl's -I): size, type
	// and time are filled and Body and Listing are nil.
	Head bool

	// Raw asks for a listing as the server's own bytes: the fetcher returns
	// a Body with them instead of a Listing where the protocol has any.
	Raw bool

	// IfModifiedSince and IfNoneMatch make the request conditional, for an
	// incremental mirror (--timestamping): http: and https: send them as the
	// If-Modified-Since (RFC 9110 §13.1.3, in the IMF-fixdate form of
	// http.TimeFormat, to the second) and If-None-Match (§13.1.2, an
	// entity-tag list such as `"abc"` or `W/"abc"`, sent as given) fields,
	// and a server that finds the resource unchanged answers with a
	// Resource whose NotModified is set. The zero time and "" send
	// nothing. Other schemes ignore them: their listings carry the sizes
	// and times to compare.
	IfModifiedSince time.Time
	IfNoneMatch     string

	// IfUnmodifiedSince makes the request conditional the other way
	// (curl's -z with a leading '-'): http: and https: send it as the
	// If-Unmodified-Since field (RFC 9110 §13.1.4, IMF-fixdate); a
	// server whose resource changed since answers 412 Precondition
	// Failed. The zero time sends nothing; other schemes ignore it.
	IfUnmodifiedSince time.Time

	// Range asks for a part of the resource, as curl's -r/--range gives
	// it: "first-last", "first-" or "-suffix" byte positions (RFC 9110
	// §14.1.2), and for http: and https: also several of them separated
	// by commas, sent as given in a Range field ("bytes=" + Range). ftp:
	// and file: read the first range only: REST or a seek to its start,
	// and no more than its length (a "-suffix" counts from the size SIZE
	// or stat gives). The Resource then has Offset at the first byte and
	// Size one past the last byte its Body carries. A server that
	// ignores the range sends the whole resource (Offset 0), as curl
	// writes it. Offset, when not 0, wins over it, as curl's -C does
	// over -r. "" asks for the whole resource; other schemes ignore it.
	Range string

	// Search holds search terms given apart from the URL (--search), for
	// gopher type-7 items and WAIS databases; nil when none were given
	// (an empty string is terms given empty).
	Search *string

	// Dialer opens every connection the fetcher makes. Never nil.
	Dialer Dialer

	// Proxy names the proxy Dialer's connections go through (its URL,
	// password masked), "" when they go direct. Active FTP refuses to
	// run through one: the server could not connect back through it.
	Proxy string

	// Route, when not nil, gives the way to each URL the fetch reaches,
	// URL itself and the targets of its redirects, whose proxy may
	// differ from URL's. The fetch package sets it for a fetcher that
	// speaks to an HTTP proxy itself (ViaHTTPProxy). Nil means every
	// connection goes through Dialer, with no proxy of the fetcher's.
	Route func(target uri.URL) (Route, error)

	// TLSConfig is the base TLS configuration (trust roots, -k). The
	// fetcher clones it and sets ServerName. Never nil.
	TLSConfig *tls.Config

	// ProxyTLSConfig is the TLS configuration of a connection to an
	// https proxy the fetcher speaks to itself (Route's HTTPProxy); nil
	// means TLSConfig.
	ProxyTLSConfig *tls.Config

	// Trace, when not nil, receives every protocol line the fetcher sends
	// and receives (curl's -v). Fetchers mask secrets before calling it
	// (TraceSecret does so for commands such as PASS and AUTHINFO PASS).
	Trace Tracer

	// MaxSize is the largest body the caller accepts, 0 for no limit. A
	// fetcher that learns the size up front fails with ErrTooLarge; the
	// fetch package enforces the limit on the stream as well.
	MaxSize int64

	// Capture, when not nil, receives what the fetch exchanged, for an
	// archive (see Capture): the fetch package sets it, with a Trace and
	// a Dialer that report to it too. An http fetcher records each
	// exchange into it and speaks HTTP/1.1 only; the others report the
	// raw bytes of their listings. Nil captures nothing.
	Capture Capture
}

// Direction tells which way a traced line went.
type Direction byte

// The directions a Tracer sees.
const (
	Sent     Direction = '>' // a line the client sent
	Received Direction = '<' // a line the server sent
	Info     Direction = '*' // a note from the client (connecting, TLS, …)
)

// Tracer receives the protocol conversation, one line at a time, without
// its line ending. It must be safe for use by several goroutines.
type Tracer func(dir Direction, line string)

// TraceLine calls t when it is not nil.
func (t Tracer) TraceLine(dir Direction, line string) {
	if t != nil {
		t(dir, line)
	}
}

// TraceSecret traces a sent command whose argument is a secret, such as
// "PASS " or "AUTHINFO PASS ", showing the command and a mask in its place.
func (t Tracer) TraceSecret(command string) {
	if t != nil {
		t(Sent, command+"****")
	}
}

// Kind says what an entry of a listing names.
type Kind int

// The kinds of entry a listing holds.
const (
	KindOther     Kind = iota // anything else the protocol names
	KindFile                  // a document, retrievable as bytes
	KindDirectory             // a directory or menu, retrievable as a listing
	KindSearch                // a search: needs terms (gopher type 7, a WAIS database)
	KindArticle               // a news article
	KindInfo                  // text only, naming nothing (a gopher 'i' line, an unreadable LIST line)
	KindLink                  // a symbolic link or a pointer to another URL
)

var kindNames = [...]string{"other", "file", "directory", "search", "article", "info", "link"}

// String returns the kind's name as the command prints it.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "other"
}

// Entry is one item of a listing. Every entry that names something carries
// its own absolute URL, so that anything listed can be fetched next; only
// KindInfo entries have an empty URL.
type Entry struct {
	URL         string            // absolute URL of the item, "" for KindInfo
	Name        string            // the item's name or title as the server gave it
	Kind        Kind              // what the item is
	Size        int64             // size in bytes, -1 when unknown
	ModTime     time.Time         // modification or posting time, zero when unknown
	Description string            // a longer description (newsgroup description, WAIS headline)
	Fields      map[string]string // protocol-specific fields (author, score, lines, type, …)
	Raw         string            // the server's own line for this entry, when it has one
}

// Listing is a stream of entries, read one at a time so that a large
// directory or newsgroup is never held in memory whole.
type Listing interface {
	// Next returns the next entry, or io.EOF after the last one. Any other
	// error ends the listing.
	Next() (Entry, error)
	// Close releases the listing's connection; it is safe to call twice.
	Close() error
}

// NameLister is implemented by a Listing whose entries are exactly the
// names the server sent, one a line, and whose default rendering is those
// names alone (FTP's NLST for ;type=d, RFC 1738 §3.2.2, which scripts rely
// on), as io.WriterTo is by a Reader that can do better than Read. A
// wrapper of a Listing passes it on.
type NameLister interface {
	Listing
	// NamesOnly reports whether the listing is to be shown as its
	// entries' names alone.
	NamesOnly() bool
}

// NamesOnly reports whether l asks to be shown as its entries' names alone
// (see NameLister).
func NamesOnly(l Listing) bool {
	n, ok := l.(NameLister)
	return ok && n.NamesOnly()
}

// Resource is what a Fetcher returns: a byte stream or a listing. Exactly one
// of Body and Listing is set, or neither when the request asked for Head or
// the server answered a conditional request with NotModified.
type Resource struct {
	// URL is the resource's final URL (after redirects), password masked.
	URL string

	// Body streams the resource's bytes, starting at Offset, until the
	// end of the resource: reads return io.EOF once every byte is in, and
	// an error of this package's taxonomy (ErrTruncated, ErrTimeout, …)
	// if the transfer ends short or fails.
	// The caller closes it, whether or not it read to the end; closing it
	// early abandons the transfer.
	Body io.ReadCloser

	// Listing streams the entries of a directory, menu, group or search
	// result. The caller closes it.
	Listing Listing

	ContentType string    // MIME type when the protocol says it, else ""
	Size        int64     // total size in bytes, -1 when unknown
	ModTime     time.Time // zero when unknown
	Name        string    // suggested local file name (decoded last segment), "" if none
	Offset      int64     // where Body starts within the resource (resume honoured)

	// Proto, StatusCode and Status are the status of a protocol with
	// one, as net/http's Response has them: for http: and https: the
	// protocol as curl names it ("HTTP/1.1", "HTTP/2"), the numeric code
	// and the code with its reason phrase ("200 OK"; "200" alone in
	// HTTP/2, which has none, RFC 9113 §8.3.2), so that the status line
	// reads Proto + " " + Status. For ftp: and ftps: StatusCode alone
	// is set, to the request's last reply (curl's %{response_code}):
	// the transfer command's 1yz while the body or listing is unread,
	// its final reply (226) once read to the end. Empty and 0 for the
	// other schemes.
	Proto      string
	StatusCode int
	Status     string

	// EntryPath is, for ftp: and ftps:, the directory the login began
	// in, as PWD named it (curl's %{ftp_entry_path}); "" when it is not
	// known: PWD is asked where a later request needs the answer, and
	// always with ftp.Fetcher.EntryPath.
	EntryPath string

	// Header holds protocol metadata worth showing with -I (HTTP header
	// fields, the FTP reply to SIZE, …), as name and value pairs in the
	// server's order and spelling. The status is not among them.
	Header [][2]string

	// NotModified tells that the server answered the conditions of
	// Request.IfModifiedSince or IfNoneMatch with 304 Not Modified (RFC
	// 9110 §15.4.5): the copy the caller holds is current. (A 304 to
	// conditions given as header fields, curl's -H, is an empty Body.) Body and
	// Listing are then nil; ModTime, Size (-1 unless the server sent a
	// Content-Length), ETag and Header are as the server sent them.
	NotModified bool

	// ETag is the entity-tag the server gave for the representation (RFC
	// 9110 §8.8.3), quotes and any W/ prefix included, ready to send back
	// as Request.IfNoneMatch; "" when it gave none or the protocol has
	// none (only http: and https: fill it).
	ETag string

	// Location is, for a redirect the fetcher returned rather than
	// followed (http.Fetcher's NoFollow, curl without -L), the absolute
	// URL it names, password masked: what curl's -w %{redirect_url}
	// shows. "" otherwise.
	Location string

	// StatusError is, for a response whose status is an error the
	// fetcher returned as a Resource rather than failing (http.Fetcher's
	// NoFail and FailWithBody: the Body is the server's error page), the
	// error of this package's taxonomy the status is; nil otherwise.
	// fetch.Client retries a temporary one (IsTemporary) as it retries a
	// failed fetch, as curl's --retry retries an HTTP 5xx, -f or not.
	StatusError error

	// Validator is a strong validator of the representation, to resume it
	// with later (Request.IfRange): for http: and https: a strong ETag, or
	// a Last-Modified at least a second before the response's Date (RFC
	// 9110 §8.8.2.2, §13.1.5); for ftp: and ftps: the SIZE and MDTM the
	// server gave (FileValidator), when it was asked them. "" when there
	// is none: a transfer that breaks off then cannot be resumed safely.
	Validator string
}

// FileValidator is the validator of a file known by its exact size and
// modification time (FTP's SIZE and MDTM, RFC 3659 §4 and §3, or an MLSD
// listing's size and modify facts, §7.5.5 and §7.5.3, which mean the
// same), to the second, as Request.IfRange carries it for ftp: and ftps:.
func FileValidator(size int64, mod time.Time) string {
	if size < 0 || mod.IsZero() {
		return ""
	}
	return "size=" + strconv.FormatInt(size, 10) + " mdtm=" + mod.UTC().Format("20060102150405")
}

// SameFile reports whether a file of this exact size and modification
// time (SIZE and MDTM's, to the second) is the one validator names
// (FileValidator). A validator made from a LIST line knows the time only
// to the minute ("Jan 02 15:04") or the day ("Jan 02  2006"), which shows
// as zero seconds, or a zero time of day: the time then compares to that
// precision, so that a file LIST showed can be resumed at all, while a
// change of size, or of time beyond the listing's precision, still
// restarts it.
func SameFile(validator string, size int64, mod time.Time) bool {
	v := FileValidator(size, mod)
	if v == "" || validator == "" {
		return false
	}
	if v == validator {
		return true
	}
	sz, t, ok := strings.Cut(validator, " mdtm=")
	if !ok || sz != "size="+strconv.FormatInt(size, 10) {
		return false
	}
	rec, err := time.Parse("20060102150405", t)
	if err != nil {
		return false
	}
	mod = mod.UTC()
	switch {
	case rec.Hour() == 0 && rec.Minute() == 0 && rec.Second() == 0:
		y, m, d := mod.Date()
		return rec.Equal(time.Date(y, m, d, 0, 0, 0, 0, time.UTC))
	case rec.Second() == 0:
		return rec.Equal(mod.Truncate(time.Minute))
	}
	return false
}

// SliceListing is a Listing over entries already in memory, for protocols
// whose listings are small by nature and for tests.
type SliceListing struct {
	Entries []Entry
	i       int
}

// Next returns the next entry, or io.EOF.
func (l *SliceListing) Next() (Entry, error) {
	if l.i >= len(l.Entries) {
		return Entry{}, io.EOF
	}
	e := l.Entries[l.i]
	l.i++
	return e, nil
}

// Close does nothing; it exists to satisfy Listing.
func (l *SliceListing) Close() error { return nil }

// IsEntryName reports whether name, as a directory listing gave it, can
// stand for one entry of that directory: not empty, ".", or "..", and
// without "/", NUL, CR or LF. Any other name, taken into the entry's URL,
// would lead outside the listed directory or split the command that
// fetches it (RFC 959 §3.1.1.5: CR LF ends a command), so it is shown but
// never given a URL.
func IsEntryName(name string) bool {
	switch name {
	case "", ".", "..":
		return false
	}
	return !strings.ContainsAny(name, "/\x00\r\n")
}
