package wais

import (
	"errors"
	"fmt"
	"strconv"
)

// The PDU layer: the Z39.50-1988 APDUs freeWAIS speaks, with the WAIS
// user-information part after them (testdata/wais/FORMAT.md §2, §5).

// PDU types (FORMAT.md §2).
const (
	pduInitRequest    = 20
	pduInitResponse   = 21
	pduSearchRequest  = 22
	pduSearchResponse = 23
)

// Z39.50 part tags (FORMAT.md §4).
const (
	tagReferenceID           = 2
	tagProtocolVersion       = 3
	tagOptions               = 4
	tagPreferredMessageSize  = 5
	tagMaximumRecordSize     = 6
	tagIDAuthentication      = 7
	tagImplementationID      = 8
	tagImplementationName    = 9
	tagImplementationVersion = 10
	tagResultSetName         = 17
	tagDatabaseNames         = 18
	tagElementSetNames       = 19
	tagQueryType             = 20
	tagQuery                 = 21
)

// Type-1 query tags (FORMAT.md §4, §5.6).
const (
	tagAttributeList = 44
	tagTerm          = 45
	tagOperator      = 46
)

// WAIS part tags (FORMAT.md §4).
const (
	tagUserInfo              = 99
	tagSeedWords             = 106
	tagDateFactor            = 111
	tagMaxDocumentsRetrieved = 114
	tagDocumentID            = 116
	tagVersionNumber         = 117
	tagScore                 = 118
	tagBestMatch             = 119
	tagDocumentLength        = 120
	tagSource                = 121
	tagDate                  = 122
	tagHeadline              = 123
	tagDocumentText          = 127
	tagLines                 = 131
	tagTypeBlock             = 132
	tagType                  = 133
	tagDocumentHeaderGroup   = 150
	tagShortHeaderGroup      = 151
	tagLongHeaderGroup       = 152
	tagDocumentTextGroup     = 153
)

// databaseSeparator joins several database names in DatabaseNames.
const databaseSeparator = 0x1f

// initRequest is the content of an InitRequest (FORMAT.md §5.1). Empty
// strings are left out.
type initRequest struct {
	PreferredMessageSize  int64
	MaximumRecordSize     int64
	IDAuthentication      string
	ImplementationID      string
	ImplementationName    string
	ImplementationVersion string
}

// bitmapFirst is a one-byte bit map with bit 0 (the most significant bit)
// set: protocol version 1 in ProtocolVersion, "will search" in Options.
var bitmapFirst = []byte{0x80}

// encodeInit builds a whole InitRequest message, header included.
func encodeInit(r initRequest) []byte {
	z := []byte{pduInitRequest}
	z = appendItem(z, tagProtocolVersion, bitmapFirst)
	// Options: will search only. Asking for present or delete makes the
	// server refuse the Init (FORMAT.md §5.1).
	z = appendItem(z, tagOptions, bitmapFirst)
	z = appendNumber(z, tagPreferredMessageSize, r.PreferredMessageSize)
	z = appendNumber(z, tagMaximumRecordSize, r.MaximumRecordSize)
	for _, f := range []struct {
		tag int
		s   string
	}{
		{tagIDAuthentication, r.IDAuthentication},
		{tagImplementationID, r.ImplementationID},
		{tagImplementationName, r.ImplementationName},
		{tagImplementationVersion, r.ImplementationVersion},
	} {
		if f.s != "" {
			z = appendString(z, f.tag, f.s)
		}
	}
	return message(z, nil)
}

// message wraps a Z39.50 part and a WAIS part into body and header
// (FORMAT.md §2: a 2-byte length counts the Z39.50 part only).
func message(z, wais []byte) []byte {
	n := 2 + len(z) + len(wais)
	m := make([]byte, 0, headerLen+n)
	m = appendHeader(m, n)
	m = appendFixed(m, len(z), 2)
	m = append(m, z...)
	return append(m, wais...)
}

// initResponse is the content of an InitResponse (FORMAT.md §5.2).
type initResponse struct {
	Accepted              bool
	PreferredMessageSize  int64
	MaximumRecordSize     int64
	ImplementationID      string
	ImplementationName    string
	ImplementationVersion string
}

