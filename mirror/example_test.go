package mirror_test

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/mirror"
	"github.com/urlget/urlget/uri"
)

// Mirror a directory tree (here a local one, through file:) into another
// directory: each URL is reported as it is done, and Run returns the
// totals and the first failure.
func Example() {
	src, _ := os.MkdirTemp("", "site")
	defer os.RemoveAll(src)
	os.MkdirAll(filepath.Join(src, "sub"), 0o755)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("alpha\n"), 0o644)
	os.WriteFile(filepath.Join(src, "sub", "b.txt"), []byte("beta\n"), 0o644)
	out, _ := os.MkdirTemp("", "copy")
	defer os.RemoveAll(out)

	start, err := fetch.ParseURL("file://" + filepath.ToSlash(src) + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	var c fetch.Client
	defer c.Close()
	st, err := mirror.Run(context.Background(), &c, mirror.Options{
		Dir:      out,
		Level:    -1, // no limit
		Parallel: 1,  // one at a time, so that the reports come in order
		Report: func(r mirror.Report) {
			if r.Path != "" {
				fmt.Println(r.Status, path.Base(r.Path), r.Size)
			}
		},
	}, []uri.URL{start})
	fmt.Println(st.Done, "URLs,", st.Failed, "failed:", err)
	// Output:
	// fetched a.txt 6
	// fetched b.txt 5
	// 4 URLs, 0 failed: <nil>
}
