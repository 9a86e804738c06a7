package cli

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/integration/nntptest"
	"github.com/urlget/urlget/integration/waistest"
	"github.com/urlget/urlget/internal/xfer/xfertest"
	"github.com/urlget/urlget/warc"
)

// warcRec is one record read back: its header and block.
type warcRec struct {
	h     *warc.Head
	block []byte
}

func (r warcRec) typ() string { return r.h.Get("WARC-Type") }

// target is the record's WARC-Target-URI, without the angle brackets
// wget puts around it (WARC 1.0's grammar, which warcio takes off too).
func (r warcRec) target() string {
	return strings.TrimSuffix(strings.TrimPrefix(r.h.Get("WARC-Target-URI"), "<"), ">")
}

// readWarc reads every record of an archive with warc.Reader, and, when
// URLGET_WARCIO names the npm package warcio's command (.ci/run sets it),
// has warcio list the same records with the same types, target URIs and
// payload digests.
func readWarc(t *testing.T, path string) []warcRec {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []warcRec
	r := warc.NewReader(f)
	for {
		h, body, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: record %d: %v", path, len(recs), err)
		}
		b, err := io.ReadAll(body)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, warcRec{h, b})
	}
	if len(recs) == 0 || recs[0].typ() != "warcinfo" {
		t.Fatalf("%s: no warcinfo first: %d records", path, len(recs))
	}
	if bin := os.Getenv("URLGET_WARCIO"); bin != "" {
		out, err := exec.Command(bin, "index", path, "--fields", "warc-type,warc-target-uri,warc-payload-digest").Output()
		if err != nil {
			t.Fatalf("warcio index %s: %v", path, err)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		i := 0
		for ; sc.Scan(); i++ {
			var m map[string]string
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("warcio: %q: %v", sc.Text(), err)
			}
			if i >= len(recs) {
				t.Fatalf("warcio lists more records than %d", len(recs))
			}
			r := recs[i]
			if m["warc-type"] != r.typ() || m["warc-target-uri"] != r.target() || m["warc-payload-digest"] != r.h.Get("WARC-Payload-Digest") {
				t.Errorf("warcio record %d: %v; ours %s %s %s", i, m, r.typ(), r.target(), r.h.Get("WARC-Payload-Digest"))
			}
		}
		if i != len(recs) {
			t.Errorf("warcio lists %d records, ours %d", i, len(recs))
		}
	}
	return recs
}

