package main

import (
	"bytes"
	"context"
	"crypto/tls"
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

func fetch(t *testing.T, rawURL string) *schemes.Resource {
	t.Helper()
	u, err := uri.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	res, err := (&wais.Fetcher{}).Fetch(context.Background(),
		&schemes.Request{URL: u, Dialer: &net.Dialer{}, TLSConfig: &tls.Config{}})
	if err != nil {
		t.Fatalf("%s: %v", rawURL, err)
	}
	return res
}

// TestDocuments serves a directory as documents reads it and fetches a
// file back by searching for a part of its name: regular files and links
// to them only, each read from the file as it is retrieved.
func TestDocuments(t *testing.T) {
	dir := t.TempDir()
	text := bytes.Repeat([]byte("a line of the served file\n"), 10000)
	if err := os.WriteFile(filepath.Join(dir, "river-notes.txt"), text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "sublink")); err != nil {
		t.Fatal(err)
	}
	docs, closeAll, err := documents(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	var names []string
	for _, d := range docs {
		names = append(names, d.Name)
	}
	if got := strings.Join(names, " "); got != "link.txt other.txt river-notes.txt" {
		t.Fatalf("documents %q, want the two regular files and the link to one", got)
	}
	s := waistest.NewServer(waistest.Config{Documents: docs, KeepRequests: -1})
	defer s.Close()
	if rs := s.Requests(); len(rs) != 0 {
		t.Fatalf("%d requests recorded before any", len(rs))
	}
	res := fetch(t, s.URL+"?notes")
	var hit string
	for {
		e, err := res.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(e.Name, "river-notes.txt") {
			hit = e.URL
		}
	}
	res.Listing.Close()
	if hit == "" {
		t.Fatal(`no hit for "notes"`)
	}
	doc := fetch(t, hit)
	got, err := io.ReadAll(doc.Body)
	doc.Body.Close()
	if err != nil || !bytes.Equal(got, text) {
		t.Fatalf("fetched %d bytes (%v), want the file's %d", len(got), err, len(text))
	}
	if rs := s.Requests(); len(rs) != 0 {
		t.Errorf("KeepRequests -1 kept %d requests", len(rs))
	}
}
