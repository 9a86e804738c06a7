package integration

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/file"
	"github.com/urlget/urlget/uri"
)

// fileURL is the file: URL of a local path, each segment %-encoded.
func fileURL(p string) string {
	return "file://" + uri.EscapePath(p)
}

// fileRequest builds the request the fetch package would pass for rawURL.
func fileRequest(t *testing.T, rawURL string) *schemes.Request {
	t.Helper()
	u, err := uri.Parse(rawURL)
	if err != nil {
		t.Fatalf("parse %q: %v", rawURL, err)
	}
	return &schemes.Request{URL: u, Dialer: &net.Dialer{}, TLSConfig: &tls.Config{}}
}

// fileListAll reads a whole listing, sorted by name.
func fileListAll(t *testing.T, l schemes.Listing) []schemes.Entry {
	t.Helper()
	defer l.Close()
	var all []schemes.Entry
	for {
		e, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, e)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all
}

// awkwardNames are file names that need %-encoding or decoding care.
var awkwardNames = []string{
	"plain.txt",
	"with space.txt",
	"hash#tag",
	"semi;colon;type=a",
	"question?.txt",
	"percent%41.txt",
	"naïve café.txt",
	"日本語.md",
	"emoji-😀",
	"back\\slash",
	"colon:at@amp&plus+eq=",
}

