package integration

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/integration/waistest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/wais"
	"github.com/urlget/urlget/uri"
)

// waisRecordings holds the exchanges recorded against freeWAIS-sf
// (testdata/wais/README.md); they are part of the repository.
const waisRecordings = "../testdata/wais"

// waisRequest builds the request the fetch package would pass for rawURL.
func waisRequest(t testing.TB, rawURL string) *schemes.Request {
	t.Helper()
	u, err := uri.Parse(rawURL)
	if err != nil {
		t.Fatalf("parse %q: %v", rawURL, err)
	}
	return &schemes.Request{URL: u, Dialer: &net.Dialer{}, TLSConfig: &tls.Config{}}
}

// waisReplay starts a replay of one recorded connection and, when the
// test ends, fails it if the client's requests differed from the recorded
// ones or left some unsent.
func waisReplay(t *testing.T, folder string) *waistest.Replay {
	t.Helper()
	r, err := waistest.NewReplay(filepath.Join(waisRecordings, folder))
	if err != nil {
		t.Fatalf("replay %s: %v", folder, err)
	}
	t.Cleanup(func() {
		r.Close()
		if err := r.Err(); err != nil {
			t.Errorf("%s: %v", folder, err)
		}
		if rest := r.Remaining(); len(rest) > 0 && !t.Failed() {
			t.Errorf("%s: recorded requests never sent: %v", folder, rest)
		}
	})
	return r
}

// waisList fetches a search URL and returns its entries.
func waisList(t testing.TB, f *wais.Fetcher, rawURL string) []schemes.Entry {
	t.Helper()
	return readEntries(t, mustFetch(t, f, waisRequest(t, rawURL)))
}

// waisGet fetches a document URL and returns its bytes.
func waisGet(t testing.TB, f *wais.Fetcher, rawURL string) []byte {
	t.Helper()
	res := mustFetch(t, f, waisRequest(t, rawURL))
	if res.Body == nil {
		t.Fatalf("%s: no body", rawURL)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s: read: %v", rawURL, err)
	}
	return b
}

