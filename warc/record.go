package warc

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"time"
)

// Type is a record's WARC-Type (WARC 1.1 §5.5 and §6).
type Type string

// The record types this package writes (WARC 1.1 §6.2–§6.7: warcinfo, response, resource,
// request, metadata, revisit).
const (
	Warcinfo Type = "warcinfo"
	Request  Type = "request"
	Response Type = "response"
	Resource Type = "resource"
	Metadata Type = "metadata"
	Revisit  Type = "revisit"
)

// The reasons a block may be cut short, the values of WARC-Truncated
// (WARC 1.1 §5.15).
const (
	TruncatedLength      = "length"
	TruncatedTime        = "time"
	TruncatedDisconnect  = "disconnect"
	TruncatedUnspecified = "unspecified"
)

// Content types of HTTP blocks (WARC 1.1 §6.3.2 for a response, §6.5.2
// for a request).
const (
	HTTPRequestType  = "application/http;msgtype=request"
	HTTPResponseType = "application/http;msgtype=response"
)

// ProfileIdenticalPayload is the revisit profile of a record whose payload
// is the same as an earlier capture's (WARC 1.1 §6.7.2).
const ProfileIdenticalPayload = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

// Field is one named header field or warcinfo field, in the order given.
type Field struct {
	Name, Value string
}

// Header is what the caller says about a record; the writer adds
// WARC-Record-ID (unless ID is set), WARC-Date (unless Date is set),
// WARC-Warcinfo-ID, Content-Length and the digests.
type Header struct {
	Type Type
	// ID is the record's WARC-Record-ID, "<urn:uuid:…>"; empty: a new one.
	// Set it from [NewRecordID] when another record must name this one
	// (WARC-Concurrent-To) before it is written.
	ID string
	// Date is the capture's time, WARC-Date (§5.4); zero: now.
	Date time.Time
	// TargetURI is WARC-Target-URI (§5.14), passwords already removed by
	// the caller; control bytes and spaces are percent-encoded.
	TargetURI string
	// IPAddress is WARC-IP-Address (§5.10): the server's address.
	IPAddress string
	// ContentType is the block's Content-Type (§5.6): HTTPResponseType,
	// HTTPRequestType, or the document's own type for a resource.
	ContentType string
	// ConcurrentTo lists WARC-Concurrent-To (§5.7): the other records of
	// one exchange.
	ConcurrentTo []string
	// Truncated is WARC-Truncated (§5.15): why the block is shorter than
	// the resource; empty when it is whole. [Record.Truncate] sets it too.
	Truncated string
	// The revisit's fields (§6.7.2): WARC-Profile (§5.18; empty:
	// ProfileIdenticalPayload), the earlier capture's record ID, URI and
	// date (WARC-Refers-To, WARC-Refers-To-Target-URI and
	// WARC-Refers-To-Date, §5.11–§5.13), and PayloadDigest, the earlier
	// payload's digest ("sha1:…", WARC-Payload-Digest, §5.9).
	Profile           string
	RefersTo          string
	RefersToTargetURI string
	RefersToDate      time.Time
	PayloadDigest     string
	// Fields are more header fields, written after the others; a name
	// that is not an RFC 9110 token is refused.
	Fields []Field
}

