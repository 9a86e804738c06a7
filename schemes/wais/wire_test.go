package wais

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rec is the directory of the recorded freeWAIS-sf exchanges
// (testdata/wais/README.md).
const rec = "../../testdata/wais"

// readMsg reads a whole recorded message.
func readMsg(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(rec, name))
	if err != nil {
		t.Fatalf("recording missing: %v", err)
	}
	return b
}

// readBody reads a recorded message and returns its body after checking
// that the header announces exactly its length.
func readBody(t testing.TB, name string) []byte {
	t.Helper()
	b := readMsg(t, name)
	h, err := parseHeader(b)
	if err != nil {
		t.Fatalf("%s: header: %v", name, err)
	}
	if h.Length != len(b)-headerLen {
		t.Fatalf("%s: header announces %d bytes, file holds %d", name, h.Length, len(b)-headerLen)
	}
	return b[headerLen:]
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(rec, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCompressed(t *testing.T) {
	// FORMAT.md §3.1, with the file and offset each value comes from.
	for _, c := range []struct {
		v   int
		enc []byte
	}{
		{0, []byte{0x00}},
		{10, []byte{0x0a}},
		{127, []byte{0x7f}},
		{128, []byte{0x81, 0x00}},
		{150, []byte{0x81, 0x16}},
		{171, []byte{0x81, 0x2b}},
		{1075, []byte{0x88, 0x33}},
		{10000, []byte{0xce, 0x10}},
		{65536, []byte{0x84, 0x80, 0x00}},
		{maxCompressed, []byte{0xff, 0xff, 0xff, 0x7f}},
	} {
		if got := appendCompressed(nil, c.v); !bytes.Equal(got, c.enc) {
			t.Errorf("appendCompressed(%d) = % x, want % x", c.v, got, c.enc)
		}
		d := decoder{b: c.enc}
		got, err := d.compressed()
		if err != nil || got != c.v || !d.done() {
			t.Errorf("compressed(% x) = %d, %v; want %d", c.enc, got, err, c.v)
		}
	}
	for _, bad := range [][]byte{{}, {0x81}, {0x81, 0x82, 0x83, 0x84, 0x05}} {
		d := decoder{b: bad}
		if v, err := d.compressed(); err == nil {
			t.Errorf("compressed(% x) = %d, want an error", bad, v)
		}
	}
}

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		v   int64
		enc []byte // tag 5 item
	}{
		{0, []byte{5, 1, 0}},
		{242, []byte{5, 1, 0xf2}},
		{4096, []byte{5, 2, 0x10, 0x00}},
		{100000, []byte{5, 3, 0x01, 0x86, 0xa0}},
		{150078, []byte{5, 3, 0x02, 0x4a, 0x3e}},
		{1 << 24, []byte{5, 4, 1, 0, 0, 0}},
		{-1, []byte{5, 4, 0xff, 0xff, 0xff, 0xff}},
	} {
		if got := appendNumber(nil, 5, c.v); !bytes.Equal(got, c.enc) {
			t.Errorf("appendNumber(%d) = % x, want % x", c.v, got, c.enc)
		}
		v, err := number(c.enc[2:])
		if err != nil || v != c.v {
			t.Errorf("number(% x) = %d, %v; want %d", c.enc[2:], v, err, c.v)
		}
	}
	for _, bad := range [][]byte{{}, {1, 2, 3, 4, 5}} {
		if _, err := number(bad); err == nil {
			t.Errorf("number(% x): want an error", bad)
		}
	}
}

