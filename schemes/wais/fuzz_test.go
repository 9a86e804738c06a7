package wais

import (
	"bytes"
	"os"
	"testing"
)

// addReplies seeds a fuzz target with every recorded reply body.
func addReplies(f *testing.F) {
	for _, p := range replies(f) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[headerLen:])
	}
}

// FuzzDecodeSearchResponse holds the decoder to its promise on arbitrary
// bytes: an error or a response whose records all decode, never a panic.
func FuzzDecodeSearchResponse(f *testing.F) {
	addReplies(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeSearchResponse(body)
		if err != nil {
			return
		}
		it := r.iter()
		n := 0
		for {
			h, ok, err := it.nextHeader()
			if err != nil {
				t.Fatalf("header %d fails after the response decoded: %v", n, err)
			}
			if !ok {
				break
			}
			n++
			// Every header yields a URL path that reads back to its id.
			id, _, err := parseWPath(formatWPath(h.ID, h.Length))
			if err == nil && !bytes.Equal(id, h.ID) {
				t.Fatalf("id % x came back as % x", h.ID, id)
			}
		}
		if n != r.Headers {
			t.Fatalf("%d headers iterated, %d counted", n, r.Headers)
		}
		it = r.iter()
		for {
			_, ok, err := it.nextText()
			if err != nil {
				t.Fatalf("text fails after the response decoded: %v", err)
			}
			if !ok {
				break
			}
		}
	})
}

// FuzzDecodeInitResponse checks the Init decoder on arbitrary bytes.
func FuzzDecodeInitResponse(f *testing.F) {
	addReplies(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = decodeInitResponse(body)
	})
}

// FuzzParseHeader checks the header decoder and that a valid header
// writes back the same length.
func FuzzParseHeader(f *testing.F) {
	for _, p := range replies(f) {
		b, _ := os.ReadFile(p)
		f.Add(b[:headerLen])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parseHeader(b)
		if err != nil {
			return
		}
		if got, _ := parseHeader(appendHeader(nil, h.Length)); got.Length != h.Length {
			t.Fatalf("length %d came back as %d", h.Length, got.Length)
		}
	})
}

// FuzzParseWPath checks that a wpath from a URL either fails or yields an
// id that writes back to a wpath reading the same id.
func FuzzParseWPath(f *testing.F) {
	f.Add(aardvarkWPath)
	f.Add("2=urlgettest;3=0%200%20/srv/wais/db/urlgettest.cat;7=%00;")
	f.Add("7/opaque%01id")
	f.Fuzz(func(t *testing.T, raw string) {
		id, length, err := parseWPath(raw)
		if err != nil {
			return
		}
		if len(id) > maxIDLength {
			t.Fatalf("id of %d bytes", len(id))
		}
		back, l2, err := parseWPath(formatWPath(id, length))
		if err != nil || !bytes.Equal(back, id) || l2 != length {
			t.Fatalf("%q: id % x length %d came back as % x %d (%v)", raw, id, length, back, l2, err)
		}
	})
}
