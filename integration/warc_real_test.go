package integration

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"net/http/httputil"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/cli"
	"github.com/urlget/urlget/uri"
	"github.com/urlget/urlget/warc"
)

// The archives of the real servers: the command runs with --warc-file
// against nginx, vsftpd, Pure-FTPd, gophernicus, INN and the recorded
// freeWAIS-sf conversations, for single URLs, listings, --mirror, -Z with
// a URL list and standard output, and a second --mirror run with
// --warc-dedup; each archive is read back by the npm package warcio (its
// `index` and `cdx-index` commands, and its parser through
// testdata/warcio-records.mjs for the payloads) and by warc.Reader, and
// every document's payload must be the fixture's bytes (docs/warc.md,
// "Records per scheme").

// warcioTool returns the npm package warcio's command and the directory
// of its modules: $URLGET_WARCIO (.ci/run installs the package and sets
// it), else warcio on the PATH. Missing, the test skips, and under
// URLGET_REAL=1 fails, as a missing real server does.
func warcioTool(t *testing.T) (bin, dist string) {
	t.Helper()
	bin = os.Getenv("URLGET_WARCIO")
	if bin == "" {
		bin, _ = exec.LookPath("warcio")
	}
	if bin != "" {
		if _, err := exec.LookPath("node"); err == nil {
			if target, err := filepath.EvalSymlinks(bin); err == nil {
				return bin, filepath.Dir(target)
			}
		}
	}
	msg := "the npm package warcio is not installed: npm install --prefix DIR warcio@2.4.11 and set URLGET_WARCIO=DIR/node_modules/.bin/warcio"
	if os.Getenv(realSwitch) == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return "", ""
}

// urlgetRun runs the command in this process, without ~/.urlgetrc, and
// returns its exit status, standard output and standard error. Every path
// given to it is absolute: the test's working directory is not its own.
func urlgetRun(t *testing.T, args ...string) (int, []byte, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(append([]string{"-q"}, args...), os.Stdin, &out, &errOut)
	return code, out.Bytes(), errOut.String()
}

// urlgetOK is urlgetRun for a run that must succeed.
func urlgetOK(t *testing.T, args ...string) []byte {
	t.Helper()
	code, out, errOut := urlgetRun(t, args...)
	if code != 0 {
		t.Fatalf("urlget %q: exit %d: %s", args, code, errOut)
	}
	return out
}

// archRec is one record as warcio parses it (testdata/warcio-records.mjs).
type archRec struct {
	File          string `json:"file"`
	Type          string `json:"warc-type"`
	URI           string `json:"warc-target-uri"`
	ID            string `json:"warc-record-id"`
	PayloadDigest string `json:"warc-payload-digest"`
	BlockDigest   string `json:"warc-block-digest"`
	ContentType   string `json:"content-type"`
	ConcurrentTo  string `json:"warc-concurrent-to"`
	RefersTo      string `json:"warc-refers-to"`
	RefersToURI   string `json:"warc-refers-to-target-uri"`
	Truncated     string `json:"warc-truncated"`
	Profile       string `json:"warc-profile"`
	IP            string `json:"warc-ip-address"`
	Status        string `json:"status"`
	Chunked       string `json:"transfer-encoding"`
	Length        string `json:"http-content-length"`
	SHA1          string `json:"sha1"`
	Payload       []byte `json:"payload"`
}

// entity is a response's payload without chunked framing (RFC 9112
// §7.1), which our payload digest leaves out and warcio's reader keeps
// (docs/warc.md, "response").
func (r archRec) entity(t *testing.T) []byte {
	if !strings.Contains(strings.ToLower(r.Chunked), "chunked") {
		return r.Payload
	}
	b, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(r.Payload)))
	if err != nil {
		t.Errorf("%s: chunked payload: %v", r.URI, err)
	}
	return b
}

// concurrent tells whether the record names id in WARC-Concurrent-To.
func (r archRec) concurrent(id string) bool {
	for _, v := range strings.Split(r.ConcurrentTo, ",") {
		if strings.TrimSpace(v) == id {
			return true
		}
	}
	return false
}

// sha1B32 is a payload digest as WARC records write it (docs/warc.md).
func sha1B32(p []byte) string {
	h := sha1.Sum(p)
	return "sha1:" + base32.StdEncoding.EncodeToString(h[:])
}

// archive is the records of one --warc-file run, read back.
type archive struct {
	t    *testing.T
	path string
	recs []archRec
}

// readOurs is readArchive for an archive urlget wrote, whose every
// response and resource record has a payload digest (docs/warc.md);
// another tool's may leave it out (WARC 1.1 §5.9 makes it optional).
func readOurs(t *testing.T, paths ...string) *archive {
	t.Helper()
	a := readArchive(t, true, paths...)
	for _, r := range a.recs {
		// A response cut before its header section ended has no payload
		// (docs/warc.md, "response"); it is marked WARC-Truncated.
		if (r.Type == "response" || r.Type == "resource" || r.Type == "revisit") && r.PayloadDigest == "" && r.Truncated == "" {
			t.Errorf("%s %s: no payload digest", r.Type, r.URI)
		}
		// Every server here is on the loopback: the address of the
		// connection each record came over (WARC 1.1 §5.11).
		if r.Type != "warcinfo" && r.IP != "127.0.0.1" {
			t.Errorf("%s %s: WARC-IP-Address %q", r.Type, r.URI, r.IP)
		}
		// A response not marked WARC-Truncated (WARC 1.1 §5.13) is
		// whole: a status line warcio reads, and the body its
		// Content-Length gives (these tests send GET alone, and nginx
		// gives no length to a 304).
		if r.Type == "response" && r.Truncated == "" {
			if _, err := strconv.Atoi(r.Status); err != nil {
				t.Errorf("response %s: status %q, not marked WARC-Truncated: its header section is cut", r.URI, r.Status)
			} else if n, err := strconv.Atoi(r.Length); err == nil && r.Chunked == "" && r.Status != "304" && len(r.Payload) != n {
				t.Errorf("response %s: %d bytes of a Content-Length of %d, not marked WARC-Truncated", r.URI, len(r.Payload), n)
			}
		}
	}
	return a
}