func TestParseHeader(t *testing.T) {
	h, err := parseHeader(readMsg(t, "s1-search-river/00-c2s-init.bin"))
	if err != nil || h.Length != 158 || h.Type != 'z' || h.Version != '2' {
		t.Fatalf("parseHeader = %+v, %v", h, err)
	}
	// FORMAT.md §1: the oversize reply is a header with length 0.
	empty := readMsg(t, "probes/p4-oversize-chunk-then-normal/00-s2c-retrieve-leviathan-0-150078.bin")
	if h, err := parseHeader(empty); err != nil || h.Length != 0 || len(empty) != headerLen {
		t.Fatalf("oversize reply: %+v, %v", h, err)
	}
	if got := appendHeader(nil, 0); !bytes.Equal(got, empty) {
		t.Errorf("appendHeader(0) = %q, want %q", got, empty)
	}
	for _, bad := range []string{
		"000000015",                    // short
		"00000001x8z2wais        0",    // not decimal
		"0000000158a2wais        0",    // not a Z39.50 message
		"0000000158z3wais        0",    // version above 2
		"-000000158z2wais        0",    // sign
		"0000000158z\x00wais        0", // version byte not a digit
	} {
		if h, err := parseHeader([]byte(bad)); err == nil {
			t.Errorf("parseHeader(%q) = %+v, want an error", bad, h)
		}
	}
}

// waissearchInit is the Init waissearch sent in every recorded session.
var waissearchInit = initRequest{
	PreferredMessageSize:  100000,
	MaximumRecordSize:     100000,
	IDAuthentication:      "waissearch freeWAIS-sf 2.2.8 string, from host: wais.example.unknown, user: root",
	ImplementationID:      "LS6",
	ImplementationName:    "University of Dortmund Informatik VI",
	ImplementationVersion: "2.2.8 string",
}

func TestEncodeInit(t *testing.T) {
	for _, s := range []string{"s1-search-river", "s2-retrieve-small", "s3-retrieve-large", "s4-search-nohits", "s5-search-nodb", "s6-search-all", "s7-retrieve-catalog"} {
		want := readMsg(t, s+"/00-c2s-init.bin")
		if got := encodeInit(waissearchInit); !bytes.Equal(got, want) {
			t.Errorf("%s: encodeInit =\n% x\nwant\n% x", s, got, want)
		}
	}
	small := initRequest{PreferredMessageSize: 4096, MaximumRecordSize: 4096, IDAuthentication: "probe"}
	want := readMsg(t, "probes/p5-small-init-then-10000-chunk/00-c2s-init-max4096.bin")
	if got := encodeInit(small); !bytes.Equal(got, want) {
		t.Errorf("small Init =\n% x\nwant\n% x", got, want)
	}
}