// rawArchive returns the archive's bytes decompressed, to look for what
// must not be in it.
func rawArchive(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// archiveOne fetches url to a file with --warc-file and returns the
// archive's records.
func archiveOne(t *testing.T, url string) []warcRec {
	t.Helper()
	dir := t.TempDir()
	name := filepath.Join(dir, "one")
	if code, _, errOut := runQ(t, "-s", "-o", filepath.Join(dir, "out"), "--warc-file", name, url); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	return readWarc(t, name+".warc.gz")
}

// sha1Of is a payload digest as the WARC records write it.
func sha1Of(s string) string {
	h := sha1.Sum([]byte(s))
	return "sha1:" + base32.StdEncoding.EncodeToString(h[:])
}

// ofType returns the records of one type, in order.
func ofType(recs []warcRec, typ string) []warcRec {
	var out []warcRec
	for _, r := range recs {
		if r.typ() == typ {
			out = append(out, r)
		}
	}
	return out
}

// byID returns the record of an ID.
func byID(recs []warcRec, id string) (warcRec, bool) {
	for _, r := range recs {
		if r.h.Get("WARC-Record-ID") == id {
			return r, true
		}
	}
	return warcRec{}, false
}

// checkExchanges holds each response to its request: the two name each
// other in WARC-Concurrent-To, for one target URI.
func checkExchanges(t *testing.T, recs []warcRec) {
	t.Helper()
	for _, resp := range append(ofType(recs, "response"), ofType(recs, "revisit")...) {
		req, ok := byID(recs, resp.h.Get("WARC-Concurrent-To"))
		if !ok || req.typ() != "request" || req.h.Get("WARC-Concurrent-To") != resp.h.Get("WARC-Record-ID") || req.target() != resp.target() {
			t.Errorf("response %s of %s: its request %v", resp.h.Get("WARC-Record-ID"), resp.target(), req.h)
		}
	}
}

// TestWarcHTTP: an http fetch with a password in its URL archived as a
// request and a response record naming each other, the URL without the
// password, Authorization masked (kept with --warc-keep-credentials), the
// payload digest the fixture's, the command line in the warcinfo with
// the password masked.
func TestWarcHTTP(t *testing.T) {
	const body = "the archived page\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, ok := r.BasicAuth(); !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	u := strings.Replace(srv.URL, "http://", "http://ann:hunter2@", 1) + "/page.txt"
	cred := base64.StdEncoding.EncodeToString([]byte("ann:hunter2"))
	for _, keep := range []bool{false, true} {
		dir := t.TempDir()
		name := filepath.Join(dir, "a")
		args := []string{"-s", "--warc-file", name, "--warc-cdx", u}
		if keep {
			args = append([]string{"--warc-keep-credentials"}, args...)
		}
		code, out, errOut := runQ(t, args...)
		if code != 0 || out != body {
			t.Fatalf("exit %d, out %q: %s", code, out, errOut)
		}
		recs := readWarc(t, name+".warc.gz")
		if info := string(recs[0].block); !strings.Contains(info, "software: urlget/"+version) || !strings.Contains(info, "urlget-arguments: ") || strings.Contains(info, "hunter2") || !strings.Contains(info, "ann:****@") {
			t.Errorf("warcinfo:\n%s", info)
		}
		reqs, resps := ofType(recs, "request"), ofType(recs, "response")
		if len(reqs) != 1 || len(resps) != 1 {
			t.Fatalf("%d requests, %d responses", len(reqs), len(resps))
		}
		checkExchanges(t, recs)
		want := srv.URL + "/page.txt"
		if resps[0].target() != want || resps[0].h.Get("WARC-Payload-Digest") != sha1Of(body) || resps[0].h.Get("WARC-IP-Address") != "127.0.0.1" {
			t.Errorf("response: %v", resps[0].h.Fields)
		}
		if !bytes.HasSuffix(resps[0].block, []byte("\r\n\r\n"+body)) {
			t.Errorf("response block %q", resps[0].block)
		}
		masked := strings.Contains(string(reqs[0].block), "Authorization: Basic ****\r\n")
		kept := strings.Contains(string(reqs[0].block), "Authorization: Basic "+cred+"\r\n")
		if keep != kept || keep == masked {
			t.Errorf("keep %v: request %q", keep, reqs[0].block)
		}
		if !keep && strings.Contains(rawArchive(t, name+".warc.gz"), "hunter2") {
			t.Error("the password is in the archive")
		}
		cdx, err := os.ReadFile(name + ".cdx")
		if err != nil || !strings.HasPrefix(string(cdx), warc.CDXHeader+"\n") || !strings.Contains(string(cdx), want+" ") {
			t.Errorf("cdx %q (%v)", cdx, err)
		}
		if cdxj, err := os.ReadFile(name + ".cdxj"); err != nil || strings.Count(string(cdxj), "\n") != 1 {
			t.Errorf("cdxj %q (%v)", cdxj, err)
		}
	}
}

// TestWarcServerBytes: a server's CR in its Content-Type and Location
// reaches neither a WARC header nor an index line of its own.
func TestWarcServerBytes(t *testing.T) {
	ln := xfertest.ServeTCP(t, func(c net.Conn) {
		defer c.Close()
		bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\rWARC-Type: injected\r\nLocation: /x\rWARC-Injected: yes\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
	})
	dir := t.TempDir()
	name := filepath.Join(dir, "s")
	runQ(t, "-s", "-o", filepath.Join(dir, "out"), "--warc-file", name, "--warc-cdx", "http://"+ln.Addr().String()+"/")
	recs := readWarc(t, name+".warc.gz")
	if len(recs) != 3 {
		t.Fatalf("%d records, want warcinfo, request, response", len(recs))
	}
	for _, r := range recs {
		for _, f := range r.h.Fields {
			if strings.EqualFold(f.Name, "WARC-Injected") || f.Name == "WARC-Type" && f.Value == "injected" {
				t.Errorf("injected field %v", f)
			}
		}
	}
	cdx, _ := os.ReadFile(name + ".cdx")
	cdxj, _ := os.ReadFile(name + ".cdxj")
	if strings.Count(string(cdx), "\n") != 2 || strings.ContainsAny(strings.TrimSuffix(string(cdx), "\n"), "\r") || strings.Count(string(cdxj), "\n") != 1 {
		t.Errorf("indexes:\n%q\n%q", cdx, cdxj)
	}
}

// TestWarcFTP: an FTP file and a listing, each a resource record (the
// file's bytes, the LIST's bytes as sent) with its metadata record of the
// control conversation, PASS masked, the URLs without the password.
func TestWarcFTP(t *testing.T) {
	const data = "an ftp file\n"
	s := ftptest.NewUnstartedServer(fstest.MapFS{"pub/f.txt": {Data: []byte(data), Mode: 0o644}})
	s.Users = map[string]string{"ann": "hunter2"}
	s.Start()
	t.Cleanup(s.Close)
	base := strings.Replace(s.URL, "ftp://", "ftp://ann:hunter2@", 1)
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	code, out, errOut := runQ(t, "-s", "--warc-file", name, base+"/pub/f.txt", base+"/pub/")
	if code != 0 || !strings.HasPrefix(out, data) {
		t.Fatalf("exit %d, out %q: %s", code, out, errOut)
	}
	recs := readWarc(t, name+".warc.gz")
	res := ofType(recs, "resource")
	if len(res) != 2 {
		t.Fatalf("%d resource records", len(res))
	}
	file, list := res[0], res[1]
	// The user stays in the URL, the password goes.
	host := strings.Replace(s.URL, "ftp://", "ftp://ann@", 1)
	if file.target() != host+"/pub/f.txt" || file.h.Get("WARC-Payload-Digest") != sha1Of(data) || string(file.block) != data || file.h.Get("Content-Type") != "text/plain" && file.h.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("file record: %v %q", file.h.Fields, file.block)
	}
	if list.target() != host+"/pub/" || !strings.Contains(string(list.block), "f.txt\r\n") || list.h.Get("Content-Type") != "text/plain" || list.h.Get("WARC-Payload-Digest") != sha1Of(string(list.block)) {
		t.Errorf("listing record: %v %q", list.h.Fields, list.block)
	}
	meta := ofType(recs, "metadata")
	if len(meta) != 2 {
		t.Fatalf("%d metadata records", len(meta))
	}
	for i, m := range meta {
		if m.h.Get("WARC-Concurrent-To") != res[i].h.Get("WARC-Record-ID") || m.h.Get("WARC-IP-Address") != "127.0.0.1" {
			t.Errorf("metadata %d: %v %q", i, m.h.Fields, m.block)
		}
	}
	// The second fetch reuses the first's session: its login is the
	// first's conversation.
	if !strings.Contains(string(meta[0].block), "> PASS ****\r\n") || !strings.Contains(string(meta[0].block), "> RETR f.txt\r\n") || !strings.Contains(string(meta[1].block), "> LIST") && !strings.Contains(string(meta[1].block), "> MLSD") {
		t.Errorf("conversations:\n%s\n%s", meta[0].block, meta[1].block)
	}
	if strings.Contains(rawArchive(t, name+".warc.gz"), "hunter2") {
		t.Error("the password is in the archive")
	}
}

