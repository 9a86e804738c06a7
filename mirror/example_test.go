package mirror_test

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

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

// Keep a copy up to date, as --mirror --delete does: the second run
// fetches only what changed and deletes the file the source no longer
// has, since the first run recorded it as its own.
func Example_incremental() {
	src, _ := os.MkdirTemp("", "site")
	defer os.RemoveAll(src)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("alpha\n"), 0o644)
	os.WriteFile(filepath.Join(src, "old.txt"), []byte("old\n"), 0o644)
	out, _ := os.MkdirTemp("", "copy")
	defer os.RemoveAll(out)

	start, err := fetch.ParseURL("file://" + filepath.ToSlash(src) + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	var c fetch.Client
	defer c.Close()
	run := func() {
		var done []string
		_, err := mirror.Run(context.Background(), &c, mirror.Options{
			Dir:          out,
			Level:        -1,
			Timestamping: true, // fetch only what changed, and keep the manifest
			Delete:       true, // remove what the source no longer has
			Report: func(r mirror.Report) {
				if r.Path != "" {
					done = append(done, path.Base(r.Path)+" "+string(r.Status))
				}
			},
		}, []uri.URL{start})
		// The transfers run in parallel: the reports come in any order.
		sort.Strings(done)
		fmt.Println(strings.Join(done, ", "), err)
	}
	run()
	os.Remove(filepath.Join(src, "old.txt"))
	run()
	// Output:
	// a.txt fetched, old.txt fetched <nil>
	// a.txt unchanged, old.txt deleted <nil>
}
