package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
	urlhttp "github.com/urlget/urlget/schemes/http"
)

// Fetch streams a resource's bytes; the caller closes the Body.
func ExampleFetch() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, world\n"), 0o644)

	res, err := fetch.Fetch(context.Background(), "file://"+dir+"/hello.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	io.Copy(os.Stdout, res.Body)
	fmt.Println(res.Size, "bytes named", res.Name)
	// Output:
	// hello, world
	// 13 bytes named hello.txt
}

// errors.Is tells the kinds of failure apart whatever the protocol: a
// missing local file, an FTP 550, an HTTP 404 and an NNTP 430 are all
// schemes.ErrNotFound. errors.As gives the details.
func ExampleFetch_notFound() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)

	_, err := fetch.Fetch(context.Background(), "file://"+dir+"/missing.txt")
	fmt.Println(errors.Is(err, schemes.ErrNotFound))
	var e *schemes.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind, strings.HasSuffix(e.URL, "/missing.txt"))
	}
	// Output:
	// true
	// not found true
}

// A directory, menu or newsgroup is a Listing: a stream of entries, each
// with its own absolute URL, which can be fetched in turn.
func ExampleClient_Fetch_listing() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "a b.txt"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)

	var c fetch.Client // the zero value knows every scheme
	defer c.Close()
	base := "file://" + dir + "/"
	res, err := c.Fetch(context.Background(), base)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Listing.Close()
	var entries []schemes.Entry
	for {
		e, err := res.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		entries = append(entries, e)
	}
	// A local directory lists in the file system's order.
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	for _, e := range entries {
		// The directory's own URL is left out so that the output is the
		// same wherever the temporary directory is.
		fmt.Printf("%-9s %-7s .../%s\n", e.Kind, e.Name, strings.TrimPrefix(e.URL, base))
	}
	// Output:
	// file      a b.txt .../a%20b.txt
	// directory sub     .../sub/
}

// A Client holds the policy of a run for every scheme (timeouts,
// credentials, retries, limits); each protocol's own settings are on its
// Fetcher, as http.Transport holds its own: here the User-Agent of http(s)
// requests and at most one redirect, on the registry's http fetcher.
func ExampleClient() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "agent:", r.UserAgent())
	}))
	defer srv.Close()

	web := &urlhttp.Fetcher{UserAgent: "example/1.0", MaxRedirects: 1}
	registry := fetch.DefaultFetchers()
	registry["http"], registry["https"] = web, web
	c := &fetch.Client{Fetchers: registry, Timeout: time.Minute}
	defer c.Close()
	res, err := c.Fetch(context.Background(), srv.URL+"/")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	io.Copy(os.Stdout, res.Body)
	// Output:
	// agent: example/1.0
}

// Do takes a parsed URL and per-request choices; ParseURL parses text as a
// person typed or pasted it.
func ExampleClient_Do() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, world\n"), 0o644)

	u, err := fetch.ParseURL("  <URL:file://" + dir + "/hello.txt>  ")
	if err != nil {
		fmt.Println(err)
		return
	}
	var c fetch.Client
	defer c.Close()
	// Offset resumes at a byte, as curl's -C does.
	res, err := c.Do(context.Background(), fetch.Request{URL: u, Offset: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	io.Copy(os.Stdout, res.Body)
	// Output:
	// world
}
