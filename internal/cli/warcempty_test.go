package cli

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/nntptest"
)

// TestWarcEmptyListing: a listing of no bytes is a resource record of
// none, not a missing one: an empty FTP directory (vsftpd's LIST sends
// nothing for one), a newsgroup without articles (no OVER is sent) and
// an empty file: directory. The metadata record of the conversation
// names it, as every other listing's.
func TestWarcEmptyListing(t *testing.T) {
	fsrv := ftptest.NewServer(fstest.MapFS{"pub/empty": {Mode: fs.ModeDir | 0o755}, "pub/f.txt": {Data: []byte("x\n"), Mode: 0o644}})
	t.Cleanup(fsrv.Close)
	ns := nntptest.NewServer(nntptest.Config{Groups: []nntptest.Group{{Name: "empty.group", Status: "y"}}})
	t.Cleanup(ns.Close)
	src := t.TempDir()
	for _, c := range []struct {
		url, ctype string
		meta       bool
	}{
		{fsrv.URL + "/pub/empty/", "text/plain", true},
		{ns.URL + "/empty.group", "text/plain", true},
		{"file://" + filepath.ToSlash(src) + "/", "text/plain", false},
	} {
		t.Run(strings.SplitN(c.url, ":", 2)[0], func(t *testing.T) {
			recs := archiveOne(t, c.url)
			res := ofType(recs, "resource")
			if len(res) != 1 || res[0].target() != c.url || len(res[0].block) != 0 || res[0].h.Get("Content-Type") != c.ctype ||
				res[0].h.Get("WARC-Payload-Digest") != sha1Of("") || res[0].h.Get("WARC-Truncated") != "" {
				t.Fatalf("resources %v", res)
			}
			meta := ofType(recs, "metadata")
			if !c.meta {
				if len(meta) != 0 {
					t.Errorf("metadata %v", meta)
				}
				return
			}
			if len(meta) != 1 || meta[0].h.Get("WARC-Concurrent-To") != res[0].h.Get("WARC-Record-ID") {
				t.Errorf("metadata %v", meta)
			}
		})
	}
}
