package integration

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	httpscheme "github.com/urlget/urlget/schemes/http"
)

// TestNginxCompressed fetches from nginx with gzip on (.ci/servers/nginx.sh):
// with Compressed the body comes gzip-encoded and is decoded while it
// streams; without it, and when resuming, the stored bytes come as they
// are, with their size and ranges.
func TestNginxCompressed(t *testing.T) {
	_, dir, urlDir := nginxServer(t)
	data := compressible(t)
	if err := os.WriteFile(filepath.Join(dir, "text.txt"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	f := httpFetcherWith(t, &httpscheme.Fetcher{Compressed: true})
	req := httpRequest(t, urlDir+"/text.txt")
	res, body, err := httpGet(t, f, req)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, data) {
		t.Errorf("%d bytes decoded, want the %d stored", len(body), len(data))
	}
	if enc := headerValue(res.Header, "Content-Encoding"); enc != "gzip" || res.Size != -1 {
		t.Errorf("Content-Encoding %q, Size %d: nginx did not compress (gzip on?)", enc, res.Size)
	}

	res, body, err = httpGet(t, httpFetcher(t), httpRequest(t, urlDir+"/text.txt"))
	if err != nil || !bytes.Equal(body, data) || res.Size != int64(len(data)) {
		t.Errorf("without Compressed: %d bytes, Size %d, %v", len(body), res.Size, err)
	}

	req = httpRequest(t, urlDir+"/text.txt")
	req.Offset = 1000
	res, body, err = httpGet(t, f, req)
	if err != nil || !bytes.Equal(body, data[1000:]) || res.Offset != 1000 {
		t.Errorf("resumed with Compressed: %d bytes from %d, %v", len(body), res.Offset, err)
	}
}

// headerValue returns the first value of a field in Resource.Header form.
func headerValue(h [][2]string, name string) string {
	for _, kv := range h {
		if kv[0] == name {
			return kv[1]
		}
	}
	return ""
}