// NewRecordID returns a new WARC-Record-ID: a random (version 4) UUID as a
// URN in angle brackets (WARC 1.1 §5.2, RFC 9562 §5.4).
func NewRecordID() string {
	var u [16]byte
	rand.Read(u[:]) // crypto/rand.Read never fails (Go 1.24)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// FormatDate returns t as WARC-Date writes it: UTC, to the second, as
// W3C-ISO8601 (WARC 1.1 §5.4). Seconds are what wget and the CDX's
// 14-digit timestamp carry.
func FormatDate(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

// Timestamp returns t as the 14 digits of a CDX or CDXJ line.
func Timestamp(t time.Time) string {
	return t.UTC().Format("20060102150405")
}

var b32 = base32.StdEncoding

// Digest returns "sha1:" and the base32 of a finished sha1, the form wget,
// warcio and Heritrix write (WARC 1.1 §5.8 and §5.9 leave the algorithm open).
func Digest(h hash.Hash) string {
	return "sha1:" + b32.EncodeToString(h.Sum(nil))
}

// DigestOf returns the digest of p as Digest writes it.
func DigestOf(p []byte) string {
	h := sha1.New()
	h.Write(p)
	return Digest(h)
}

// ErrFieldName is the error for a header or warcinfo field whose name is
// not a token.
var ErrFieldName = errors.New("warc: field name is not a token")

// validName tells whether a field name is an RFC 9110 §5.6.2 token, as
// WARC 1.1 §4 requires of field names.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

// cleanValue makes a field value safe to write on one line: a CR, LF or
// other control byte from a server (a content type, an FTP reply) becomes
// a space, so that no value can end its line and start a field of its own
// (WARC 1.1 §4: a field value is TEXT, line folding aside).
func cleanValue(v string) string {
	clean := true
	for i := 0; i < len(v); i++ {
		if v[i] < ' ' || v[i] == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return strings.TrimSpace(v)
	}
	b := []byte(v)
	for i, c := range b {
		if c < ' ' || c == 0x7f {
			b[i] = ' '
		}
	}
	return strings.TrimSpace(string(b))
}

// cleanURI makes a URI safe as WARC-Target-URI: control bytes, spaces and
// bytes past ASCII are percent-encoded, since WARC 1.1 §5.14 wants a URI
// (RFC 3986 has no raw space or control byte) and the CDX separates its
// columns with spaces.
func cleanURI(u string) string {
	clean := true
	for i := 0; i < len(u); i++ {
		if u[i] <= ' ' || u[i] >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return u
	}
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c <= ' ' || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// idBrackets encodes the angle brackets inside a record ID.
var idBrackets = strings.NewReplacer("<", "%3C", ">", "%3E")

// cleanID keeps a record ID to the "<uri>" WARC 1.1 §5.2 asks for: no
// spaces or control bytes, in angle brackets.
func cleanID(id string) string {
	id = cleanURI(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(id), "<"), ">"))
	if strings.ContainsAny(id, "<>") {
		id = idBrackets.Replace(id)
	}
	return "<" + id + ">"
}

// headerBuf accumulates a record's header lines.
type headerBuf struct {
	strings.Builder
}

func (h *headerBuf) field(name, value string) {
	h.WriteString(name)
	h.WriteString(": ")
	h.WriteString(value)
	h.WriteString("\r\n")
}

// formatHeader writes the record's header section (WARC 1.1 §4): the
// version line, the named fields in a fixed order, and the empty line.
func formatHeader(h *Header, warcinfoID string, length int64, blockDigest, payloadDigest string) (string, error) {
	for _, f := range h.Fields {
		if !validName(f.Name) {
			return "", fmt.Errorf("%w: %q", ErrFieldName, f.Name)
		}
	}
	var b headerBuf
	b.WriteString("WARC/1.1\r\n")
	b.field("WARC-Type", cleanValue(string(h.Type)))
	b.field("WARC-Record-ID", cleanID(h.ID))
	b.field("WARC-Date", FormatDate(h.Date))
	if h.TargetURI != "" {
		b.field("WARC-Target-URI", cleanURI(h.TargetURI))
	}
	if h.IPAddress != "" {
		b.field("WARC-IP-Address", cleanValue(h.IPAddress))
	}
	if warcinfoID != "" && h.Type != Warcinfo {
		b.field("WARC-Warcinfo-ID", cleanID(warcinfoID))
	}
	for _, id := range h.ConcurrentTo {
		b.field("WARC-Concurrent-To", cleanID(id))
	}
	if h.Type == Revisit {
		p := h.Profile
		if p == "" {
			p = ProfileIdenticalPayload
		}
		b.field("WARC-Profile", cleanURI(p))
		if h.RefersTo != "" {
			b.field("WARC-Refers-To", cleanID(h.RefersTo))
		}
		if h.RefersToTargetURI != "" {
			b.field("WARC-Refers-To-Target-URI", cleanURI(h.RefersToTargetURI))
		}
		if !h.RefersToDate.IsZero() {
			b.field("WARC-Refers-To-Date", FormatDate(h.RefersToDate))
		}
	}
	if h.Truncated != "" {
		b.field("WARC-Truncated", cleanValue(h.Truncated))
	}
	if h.ContentType != "" {
		b.field("Content-Type", cleanValue(h.ContentType))
	}
	b.field("WARC-Block-Digest", blockDigest)
	if payloadDigest != "" {
		b.field("WARC-Payload-Digest", cleanValue(payloadDigest))
	}
	for _, f := range h.Fields {
		b.field(f.Name, cleanValue(f.Value))
	}
	b.field("Content-Length", strconv.FormatInt(length, 10))
	b.WriteString("\r\n")
	return b.String(), nil
}