func waisCorpus(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(waisRecordings, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWAISReplaySearch holds searches against freeWAIS-sf's recorded
// replies: the client's Init and search must be the recorded requests, and
// the hits what the server said.
func TestWAISReplaySearch(t *testing.T) {
	r := waisReplay(t, "s1-search-river")
	got := waisList(t, &wais.Fetcher{}, r.URL+"urlgettest?river")
	want := []struct {
		name  string
		score string
		size  int64
	}{
		{"07-gazebo.txt", "233", 242}, {"12-lighthouse.txt", "226", 275},
		{"03-cormorant.txt", "226", 252}, {"05-escarpment.txt", "225", 260},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		e := got[i]
		if e.Name != w.name+"   /srv/wais/corpus/" || e.Kind != schemes.KindFile || e.Size != w.size ||
			e.Fields["score"] != w.score || e.Fields["lines"] != "5" || e.Fields["type"] != "TEXT" {
			t.Errorf("entry %d = %+v, want %s score %s size %d", i, e, w.name, w.score, w.size)
		}
		// FORMAT.md §7: the libwww form, with the length segment.
		prefix := r.URL + "urlgettest/TEXT/" + e.Fields["size"] + "/1=wais.example%3A2210;2=/srv/wais/db/urlgettest;3=0%20"
		if !strings.HasPrefix(e.URL, prefix) || !strings.HasSuffix(e.URL, "/srv/wais/corpus/"+w.name+";7=%00;") {
			t.Errorf("entry %d URL %s", i, e.URL)
		}
	}
}

func TestWAISReplaySearchAll(t *testing.T) {
	r := waisReplay(t, "s6-search-all")
	got := waisList(t, &wais.Fetcher{}, r.URL+"urlgettest?corpusword")
	if len(got) != 16 || got[15].Fields["score"] != "1" || got[15].Size != 150078 || got[15].Fields["lines"] != "1811" {
		t.Fatalf("%d entries, last %+v", len(got), got[len(got)-1])
	}
}

// TestWAISReplayRetrieveSmall searches, then fetches the hit by the URL the
// listing gave: the document id must go back byte for byte.
func TestWAISReplayRetrieveSmall(t *testing.T) {
	r := waisReplay(t, "s2-retrieve-small")
	f := &wais.Fetcher{}
	hits := waisList(t, f, r.URL+"urlgettest?aardvark")
	if len(hits) != 1 {
		t.Fatalf("%d hits", len(hits))
	}
	if got := waisGet(t, f, hits[0].URL); !bytes.Equal(got, waisCorpus(t, "corpus/01-aardvark.txt")) {
		t.Errorf("document = %q", got)
	}
}

// TestWAISReplayOldURL fetches by the URL FORMAT.md §7 writes for the
// aardvark document, the form Lynx put in pages.
func TestWAISReplayOldURL(t *testing.T) {
	r := waisReplay(t, "probes/p1-search-without-init")
	hits := waisList(t, &wais.Fetcher{}, r.URL+"urlgettest?aardvark")
	const lynx = "urlgettest/TEXT/246/1=wais.example%3A2210;2=/srv/wais/db/urlgettest;3=0%20246%20/srv/wais/corpus/01-aardvark.txt;4=wais.example%3A2210;5=/srv/wais/db/urlgettest;6=0%20246%20/srv/wais/corpus/01-aardvark.txt;7=%00;"
	if len(hits) != 1 || hits[0].URL != r.URL+lynx {
		t.Fatalf("hits %+v, want the URL %s", hits, r.URL+lynx)
	}
	r2 := waisReplay(t, "s2-retrieve-small")
	// Skip the recorded search: the URL alone must make the retrieval.
	waisList(t, &wais.Fetcher{}, r2.URL+"urlgettest?aardvark")
	if got := waisGet(t, &wais.Fetcher{}, r2.URL+lynx); !bytes.Equal(got, waisCorpus(t, "corpus/01-aardvark.txt")) {
		t.Errorf("document = %q", got)
	}
}

// TestWAISReplayRetrieveLarge fetches the 150078-byte document in the
// 10000-byte pieces waissearch used: sixteen requests, each the recorded one.
func TestWAISReplayRetrieveLarge(t *testing.T) {
	r := waisReplay(t, "s3-retrieve-large")
	f := &wais.Fetcher{PieceSize: 10000}
	hits := waisList(t, f, r.URL+"urlgettest?leviathan")
	if len(hits) != 1 {
		t.Fatalf("%d hits", len(hits))
	}
	res := mustFetch(t, f, waisRequest(t, hits[0].URL))
	defer res.Body.Close()
	if res.Size != 150078 || res.Name != "16-leviathan.txt" || res.ContentType != "text/plain" {
		t.Errorf("resource size %d name %q type %q", res.Size, res.Name, res.ContentType)
	}
	// Read in small steps: the body hands out one piece at a time.
	var got bytes.Buffer
	if _, err := io.CopyBuffer(&got, struct{ io.Reader }{res.Body}, make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), waisCorpus(t, "corpus/16-leviathan.txt")) {
		t.Errorf("document of %d bytes differs from the corpus", got.Len())
	}
}

// TestWAISReplayPiece64K: a piece of 64 KiB, as recorded in p3 (the
// default is larger; the recording fixes the request's bytes).
func TestWAISReplayPiece64K(t *testing.T) {
	r := waisReplay(t, "probes/p3-retrieve-64k-chunk")
	const levi = "0%20150078%20/srv/wais/corpus/16-leviathan.txt"
	u := r.URL + "urlgettest/TEXT/150078/1=wais.example%3A2210;2=/srv/wais/db/urlgettest;3=" + levi +
		";4=wais.example%3A2210;5=/srv/wais/db/urlgettest;6=" + levi + ";7=%00;"
	res := mustFetch(t, &wais.Fetcher{PieceSize: 64 << 10}, waisRequest(t, u))
	buf := make([]byte, 65536)
	if _, err := io.ReadFull(res.Body, buf); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if !bytes.Equal(buf, waisCorpus(t, "corpus/16-leviathan.txt")[:65536]) {
		t.Error("first piece differs from the corpus")
	}
}

// TestWAISReplayNoHits: freeWAIS-sf answers a search without hits with its
// catalog; the listing says "no hits" and the catalog stays reachable.
func TestWAISReplayNoHits(t *testing.T) {
	r := waisReplay(t, "s7-retrieve-catalog")
	f := &wais.Fetcher{}
	got := waisList(t, f, r.URL+"urlgettest?xylophone")
	if len(got) != 2 || got[0].Kind != schemes.KindInfo || got[0].Name != "no hits" || got[0].URL != "" {
		t.Fatalf("entries %+v, want a no-hits entry and the catalog", got)
	}
	cat := got[1]
	if cat.Fields["catalog"] != "true" || cat.Size != 1787 || !strings.Contains(cat.Name, "Catalog for database: urlgettest") {
		t.Errorf("catalog entry %+v", cat)
	}
	if b := waisGet(t, f, cat.URL); !bytes.Equal(b, waisCorpus(t, "server-files/urlgettest.cat")) {
		t.Errorf("catalog = %q", b)
	}
}

func TestWAISReplayMissingDatabase(t *testing.T) {
	r := waisReplay(t, "s5-search-nodb")
	_, err := (&wais.Fetcher{}).Fetch(testCtx(t), waisRequest(t, r.URL+"nosuchdb?aardvark"))
	if !errors.Is(err, schemes.ErrNotFound) || !strings.Contains(err.Error(), "not available") {
		t.Fatalf("err = %v, want not found with the server's text", err)
	}
}

// TestWAISReplayTwoSearches: "+" in a search is a space, and MaxHits is
// MaxDocumentsRetrieved.
func TestWAISReplayTwoSearches(t *testing.T) {
	r := waisReplay(t, "probes/p2-two-searches-one-connection")
	a := waisList(t, &wais.Fetcher{}, r.URL+"urlgettest?aardvark+bassoon")
	b := waisList(t, &wais.Fetcher{MaxHits: 2}, r.URL+"urlgettest?river")
	if len(a) != 2 || len(b) != 2 || !strings.HasPrefix(a[1].Name, "02-bassoon") || !strings.HasPrefix(b[1].Name, "12-lighthouse") {
		t.Errorf("got %+v and %+v", a, b)
	}
}

// TestWAISReplayEmptySearch: "?" with no words lists the database's
// description and catalog (p12).
func TestWAISReplayEmptySearch(t *testing.T) {
	r := waisReplay(t, "probes/p12-empty-search")
	got := waisList(t, &wais.Fetcher{}, r.URL+"urlgettest?")
	if len(got) != 2 || got[0].Fields["type"] != "WSRC" || got[0].Size != 953 || got[1].Size != 1787 || got[0].Fields["score"] != "1000" {
		t.Errorf("entries %+v", got)
	}
}

// lynxAardvarkID is the id part of the aardvark document's URL.
const lynxAardvarkID = "1=wais.example%3A2210;2=/srv/wais/db/urlgettest;3=0%20246%20/srv/wais/corpus/01-aardvark.txt;4=wais.example%3A2210;5=/srv/wais/db/urlgettest;6=0%20246%20/srv/wais/corpus/01-aardvark.txt;7=%00;"

// TestWAISReplayRangePastEnd: a URL that names a longer document than the
// server has gets the rest and the SF diagnostic (p6): the bytes that exist,
// then a truncated error.
func TestWAISReplayRangePastEnd(t *testing.T) {
	r := waisReplay(t, "probes/p6-range-end-past-eof")
	res := mustFetch(t, &wais.Fetcher{}, waisRequest(t, r.URL+"urlgettest/TEXT/1000/"+lynxAardvarkID))
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if !bytes.Equal(b, waisCorpus(t, "corpus/01-aardvark.txt")) || !errors.Is(err, schemes.ErrTruncated) {
		t.Errorf("read %d bytes, %v; want the 246 bytes, then truncated", len(b), err)
	}
}

// TestWAISReplayResumePastEnd: p7, a start past the end, is not retrievable.
func TestWAISReplayResumePastEnd(t *testing.T) {
	r := waisReplay(t, "probes/p7-range-start-past-eof")
	req := waisRequest(t, r.URL+"urlgettest/TEXT/1000/"+lynxAardvarkID)
	req.Offset = 500
	_, err := (&wais.Fetcher{}).Fetch(testCtx(t), req)
	if !errors.Is(err, schemes.ErrNotRetrievable) {
		t.Errorf("err = %v, want not retrievable", err)
	}
}

// TestWAISReplayStartAtEnd: p13, a start exactly at the end, gives no text.
func TestWAISReplayStartAtEnd(t *testing.T) {
	r := waisReplay(t, "probes/p13-range-start-at-eof")
	req := waisRequest(t, r.URL+"urlgettest/TEXT/10246/"+lynxAardvarkID)
	req.Offset = 246
	res := mustFetch(t, &wais.Fetcher{}, req)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if len(b) != 0 || !errors.Is(err, schemes.ErrTruncated) || res.Offset != 246 {
		t.Errorf("read %d bytes, %v, offset %d", len(b), err, res.Offset)
	}
}

// TestWAISReplayUnknownDocument: p8, an id the server does not know, is
// not found.
func TestWAISReplayUnknownDocument(t *testing.T) {
	r := waisReplay(t, "probes/p8-unknown-docid")
	_, err := (&wais.Fetcher{}).Fetch(testCtx(t), waisRequest(t, r.URL+"urlgettest/TEXT/10/2=urlgettest;3=0%2010%20/etc/not-in-the-index;"))
	if !errors.Is(err, schemes.ErrNotFound) || !strings.Contains(err.Error(), "Missing DocID") {
		t.Errorf("err = %v, want not found", err)
	}
}