// TestWarcGopherMenu: a gopher menu archived as the gophermap as sent,
// "." line included, with its selector in the metadata record.
func TestWarcGopherMenu(t *testing.T) {
	mux := gophertest.NewMux()
	mux.Handle("", gophertest.Menu(gophertest.Item{Type: '0', Display: "a file", Selector: "/a.txt"}, gophertest.Info("hello")))
	mux.Handle("/a.txt", gophertest.Text("gopher text\n"))
	gs := gophertest.NewServer(mux)
	t.Cleanup(gs.Close)
	recs := archiveOne(t, gs.URL+"/")
	res := ofType(recs, "resource")
	if len(res) != 1 || res[0].h.Get("Content-Type") != "application/gopher-menu" || !strings.HasPrefix(string(res[0].block), "0a file\t/a.txt\t") || !strings.HasSuffix(string(res[0].block), "\r\n.\r\n") {
		t.Fatalf("menu records: %v", res)
	}
	if res[0].h.Get("WARC-Payload-Digest") != sha1Of(string(res[0].block)) {
		t.Errorf("digest %s", res[0].h.Get("WARC-Payload-Digest"))
	}
	meta := ofType(recs, "metadata")
	if len(meta) != 1 || meta[0].h.Get("WARC-Concurrent-To") != res[0].h.Get("WARC-Record-ID") || len(meta[0].block) == 0 {
		t.Errorf("metadata: %v", meta)
	}
}