// splitBody separates a message body into its Z39.50 and WAIS parts.
func splitBody(body []byte) (z, wais []byte, err error) {
	d := decoder{b: body}
	n, err := d.fixed(2)
	if err != nil {
		return nil, nil, errors.New("message body shorter than its 2-byte length")
	}
	if z, err = d.take(n); err != nil {
		return nil, nil, fmt.Errorf("Z39.50 part of %d bytes runs past the %d-byte body", n, len(body))
	}
	if len(z) == 0 {
		return nil, nil, errors.New("empty Z39.50 part")
	}
	return z, body[d.off:], nil
}

// decodeInitResponse decodes an InitResponse body.
func decodeInitResponse(body []byte) (initResponse, error) {
	var r initResponse
	z, _, err := splitBody(body)
	if err != nil {
		return r, err
	}
	d := decoder{b: z}
	pdu, _ := d.byte1()
	if pdu != pduInitResponse {
		return r, fmt.Errorf("PDU type %d in reply to an InitRequest", pdu)
	}
	result, err := d.byte1()
	if err != nil {
		return r, fmt.Errorf("InitResponse: %w", err)
	}
	r.Accepted = result != 0
	for !d.done() {
		tag, v, err := d.item()
		if err != nil {
			return r, fmt.Errorf("InitResponse: %w", err)
		}
		switch tag {
		case tagPreferredMessageSize:
			r.PreferredMessageSize, err = number(v)
		case tagMaximumRecordSize:
			r.MaximumRecordSize, err = number(v)
		case tagImplementationID:
			r.ImplementationID = string(v)
		case tagImplementationName:
			r.ImplementationName = string(v)
		case tagImplementationVersion:
			r.ImplementationVersion = string(v)
		}
		if err != nil {
			return r, fmt.Errorf("InitResponse field %d: %w", tag, err)
		}
	}
	return r, nil
}

// encodeKeywordSearch builds a type-3 (relevance feedback) SearchRequest
// for seed words in one database, laid out as waissearch lays it out
// (FORMAT.md §5.3).
func encodeKeywordSearch(database, seed string, maxDocs int) []byte {
	z := []byte{pduSearchRequest}
	z = appendFixed(z, 30, 3)   // SmallSetUpperBound
	z = appendFixed(z, 5000, 3) // LargeSetLowerBound
	z = appendFixed(z, 30, 3)   // MediumSetPresentNumber
	z = append(z, 1)            // ReplaceIndicator
	z = appendString(z, tagResultSetName, "")
	z = appendString(z, tagDatabaseNames, database)
	z = appendString(z, tagQueryType, "3")

	var g []byte
	g = appendString(g, tagSeedWords, seed)
	g = appendNumber(g, tagDateFactor, 1)
	g = appendNumber(g, tagMaxDocumentsRetrieved, int64(maxDocs))
	return message(z, appendItem(nil, tagUserInfo, g))
}

// Range units of a retrieval (FORMAT.md §5.6).
const (
	unitBytes = "wb"
	unitLines = "wl"
)

// encodeRetrieval builds the SearchRequest that fetches [start, end) of a
// document: a type-1 query naming the id, the type and the range, in
// postfix order (FORMAT.md §5.6). The server needs both the type term and
// the range terms, so this builds nothing without them.
func encodeRetrieval(database string, id []byte, docType, unit string, start, end int64) []byte {
	z := []byte{pduSearchRequest}
	// The set bounds, the result set name and the reference id are the
	// values waissearch sends; the server ignores them but echoes the id.
	z = appendFixed(z, 10, 3)
	z = appendFixed(z, 16, 3)
	z = appendFixed(z, 15, 3)
	z = append(z, 1)
	z = appendString(z, tagResultSetName, "FOO")
	z = appendString(z, tagDatabaseNames, database)
	z = appendString(z, tagQueryType, "1")
	// ElementSetNames: a blank database part, 0x1F, "Document Text".
	z = appendString(z, tagElementSetNames, " \x1fDocument Text")
	z = appendString(z, tagReferenceID, "3")

	var q []byte
	q = appendString(q, tagAttributeList, "un re ig ig ig ig")
	q = appendItem(q, tagTerm, id)
	q = appendString(q, tagAttributeList, "wt re ig ig ig ig")
	q = appendString(q, tagTerm, docType)
	q = appendString(q, tagOperator, "a")
	q = appendString(q, tagAttributeList, unit+" ro ig ig ig ig")
	q = appendString(q, tagTerm, strconv.FormatInt(start, 10))
	q = appendString(q, tagOperator, "a")
	q = appendString(q, tagAttributeList, unit+" rl ig ig ig ig")
	q = appendString(q, tagTerm, strconv.FormatInt(end, 10))
	q = appendString(q, tagOperator, "a")
	return message(z, appendItem(nil, tagQuery, q))
}

