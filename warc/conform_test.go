package warc

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var (
	labelledSHA1 = regexp.MustCompile(`^sha1:[A-Z2-7]{32}$`)
	warcDate     = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
)

// conforms checks one record read back against what WARC 1.1 asks of its
// type, field by field, and returns what it breaks.
func conforms(r read) []string {
	h := r.head
	typ := Type(h.Get("WARC-Type"))
	var bad []string
	count := map[string]int{}
	for _, f := range h.Fields {
		count[strings.ToLower(f.Name)]++
	}
	// §5.1: no field twice but WARC-Concurrent-To; §5.2–§5.5: four
	// fields on every record.
	for name, n := range count {
		if n > 1 && name != "warc-concurrent-to" {
			bad = append(bad, name+" repeated")
		}
	}
	for _, name := range []string{"warc-record-id", "content-length", "warc-date", "warc-type"} {
		if count[name] != 1 {
			bad = append(bad, name+" missing")
		}
	}
	if h.Version != "WARC/1.1" {
		bad = append(bad, "version "+h.Version)
	}
	if !validID(h.Get("WARC-Record-ID")) {
		bad = append(bad, "record ID "+h.Get("WARC-Record-ID"))
	}
	if !warcDate.MatchString(h.Get("WARC-Date")) {
		bad = append(bad, "WARC-Date "+h.Get("WARC-Date"))
	}
	// §5.14: a target URI on request, response, resource and revisit
	// records, none on warcinfo.
	switch typ {
	case Request, Response, Resource, Revisit:
		if count["warc-target-uri"] != 1 {
			bad = append(bad, "no WARC-Target-URI")
		}
	case Warcinfo:
		if count["warc-target-uri"] != 0 {
			bad = append(bad, "WARC-Target-URI on warcinfo")
		}
	}
	// §5.7, §5.10, §5.16: not on warcinfo. §5.17: WARC-Filename only on
	// it.
	if typ == Warcinfo {
		for _, name := range []string{"warc-concurrent-to", "warc-ip-address", "warc-warcinfo-id"} {
			if count[name] != 0 {
				bad = append(bad, name+" on warcinfo")
			}
		}
		if h.Get("WARC-Filename") == "" || h.Get("Content-Type") != "application/warc-fields" {
			bad = append(bad, "warcinfo without WARC-Filename or application/warc-fields")
		}
	} else if count["warc-filename"] != 0 {
		bad = append(bad, "WARC-Filename on "+string(typ))
	}
	// §5.11–§5.13, §5.18: the revisit's own fields; §6.7.2: its profile,
	// its payload digest, and a block cut to leave the payload out marked
	// WARC-Truncated: length.
	if typ == Revisit {
		if h.Get("WARC-Profile") != ProfileIdenticalPayload || h.Get("WARC-Payload-Digest") == "" {
			bad = append(bad, "revisit without its profile or payload digest")
		}
		if len(r.block) > 0 && h.Get("WARC-Truncated") != TruncatedLength {
			bad = append(bad, "revisit with a block not marked WARC-Truncated: length")
		}
	} else {
		for _, name := range []string{"warc-profile", "warc-refers-to-target-uri", "warc-refers-to-date"} {
			if count[name] != 0 {
				bad = append(bad, name+" on "+string(typ))
			}
		}
	}
	// §4, §5.9: no payload, and no payload digest, on warcinfo and
	// metadata records.
	if (typ == Warcinfo || typ == Metadata) && count["warc-payload-digest"] != 0 {
		bad = append(bad, "payload digest on "+string(typ))
	}
	for _, name := range []string{"WARC-Block-Digest", "WARC-Payload-Digest"} {
		if d := h.Get(name); d != "" && !labelledSHA1.MatchString(d) {
			bad = append(bad, name+" "+d)
		}
	}
	if d := h.Get("WARC-Refers-To-Date"); d != "" && !warcDate.MatchString(d) {
		bad = append(bad, "WARC-Refers-To-Date "+d)
	}
	// §6.3.2, §6.5.2: the HTTP messages' types.
	switch {
	case typ == Request && h.Get("Content-Type") != HTTPRequestType,
		typ == Response && h.Get("Content-Type") != HTTPResponseType:
		bad = append(bad, "Content-Type "+h.Get("Content-Type")+" on "+string(typ))
	}
	// §7: no segments.
	for name := range count {
		if strings.HasPrefix(name, "warc-segment-") {
			bad = append(bad, name)
		}
	}
	return bad
}