// TestWarcNews: a news article as a resource record of type
// message/rfc822, its bytes those urlget wrote, and the NNTP commands in
// its metadata record.
func TestWarcNews(t *testing.T) {
	srv := nntptest.NewServer(nntptest.Config{Groups: []nntptest.Group{{Name: "test.group", Articles: []nntptest.Article{{
		MessageID: "a1@example", Header: [][2]string{{"Subject", "hi"}}, Body: "hello\n",
	}}}}})
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	name := filepath.Join(dir, "n")
	code, out, errOut := runQ(t, "-s", "--warc-file", name, srv.URL+"/test.group/1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs := readWarc(t, name+".warc.gz")
	res := ofType(recs, "resource")
	if len(res) != 1 || res[0].h.Get("Content-Type") != "message/rfc822" || string(res[0].block) != out || res[0].h.Get("WARC-Payload-Digest") != sha1Of(out) || res[0].target() != srv.URL+"/test.group/1" {
		t.Fatalf("article records: %v; out %q", res, out)
	}
	meta := ofType(recs, "metadata")
	if len(meta) != 1 || !strings.Contains(string(meta[0].block), "> GROUP test.group") && !strings.Contains(string(meta[0].block), "> ARTICLE") {
		t.Errorf("metadata: %v", meta)
	}
}

// TestWarcFileDir: a file: directory archived as its names one a line,
// a file as its bytes, no metadata record (no conversation).
func TestWarcFileDir(t *testing.T) {
	src := t.TempDir()
	const data = "local bytes\n"
	os.WriteFile(filepath.Join(src, "a.txt"), []byte(data), 0o644)
	os.WriteFile(filepath.Join(src, "b.txt"), []byte("b\n"), 0o644)
	dir := t.TempDir()
	name := filepath.Join(dir, "l")
	if code, _, errOut := runQ(t, "-s", "-o", filepath.Join(dir, "x"), "-o", filepath.Join(dir, "y"), "--warc-file", name, "file://"+src+"/", "file://"+src+"/a.txt"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs := readWarc(t, name+".warc.gz")
	res := ofType(recs, "resource")
	if len(res) != 2 {
		t.Fatalf("%d resources", len(res))
	}
	if res[0].target() != "file://"+src+"/" || !strings.Contains(string(res[0].block), "a.txt\n") || !strings.Contains(string(res[0].block), "b.txt\n") {
		t.Errorf("directory: %v %q", res[0].h.Fields, res[0].block)
	}
	if res[1].target() != "file://"+src+"/a.txt" || res[1].h.Get("WARC-Payload-Digest") != sha1Of(data) || res[1].h.Get("Content-Type") != "text/plain; charset=utf-8" && res[1].h.Get("Content-Type") != "text/plain" {
		t.Errorf("file: %v", res[1].h.Fields)
	}
	// Each has a metadata record of what was opened, naming it.
	meta := ofType(recs, "metadata")
	if len(meta) != 2 {
		t.Fatalf("%d metadata records", len(meta))
	}
	for i, m := range meta {
		path := strings.TrimPrefix(res[i].target(), "file://")
		if m.target() != res[i].target() || m.h.Get("WARC-Concurrent-To") != res[i].h.Get("WARC-Record-ID") ||
			!strings.HasPrefix(string(m.block), "* open "+strconv.Quote(path)+"\r\n* stat: ") {
			t.Errorf("metadata of %s: %v\n%s", res[i].target(), m.h.Fields, m.block)
		}
	}
}

// TestWarcParallel: -Z with several URLs, each exchange its own pair of
// records, and standard output written as without the archive.
func TestWarcParallel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "body of "+r.URL.Path) }))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	name := filepath.Join(dir, "z")
	var urls []string
	for _, p := range []string{"/1", "/2", "/3", "/4"} {
		urls = append(urls, srv.URL+p)
	}
	code, out, errOut := runQ(t, append([]string{"-s", "-Z", "--warc-file", name}, urls...)...)
	if code != 0 || !strings.Contains(out, "body of /3") {
		t.Fatalf("exit %d, out %q: %s", code, out, errOut)
	}
	recs := readWarc(t, name+".warc.gz")
	checkExchanges(t, recs)
	var got []string
	for _, r := range ofType(recs, "response") {
		got = append(got, r.target())
		if r.h.Get("WARC-Payload-Digest") != sha1Of("body of "+strings.TrimPrefix(r.target(), srv.URL)) {
			t.Errorf("%s: digest %s", r.target(), r.h.Get("WARC-Payload-Digest"))
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, urls) {
		t.Errorf("responses %v, want %v", got, urls)
	}
}

