package cli

import (
	"errors"
	"io/fs"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/nntptest"
	"github.com/urlget/urlget/warc"
	"github.com/urlget/urlget/warc/warcsink"
)

// TestWarcEmptyListing: a listing of no bytes is a resource record of
// none, not a missing one: an empty FTP directory (vsftpd's LIST sends
// nothing for one), a newsgroup without articles (no OVER is sent) and
// an empty file: directory. The metadata record of the conversation
// (for file:, what was opened) names it, as every other listing's.
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
		{"file://" + filepath.ToSlash(src) + "/", "text/plain", true},
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

// TestWarcNewsPipelined: articles by message-id go out pipelined, every
// ARTICLE command in the first fetch's turn (RFC 3977 §3.5); each
// article's metadata record still names the command its reply answers,
// where the later ones held only the reply.
func TestWarcNewsPipelined(t *testing.T) {
	var arts []nntptest.Article
	for _, id := range []string{"p1@example", "p2@example", "p3@example"} {
		arts = append(arts, nntptest.Article{MessageID: id, Header: [][2]string{{"Subject", id}}, Body: "body of " + id + "\n"})
	}
	srv := nntptest.NewServer(nntptest.Config{Groups: []nntptest.Group{{Name: "test.group", Articles: arts}}})
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	name := filepath.Join(dir, "n")
	args := []string{"-s", "--nntp-server", srv.Addr, "--warc-file", name}
	for i := range arts {
		args = append(args, "-o", filepath.Join(dir, strconv.Itoa(i)))
	}
	for _, a := range arts {
		args = append(args, "news:"+a.MessageID)
	}
	if code, _, errOut := runQ(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs := readWarc(t, name+".warc.gz")
	meta := ofType(recs, "metadata")
	if len(meta) != len(arts) {
		t.Fatalf("%d metadata records", len(meta))
	}
	for i, m := range meta {
		cmd := "ARTICLE <" + arts[i].MessageID + ">"
		if m.target() != "news:"+arts[i].MessageID || !strings.Contains(string(m.block), "> "+cmd+"\r\n") && !strings.Contains(string(m.block), "* "+cmd+" was sent ahead") {
			t.Errorf("metadata of %s:\n%s", m.target(), m.block)
		}
	}
}

// TestWarcExchangeLeftOpen: an attempt that ends while an earlier
// exchange of its own is open (a request sent ahead on a pipeline that
// the fetch asked again on another connection, its answer still
// arriving) commits only its answer, the last exchange, as whole; the
// open one is written when its fetcher ends it, cut if it was dropped,
// where it was written as whole with what had come of it.
func TestWarcExchangeLeftOpen(t *testing.T) {
	name := filepath.Join(t.TempDir(), "open")
	w, err := warc.Create(name, warc.Options{Software: "urlget/test"})
	if err != nil {
		t.Fatal(err)
	}
	s := warcsink.New(w, warcsink.Options{})
	const u = "http://127.0.0.1:1/big.bin"
	remote := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
	const head = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"
	c := s.Begin(u)
	ahead := c.Exchange(u, remote)
	ahead.Request([]byte("GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n"))
	ahead.Response([]byte(head + "01234"))
	again := c.Exchange(u, remote)
	again.Request([]byte("GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n"))
	again.Response([]byte(head + "0123456789"))
	again.End(nil)
	c.End(nil)
	ahead.End(errors.New("response dropped"))
	if err := errors.Join(s.Err(), w.Close()); err != nil {
		t.Fatal(err)
	}
	resps := ofType(readWarc(t, name+".warc.gz"), "response")
	if len(resps) != 2 {
		t.Fatalf("%d responses", len(resps))
	}
	whole, cut := resps[0], resps[1]
	if string(whole.block) != head+"0123456789" || whole.h.Get("WARC-Truncated") != "" {
		t.Errorf("the answer: %q %v", whole.block, whole.h.Fields)
	}
	if string(cut.block) != head+"01234" || cut.h.Get("WARC-Truncated") == "" {
		t.Errorf("the dropped answer: %q %v", cut.block, cut.h.Fields)
	}
}