// readArchive reads the files of an archive (one, or those a
// --warc-max-size run rolled over to, in order) with warcio three ways
// and with warc.Reader, and holds them to one another: the same records
// in the same order, of the same types, target URIs, IDs and digests, a
// warcinfo at the head of each file, every payload digest that of the
// payload warcio's parser reads, and warcio's cdx-index line of each
// response, resource and revisit with its URL, status and digest.
func readArchive(t *testing.T, ours bool, paths ...string) *archive {
	t.Helper()
	bin, dist := warcioTool(t)
	out, err := exec.Command("node", append([]string{filepath.Join("testdata", "warcio-records.mjs"), dist}, paths...)...).Output()
	if err != nil {
		t.Fatalf("warcio's parser on %q: %v", paths, err)
	}
	a := &archive{t: t, path: strings.Join(paths, " ")}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r archRec
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("warcio's parser: %.200q: %v", sc.Text(), err)
		}
		a.recs = append(a.recs, r)
	}
	// Each file starts with its warcinfo record (docs/warc.md, "Files").
	for i, r := range a.recs {
		if first := i == 0 || a.recs[i-1].File != r.File; first != (r.Type == "warcinfo") {
			t.Errorf("%s: record %d is a %s", r.File, i, r.Type)
		}
	}
	if len(a.recs) == 0 {
		t.Fatalf("%q: no records", paths)
	}

	// warcio index: the same records.
	fields := "warc-type,warc-target-uri,warc-record-id,warc-payload-digest"
	idx := warcioJSON(t, bin, append(append([]string{"index"}, paths...), "--fields", fields)...)
	if len(idx) != len(a.recs) {
		t.Errorf("warcio index lists %d records, its parser %d", len(idx), len(a.recs))
	}
	for i := range min(len(idx), len(a.recs)) {
		r, m := a.recs[i], idx[i]
		if m["warc-type"] != r.Type || m["warc-target-uri"] != r.URI || m["warc-record-id"] != r.ID || m["warc-payload-digest"] != r.PayloadDigest {
			t.Errorf("warcio index record %d: %v; parsed %s %s %s %s", i, m, r.Type, r.URI, r.ID, r.PayloadDigest)
		}
	}

	// warc.Reader: the same records, the same block digests.
	i := 0
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		wr := warc.NewReader(f)
		for ; ; i++ {
			h, body, err := wr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("warc.Reader: %s: record %d: %v", path, i, err)
			}
			block, err := io.ReadAll(body)
			if err != nil {
				t.Fatal(err)
			}
			if i >= len(a.recs) {
				continue
			}
			r := a.recs[i]
			if h.Get("WARC-Record-ID") != r.ID || h.Get("WARC-Type") != r.Type || h.Get("WARC-Block-Digest") != r.BlockDigest {
				t.Errorf("record %d: warc.Reader %s %s %s; warcio %s %s %s", i, h.Get("WARC-Type"), h.Get("WARC-Record-ID"), h.Get("WARC-Block-Digest"), r.Type, r.ID, r.BlockDigest)
			}
			if d := sha1B32(block); d != r.BlockDigest {
				t.Errorf("record %d (%s %s): block digest %s, the block's %s", i, r.Type, r.URI, r.BlockDigest, d)
			}
		}
	}
	if i != len(a.recs) {
		t.Errorf("warc.Reader read %d records, warcio %d", i, len(a.recs))
	}

	// Every payload digest is the payload's; a revisit's is the earlier
	// record's, and a cut record's is of what arrived.
	for _, r := range a.recs {
		if r.Type != "response" && r.Type != "resource" || r.PayloadDigest == "" {
			continue
		}
		if !ours && r.PayloadDigest == sha1B32(r.Payload) {
			// GNU wget digests a chunked payload with its framing.
			continue
		}
		if d := sha1B32(r.entity(t)); r.PayloadDigest != d {
			t.Errorf("%s %s: payload digest %s, the payload warcio reads %s", r.Type, r.URI, r.PayloadDigest, d)
		}
		if h := sha1.Sum(r.Payload); hex.EncodeToString(h[:]) != r.SHA1 {
			t.Errorf("%s %s: the payload's sha1 differs from warcio's", r.Type, r.URI)
		}
	}
	for _, r := range a.recs {
		if strings.ContainsAny(r.URI, "\r\n ") || hasPassword(r.URI) {
			t.Errorf("%s %s: a target URI with a space, a line break or a password", r.Type, r.URI)
		}
	}

	// cdx-index: a line for each response, resource and revisit, with
	// its URL, status and digest.
	cdx := warcioJSON(t, bin, append([]string{"cdx-index"}, paths...)...)
	seen := map[string][]string{} // URL and digest: the statuses
	for _, m := range cdx {
		k := m["url"] + " " + m["digest"]
		seen[k] = append(seen[k], m["status"])
	}
	for _, r := range a.recs {
		if r.Type != "response" && r.Type != "resource" && r.Type != "revisit" {
			continue
		}
		st, ok := seen[r.URI+" "+strings.TrimPrefix(r.PayloadDigest, "sha1:")]
		if !ok || r.Type == "response" && !slices.Contains(st, r.Status) {
			t.Errorf("warcio cdx-index has no line for %s %s %s %s", r.Type, r.URI, r.Status, r.PayloadDigest)
		}
	}
	return a
}

// warcioJSON runs warcio and returns the JSON object of each line (after
// a CDXJ line's key and timestamp), its values as strings.
func warcioJSON(t *testing.T, bin string, args ...string) []map[string]string {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("warcio %q: %v", args, err)
	}
	var objs []map[string]string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		l := sc.Text()
		if i := strings.IndexByte(l, '{'); i >= 0 {
			l = l[i:]
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("warcio %q: %.200q: %v", args, l, err)
		}
		s := map[string]string{}
		for k, v := range m {
			switch v := v.(type) {
			case string:
				s[k] = v
			case float64:
				s[k] = strconv.FormatFloat(v, 'f', -1, 64)
			}
		}
		objs = append(objs, s)
	}
	return objs
}