func TestDecodeInitResponse(t *testing.T) {
	for _, c := range []struct {
		file string
		size int64
	}{
		{"s1-search-river/00-s2c-init.bin", 100000},
		{"probes/p5-small-init-then-10000-chunk/00-s2c-init-max4096.bin", 4096},
	} {
		r, err := decodeInitResponse(readBody(t, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		want := initResponse{Accepted: true, PreferredMessageSize: c.size, MaximumRecordSize: c.size,
			ImplementationID: "LS6", ImplementationName: "University of Dortmund Informatik VI", ImplementationVersion: "2.2.8 string"}
		if r != want {
			t.Errorf("%s: %+v, want %+v", c.file, r, want)
		}
	}
	if _, err := decodeInitResponse(readBody(t, "s1-search-river/01-s2c-search-river.bin")); err == nil {
		t.Error("a SearchResponse decoded as an InitResponse")
	}
}

func TestEncodeKeywordSearch(t *testing.T) {
	for _, c := range []struct {
		file, db, seed string
		max            int
	}{
		{"s1-search-river/01-c2s-search-river.bin", "urlgettest", "river", 40},
		{"s2-retrieve-small/01-c2s-search-aardvark.bin", "urlgettest", "aardvark", 40},
		{"s3-retrieve-large/01-c2s-search-leviathan.bin", "urlgettest", "leviathan", 40},
		{"s4-search-nohits/01-c2s-search-xylophone.bin", "urlgettest", "xylophone", 40},
		{"s5-search-nodb/01-c2s-search-nosuchdb-aardvark.bin", "nosuchdb", "aardvark", 40},
		{"s6-search-all/01-c2s-search-corpusword.bin", "urlgettest", "corpusword", 40},
		{"s7-retrieve-catalog/01-c2s-search-xylophone.bin", "urlgettest", "xylophone", 40},
		{"probes/p1-search-without-init/00-c2s-search-aardvark.bin", "urlgettest", "aardvark", 40},
		{"probes/p2-two-searches-one-connection/00-c2s-search-aardvark-bassoon.bin", "urlgettest", "aardvark bassoon", 40},
		{"probes/p2-two-searches-one-connection/01-c2s-search-river-max2.bin", "urlgettest", "river", 2},
		{"probes/p12-empty-search/00-c2s-search-empty.bin", "urlgettest", "", 40},
	} {
		want := readMsg(t, c.file)
		if got := encodeKeywordSearch(c.db, c.seed, c.max); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got % x\nwant % x", c.file, got, want)
		}
	}
}

// firstID returns the document id of the first header of a recorded
// search reply.
func firstID(t *testing.T, file string) []byte {
	t.Helper()
	r, err := decodeSearchResponse(readBody(t, file))
	if err != nil {
		t.Fatal(err)
	}
	it := r.iter()
	h, ok, err := it.nextHeader()
	if !ok || err != nil {
		t.Fatalf("%s: no header: %v", file, err)
	}
	return h.ID
}

func TestEncodeRetrieval(t *testing.T) {
	aardvark := firstID(t, "s2-retrieve-small/01-s2c-search-aardvark.bin")
	leviathan := firstID(t, "s3-retrieve-large/01-s2c-search-leviathan.bin")
	catalog := firstID(t, "s7-retrieve-catalog/01-s2c-search-xylophone.bin")
	unknown := appendString(appendString(nil, idOriginalDatabase, "urlgettest"), idOriginalLocalID, "0 10 /etc/not-in-the-index")
	type tc struct {
		file       string
		id         []byte
		unit       string
		start, end int64
	}
	cases := []tc{
		{"s2-retrieve-small/02-c2s-retrieve-aardvark-0-246.bin", aardvark, unitBytes, 0, 246},
		{"s7-retrieve-catalog/02-c2s-retrieve-catalog-0-1787.bin", catalog, unitBytes, 0, 1787},
		{"probes/p3-retrieve-64k-chunk/00-c2s-retrieve-leviathan-0-65536.bin", leviathan, unitBytes, 0, 65536},
		{"probes/p4-oversize-chunk-then-normal/00-c2s-retrieve-leviathan-0-150078.bin", leviathan, unitBytes, 0, 150078},
		{"probes/p4-oversize-chunk-then-normal/01-c2s-retrieve-leviathan-0-100.bin", leviathan, unitBytes, 0, 100},
		{"probes/p5-small-init-then-10000-chunk/01-c2s-retrieve-leviathan-0-10000.bin", leviathan, unitBytes, 0, 10000},
		{"probes/p6-range-end-past-eof/00-c2s-retrieve-aardvark-0-1000.bin", aardvark, unitBytes, 0, 1000},
		{"probes/p7-range-start-past-eof/00-c2s-retrieve-aardvark-500-1000.bin", aardvark, unitBytes, 500, 1000},
		{"probes/p13-range-start-at-eof/00-c2s-retrieve-aardvark-246-10246.bin", aardvark, unitBytes, 246, 10246},
		{"probes/p8-unknown-docid/00-c2s-retrieve-unknown-docid.bin", unknown, unitBytes, 0, 10},
		{"probes/p9-line-chunk/00-c2s-retrieve-aardvark-lines-0-3.bin", aardvark, unitLines, 0, 3},
	}
	// s3: waissearch's 10000-byte pieces, 02 to 17.
	names, _ := filepath.Glob(filepath.Join(rec, "s3-retrieve-large/*-c2s-retrieve-*.bin"))
	if len(names) != 16 {
		t.Fatalf("s3: %d retrieval requests, want 16", len(names))
	}
	for k, n := range names {
		cases = append(cases, tc{"s3-retrieve-large/" + filepath.Base(n), leviathan, unitBytes, int64(k) * 10000, min(int64(k+1)*10000, 150078)})
	}
	for _, c := range cases {
		want := readMsg(t, c.file)
		if got := encodeRetrieval("urlgettest", c.id, "TEXT", c.unit, c.start, c.end); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got % x\nwant % x", c.file, got, want)
		}
	}
}