// TestWarcMirrorDedup: --mirror run twice, the second with --warc-dedup
// of the first's CDX, into a new tree: the second archive holds revisit
// records referring to the first's responses, and the robots policy is
// in its warcinfo.
func TestWarcMirrorDedup(t *testing.T) {
	base := pagesServer(t, map[string]string{
		"/":      `<a href="a.txt">a</a> <a href="b.txt">b</a>`,
		"/a.txt": "AAAA",
		"/b.txt": "BBBB",
	})
	arch := t.TempDir()
	first, second := filepath.Join(arch, "one"), filepath.Join(arch, "two")
	if code, _, errOut := runQ(t, "-s", "--mirror", "--output-dir", t.TempDir(), "--warc-file", first, "--warc-cdx", base+"/"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	one := readWarc(t, first+".warc.gz")
	if !strings.Contains(string(one[0].block), "robots: classic\r\n") {
		t.Errorf("warcinfo:\n%s", one[0].block)
	}
	if code, _, errOut := runQ(t, "-s", "--mirror", "-e", "robots=off", "--output-dir", t.TempDir(), "--warc-file", second, "--warc-dedup", first+".cdx", base+"/"); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errOut)
	}
	two := readWarc(t, second+".warc.gz")
	if !strings.Contains(string(two[0].block), "robots: off\r\n") {
		t.Errorf("warcinfo:\n%s", two[0].block)
	}
	checkExchanges(t, two)
	rv := ofType(two, "revisit")
	if len(rv) != 3 {
		t.Fatalf("%d revisits, want 3 (/, a.txt, b.txt)", len(rv))
	}
	for _, r := range rv {
		earlier, ok := byID(one, r.h.Get("WARC-Refers-To"))
		if !ok || earlier.typ() != "response" || earlier.target() != r.target() || r.h.Get("WARC-Refers-To-Target-URI") != r.target() ||
			r.h.Get("WARC-Payload-Digest") != earlier.h.Get("WARC-Payload-Digest") || r.h.Get("WARC-Profile") != warc.ProfileIdenticalPayload ||
			!bytes.HasPrefix(r.block, []byte("HTTP/1.1 200 ")) || !bytes.HasSuffix(r.block, []byte("\r\n\r\n")) {
			t.Errorf("revisit %v %q", r.h.Fields, r.block)
		}
	}
}

// TestWarcFlagErrors: an archive in a recursive run's tree, a size of
// nothing and the companions without --warc-file are usage errors; a
// directory the archive cannot be made in is exit 23.
func TestWarcFlagErrors(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runQ(t, "--warc-file", filepath.Join(dir, "none", "x"), "file://"+dir+"/"); code != exitWrite || !strings.Contains(errOut, "--warc-file: ") {
		t.Errorf("no such directory: exit %d: %s", code, errOut)
	}
	tree := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--mirror", "--output-dir", tree, "--warc-file", filepath.Join(tree, "host", "w")}, exitUsage},
		{[]string{"--mirror", "-nH", "--output-dir", tree, "--warc-file", filepath.Join(tree, "w")}, exitUsage},
		{[]string{"--warc-cdx"}, exitUsage},
		{[]string{"--warc-file", filepath.Join(dir, "m"), "--warc-max-size", "0"}, exitUsage},
	} {
		code, _, errOut := runQ(t, append(c.args, "file://"+dir+"/")...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d: %s", c.args, code, c.code, errOut)
		}
	}
	// Beside the hosts' directories is outside every host's tree.
	if err := warcOutsideTree(filepath.Join(tree, "w"), tree, false); err != nil {
		t.Error(err)
	}
}