// hasPassword tells whether a URI's authority has a user name with a
// password (RFC 3986 §3.2.1: user:password@).
func hasPassword(uri string) bool {
	_, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return false
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	userinfo, _, ok := strings.Cut(rest, "@")
	return ok && strings.Contains(userinfo, ":")
}

// of returns the records of a type and target URI ("" for any URI).
func (a *archive) of(typ, uri string) []archRec {
	var out []archRec
	for _, r := range a.recs {
		if r.Type == typ && (uri == "" || r.URI == uri) {
			out = append(out, r)
		}
	}
	return out
}

// byID returns the record of an ID.
func (a *archive) byID(id string) (archRec, bool) {
	for _, r := range a.recs {
		if r.ID == id {
			return r, true
		}
	}
	return archRec{}, false
}

// doc checks the records of a document fetched from uri whose bytes are
// data: for http(s), a request and a 200 response naming each other, the
// response's entity data; for the other schemes a resource record of
// data and a metadata record naming it (docs/warc.md, "Records per
// scheme"). It returns the record that holds the payload.
func (a *archive) doc(uri string, data []byte) archRec {
	a.t.Helper()
	want := sha1B32(data)
	if strings.HasPrefix(uri, "http:") || strings.HasPrefix(uri, "https:") {
		for _, r := range a.of("response", uri) {
			if r.Status != "200" || !bytes.Equal(r.entity(a.t), data) {
				continue
			}
			req, ok := a.byID(r.ConcurrentTo)
			if !ok || req.Type != "request" || !req.concurrent(r.ID) || req.URI != uri {
				a.t.Errorf("%s: the response's request %+v", uri, req.ID)
			}
			if r.PayloadDigest != want {
				a.t.Errorf("%s: payload digest %s, the fixture's %s", uri, r.PayloadDigest, want)
			}
			return r
		}
		a.t.Errorf("%s: no 200 response of the fixture's %d bytes in %s: %s", uri, len(data), a.path, a.summary())
		return archRec{}
	}
	for _, r := range a.of("resource", uri) {
		if !bytes.Equal(r.Payload, data) {
			continue
		}
		if r.PayloadDigest != want || r.BlockDigest != want {
			a.t.Errorf("%s: digests %s %s, the fixture's %s", uri, r.PayloadDigest, r.BlockDigest, want)
		}
		a.meta(r)
		return r
	}
	a.t.Errorf("%s: no resource of the fixture's %d bytes in %s: %s", uri, len(data), a.path, a.summary())
	return archRec{}
}

// meta checks the metadata record of a resource: its URI, naming it in
// WARC-Concurrent-To, its block the conversation, one line each.
func (a *archive) meta(res archRec) archRec {
	a.t.Helper()
	for _, m := range a.of("metadata", res.URI) {
		if m.concurrent(res.ID) {
			if m.ContentType != "text/plain" || len(m.Payload) == 0 {
				a.t.Errorf("%s: metadata %s of %d bytes", res.URI, m.ContentType, len(m.Payload))
			}
			return m
		}
	}
	a.t.Errorf("%s: no metadata record names the resource %s: %s", res.URI, res.ID, a.summary())
	return archRec{}
}

// listing checks the resource record of a listing at uri: its type, its
// payload holding each name, and its metadata record.
func (a *archive) listing(uri, ctype string, names ...string) archRec {
	a.t.Helper()
	rs := a.of("resource", uri)
	if len(rs) == 0 {
		a.t.Errorf("%s: no resource record of the listing: %s", uri, a.summary())
		return archRec{}
	}
	r := rs[0]
	if r.ContentType != ctype {
		a.t.Errorf("%s: listing of type %q, want %q", uri, r.ContentType, ctype)
	}
	for _, n := range names {
		if !bytes.Contains(r.Payload, []byte(n)) {
			a.t.Errorf("%s: the listing lacks %q: %.400q", uri, n, r.Payload)
		}
	}
	a.meta(r)
	return r
}

// summary lists the archive's records, for messages.
func (a *archive) summary() string {
	var b strings.Builder
	for _, r := range a.recs {
		b.WriteString("\n  " + r.Type + " " + r.URI + " " + r.Status + " " + r.PayloadDigest + " " + strconv.Itoa(len(r.Payload)) + " bytes")
		if r.Truncated != "" {
			b.WriteString(" truncated: " + r.Truncated)
		}
	}
	return b.String()
}

// noSecret checks that none of secrets is in any record of the archive,
// header or block, nor the base64 of user:password a Basic credential
// would be.
func noSecret(t *testing.T, path string, secrets ...string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var all bytes.Buffer
	r := warc.NewReader(f)
	for {
		h, body, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, fl := range h.Fields {
			all.WriteString(fl.Name + ": " + fl.Value + "\n")
		}
		if _, err := all.ReadFrom(body); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range secrets {
		for _, form := range []string{s, base64.StdEncoding.EncodeToString([]byte(s))} {
			if bytes.Contains(all.Bytes(), []byte(form)) {
				t.Errorf("%s holds the secret %q", path, form)
			}
		}
	}
}

// fileSums returns the sha256 of each file, to show that a later run
// left them as they were.
func fileSums(t *testing.T, paths ...string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		m[p] = hex.EncodeToString(h[:])
	}
	return m
}

// treeDocs checks that a recursive run's archive holds each non-empty
// file of the fixture tree under base (its URL, ending in "/") as a
// document of its bytes: the record whose URI, decoded, is base's followed
// by the file's path.
func (a *archive) treeDocs(base string, files []mirrorFile) {
	a.t.Helper()
	for _, f := range files {
		if len(f.data) == 0 {
			// A client may make an empty file from the listing alone.
			continue
		}
		found := ""
		for _, r := range a.recs {
			if (r.Type == "resource" || r.Type == "response") && strings.HasPrefix(r.URI, base) && unescaped(r.URI[len(base):]) == f.path {
				found = r.URI
				break
			}
		}
		if found == "" {
			a.t.Errorf("%s: no record of %s: %s", a.path, f.path, a.summary())
			continue
		}
		a.doc(found, f.data)
	}
}