// hit is what a test expects of one document header.
type hit struct {
	headline     string
	score, lines int64
	typ          string
	file         string // corpus or server file whose size is the length
}

func checkHits(t *testing.T, file string, want []hit) {
	t.Helper()
	r, err := decodeSearchResponse(readBody(t, file))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if r.Headers != len(want) || r.RecordsCount != len(want) || len(r.Diagnostics) != 0 {
		t.Fatalf("%s: %d headers, %d records, %v; want %d", file, r.Headers, r.RecordsCount, r.Diagnostics, len(want))
	}
	it := r.iter()
	for i, w := range want {
		h, ok, err := it.nextHeader()
		if !ok || err != nil {
			t.Fatalf("%s: header %d: %v", file, i, err)
		}
		size := int64(len(readFile(t, w.file)))
		if h.Headline != w.headline || h.Score != w.score || h.Lines != w.lines || h.Length != size ||
			len(h.Types) != 1 || h.Types[0] != w.typ {
			t.Errorf("%s: header %d = %q score %d lines %d length %d types %q; want %q %d %d %d %s",
				file, i, h.Headline, h.Score, h.Lines, h.Length, h.Types, w.headline, w.score, w.lines, size, w.typ)
		}
		// The local id names the file and its size (FORMAT.md §5.5).
		base := filepath.Base(w.file)
		if !bytes.Contains(h.ID, []byte("/srv/wais/corpus/"+base)) {
			t.Errorf("%s: header %d: id does not name %s: %q", file, i, base, h.ID)
		}
		if got := idFileName(h.ID); got != base {
			t.Errorf("%s: header %d: idFileName = %q, want %q", file, i, got, base)
		}
	}
	if _, ok, err := it.nextHeader(); ok || err != nil {
		t.Errorf("%s: more headers than expected (%v)", file, err)
	}
}

func corpusHit(name string, score int64) hit {
	return hit{name + "   /srv/wais/corpus/", score, 5, "TEXT", "corpus/" + name}
}

func TestDecodeSearchHits(t *testing.T) {
	checkHits(t, "s1-search-river/01-s2c-search-river.bin", []hit{
		corpusHit("07-gazebo.txt", 233), corpusHit("12-lighthouse.txt", 226),
		corpusHit("03-cormorant.txt", 226), corpusHit("05-escarpment.txt", 225),
	})
	aardvark := []hit{corpusHit("01-aardvark.txt", 696)}
	checkHits(t, "s2-retrieve-small/01-s2c-search-aardvark.bin", aardvark)
	checkHits(t, "probes/p1-search-without-init/00-s2c-search-aardvark.bin", aardvark)
	levi := corpusHit("16-leviathan.txt", 87)
	levi.lines = 1811
	checkHits(t, "s3-retrieve-large/01-s2c-search-leviathan.bin", []hit{levi})
	// s6: equal scores come in the server's order, which depends on the
	// index (FORMAT.md §5.4); compare them as a set, leviathan last.
	r, err := decodeSearchResponse(readBody(t, "s6-search-all/01-s2c-search-corpusword.bin"))
	if err != nil || r.Headers != 16 {
		t.Fatalf("s6: %v, %d headers", err, r.Headers)
	}
	names, _ := filepath.Glob(filepath.Join(rec, "corpus/*.txt"))
	seen := map[string]bool{}
	it := r.iter()
	for i := range 16 {
		h, _, _ := it.nextHeader()
		name := idFileName(h.ID)
		size := int64(len(readFile(t, "corpus/"+name)))
		wantScore := int64(9)
		if i == 15 {
			wantScore = 1
			if name != "16-leviathan.txt" {
				t.Errorf("s6: last hit %s, want 16-leviathan.txt", name)
			}
		}
		if seen[name] || h.Score != wantScore || h.Length != size || h.Headline != name+"   /srv/wais/corpus/" {
			t.Errorf("s6: hit %d: %s score %d length %d (file %d) headline %q", i, name, h.Score, h.Length, size, h.Headline)
		}
		seen[name] = true
	}
	if len(seen) != len(names) {
		t.Errorf("s6: %d distinct hits, corpus has %d files", len(seen), len(names))
	}
}