// TestWarcNameTaken: a later run naming an archive that exists (an
// earlier run's, or one a killed run cut short) neither writes over nor
// appends to it, nor to its indexes: it archives under the name with the
// run's start, NAME-YYYYMMDDhhmmss, or NAME-YYYYMMDDhhmmss-1, … when
// that is taken too, and says so unless -s.
func TestWarcNameTaken(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("content\n"), 0o644)
	name := filepath.Join(dir, "x")
	cut := []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xffcut short")
	os.WriteFile(name+".warc.gz", cut, 0o644)
	os.WriteFile(name+".cdx", []byte("earlier"), 0o644)
	stamped := regexp.MustCompile(`^x-\d{14}(-\d+)?\.(warc\.gz|cdx|cdxj)$`)
	var made []string
	for run := range 3 {
		args := []string{"--warc-file", name, "--warc-cdx", "file://" + dir + "/f.txt"}
		if run == 2 {
			args = append([]string{"-s"}, args...)
		}
		code, out, errOut := runCmd(t, append([]string{"-q"}, args...)...)
		if code != exitOK || out != "content\n" {
			t.Fatalf("run %d: exit %d: %s", run, code, errOut)
		}
		warned := strings.Contains(errOut, "Warning: --warc-file: "+name+".cdx exists") && strings.Contains(errOut, "archiving to "+name+"-")
		if warned != (run < 2) {
			t.Errorf("run %d: stderr %q", run, errOut)
		}
	}
	if b, _ := os.ReadFile(name + ".warc.gz"); !bytes.Equal(b, cut) {
		t.Errorf("the cut archive became %q", b)
	}
	if b, _ := os.ReadFile(name + ".cdx"); string(b) != "earlier" {
		t.Errorf("the earlier index became %q", b)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if stamped.MatchString(e.Name()) {
			made = append(made, e.Name())
		}
	}
	if len(made) != 9 {
		t.Fatalf("archives and indexes made: %v, want three of each", made)
	}
	for _, m := range made {
		if strings.HasSuffix(m, ".warc.gz") {
			recs := readWarc(t, filepath.Join(dir, m))
			if len(recs) != 3 || recs[1].typ() != "resource" || string(recs[1].block) != "content\n" || recs[2].typ() != "metadata" {
				t.Errorf("%s: %d records", m, len(recs))
			}
		}
	}
}

// TestWarcRolloverPlain: --warc-max-size rolls over to numbered files,
// each starting with its warcinfo; --no-warc-compression writes them
// plain.
func TestWarcRolloverPlain(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, strings.Repeat("x", 2000)) }))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	name := filepath.Join(dir, "r")
	if code, _, errOut := runQ(t, "-s", "-o", "/dev/null", "-o", "/dev/null", "--warc-file", name, "--warc-max-size", "1k", "--no-warc-compression", srv.URL+"/1", srv.URL+"/2"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	n := 0
	for i := 0; ; i++ {
		p := warc.FileName(name, i, false, 1024)
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			break
		}
		recs := readWarc(t, p)
		n += len(ofType(recs, "response"))
		if i > 5 {
			t.Fatal("no end to the files")
		}
	}
	if n != 2 {
		t.Errorf("%d responses in the files", n)
	}
	if _, err := os.Stat(name + ".warc.gz"); err == nil {
		t.Error("a compressed file too")
	}
}

// TestWarcArguments: the warcinfo's command line has its secrets masked.
func TestWarcArguments(t *testing.T) {
	got := warcArguments([]string{"-u", "ann:pw1", "--user=bob:pw2", "-ucid:pw3", "-H", "Authorization: Bearer tok", "--oauth2-bearer", "tok2", "-b", "sid=tok3", "-b", "jar.txt", "ftp://u:pw4@h/", "-su", "x:pw5"})
	for _, secret := range []string{"pw1", "pw2", "pw3", "tok", "pw4", "pw5"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q in %q", secret, got)
		}
	}
	for _, kept := range []string{"ann:****", "--user=bob:****", "-ucid:****", "jar.txt", "ftp://u:****@h/"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q not in %q", kept, got)
		}
	}
}

