package cli

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
)

// encodingJSON is what encoding/json writes for v with SetEscapeHTML(false),
// without the newline Encode adds.
func encodingJSON(t testing.TB, v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

var jsonStringSeeds = []string{
	"", "plain", `quote " and backslash \`, "<a href='x'>&amp;</a>",
	"\x00\x01\x07\b\t\n\v\f\r\x1b\x1f\x7f", "tab\tnew\nline\r",
	"\u2028 and \u2029", "héllo wörld ✓ 🙂",
	"\xff\xfe bad", "cut \xe2\x80", "\xed\xa0\x80 surrogate", "\xc0\xaf overlong",
	"ftp://user@h.example/a%20b;type=a?x=1&y=2#f",
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendJSONString(nil, s)), encodingJSON(t, s); got != want {
			t.Errorf("appendJSONString(%q) = %s, encoding/json writes %s", s, got, want)
		}
	})
}

func TestListingJSON(t *testing.T) {
	// The form --json-lines had when encoding/json wrote it.
	type jsonEntry struct {
		URL         string            `json:"url,omitempty"`
		Name        string            `json:"name"`
		Kind        string            `json:"kind"`
		Size        *int64            `json:"size,omitempty"`
		Time        string            `json:"time,omitempty"`
		Description string            `json:"description,omitempty"`
		Fields      map[string]string `json:"fields,omitempty"`
		Raw         string            `json:"raw,omitempty"`
	}
	size := func(n int64) *int64 { return &n }
	when := time.Date(2026, 11, 23, 8, 30, 0, 0, time.FixedZone("x", 3600))
	for _, c := range []struct {
		e    schemes.Entry
		want jsonEntry
	}{
		{schemes.Entry{Name: "", Size: -1}, jsonEntry{Kind: "other"}},
		{schemes.Entry{URL: "ftp://h/pub/a&b.txt", Name: "a&b.txt", Kind: schemes.KindFile, Size: 0},
			jsonEntry{URL: "ftp://h/pub/a&b.txt", Name: "a&b.txt", Kind: "file", Size: size(0)}},
		{schemes.Entry{URL: "news:x@y", Name: "Re: \"quoted\"\t", Kind: schemes.KindArticle, Size: 1234, ModTime: when,
			Description: "d\u2028", Fields: map[string]string{"lines": "12", "author": "A <a@b>", "": "empty key", "Z": "\xff"}, Raw: "1\tRe: x\r"},
			jsonEntry{URL: "news:x@y", Name: "Re: \"quoted\"\t", Kind: "article", Size: size(1234), Time: "2026-11-23T07:30:00Z",
				Description: "d\u2028", Fields: map[string]string{"lines": "12", "author": "A <a@b>", "": "empty key", "Z": "\xff"}, Raw: "1\tRe: x\r"}},
		{schemes.Entry{Name: "i", Kind: schemes.KindInfo, Size: -1, Fields: map[string]string{}}, jsonEntry{Name: "i", Kind: "info"}},
	} {
		if got, want := string(listingJSON(c.e)), encodingJSON(t, c.want); got != want {
			t.Errorf("listingJSON(%+v)\n got %s\nwant %s", c.e, got, want)
		}
	}
}
