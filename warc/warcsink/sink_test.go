package warcsink

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/warc"
)

// TestErrReported: a record that cannot be written (the archive closed
// under the fetches) does not fail the fetch, which reads its body
// whole, and Err tells of it.
func TestErrReported(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("content\n"), 0o644)
	w, err := warc.Create(filepath.Join(dir, "a"), warc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sink := New(w, Options{})
	c := &fetch.Client{Archive: sink}
	defer c.Close()
	w.Close()
	res, err := c.Fetch(context.Background(), "file://"+dir+"/f.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || string(b) != "content\n" {
		t.Fatalf("body %q, %v", b, err)
	}
	if !errors.Is(sink.Err(), warc.ErrClosed) {
		t.Errorf("Err() = %v, want warc.ErrClosed", sink.Err())
	}
}