func TestDecodeSearchTwoOnOneConnection(t *testing.T) {
	for _, c := range []struct {
		file  string
		names []string
	}{
		{"probes/p2-two-searches-one-connection/00-s2c-search-aardvark-bassoon.bin", []string{"01-aardvark.txt", "02-bassoon.txt"}},
		{"probes/p2-two-searches-one-connection/01-s2c-search-river-max2.bin", []string{"07-gazebo.txt", "12-lighthouse.txt"}},
	} {
		r, err := decodeSearchResponse(readBody(t, c.file))
		if err != nil || r.Headers != len(c.names) {
			t.Fatalf("%s: %v, %d headers", c.file, err, r.Headers)
		}
		it := r.iter()
		for _, n := range c.names {
			h, _, _ := it.nextHeader()
			if !strings.HasPrefix(h.Headline, n+" ") || h.Length != int64(len(readFile(t, "corpus/"+n))) {
				t.Errorf("%s: got %q (%d bytes), want %s", c.file, h.Headline, h.Length, n)
			}
		}
	}
}

func TestDecodeSearchNoHits(t *testing.T) {
	for _, file := range []string{"s4-search-nohits/01-s2c-search-xylophone.bin", "s7-retrieve-catalog/01-s2c-search-xylophone.bin"} {
		checkPseudo(t, file, []hit{{"Search produced no result. Here's the Catalog for database: urlgettest", 0, 69, "TEXT", "server-files/urlgettest.cat"}})
		h, _, _ := func() (docHeader, bool, error) {
			r, _ := decodeSearchResponse(readBody(t, file))
			it := r.iter()
			return it.nextHeader()
		}()
		if idHasServer(h.ID) {
			t.Errorf("%s: catalog id names a server: %q", file, h.ID)
		}
	}
	checkPseudo(t, "probes/p12-empty-search/00-s2c-search-empty.bin", []hit{
		{"Information on database: urlgettest", 1000, 34, "WSRC", "server-files/urlgettest.src"},
		{"Catalog for database: urlgettest", 1000, 69, "TEXT", "server-files/urlgettest.cat"},
	})
	// Real hits name their server.
	if !idHasServer(firstID(t, "s2-retrieve-small/01-s2c-search-aardvark.bin")) {
		t.Error("aardvark id names no server")
	}
}

// checkPseudo checks the pseudo-documents freeWAIS sends for a search with
// no hits or no words (FORMAT.md §5.9), which lack BestMatch and Date.
func checkPseudo(t *testing.T, file string, want []hit) {
	t.Helper()
	r, err := decodeSearchResponse(readBody(t, file))
	if err != nil || r.Headers != len(want) {
		t.Fatalf("%s: %v, %d headers", file, err, r.Headers)
	}
	it := r.iter()
	for i, w := range want {
		h, _, err := it.nextHeader()
		size := int64(len(readFile(t, w.file)))
		if err != nil || h.Headline != w.headline || h.Score != w.score || h.Lines != w.lines || h.Length != size ||
			h.Types[0] != w.typ || h.Best != -1 || h.Date != "" || h.Source != "urlgettest" {
			t.Errorf("%s: header %d = %+v (%v)", file, i, h, err)
		}
		if !bytes.Contains(h.ID, []byte(filepath.Base(w.file))) {
			t.Errorf("%s: header %d id %q does not name %s", file, i, h.ID, w.file)
		}
	}
}