// dedupRun is the second --mirror run of a tree: on the server a file
// was touched (its time changed, its bytes not) and a new one added; the run
// with --warc-dedup of the first run's CDX writes a new archive in which
// the new file is a document, what came again whole is a revisit of the
// first archive's record, and the first archive and its indexes are left
// as they were: the second run, naming the first's archive, archives
// under that name with its start time.
type dedupRun struct {
	first   *archive // the first run's
	name    string   // the first run's --warc-file NAME
	out     string   // the mirror's output directory
	start   string   // the start URL
	args    []string // more arguments for both runs
	newURI  string   // the new file's URL, "" to check it apart
	newData []byte
	// revisits are the URLs that must come as revisits.
	revisits []string
}

func (d dedupRun) run(t *testing.T) *archive {
	t.Helper()
	firstFiles := []string{d.name + ".warc.gz", d.name + ".cdx", d.name + ".cdxj"}
	before := fileSums(t, firstFiles...)
	// The same command line again, as a scheduled job runs it: the
	// first archive's name is taken, so the run archives under the name
	// with its start time.
	urlgetOK(t, append(append([]string{"-s", "--mirror", "--output-dir", d.out, "--warc-file", d.name, "--warc-cdx", "--warc-dedup", d.name + ".cdx"}, d.args...), d.start)...)
	if after := fileSums(t, firstFiles...); !maps.Equal(before, after) {
		t.Errorf("the second run changed the first archive or its indexes")
	}
	made, _ := filepath.Glob(d.name + "-" + strings.Repeat("[0-9]", 14) + ".warc.gz")
	if len(made) != 1 {
		t.Fatalf("the second run's archives: %v, want one NAME-YYYYMMDDhhmmss.warc.gz", made)
	}
	second := strings.TrimSuffix(made[0], ".warc.gz")
	for _, ix := range []string{".cdx", ".cdxj"} {
		if _, err := os.Stat(second + ix); err != nil {
			t.Errorf("the second run's index: %v", err)
		}
	}
	a := readOurs(t, second+".warc.gz")
	if d.newURI != "" {
		a.doc(d.newURI, d.newData)
	}
	for _, rv := range a.of("revisit", "") {
		earlier, ok := d.first.byID(rv.RefersTo)
		if !ok {
			t.Errorf("revisit of %s refers to %s, no record of the first archive", rv.URI, rv.RefersTo)
			continue
		}
		if earlier.URI != rv.URI || rv.RefersToURI != rv.URI || earlier.PayloadDigest != rv.PayloadDigest || rv.Profile != warc.ProfileIdenticalPayload {
			t.Errorf("revisit %s %s %s %s refers to %s %s", rv.URI, rv.RefersToURI, rv.PayloadDigest, rv.Profile, earlier.URI, earlier.PayloadDigest)
		}
	}
	for _, u := range d.revisits {
		if len(a.of("revisit", u)) == 0 {
			t.Errorf("no revisit record of %s: %s", u, a.summary())
		}
	}
	// The second archive holds no payload the first had at the same URL.
	for _, r := range a.recs {
		if r.Type != "response" && r.Type != "resource" || r.PayloadDigest == sha1B32(nil) || r.Status != "" && r.Status != "200" {
			continue
		}
		for _, e := range d.first.of(r.Type, r.URI) {
			if e.PayloadDigest == r.PayloadDigest {
				t.Errorf("%s %s: the payload the first archive holds, written again", r.Type, r.URI)
			}
		}
	}
	return a
}

