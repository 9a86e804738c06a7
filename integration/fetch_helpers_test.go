package integration

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
)

// testCtx returns a context that ends after 30 s or with the test, so that
// no fetch in a test can hang it.
func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// mustFetch fetches req with f and fails the test on error.
func mustFetch(t testing.TB, f schemes.Fetcher, req *schemes.Request) *schemes.Resource {
	t.Helper()
	res, err := f.Fetch(testCtx(t), req)
	if err != nil {
		t.Fatalf("Fetch %s: %v", req.URL, err)
	}
	return res
}

// readBody reads and closes the resource's body, failing the test when it
// has none or the read fails.
func readBody(t testing.TB, res *schemes.Resource) []byte {
	t.Helper()
	if res.Body == nil {
		t.Fatalf("%s: no body (listing %v)", res.URL, res.Listing != nil)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s: read body: %v", res.URL, err)
	}
	return b
}

// maxTestEntries bounds readEntries, so that a listing that never ends
// fails the test instead of growing without limit.
const maxTestEntries = 100000

// readEntries reads the resource's listing to its end and closes it,
// failing the test when it has none or Next fails.
func readEntries(t testing.TB, res *schemes.Resource) []schemes.Entry {
	t.Helper()
	if res.Listing == nil {
		t.Fatalf("%s: no listing", res.URL)
	}
	defer res.Listing.Close()
	var es []schemes.Entry
	for range maxTestEntries {
		e, err := res.Listing.Next()
		if err == io.EOF {
			return es
		}
		if err != nil {
			t.Fatalf("%s: listing: %v", res.URL, err)
		}
		es = append(es, e)
	}
	t.Fatalf("%s: listing longer than %d entries", res.URL, maxTestEntries)
	return nil
}