// diagnostic is one diagnostic record (FORMAT.md §3.3).
type diagnostic struct {
	Code      string // two letters: "S1", "SF"
	AddInfo   string
	Surrogate bool
}

// String formats the diagnostic as "SF Request out of range".
func (d diagnostic) String() string {
	if d.AddInfo == "" {
		return d.Code
	}
	return d.Code + " " + d.AddInfo
}

// decodeDiagnostic decodes the value of a tag-28 record.
func decodeDiagnostic(v []byte) (diagnostic, error) {
	if len(v) < 3 {
		return diagnostic{}, fmt.Errorf("diagnostic record of %d bytes", len(v))
	}
	return diagnostic{
		Code:      string(v[:2]),
		AddInfo:   string(v[2 : len(v)-1]),
		Surrogate: v[len(v)-1] != 0,
	}, nil
}

// maxDiagnostics bounds how many diagnostics of one reply are kept.
const maxDiagnostics = 8

// searchResponse is a decoded SearchResponse. Records keeps the items of
// the WAIS part (the inside of group 99) undecoded, so that headers and
// text are decoded one at a time by records().
type searchResponse struct {
	Status       int
	ResultCount  int
	RecordsCount int // NumberOfRecordsReturned: diagnostics included
	NextPosition int
	ReferenceID  string
	Headers      int // number of document header groups
	Texts        int // number of document text groups
	Diagnostics  []diagnostic
	records      []byte
}

