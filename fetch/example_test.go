package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
)

// Fetch streams a resource; errors.Is tells the kinds of failure apart
// whatever the protocol.
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

	_, err = fetch.Fetch(context.Background(), "file://"+dir+"/missing.txt")
	fmt.Println(errors.Is(err, schemes.ErrNotFound))
	// Output:
	// hello, world
	// true
}

// A listing streams entries, each with its own absolute URL.
func ExampleClient_Fetch_listing() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "a b.txt"), []byte("x"), 0o644)

	var c fetch.Client // the zero value knows every scheme
	defer c.Close()
	res, err := c.Fetch(context.Background(), "file://"+dir+"/")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Listing.Close()
	for {
		e, err := res.Listing.Next()
		if err != nil {
			break
		}
		fmt.Println(e.Kind, e.Name, filepath.Base(e.URL))
	}
	// Output:
	// file a b.txt a%20b.txt
}