func TestDecodeSearchMissingDatabase(t *testing.T) {
	r, err := decodeSearchResponse(readBody(t, "s5-search-nodb/01-s2c-search-nosuchdb-aardvark.bin"))
	if err != nil {
		t.Fatal(err)
	}
	want := diagnostic{Code: "S1", AddInfo: "The following database is not available: /srv/wais/db/nosuchdb"}
	if r.Headers != 0 || r.Status != 0 || r.RecordsCount != 1 || len(r.Diagnostics) != 1 || r.Diagnostics[0] != want {
		t.Errorf("got %+v, want one %+v", r, want)
	}
}

// texts decodes a recorded text reply into its text and diagnostics.
func texts(t *testing.T, file string) (text []byte, records int, diags []diagnostic) {
	t.Helper()
	r, err := decodeSearchResponse(readBody(t, file))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if r.ReferenceID != "3" {
		t.Errorf("%s: ReferenceID %q, want the request's 3", file, r.ReferenceID)
	}
	it := r.iter()
	for {
		d, ok, err := it.nextText()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if !ok {
			break
		}
		text = append(text, d.Text...)
		records++
	}
	return text, records, r.Diagnostics
}

var outOfRange = diagnostic{Code: "SF", AddInfo: "Request out of range", Surrogate: true}

func TestDecodeText(t *testing.T) {
	aardvark := readFile(t, "corpus/01-aardvark.txt")
	levi := readFile(t, "corpus/16-leviathan.txt")
	lines3 := aardvark[:bytes.IndexByte(aardvark, '\n')+1]
	for range 2 {
		lines3 = aardvark[:len(lines3)+bytes.IndexByte(aardvark[len(lines3):], '\n')+1]
	}
	for _, c := range []struct {
		file    string
		want    []byte
		records int
		diags   []diagnostic
	}{
		{"s2-retrieve-small/02-s2c-retrieve-aardvark-0-246.bin", aardvark, 1, nil},
		{"s7-retrieve-catalog/02-s2c-retrieve-catalog-0-1787.bin", readFile(t, "server-files/urlgettest.cat"), 1, nil},
		{"probes/p3-retrieve-64k-chunk/00-s2c-retrieve-leviathan-0-65536.bin", levi[:65536], 1, nil},
		{"probes/p4-oversize-chunk-then-normal/01-s2c-retrieve-leviathan-0-100.bin", levi[:100], 1, nil},
		{"probes/p6-range-end-past-eof/00-s2c-retrieve-aardvark-0-1000.bin", aardvark, 1, []diagnostic{outOfRange}},
		{"probes/p7-range-start-past-eof/00-s2c-retrieve-aardvark-500-1000.bin", nil, 0, []diagnostic{outOfRange}},
		{"probes/p13-range-start-at-eof/00-s2c-retrieve-aardvark-246-10246.bin", nil, 1, []diagnostic{outOfRange}},
		{"probes/p8-unknown-docid/00-s2c-retrieve-unknown-docid.bin", nil, 0, []diagnostic{{Code: "SF", AddInfo: "Missing DocID in request", Surrogate: true}}},
		{"probes/p9-line-chunk/00-s2c-retrieve-aardvark-lines-0-3.bin", lines3, 1, nil},
		{"probes/p10-no-chunk-terms/00-s2c-retrieve-aardvark-no-chunk.bin", nil, 0, nil},
	} {
		text, records, diags := texts(t, c.file)
		if !bytes.Equal(text, c.want) || records != c.records || len(diags) != len(c.diags) {
			t.Errorf("%s: %d bytes in %d records, %v; want %d bytes in %d, %v", c.file, len(text), records, diags, len(c.want), c.records, c.diags)
			continue
		}
		for i := range diags {
			if diags[i] != c.diags[i] {
				t.Errorf("%s: diagnostic %+v, want %+v", c.file, diags[i], c.diags[i])
			}
		}
	}
	if len(lines3) != 80 {
		t.Errorf("three lines of aardvark are %d bytes, FORMAT.md says 80", len(lines3))
	}
	// s3: sixteen 10000-byte pieces joined are the whole document.
	names, _ := filepath.Glob(filepath.Join(rec, "s3-retrieve-large/*-s2c-retrieve-*.bin"))
	var joined []byte
	for _, n := range names {
		text, _, diags := texts(t, "s3-retrieve-large/"+filepath.Base(n))
		if len(diags) != 0 {
			t.Errorf("%s: %v", n, diags)
		}
		joined = append(joined, text...)
	}
	if len(names) != 16 || !bytes.Equal(joined, levi) {
		t.Errorf("s3: %d pieces joined to %d bytes, want 16 pieces equal to the %d-byte corpus file", len(names), len(joined), len(levi))
	}
}