func TestFileAwkwardNamesRoundTrip(t *testing.T) {
	root := t.TempDir()
	for i, name := range awkwardNames {
		if err := os.WriteFile(filepath.Join(root, name), []byte("content "+strconv.Itoa(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "sub dir#1"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := &file.Fetcher{}
	res, err := f.Fetch(context.Background(), fileRequest(t, fileURL(root)+"/"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Body != nil || res.Listing == nil {
		t.Fatal("a directory must come back as a listing")
	}
	entries := fileListAll(t, res.Listing)
	if len(entries) != len(awkwardNames)+1 {
		t.Fatalf("%d entries, want %d", len(entries), len(awkwardNames)+1)
	}
	for _, e := range entries {
		if e.Name == "sub dir#1" {
			if e.Kind != schemes.KindDirectory || e.URL != fileURL(root)+"/sub%20dir%231/" {
				t.Errorf("directory entry %+v", e)
			}
			continue
		}
		i := -1
		for k, n := range awkwardNames {
			if n == e.Name {
				i = k
			}
		}
		if i < 0 {
			t.Errorf("unexpected entry %q", e.Name)
			continue
		}
		want := "content " + strconv.Itoa(i)
		if e.Kind != schemes.KindFile || e.Size != int64(len(want)) || e.ModTime.IsZero() {
			t.Errorf("%q: kind %v size %d time %v", e.Name, e.Kind, e.Size, e.ModTime)
		}
		if !strings.HasPrefix(e.URL, fileURL(root)+"/") || strings.ContainsAny(e.URL[len("file://"):], " #?;") {
			t.Errorf("%q: entry URL %q is not a %%-encoded child of the directory", e.Name, e.URL)
		}
		// Every entry's URL fetches that very file.
		res, err := f.Fetch(context.Background(), fileRequest(t, e.URL))
		if err != nil {
			t.Errorf("%q: fetch %s: %v", e.Name, e.URL, err)
			continue
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(b) != want || res.Name != e.Name {
			t.Errorf("%q: body %q name %q err %v", e.Name, b, res.Name, err)
		}
	}
}

func TestFileBodyIsOSFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "data.json")
	if err := os.WriteFile(p, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := (&file.Fetcher{}).Fetch(context.Background(), fileRequest(t, "file://localhost"+uri.EscapePath(p)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	// The *os.File itself lets io.Copy reach copy_file_range and sendfile.
	if _, ok := res.Body.(*os.File); !ok {
		t.Errorf("body is %T, want *os.File", res.Body)
	}
	if res.Size != 7 || res.ContentType != "application/json" || res.ModTime.IsZero() || res.Name != "data.json" {
		t.Errorf("size %d type %q time %v name %q", res.Size, res.ContentType, res.ModTime, res.Name)
	}
}

func TestFileOffsetAndHead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "digits.txt")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &file.Fetcher{}
	req := fileRequest(t, fileURL(p))
	req.Offset = 7
	res, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "789" || res.Offset != 7 || res.Size != 10 {
		t.Errorf("offset 7: body %q offset %d size %d", b, res.Offset, res.Size)
	}

	req.Offset = 11
	if _, err := f.Fetch(context.Background(), req); !errors.Is(err, schemes.ErrNotRetrievable) {
		t.Errorf("offset past the end: %v", err)
	}

	req = fileRequest(t, fileURL(p))
	req.Head = true
	res, err = f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Body != nil || res.Size != 10 || res.ContentType != "text/plain; charset=utf-8" || res.ModTime.IsZero() {
		t.Errorf("head: body %v size %d type %q", res.Body, res.Size, res.ContentType)
	}

	req = fileRequest(t, fileURL(p))
	req.MaxSize = 9
	if _, err := f.Fetch(context.Background(), req); !errors.Is(err, schemes.ErrTooLarge) {
		t.Errorf("max size: %v", err)
	}
}

func TestFileErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f := &file.Fetcher{}
	for _, tc := range []struct {
		url  string
		kind error
	}{
		{fileURL(dir) + "/missing", schemes.ErrNotFound},
		{fileURL(dir) + "/f/under-a-file", schemes.ErrNotFound},
		{"file://example.com" + uri.EscapePath(dir) + "/f", schemes.ErrNotRetrievable},
		{fileURL(dir) + "/a%2Fb", schemes.ErrBadURL},
		{fileURL(dir) + "/a%2fb", schemes.ErrBadURL},
		{fileURL(dir) + "/x%00y", schemes.ErrBadURL},
		{"file://user@localhost/etc/hostname", schemes.ErrBadURL},
	} {
		res, err := f.Fetch(context.Background(), fileRequest(t, tc.url))
		if res != nil {
			t.Errorf("%s: got a resource", tc.url)
		}
		if !errors.Is(err, tc.kind) {
			t.Errorf("%s: error %v, want %v", tc.url, err, tc.kind)
		}
	}
	_, err := f.Fetch(context.Background(), fileRequest(t, "file://example.com/etc/hostname"))
	if err == nil || !strings.Contains(err.Error(), "only local files") {
		t.Errorf("remote host: error %v does not say only local files can be fetched", err)
	}
}

func TestFileLargeDirectoryStreams(t *testing.T) {
	dir := t.TempDir()
	const n = 700 // more than two of the fetcher's read batches
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := (&file.Fetcher{}).Fetch(context.Background(), fileRequest(t, fileURL(dir)))
	if err != nil {
		t.Fatal(err)
	}
	entries := fileListAll(t, res.Listing)
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.Name] {
			t.Errorf("%q listed twice", e.Name)
		}
		seen[e.Name] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct entries, want %d", len(seen), n)
	}
}

func TestFileListingSymlinksAndCancel(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	os.WriteFile(filepath.Join(dir, "target.txt"), []byte("abc"), 0o644)
	if err := os.Symlink("real", filepath.Join(dir, "to-dir")); err != nil {
		t.Fatal(err)
	}
	os.Symlink("target.txt", filepath.Join(dir, "to-file"))
	os.Symlink("nowhere", filepath.Join(dir, "dangling"))
	res, err := (&file.Fetcher{}).Fetch(context.Background(), fileRequest(t, fileURL(dir)+"/"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]schemes.Entry{}
	for _, e := range fileListAll(t, res.Listing) {
		got[e.Name] = e
	}
	if e := got["to-dir"]; e.Kind != schemes.KindDirectory || !strings.HasSuffix(e.URL, "/to-dir/") || e.Fields["link"] != "real" {
		t.Errorf("link to a directory: %+v", e)
	}
	if e := got["to-file"]; e.Kind != schemes.KindFile || e.Size != 3 {
		t.Errorf("link to a file: %+v", e)
	}
	if e := got["dangling"]; e.Kind != schemes.KindLink || e.Size != -1 {
		t.Errorf("dangling link: %+v", e)
	}

	ctx, cancel := context.WithCancel(context.Background())
	res, err = (&file.Fetcher{}).Fetch(ctx, fileRequest(t, fileURL(dir)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Listing.Close()
	cancel()
	if _, err := res.Listing.Next(); !errors.Is(err, context.Canceled) {
		t.Errorf("Next after cancel: %v", err)
	}
}

func TestFileRawDirectoryIsListing(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x"), nil, 0o644)
	req := fileRequest(t, fileURL(dir))
	req.Raw = true
	res, err := (&file.Fetcher{}).Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Listing == nil {
		t.Fatal("a local directory has no listing bytes of its own; Raw must still give the listing")
	}
	if entries := fileListAll(t, res.Listing); len(entries) != 1 || entries[0].Name != "x" {
		t.Errorf("entries %+v", entries)
	}
}

// BenchmarkFileCopy measures copying a 64 MiB file fetched over file: into
// another file, the path the command takes for -o.
func BenchmarkFileCopy(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.WriteFile(src, make([]byte, 64<<20), 0o644); err != nil {
		b.Fatal(err)
	}
	u := uri.MustParse(fileURL(src))
	f := &file.Fetcher{}
	b.SetBytes(64 << 20)
	for b.Loop() {
		res, err := f.Fetch(context.Background(), &schemes.Request{URL: u})
		if err != nil {
			b.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dir, "dst"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(out, res.Body); err != nil {
			b.Fatal(err)
		}
		out.Close()
		res.Body.Close()
	}
}

func TestFileDeviceStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	res, err := (&file.Fetcher{}).Fetch(ctx, fileRequest(t, "file:///dev/zero"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.Size != -1 {
		t.Errorf("a device has no known size; got %d", res.Size)
	}
	buf := make([]byte, 4096)
	if _, err := io.ReadFull(res.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	// The file is closed from the context's own goroutine; an endless
	// stream must end within a bounded number of reads.
	for i := 0; ; i++ {
		if _, err := res.Body.Read(buf); err != nil {
			if !errors.Is(err, os.ErrClosed) {
				t.Errorf("read after cancel: %v, want the file closed", err)
			}
			break
		}
		if i == 10_000_000 {
			t.Fatal("reads go on after the context was cancelled")
		}
		if i%1000 == 0 {
			runtime.Gosched()
		}
	}
	if err := res.Body.Close(); err != nil {
		t.Errorf("Close after cancel: %v", err)
	}
}
