package warcsink_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/warc"
	"github.com/urlget/urlget/warc/warcsink"
)

// A Client whose Archive is a Sink archives what it fetches: each body
// read to its end becomes its records, here an HTTP exchange's request
// and response and a local file's resource record.
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "a page")
	}))
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("a file\n"), 0o644)

	w, err := warc.Create(filepath.Join(dir, "crawl"), warc.Options{Software: "example/1.0"})
	if err != nil {
		fmt.Println(err)
		return
	}
	sink := warcsink.New(w, warcsink.Options{})
	c := &fetch.Client{Archive: sink}
	for _, u := range []string{srv.URL + "/page", "file://" + dir + "/notes.txt"} {
		res, err := c.Fetch(context.Background(), u)
		if err != nil {
			fmt.Println(err)
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	c.Close()
	if err := errors.Join(sink.Err(), w.Close()); err != nil {
		fmt.Println(err)
		return
	}

	f, _ := os.Open(filepath.Join(dir, "crawl.warc.gz"))
	defer f.Close()
	r := warc.NewReader(f)
	for {
		h, _, err := r.Next()
		if err != nil {
			break
		}
		fmt.Println(h.Get("WARC-Type"), h.Get("Content-Type"))
	}
	// Output:
	// warcinfo application/warc-fields
	// request application/http;msgtype=request
	// response application/http;msgtype=response
	// resource text/plain; charset=utf-8
	// metadata text/plain
}