// decodeSearchResponse decodes a SearchResponse body and checks every item
// of its WAIS part, so that a reply that decodes here cannot fail later.
func decodeSearchResponse(body []byte) (*searchResponse, error) {
	z, w, err := splitBody(body)
	if err != nil {
		return nil, err
	}
	r := &searchResponse{}
	d := decoder{b: z}
	pdu, _ := d.byte1()
	if pdu != pduSearchResponse {
		return nil, fmt.Errorf("PDU type %d in reply to a SearchRequest", pdu)
	}
	// FORMAT.md §5.4: SearchStatus 1 byte, then three 3-byte counts.
	fields := []*int{&r.ResultCount, &r.RecordsCount, &r.NextPosition}
	s, err := d.byte1()
	if err != nil {
		return nil, fmt.Errorf("SearchResponse: %w", err)
	}
	r.Status = int(s)
	for _, f := range fields {
		if *f, err = d.fixed(3); err != nil {
			return nil, fmt.Errorf("SearchResponse: %w", err)
		}
	}
	for !d.done() {
		tag, v, err := d.item()
		if err != nil {
			return nil, fmt.Errorf("SearchResponse: %w", err)
		}
		switch tag {
		case tagReferenceID:
			r.ReferenceID = string(v)
		case tagDiagnostic:
			if err := r.addDiagnostic(v); err != nil {
				return nil, err
			}
		}
	}
	// The WAIS part is usually one group 99; accept its items bare too.
	r.records = w
	wd := decoder{b: w}
	if !wd.done() {
		save := wd.off
		tag, v, err := wd.item()
		if err == nil && tag == tagUserInfo && wd.done() {
			r.records = v
		} else {
			wd.off = save
		}
	}
	rd := decoder{b: r.records}
	for !rd.done() {
		tag, v, err := rd.item()
		if err != nil {
			return nil, fmt.Errorf("SearchResponse WAIS part: %w", err)
		}
		switch tag {
		case tagDocumentHeaderGroup, tagShortHeaderGroup, tagLongHeaderGroup:
			if _, err := decodeDocHeader(v); err != nil {
				return nil, err
			}
			r.Headers++
		case tagDocumentTextGroup:
			if _, err := decodeDocText(v); err != nil {
				return nil, err
			}
			r.Texts++
		case tagDiagnostic:
			if err := r.addDiagnostic(v); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

func (r *searchResponse) addDiagnostic(v []byte) error {
	dg, err := decodeDiagnostic(v)
	if err != nil {
		return err
	}
	if len(r.Diagnostics) < maxDiagnostics {
		r.Diagnostics = append(r.Diagnostics, dg)
	}
	return nil
}

// recordIter walks the records of a decoded SearchResponse one at a time.
type recordIter struct {
	d decoder
}

func (r *searchResponse) iter() recordIter { return recordIter{d: decoder{b: r.records}} }

// nextHeader returns the next document header, or ok=false after the last.
func (it *recordIter) nextHeader() (h docHeader, ok bool, err error) {
	for !it.d.done() {
		tag, v, err := it.d.item()
		if err != nil {
			return h, false, err
		}
		switch tag {
		case tagDocumentHeaderGroup, tagShortHeaderGroup, tagLongHeaderGroup:
			h, err := decodeDocHeader(v)
			return h, err == nil, err
		}
	}
	return h, false, nil
}

// nextText returns the next document text record, or ok=false after the last.
func (it *recordIter) nextText() (t docText, ok bool, err error) {
	for !it.d.done() {
		tag, v, err := it.d.item()
		if err != nil {
			return t, false, err
		}
		if tag == tagDocumentTextGroup {
			t, err := decodeDocText(v)
			return t, err == nil, err
		}
	}
	return t, false, nil
}

// maxTypes bounds how many types of one document are kept.
const maxTypes = 16

// docHeader is one DocumentHeaderGroup (FORMAT.md §5.4). Absent numbers
// are -1.
type docHeader struct {
	ID       []byte
	Score    int64
	Best     int64
	Length   int64
	Lines    int64
	Types    []string
	Source   string
	Date     string
	Headline string
}

// decodeDocHeader decodes the value of a header group, going by tag and
// accepting any field missing.
func decodeDocHeader(v []byte) (docHeader, error) {
	h := docHeader{Score: -1, Best: -1, Length: -1, Lines: -1}
	d := decoder{b: v}
	for !d.done() {
		tag, v, err := d.item()
		if err != nil {
			return h, fmt.Errorf("document header: %w", err)
		}
		switch tag {
		case tagDocumentID:
			h.ID = v
		case tagScore:
			h.Score, err = number(v)
		case tagBestMatch:
			h.Best, err = number(v)
		case tagDocumentLength:
			h.Length, err = number(v)
		case tagLines:
			h.Lines, err = number(v)
		case tagSource:
			h.Source = string(v)
		case tagDate:
			h.Date = string(v)
		case tagHeadline:
			h.Headline = string(v)
		case tagTypeBlock:
			td := decoder{b: v}
			for !td.done() {
				t, tv, terr := td.item()
				if terr != nil {
					return h, fmt.Errorf("document header type block: %w", terr)
				}
				if t == tagType && len(h.Types) < maxTypes {
					h.Types = append(h.Types, string(tv))
				}
			}
		}
		if err != nil {
			return h, fmt.Errorf("document header field %d: %w", tag, err)
		}
	}
	if h.ID == nil {
		return h, errors.New("document header without a document id")
	}
	return h, nil
}

// docText is one DocumentTextGroup (FORMAT.md §5.7).
type docText struct {
	ID   []byte
	Text []byte
}

// decodeDocText decodes the value of a text group.
func decodeDocText(v []byte) (docText, error) {
	var t docText
	d := decoder{b: v}
	hasText := false
	for !d.done() {
		tag, v, err := d.item()
		if err != nil {
			return t, fmt.Errorf("document text: %w", err)
		}
		switch tag {
		case tagDocumentID:
			t.ID = v
		case tagDocumentText:
			t.Text, hasText = v, true
		}
	}
	if !hasText {
		return t, errors.New("document text record without text")
	}
	return t, nil
}