// TestRecordsConform writes a record of each type, as TestEveryRecordType
// does, and checks each against WARC 1.1's rules for its type: the
// revisit of an HTTP response, its header section kept and its payload
// left out, is marked WARC-Truncated: length, and a resource's revisit
// with no block is not.
func TestRecordsConform(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(filepath.Join(dir, "c"), Options{Software: "urlget/test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures() {
		record(t, w, f.h, f.block, 5)
	}
	date := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	record(t, w, Header{Type: Revisit, TargetURI: "ftp://127.0.0.1/pub/a.txt", RefersTo: NewRecordID(),
		RefersToTargetURI: "ftp://127.0.0.1/pub/a.txt", RefersToDate: date, PayloadDigest: DigestOf([]byte("a file over ftp\n"))}, nil, 1)
	w.Close()
	recs := readAll(t, filepath.Join(dir, "c.warc.gz"))
	for i, r := range recs {
		if bad := conforms(r); len(bad) > 0 {
			t.Errorf("record %d (%s): %s", i, r.head.Get("WARC-Type"), strings.Join(bad, "; "))
		}
	}
	last := recs[len(recs)-1].head
	if last.Get("WARC-Truncated") != "" || last.Get("Content-Length") != "0" {
		t.Errorf("a revisit with no block: WARC-Truncated %q, Content-Length %s", last.Get("WARC-Truncated"), last.Get("Content-Length"))
	}
}

// TestBeginRefuses: a header that would break WARC 1.1 is refused before
// any byte is written: a request, response, resource or revisit with no
// target URI (§5.14), an identical-payload-digest revisit with no payload
// digest (§6.7.2), a field the writer writes itself given again (§5.1,
// §5.17, §7).
func TestBeginRefuses(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "r"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, typ := range []Type{Request, Response, Resource, Revisit} {
		if _, err := w.Begin(Header{Type: typ, PayloadDigest: DigestOf(nil)}); !errors.Is(err, ErrTargetURI) {
			t.Errorf("a %s with no target URI: %v", typ, err)
		}
	}
	if _, err := w.Begin(Header{Type: Revisit, TargetURI: "http://127.0.0.1/"}); !errors.Is(err, ErrRevisitDigest) {
		t.Errorf("a revisit with no payload digest: %v", err)
	}
	for _, name := range []string{"WARC-Date", "content-length", "WARC-Filename", "WARC-Segment-Number", "WARC-Payload-Digest"} {
		if _, err := w.Begin(Header{Type: Resource, TargetURI: "file:///a", Fields: []Field{{name, "x"}}}); !errors.Is(err, ErrDefinedField) {
			t.Errorf("field %s given: %v", name, err)
		}
	}
	// What WARC 1.1 allows: a metadata record with no target URI, a
	// revisit of another profile with no digest, and
	// WARC-Identified-Payload-Type (§5.19) from the caller.
	for _, h := range []Header{
		{Type: Metadata},
		{Type: Revisit, TargetURI: "http://127.0.0.1/", Profile: "http://netpreserve.org/warc/1.1/revisit/server-not-modified"},
		{Type: Resource, TargetURI: "file:///a", Fields: []Field{{"WARC-Identified-Payload-Type", "text/plain"}}},
	} {
		r, err := w.Begin(h)
		if err != nil {
			t.Errorf("%+v: %v", h, err)
			continue
		}
		r.Discard()
	}
}

// TestNoPayloadDigestOnMetadata: a metadata record holding an HTTP
// message (a caller's choice of Content-Type) still has no payload, and
// so no WARC-Payload-Digest (WARC 1.1 §4, §5.9).
func TestNoPayloadDigestOnMetadata(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(filepath.Join(dir, "m"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := record(t, w, Header{Type: Metadata, TargetURI: "http://127.0.0.1/", ContentType: HTTPResponseType},
		[]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"), 1)
	w.Close()
	if e.PayloadDigest != "" {
		t.Errorf("entry's payload digest %s", e.PayloadDigest)
	}
	recs := readAll(t, filepath.Join(dir, "m.warc.gz"))
	if d := recs[1].head.Get("WARC-Payload-Digest"); d != "" {
		t.Errorf("metadata record with payload digest %s", d)
	}
	if bad := conforms(recs[1]); len(bad) > 0 {
		t.Error(bad)
	}
}
