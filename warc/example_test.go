package warc_test

import (
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/urlget/urlget/warc"
)

// An HTTP exchange archived as a request and a response record that name
// each other, then read back.
func Example() {
	dir, _ := os.MkdirTemp("", "warc-example")
	defer os.RemoveAll(dir)
	w, err := warc.Create(filepath.Join(dir, "crawl"), warc.Options{
		Software: "urlget/0.3.0",
		Info:     []warc.Field{{Name: "robots", Value: "classic"}},
	})
	if err != nil {
		log.Fatal(err) // e.g. crawl.warc.gz exists: choose another name
	}
	reqID, respID := warc.NewRecordID(), warc.NewRecordID()
	req, _ := w.Begin(warc.Header{Type: warc.Request, ID: reqID, ConcurrentTo: []string{respID},
		TargetURI: "http://127.0.0.1/", ContentType: warc.HTTPRequestType, IPAddress: "127.0.0.1"})
	io.WriteString(req, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	resp, _ := w.Begin(warc.Header{Type: warc.Response, ID: respID, ConcurrentTo: []string{reqID},
		TargetURI: "http://127.0.0.1/", ContentType: warc.HTTPResponseType, IPAddress: "127.0.0.1"})
	io.WriteString(resp, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
	if _, err := req.Commit(); err != nil {
		log.Fatal(err)
	}
	e, err := resp.Commit()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Status, e.MIME, e.PayloadDigest == warc.DigestOf([]byte("hello")))
	w.Close()

	f, _ := os.Open(filepath.Join(dir, "crawl.warc.gz"))
	defer f.Close()
	r := warc.NewReader(f)
	for {
		h, _, err := r.Next()
		if err != nil {
			break
		}
		fmt.Println(h.Get("WARC-Type"), h.Get("WARC-Target-URI") != "")
	}
	// Output:
	// 200 text/plain true
	// warcinfo false
	// request true
	// response true
}