// replies lists every recorded server message with a body.
func replies(t testing.TB) []string {
	var out []string
	err := filepath.WalkDir(rec, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), "-s2c-") {
			out = append(out, p)
		}
		return err
	})
	if err != nil || len(out) < 40 {
		t.Fatalf("recordings: %d replies, %v", len(out), err)
	}
	return out
}

func TestDecodeTruncatedReplies(t *testing.T) {
	// Every proper prefix of a recorded reply body fails to decode, except
	// the one that ends exactly after the Z39.50 part (an empty WAIS part
	// is legal); none panics.
	for _, p := range replies(t) {
		b, _ := os.ReadFile(p)
		body := b[headerLen:]
		if len(body) == 0 || len(body) > 5000 {
			continue
		}
		decode := decodeSearchResponse
		if strings.Contains(filepath.Base(p), "s2c-init") {
			decode = func(b []byte) (*searchResponse, error) {
				_, err := decodeInitResponse(b)
				return nil, err
			}
		}
		if _, err := decode(body); err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		z, _, _ := splitBody(body)
		for n := 0; n < len(body); n++ {
			_, err := decode(body[:n])
			if n == 2+len(z) || strings.Contains(filepath.Base(p), "s2c-init") && n > 2+len(z) {
				continue
			}
			if err == nil {
				t.Errorf("%s: prefix of %d bytes decoded", p, n)
			}
		}
	}
}

func TestDecodeGarbage(t *testing.T) {
	good := readBody(t, "s2-retrieve-small/02-s2c-retrieve-aardvark-0-246.bin")
	for name, body := range map[string][]byte{
		"empty":                  {},
		"one byte":               {0},
		"zero Z39.50 part":       {0, 0},
		"Z39.50 part past end":   {0xff, 0xff, 23},
		"wrong PDU":              {0, 1, 99},
		"garbage after the part": append(append([]byte{}, good[:2+17]...), 0xff, 0xff, 0xff, 0xff, 0xff),
		"text past group":        append(append([]byte{}, good[:len(good)-10]...), 0x7f, 0x84, 0x80, 0x00),
		"diagnostic short":       {0, 14, 23, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x1b, 1, 0, 0x63, 4, 0x1c, 0, 1, 'S'},
		"diagnostic bad end":     {0, 14, 23, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x1b, 1, 0, 0x63, 7, 0x1c, 0, 3, 'S', 'F', 1, 0x1e},
		"header without id":      {0, 14, 23, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x1b, 1, 0, 0x63, 5, 0x81, 0x16, 2, 0x76, 0},
		"number of 5 bytes":      {0, 14, 23, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x1b, 1, 0, 0x63, 12, 0x81, 0x16, 9, 0x74, 1, 1, 0x76, 5, 1, 2, 3, 4, 5},
	} {
		if r, err := decodeSearchResponse(body); err == nil {
			t.Errorf("%s: decoded as %+v", name, r)
		}
	}
}
