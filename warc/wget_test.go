package warc

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// wget returns the path of GNU wget, for the tests that check our CDX
// and WARC against its own; missing, the test skips, and under
// URLGET_REAL (set by .ci/run, which installs it) fails.
func wget(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("wget")
	if err == nil {
		return path
	}
	if os.Getenv("URLGET_REAL") != "" {
		t.Fatal("wget is not installed")
	}
	t.Skip("wget is not installed")
	return ""
}

// TestWgetInterop fetches one page from a local server with wget's
// --warc-file and --warc-cdx: ReadCDX reads wget's index and Reader its
// archive, and the capture found is wget's response record. Then wget
// fetches the page again with --warc-dedup of an index we wrote for a
// response of ours: it writes a revisit that refers to our record.
func TestWgetInterop(t *testing.T) {
	bin := wget(t)
	body := []byte("<html>the same payload, archived twice</html>\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(body)
	}))
	defer srv.Close()
	url := srv.URL + "/a.html"
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-q", "--no-config", "-O", filepath.Join(dir, "page")}, append(args, url)...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "no_proxy=*", "http_proxy=", "HTTP_PROXY=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("wget %v: %v\n%s", args, err, out)
		}
	}

	run("--warc-file=w", "--warc-cdx")
	cdx, err := os.ReadFile(filepath.Join(dir, "w.cdx"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadCDX(bytes.NewReader(cdx))
	if err != nil {
		t.Fatalf("wget's CDX: %v\n%s", err, cdx)
	}
	c, ok := d.Lookup(sha1Of(body), url)
	if !ok {
		t.Fatalf("wget's CDX has no capture of the payload at %s:\n%s", url, cdx)
	}
	found := false
	for _, r := range readAll(t, filepath.Join(dir, "w.warc.gz")) {
		if r.head.Get("WARC-Type") == "response" && r.head.Get("WARC-Record-ID") == c.RecordID {
			found = true
			if r.head.Get("WARC-Payload-Digest") != sha1Of(body) || !bytes.HasSuffix(r.block, body) {
				t.Errorf("wget's response: %v", r.head.Fields)
			}
		}
	}
	if !found {
		t.Errorf("no response record %s in wget's archive", c.RecordID)
	}

	// Our capture of the page, and its CDX for wget's --warc-dedup.
	ours, err := CreateCDX(filepath.Join(dir, "ours.cdx"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := Create(filepath.Join(dir, "ours"), Options{Indexes: []Index{ours}})
	if err != nil {
		t.Fatal(err)
	}
	resp := append([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n", len(body))), body...)
	e := record(t, w, Header{Type: Response, TargetURI: url, ContentType: HTTPResponseType}, resp, 1<<20)
	w.Close()
	ours.Close()

	run("--warc-file=again", "--warc-dedup=ours.cdx")
	revisits := 0
	for _, r := range readAll(t, filepath.Join(dir, "again.warc.gz")) {
		switch r.head.Get("WARC-Type") {
		case "revisit":
			revisits++
			if r.head.Get("WARC-Refers-To") != e.ID || r.head.Get("WARC-Payload-Digest") != sha1Of(body) {
				t.Errorf("wget's revisit: %v", r.head.Fields)
			}
		case "response":
			t.Errorf("wget archived the payload again despite our CDX")
		}
	}
	if revisits != 1 {
		t.Errorf("%d revisit records, want 1", revisits)
	}
}