// TestWarcTruncated: a response the server cut short is archived as what
// arrived, marked WARC-Truncated, and the run fails as without the
// archive.
func TestWarcTruncated(t *testing.T) {
	const head = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nContent-Type: text/plain\r\n\r\n"
	ln := xfertest.ServeTCP(t, func(c net.Conn) {
		defer c.Close()
		bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, head+"only ten b")
	})
	dir := t.TempDir()
	name := filepath.Join(dir, "t")
	code, _, _ := runQ(t, "-s", "-o", filepath.Join(dir, "out"), "--warc-file", name, "http://"+ln.Addr().String()+"/")
	if code == 0 {
		t.Error("a cut transfer succeeded")
	}
	recs := readWarc(t, name+".warc.gz")
	resps := ofType(recs, "response")
	if len(resps) != 1 || resps[0].h.Get("WARC-Truncated") != warc.TruncatedDisconnect || string(resps[0].block) != head+"only ten b" {
		t.Fatalf("responses %v", resps)
	}
	checkExchanges(t, recs)
}

// TestWarcURLList: the URLs of a list (--url @FILE) are archived as
// those of the command line.
func TestWarcURLList(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "listed "+r.URL.Path) }))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	list := filepath.Join(dir, "urls")
	os.WriteFile(list, []byte(srv.URL+"/a\n"+srv.URL+"/b\n"), 0o644)
	name := filepath.Join(dir, "u")
	if code, _, errOut := runQ(t, "-s", "--output-dir", filepath.Join(dir, "o"), "--create-dirs", "--warc-file", name, "--url", "@"+list); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs := readWarc(t, name+".warc.gz")
	resps := ofType(recs, "response")
	if len(resps) != 2 || resps[0].target() != srv.URL+"/a" || resps[1].target() != srv.URL+"/b" || resps[1].h.Get("WARC-Payload-Digest") != sha1Of("listed /b") {
		t.Errorf("responses %v", resps)
	}
}