// setTime sets a file of the server's tree to a modification time ago
// in the past, its bytes unchanged: a file first written two hours ago
// and then set to one hour ago is newer to the second run. A time past
// now would not do: an FTP LIST line, as ls writes it, gives the year
// rather than the time of day for a file of the future.
func setTime(t *testing.T, path string, ago time.Duration) {
	t.Helper()
	when := time.Now().Add(-ago)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

// addFile writes a new file into a fixture tree a test wrote; the tree's
// removal at the test's end removes it too.
func addFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fetched is a URL and the bytes it holds.
type fetched struct {
	url  string
	data []byte
}

// parallelRun fetches list with -Z from a URL list into a directory, and
// toStdout to standard output in the same run, with --warc-file; it
// checks standard output and the document records of every URL, and
// returns the archive.
func parallelRun(t *testing.T, list []fetched, toStdout fetched, more ...string) *archive {
	t.Helper()
	dir := t.TempDir()
	var urls []string
	for _, f := range list {
		urls = append(urls, f.url)
	}
	listFile := filepath.Join(dir, "urls.txt")
	if err := os.WriteFile(listFile, []byte("# the list\n"+strings.Join(urls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "z")
	args := append([]string{"-s", "-Z", "--output-dir", filepath.Join(dir, "files"), "--create-dirs", "--url", "@" + listFile, "--warc-file", name}, more...)
	out := urlgetOK(t, append(args, toStdout.url)...)
	if !bytes.Equal(out, toStdout.data) {
		t.Errorf("standard output: %d bytes, want the %d of %s", len(out), len(toStdout.data), toStdout.url)
	}
	a := readOurs(t, name+".warc.gz")
	for _, f := range append(list, toStdout) {
		a.doc(f.url, f.data)
	}
	return a
}

// treeParallel is parallelRun of three files of the fixture tree below
// base (a URL ending in "/") from a list, and bin/all.bin to standard
// output.
func treeParallel(t *testing.T, base string, files []mirrorFile) {
	t.Helper()
	var list []fetched
	for _, p := range []string{"plain.txt", "with space/a b.txt", "a/b/c/deep.txt"} {
		list = append(list, fetched{base + strings.ReplaceAll(p, " ", "%20"), fileData(t, files, p)})
	}
	parallelRun(t, list, fetched{base + "bin/all.bin", fileData(t, files, "bin/all.bin")})
}

// fileData returns the data of the file at p in files.
func fileData(t *testing.T, files []mirrorFile, p string) []byte {
	t.Helper()
	for _, f := range files {
		if f.path == p {
			return f.data
		}
	}
	t.Fatalf("no fixture file %s", p)
	return nil
}

func TestWarcRealNginx(t *testing.T) {
	ng := nginxForMirror(t)
	warcioTool(t)
	name := mirrorName("warc")
	files := mirrorFixture(false)
	dir := filepath.Join(ng.root, "mirror", name)
	writeMirrorFiles(t, dir, files)
	setTime(t, filepath.Join(dir, "plain.txt"), 2*time.Hour)
	base := ng.url + "/mirror/" + name + "/"
	plain, bin := fileData(t, files, "plain.txt"), fileData(t, files, "bin/all.bin")
	work := t.TempDir()

	t.Run("single", func(t *testing.T) {
		w := filepath.Join(work, "single")
		urlgetOK(t, "-s", "-o", filepath.Join(work, "s1"), "-o", filepath.Join(work, "s2"), "--warc-file", w, base+"plain.txt", base+"bin/all.bin")
		a := readOurs(t, w+".warc.gz")
		a.doc(base+"plain.txt", plain)
		a.doc(base+"bin/all.bin", bin)
		if n := len(a.of("metadata", "")); n != 0 {
			t.Errorf("%d metadata records for http", n)
		}
	})

	t.Run("parallel", func(t *testing.T) { treeParallel(t, base, files) })

	t.Run("mirror", func(t *testing.T) {
		out := filepath.Join(work, "tree")
		w := filepath.Join(work, "m")
		urlgetOK(t, "-s", "--mirror", "--no-parent", "--output-dir", out, "--warc-file", w, "--warc-cdx", base)
		checkMirrored(t, filepath.Join(out, hostDir(t, ng.url), "mirror", name), files, "index.html")
		first := readOurs(t, w+".warc.gz")
		first.treeDocs(base, files)
		if len(first.of("response", base)) == 0 {
			t.Errorf("no response of the directory's page: %s", first.summary())
		}
		setTime(t, filepath.Join(dir, "plain.txt"), time.Hour)
		added := []byte("added after the first run\n")
		addFile(t, filepath.Join(dir, "new.txt"), added)
		dedupRun{first: first, name: w, out: out, start: base, args: []string{"--no-parent"},
			newURI: base + "new.txt", newData: added, revisits: []string{base + "plain.txt"}}.run(t)
	})

	t.Run("https", func(t *testing.T) {
		v := realServer(t, "URLGET_NGINX_TLS_URL", "URLGET_NGINX_CERT")
		u := v[0] + "/mirror/" + name + "/bin/all.bin"
		w := filepath.Join(work, "tls")
		urlgetOK(t, "-s", "--cacert", v[1], "-o", filepath.Join(work, "tls.bin"), "--warc-file", w, u)
		readOurs(t, w+".warc.gz").doc(u, bin)
	})

	t.Run("rolled over, uncompressed", func(t *testing.T) {
		w := filepath.Join(work, "rolled")
		urlgetOK(t, "-s", "--mirror", "--no-parent", "--output-dir", filepath.Join(work, "rolled-tree"),
			"--warc-file", w, "--warc-max-size", "1k", "--no-warc-compression", base)
		// A file rolls over past 1 KiB, whatever order the records come
		// in: every file but the last ends with the record that took it
		// past.
		paths, err := filepath.Glob(w + "-*.warc")
		if err != nil || len(paths) < 2 {
			t.Fatalf("the archive's files: %q %v", paths, err)
		}
		for i, p := range paths {
			if p != warc.FileName(w, i, false, 1<<10) {
				t.Errorf("file %d is %s", i, p)
			}
		}
		readOurs(t, paths...).treeDocs(base, files)
	})

	t.Run("same as wget", func(t *testing.T) {
		wget, err := exec.LookPath("wget")
		if err != nil {
			if os.Getenv(realSwitch) == "1" {
				t.Fatal("wget is not installed")
			}
			t.Skip("wget is not installed")
		}
		urls := []string{base + "plain.txt", base + "bin/all.bin", base + "with%20space/a%20b.txt", base, base + "missing.txt"}
		wdir := t.TempDir()
		cmd := exec.Command(wget, append([]string{"-q", "--no-config", "-O", "/dev/null", "--warc-file=w"}, urls...)...)
		cmd.Dir = wdir
		cmd.Env = append(os.Environ(), "no_proxy=*", "http_proxy=", "HTTP_PROXY=")
		cmd.Run() // exit 8 for the 404
		theirs := readArchive(t, false, filepath.Join(wdir, "w.warc.gz"))
		ours := filepath.Join(wdir, "u")
		args := []string{"-s", "--warc-file", ours}
		for range urls {
			args = append(args, "-o", "/dev/null")
		}
		urlgetRun(t, append(args, urls...)...)
		mine := readOurs(t, ours+".warc.gz")
		summary := func(a *archive) []string {
			var s []string
			for _, r := range a.of("response", "") {
				if r.Truncated == "" {
					s = append(s, r.URI+" "+r.Status+" "+sha1B32(r.entity(t)))
				}
			}
			// A request sent ahead on a keep-alive connection may go
			// twice (schemes/http's pipelining re-sends), the first
			// answer cut: each exchange is in the archive, a cut one
			// marked WARC-Truncated, and the whole ones are the same.
			slices.Sort(s)
			return slices.Compact(s)
		}
		if s, m := summary(theirs), summary(mine); len(s) != len(urls) || !slices.Equal(s, m) {
			t.Errorf("wget's responses:\n%s\nours:\n%s\nour archive: %s", strings.Join(s, "\n"), strings.Join(m, "\n"), mine.summary())
		}
	})
}

func TestWarcRealFTP(t *testing.T) {
	warcioTool(t)
	for _, s := range ftpMirrorServers(t) {
		t.Run(s.name, func(t *testing.T) {
			name := mirrorName("warc")
			files := mirrorFixture(false)
			dir := filepath.Join(s.root, "mirror", name)
			writeMirrorFiles(t, dir, files)
			setTime(t, filepath.Join(dir, "plain.txt"), 2*time.Hour)
			base := "ftp://" + s.addr + "/mirror/" + name + "/"
			plain, bin := fileData(t, files, "plain.txt"), fileData(t, files, "bin/all.bin")
			work := t.TempDir()

			t.Run("single and listing", func(t *testing.T) {
				w := filepath.Join(work, "single")
				urlgetOK(t, "-s", "-o", filepath.Join(work, "s1"), "-o", filepath.Join(work, "s2"), "-o", filepath.Join(work, "s3"),
					"--warc-file", w, base+"plain.txt", base+"bin/all.bin", base)
				a := readOurs(t, w+".warc.gz")
				a.doc(base+"plain.txt", plain)
				a.doc(base+"bin/all.bin", bin)
				a.listing(base, "text/plain", "plain.txt", "with space", "semi;colon", "ünïcødé", "bin")
				// The run's first fetch logged in; the others reuse
				// its session (docs/warc.md).
				if m := a.meta(a.doc(base+"plain.txt", plain)); !bytes.Contains(m.Payload, []byte("> USER anonymous\r\n")) || !bytes.Contains(m.Payload, []byte("RETR plain.txt\r\n")) {
					t.Errorf("the first fetch's conversation: %q", m.Payload)
				}
			})

			t.Run("parallel", func(t *testing.T) { treeParallel(t, base, files) })

			t.Run("mirror", func(t *testing.T) {
				out := filepath.Join(work, "tree")
				w := filepath.Join(work, "m")
				urlgetOK(t, "-s", "--mirror", "--output-dir", out, "--warc-file", w, "--warc-cdx", base)
				checkMirrored(t, filepath.Join(out, hostDir(t, base), "mirror", name), files, "")
				first := readOurs(t, w+".warc.gz")
				first.treeDocs(base, files)
				first.listing(base, "text/plain", "plain.txt", "bin")
				first.listing(base+"a/b/", "text/plain", "c")
				setTime(t, filepath.Join(dir, "plain.txt"), time.Hour)
				added := []byte("added after the first run\n")
				addFile(t, filepath.Join(dir, "new.txt"), added)
				second := dedupRun{first: first, name: w, out: out, start: base,
					newURI: base + "new.txt", newData: added, revisits: []string{base + "plain.txt", base + "a/b/"}}.run(t)
				second.listing(base, "text/plain", "new.txt")
			})
		})
	}
}

// TestWarcRealFTPLogin: a local user's password, in the URL, is in no
// record: not in the target URIs, not in the conversation (PASS ****),
// not in the warcinfo's command line.
func TestWarcRealFTPLogin(t *testing.T) {
	v := realServer(t, "URLGET_VSFTPD_ADDR", "URLGET_VSFTPD_USER", "URLGET_VSFTPD_PASS", "URLGET_VSFTPD_HOME")
	warcioTool(t)
	addr, user, pass, home := v[0], v[1], v[2], v[3]
	name := mirrorName("warc")
	data := []byte("a file of the user's\n")
	writeMirrorFiles(t, filepath.Join(home, name), []mirrorFile{{"mine.txt", data}})
	work := t.TempDir()
	w := filepath.Join(work, "login")
	u := "ftp://" + user + ":" + pass + "@" + addr + "/" + name + "/"
	urlgetOK(t, "-s", "-o", filepath.Join(work, "f"), "-o", filepath.Join(work, "l"), "--warc-file", w, u+"mine.txt", u)
	a := readOurs(t, w+".warc.gz")
	target := "ftp://" + user + "@" + addr + "/" + name + "/"
	doc := a.doc(target+"mine.txt", data)
	a.listing(target, "text/plain", "mine.txt")
	if m := a.meta(doc); !bytes.Contains(m.Payload, []byte("> PASS ****")) {
		t.Errorf("the login's conversation: %q", m.Payload)
	}
	noSecret(t, w+".warc.gz", pass)
}

// TestWarcRealFTPEmptyDir: an empty directory's listing is a resource
// record of no bytes, with its metadata record naming it: the archive
// says the directory was empty then.
func TestWarcRealFTPEmptyDir(t *testing.T) {
	warcioTool(t)
	for _, s := range ftpMirrorServers(t) {
		t.Run(s.name, func(t *testing.T) {
			name := mirrorName("warc-empty")
			dir := filepath.Join(s.root, "mirror", name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			os.Chmod(dir, 0o755)
			t.Cleanup(func() { os.RemoveAll(dir) })
			w := filepath.Join(t.TempDir(), "empty")
			u := "ftp://" + s.addr + "/mirror/" + name + "/"
			urlgetOK(t, "-s", "-o", "/dev/null", "--warc-file", w, u)
			a := readOurs(t, w+".warc.gz")
			// vsftpd's LIST sends nothing; Pure-FTPd's MLSD the
			// directory itself and its parent (RFC 3659 §7.5.3).
			l := a.listing(u, "text/plain")
			for _, line := range strings.Split(strings.TrimSuffix(string(l.Payload), "\r\n"), "\r\n") {
				if line != "" && !strings.HasPrefix(line, "type=cdir;") && !strings.HasPrefix(line, "type=pdir;") {
					t.Errorf("the empty directory's listing: %q", l.Payload)
				}
			}
		})
	}
}

func TestWarcRealGophernicus(t *testing.T) {
	env := realServer(t, "URLGET_GOPHERNICUS_ADDR", "URLGET_GOPHERNICUS_ROOT")
	warcioTool(t)
	addr, root := env[0], env[1]
	name := mirrorName("warc")
	files := []mirrorFile{
		{"plain.txt", []byte("plain\n")},
		{"sub/b.txt", []byte("b\n")},
		{"sub/deeper/c.txt", []byte("c\n")},
		{"bin/all.bin", fileData(t, mirrorFixture(true), "bin/all.bin")},
	}
	// gophernicus makes the menus of these directories itself.
	dir := filepath.Join(root, "mirror", name)
	writeMirrorFiles(t, dir, files)
	g := "gopher://" + addr
	menu := g + "/1/mirror/" + name + "/"
	plain, bin := fileData(t, files, "plain.txt"), fileData(t, files, "bin/all.bin")
	work := t.TempDir()

	t.Run("single and menu", func(t *testing.T) {
		w := filepath.Join(work, "single")
		urlgetOK(t, "-s", "-o", filepath.Join(work, "s1"), "-o", filepath.Join(work, "s2"), "-o", filepath.Join(work, "s3"),
			"--warc-file", w, g+"/0/mirror/"+name+"/plain.txt", g+"/9/mirror/"+name+"/bin/all.bin", menu)
		a := readOurs(t, w+".warc.gz")
		doc := a.doc(g+"/0/mirror/"+name+"/plain.txt", plain)
		if doc.ContentType != "text/plain" {
			t.Errorf("a text item's type %q", doc.ContentType)
		}
		if m := a.meta(doc); !bytes.Contains(m.Payload, []byte("> /mirror/"+name+"/plain.txt\r\n")) {
			t.Errorf("the selector is not in the conversation: %q", m.Payload)
		}
		a.doc(g+"/9/mirror/"+name+"/bin/all.bin", bin)
		l := a.listing(menu, "application/gopher-menu", "plain.txt", "/mirror/"+name+"/sub")
		if !bytes.HasSuffix(l.Payload, []byte("\r\n.\r\n")) && !bytes.HasSuffix(l.Payload, []byte("\n.\n")) && !bytes.HasSuffix(l.Payload, []byte(".\r\n")) {
			t.Errorf("the raw menu lacks its . line: %q", l.Payload)
		}
	})

	t.Run("parallel", func(t *testing.T) {
		var list []fetched
		for _, p := range []string{"plain.txt", "sub/b.txt", "sub/deeper/c.txt"} {
			list = append(list, fetched{g + "/0/mirror/" + name + "/" + p, fileData(t, files, p)})
		}
		parallelRun(t, list, fetched{g + "/9/mirror/" + name + "/bin/all.bin", bin})
	})

	t.Run("mirror", func(t *testing.T) {
		out := filepath.Join(work, "tree")
		w := filepath.Join(work, "m")
		urlgetOK(t, "-s", "--mirror", "--output-dir", out, "--warc-file", w, "--warc-cdx", menu)
		first := readOurs(t, w+".warc.gz")
		for _, f := range files {
			typ := "0"
			if strings.HasSuffix(f.path, ".bin") {
				typ = "9"
			}
			first.doc(g+"/"+typ+"/mirror/"+name+"/"+f.path, f.data)
		}
		first.listing(menu, "application/gopher-menu", "plain.txt", "sub")
		sub := ""
		for _, r := range first.of("resource", "") {
			if r.ContentType == "application/gopher-menu" && strings.HasSuffix(strings.TrimSuffix(r.URI, "/"), "/mirror/"+name+"/sub") {
				sub = r.URI
			}
		}
		if sub == "" {
			t.Fatalf("no menu of sub/: %s", first.summary())
		}
		added := []byte("added after the first run\n")
		addFile(t, filepath.Join(dir, "new.txt"), added)
		// The menus come again; those unchanged are revisits.
		dedupRun{first: first, name: w, out: out, start: menu,
			newURI: g + "/0/mirror/" + name + "/new.txt", newData: added, revisits: []string{sub}}.run(t)
	})
}

// innArticle finds the resource record of a posted article: its payload
// holds the article's Message-ID line and is what was posted (INN adds
// header fields of its own).
func (a *archive) innArticle(a0 innArticle) archRec {
	a.t.Helper()
	for _, r := range a.of("resource", "") {
		if r.ContentType == "message/rfc822" && bytes.Contains(r.Payload, []byte("\nMessage-ID: <"+a0.id+">\n")) {
			innCheckArticle(a.t, string(r.Payload), a0)
			a.meta(r)
			return r
		}
	}
	a.t.Errorf("no article <%s> in %s: %s", a0.id, a.path, a.summary())
	return archRec{}
}

func TestWarcRealINN(t *testing.T) {
	addr := innAddr(t, "URLGET_INN_ADDR")
	warcioTool(t)
	const group = "urlget.test.mirror"
	posted := innArticles(group)
	innPost(t, addr, posted)
	news := func(a innArticle) string { return "news:" + uri.EscapeSegment(a.id) }
	work := t.TempDir()

	t.Run("single and group", func(t *testing.T) {
		w := filepath.Join(work, "single")
		f1, f2 := filepath.Join(work, "a1"), filepath.Join(work, "a2")
		urlgetOK(t, "-s", "--nntp-server", addr, "-o", f1, "-o", f2, "-o", filepath.Join(work, "g"), "--warc-file", w, "--warc-cdx",
			news(posted[0]), news(posted[2]), "nntp://"+addr+"/"+group)
		a := readOurs(t, w+".warc.gz")
		for i, f := range map[int]string{0: f1, 2: f2} {
			saved, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r := a.doc(news(posted[i]), saved)
			cmd := "ARTICLE <" + posted[i].id + ">"
			if m := a.meta(r); !bytes.Contains(m.Payload, []byte("> "+cmd+"\r\n")) && !bytes.Contains(m.Payload, []byte("* "+cmd+" was sent ahead")) {
				t.Errorf("the conversation of <%s>: %q", posted[i].id, m.Payload)
			}
		}
		a.innArticle(posted[0])
		// The group's OVER block as sent: each article's line, with its
		// Message-ID.
		var ids []string
		for _, p := range posted {
			ids = append(ids, "<"+p.id+">")
		}
		l := a.listing("nntp://"+addr+"/"+group, "text/plain", ids...)
		if !bytes.HasSuffix(l.Payload, []byte("\r\n.\r\n")) {
			t.Errorf("the OVER block lacks its . line: %.100q", l.Payload[max(len(l.Payload)-100, 0):])
		}

		// Fetched again with --warc-dedup, the same article is a revisit
		// of the first archive's record.
		w2 := filepath.Join(work, "again")
		urlgetOK(t, "-s", "--nntp-server", addr, "-o", filepath.Join(work, "a3"), "--warc-file", w2, "--warc-dedup", w+".cdx", news(posted[0]))
		b := readOurs(t, w2+".warc.gz")
		rv := b.of("revisit", news(posted[0]))
		earlier := a.of("resource", news(posted[0]))
		if len(rv) != 1 || len(earlier) != 1 || rv[0].RefersTo != earlier[0].ID || rv[0].PayloadDigest != earlier[0].PayloadDigest || len(rv[0].Payload) != 0 {
			t.Errorf("revisits %+v of %+v", rv, earlier)
		}
	})

	t.Run("parallel", func(t *testing.T) {
		// The articles as INN serves them, its own header fields added.
		var got []fetched
		args := []string{"-s", "--nntp-server", addr}
		for i, p := range posted {
			args = append(args, "-o", filepath.Join(work, "p"+strconv.Itoa(i)))
			got = append(got, fetched{url: news(p)})
		}
		for _, f := range got {
			args = append(args, f.url)
		}
		urlgetOK(t, args...)
		for i := range got {
			b, err := os.ReadFile(filepath.Join(work, "p"+strconv.Itoa(i)))
			if err != nil {
				t.Fatal(err)
			}
			got[i].data = b
		}
		a := parallelRun(t, got[:2], got[2], "--nntp-server", addr)
		for _, p := range posted {
			a.innArticle(p)
		}
	})

	t.Run("mirror", func(t *testing.T) {
		out := filepath.Join(work, "tree")
		w := filepath.Join(work, "m")
		start := "nntp://" + addr + "/" + group
		urlgetOK(t, "-s", "--mirror", "--output-dir", out, "--warc-file", w, "--warc-cdx", start)
		first := readOurs(t, w+".warc.gz")
		local := filepath.Join(out, hostDir(t, start), group)
		for _, p := range posted {
			r := first.innArticle(p)
			// The article's file is the record's payload.
			es, _ := os.ReadDir(local)
			found := false
			for _, e := range es {
				if b, err := os.ReadFile(filepath.Join(local, e.Name())); err == nil && bytes.Equal(b, r.Payload) {
					found = r.URI == start+"/"+e.Name()
				}
			}
			if !found {
				t.Errorf("<%s>: %s is no file of %s", p.id, r.URI, local)
			}
		}
		first.listing(start, "text/plain", "<"+posted[0].id+">")

		// A new article: the second run archives it and the group's new
		// listing, and no article again.
		more := innArticles(group)[:1]
		innPost(t, addr, more)
		dedupRun{first: first, name: w, out: out, start: start}.run(t).innArticle(more[0])
	})
}

// TestWarcRealINNLogin: the reader password of a URL, sent with AUTHINFO
// (RFC 4643), is in no record: the target URI keeps the user, the
// conversation says AUTHINFO PASS ****.
func TestWarcRealINNLogin(t *testing.T) {
	v := realServer(t, "URLGET_INN_ADDR", "URLGET_INN_AUTH_ADDR", "URLGET_INN_USER", "URLGET_INN_PASSWORD")
	warcioTool(t)
	const group = "urlget.test"
	posted := innArticles(group)[:1]
	innPost(t, v[0], posted)
	w := filepath.Join(t.TempDir(), "login")
	urlgetOK(t, "-s", "-o", "/dev/null", "--warc-file", w, "nntp://"+v[2]+":"+v[3]+"@"+v[1]+"/"+group)
	a := readOurs(t, w+".warc.gz")
	l := a.listing("nntp://"+v[2]+"@"+v[1]+"/"+group, "text/plain", "<"+posted[0].id+">")
	if m := a.meta(l); !bytes.Contains(m.Payload, []byte("> AUTHINFO PASS ****\r\n")) {
		t.Errorf("the conversation: %q", m.Payload)
	}
	noSecret(t, w+".warc.gz", v[3])
}

// TestWarcWAISRecorded archives searches and a retrieval against
// freeWAIS-sf's recorded replies (testdata/wais): a search is a resource
// record of the raw search response, byte for byte the server's, with the
// query in its metadata record; the document a resource of the corpus
// file's bytes.
func TestWarcWAISRecorded(t *testing.T) {
	warcioTool(t)
	const aardvark = "urlgettest/TEXT/246/1=wais.example%3A2210;2=/srv/wais/db/urlgettest;3=0%20246%20/srv/wais/corpus/01-aardvark.txt;4=wais.example%3A2210;5=/srv/wais/db/urlgettest;6=0%20246%20/srv/wais/corpus/01-aardvark.txt;7=%00;"
	sent := func(folder, reply string) []byte {
		return waisCorpus(t, filepath.Join(folder, reply))
	}

	t.Run("search and document", func(t *testing.T) {
		r := waisReplay(t, "s2-retrieve-small")
		work := t.TempDir()
		w := filepath.Join(work, "w")
		search := r.URL + "urlgettest?aardvark"
		out := urlgetOK(t, "-s", "-o", "-", "-o", filepath.Join(work, "doc"), "--warc-file", w, "--warc-cdx", search, r.URL+aardvark)
		if !bytes.Contains(out, []byte("01-aardvark.txt")) {
			t.Errorf("standard output: %q", out)
		}
		a := readOurs(t, w+".warc.gz")
		l := a.listing(search, "application/octet-stream", "01-aardvark.txt")
		if want := sent("s2-retrieve-small", "01-s2c-search-aardvark.bin"); !bytes.Equal(l.Payload, want) {
			t.Errorf("the search's record: %d bytes, the server sent %d", len(l.Payload), len(want))
		}
		if m := a.meta(l); !bytes.Contains(m.Payload, []byte(`"aardvark"`)) {
			t.Errorf("the query is not in the conversation: %q", m.Payload)
		}
		doc := a.doc(r.URL+aardvark, waisCorpus(t, "corpus/01-aardvark.txt"))
		if doc.ContentType != "text/plain" {
			t.Errorf("the document's type %q", doc.ContentType)
		}
	})

	t.Run("search of four hits", func(t *testing.T) {
		r := waisReplay(t, "s1-search-river")
		w := filepath.Join(t.TempDir(), "w")
		search := r.URL + "urlgettest?river"
		urlgetOK(t, "-s", "-o", "/dev/null", "--warc-file", w, search)
		a := readOurs(t, w+".warc.gz")
		l := a.listing(search, "application/octet-stream", "07-gazebo.txt", "12-lighthouse.txt", "03-cormorant.txt", "05-escarpment.txt")
		if want := sent("s1-search-river", "01-s2c-search-river.bin"); !bytes.Equal(l.Payload, want) {
			t.Errorf("the search's record: %d bytes, the server sent %d", len(l.Payload), len(want))
		}
	})
}
