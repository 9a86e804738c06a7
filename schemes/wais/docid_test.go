package wais

import (
	"bytes"
	"strings"
	"testing"
)

// aardvarkWPath is the libwww form of the aardvark document's id, from
// FORMAT.md §7.
const aardvarkWPath = "246/1=wais.example%3A2210;2=/srv/wais/db/urlgettest;3=0%20246%20/srv/wais/corpus/01-aardvark.txt;4=wais.example%3A2210;5=/srv/wais/db/urlgettest;6=0%20246%20/srv/wais/corpus/01-aardvark.txt;7=%00;"

func TestWPathRecorded(t *testing.T) {
	id := firstID(t, "s2-retrieve-small/01-s2c-search-aardvark.bin")
	if len(id) != 171 {
		t.Fatalf("aardvark id is %d bytes, FORMAT.md says 171", len(id))
	}
	if got := formatWPath(id, 246); got != aardvarkWPath {
		t.Errorf("formatWPath =\n%s\nwant\n%s", got, aardvarkWPath)
	}
	back, length, err := parseWPath(aardvarkWPath)
	if err != nil || length != 246 || !bytes.Equal(back, id) {
		t.Errorf("parseWPath = % x, %d, %v; want the 171 recorded bytes", back, length, err)
	}
	// Every recorded id survives the round trip, the short catalog ids too.
	for _, f := range []string{
		"s1-search-river/01-s2c-search-river.bin",
		"s3-retrieve-large/01-s2c-search-leviathan.bin",
		"s4-search-nohits/01-s2c-search-xylophone.bin",
		"s6-search-all/01-s2c-search-corpusword.bin",
		"probes/p12-empty-search/00-s2c-search-empty.bin",
	} {
		r, err := decodeSearchResponse(readBody(t, f))
		if err != nil {
			t.Fatal(err)
		}
		it := r.iter()
		for {
			h, ok, err := it.nextHeader()
			if err != nil || !ok {
				break
			}
			w := formatWPath(h.ID, h.Length)
			back, length, err := parseWPath(w)
			if err != nil || length != h.Length || !bytes.Equal(back, h.ID) {
				t.Errorf("%s: %s does not round-trip: %v", f, w, err)
			}
		}
	}
}

func TestWPathForms(t *testing.T) {
	long := strings.Repeat("x", 200)
	longID := appendString(appendString(nil, idOriginalDatabase, "db"), idOriginalLocalID, long)
	for _, c := range []struct {
		name   string
		raw    string
		id     []byte
		length int64
	}{
		{"no length", "2=db;3=0%200%20/x;", appendString(appendString(nil, 2, "db"), 3, "0 0 /x"), -1},
		{"no final semicolon", "12/2=db;3=a", appendString(appendString(nil, 2, "db"), 3, "a"), 12},
		{"semicolon escaped in a value", "2=a%3Bb;", appendString(nil, 2, "a;b"), -1},
		{"lower-case escapes", "2=a%3bb;", appendString(nil, 2, "a;b"), -1},
		{"field of 200 bytes", "5/2=db;3=" + long + ";", longID, 5},
		{"opaque id", "7/opaque%01id", []byte("opaque\x01id"), 7},
		{"empty value", "2=;", appendString(nil, 2, ""), -1},
	} {
		id, length, err := parseWPath(c.raw)
		if err != nil || length != c.length || !bytes.Equal(id, c.id) {
			t.Errorf("%s: parseWPath(%q) = % x, %d, %v; want % x, %d", c.name, c.raw, id, length, err, c.id, c.length)
		}
	}
	// An opaque id is written whole and read back.
	for _, opaque := range [][]byte{
		{0xff, 0x01, '/', ';'},
		[]byte("12/x=1;"),
		{0x02, 0x80, 0x01, 'a'}, // fields, but a length not in the shortest form
	} {
		for _, length := range []int64{-1, 3} {
			id, l, err := parseWPath(formatWPath(opaque, length))
			if err != nil || !bytes.Equal(id, opaque) || l != length {
				t.Errorf("opaque id % x length %d: came back as % x %d, %v", opaque, length, id, l, err)
			}
		}
	}
	for _, bad := range []string{"", "12/", "2=a;x", "2=a;=b", "2=%zz;", "%zz", "2=" + strings.Repeat("a", maxIDLength) + ";"} {
		if id, _, err := parseWPath(bad); err == nil {
			t.Errorf("parseWPath(%q) = % x, want an error", bad, id)
		}
	}
}

func TestIDFileName(t *testing.T) {
	for _, c := range []struct {
		id   []byte
		want string
	}{
		{appendString(nil, idOriginalLocalID, "0 246 /srv/wais/corpus/01-aardvark.txt"), "01-aardvark.txt"},
		{appendString(nil, idDistribLocalID, "10 20 plain"), "plain"},
		{appendString(nil, idOriginalLocalID, "not the freeWAIS shape"), ""},
		{appendString(nil, idOriginalLocalID, "0 1 /"), ""},
		{appendString(nil, idOriginalDatabase, "db"), ""},
		{[]byte{0x81}, ""},
	} {
		if got := idFileName(c.id); got != c.want {
			t.Errorf("idFileName(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}