// TestWarcMirrorFTP: a mirror of an FTP tree archives each listing and
// each file it fetched, the archive outside the tree.
func TestWarcMirrorFTP(t *testing.T) {
	s := ftptest.NewServer(fstest.MapFS{
		"pub/a.txt":     {Data: []byte("file a\n"), Mode: 0o644},
		"pub/sub/b.txt": {Data: []byte("file b\n"), Mode: 0o644},
	})
	t.Cleanup(s.Close)
	dir := t.TempDir()
	name := filepath.Join(dir, "m")
	if code, _, errOut := runQ(t, "-s", "--mirror", "--no-parent", "--output-dir", filepath.Join(dir, "tree"), "--warc-file", name, "--warc-cdx", s.URL+"/pub/"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs := readWarc(t, name+".warc.gz")
	got := map[string]string{}
	for _, r := range ofType(recs, "resource") {
		got[r.target()] = r.h.Get("WARC-Payload-Digest")
	}
	for path, digest := range map[string]string{"/pub/a.txt": sha1Of("file a\n"), "/pub/sub/b.txt": sha1Of("file b\n"), "/pub/": "", "/pub/sub/": ""} {
		d, ok := got[s.URL+path]
		if !ok || digest != "" && d != digest {
			t.Errorf("%s: %q (%v); resources %v", path, d, ok, got)
		}
	}
	if n := len(ofType(recs, "metadata")); n != len(got) {
		t.Errorf("%d metadata records for %d resources", n, len(got))
	}
	cdx, _ := os.ReadFile(name + ".cdx")
	if strings.Count(string(cdx), "\n") != len(got)+1 {
		t.Errorf("cdx:\n%s", cdx)
	}
}

// TestWarcSameAsWget: GNU wget's --warc-file and ours, of the same two
// fetches, hold responses of the same targets, statuses and payload
// digests; then --warc-dedup with wget's CDX makes our second archive's
// responses revisits of wget's records. wget missing, the test skips, and
// under URLGET_REAL (.ci/run installs it) fails.
func TestWarcSameAsWget(t *testing.T) {
	bin, err := exec.LookPath("wget")
	if err != nil {
		if os.Getenv("URLGET_REAL") != "" {
			t.Fatal("wget is not installed")
		}
		t.Skip("wget is not installed")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<p>page "+r.URL.Path+"</p>\n")
	}))
	t.Cleanup(srv.Close)
	urls := []string{srv.URL + "/a.html", srv.URL + "/b.html"}
	dir := t.TempDir()
	cmd := exec.Command(bin, append([]string{"-q", "--no-config", "-O", "/dev/null", "--warc-file=w", "--warc-cdx"}, urls...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "no_proxy=*", "http_proxy=", "HTTP_PROXY=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wget: %v\n%s", err, out)
	}
	// target, status line and payload digest of each response.
	summary := func(recs []warcRec) []string {
		var out []string
		for _, r := range ofType(recs, "response") {
			status, _, _ := strings.Cut(string(r.block), "\r\n")
			out = append(out, r.target()+" "+status+" "+r.h.Get("WARC-Payload-Digest"))
		}
		slices.Sort(out)
		return out
	}
	theirs := readWarc(t, filepath.Join(dir, "w.warc.gz"))
	ours := filepath.Join(dir, "u")
	if code, _, errOut := runQ(t, "-s", "-o", "/dev/null", "-o", "/dev/null", "--warc-file", ours, urls[0], urls[1]); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if a, b := summary(theirs), summary(readWarc(t, ours+".warc.gz")); len(a) != 2 || !slices.Equal(a, b) {
		t.Errorf("wget's responses %q, ours %q", a, b)
	}
	again := filepath.Join(dir, "v")
	if code, _, errOut := runQ(t, "-s", "-o", "/dev/null", "-o", "/dev/null", "--warc-file", again, "--warc-dedup", filepath.Join(dir, "w.cdx"), urls[0], urls[1]); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rv := ofType(readWarc(t, again+".warc.gz"), "revisit")
	if len(rv) != 2 {
		t.Fatalf("%d revisits of wget's records", len(rv))
	}
	for _, r := range rv {
		earlier, ok := byID(theirs, r.h.Get("WARC-Refers-To"))
		if !ok || earlier.target() != r.target() || earlier.h.Get("WARC-Payload-Digest") != r.h.Get("WARC-Payload-Digest") {
			t.Errorf("revisit %v refers to %v", r.h.Fields, earlier.h)
		}
	}
}

// TestWarcWAIS: a WAIS search archived as the server's raw search
// response, with the query in its metadata record.
func TestWarcWAIS(t *testing.T) {
	s := waistest.NewServer(waistest.Config{Documents: []waistest.Document{
		{Name: "river.txt", Text: []byte("The river runs to the sea.\n")},
	}})
	t.Cleanup(s.Close)
	recs := archiveOne(t, s.URL+"?river")
	res, meta := ofType(recs, "resource"), ofType(recs, "metadata")
	if len(res) != 1 || res[0].h.Get("Content-Type") != "application/octet-stream" || len(res[0].block) == 0 || res[0].target() != s.URL+"?river" {
		t.Fatalf("resources %v", res)
	}
	if len(meta) != 1 || meta[0].h.Get("WARC-Concurrent-To") != res[0].h.Get("WARC-Record-ID") || !strings.Contains(string(meta[0].block), `seed="river"`) {
		t.Errorf("metadata %v", meta)
	}
}

// TestWarcSignal: Ctrl-C in the middle of a body ends the run with 130
// and an archive that reads back whole, the cut response in it as what
// arrived, marked WARC-Truncated.
func TestWarcSignal(t *testing.T) {
	srv, sent := stallServer(t)
	dir := t.TempDir()
	cmd, errOut := startCommand(t, dir, "-o", "out", "--warc-file", "w", srv.URL+"/stall")
	waitFor(t, sent)
	waitTemp(t, dir)
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd); code != 130 {
		t.Errorf("exit %d, want 130: %s", code, errOut)
	}
	recs := readWarc(t, filepath.Join(dir, "w.warc.gz"))
	resps := ofType(recs, "response")
	if len(resps) != 1 || resps[0].h.Get("WARC-Truncated") == "" || !bytes.HasSuffix(resps[0].block, []byte("\r\n\r\n"+stallBody[:stallPart])) {
		t.Fatalf("responses %v", resps)
	}
	checkExchanges(t, recs)
}
