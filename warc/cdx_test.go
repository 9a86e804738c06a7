package warc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIndexes writes an archive with both indexes, and reads the CDX back
// as --warc-dedup reads it: each response and resource payload's digest
// names its URL, date and record.
func TestIndexes(t *testing.T) {
	dir := t.TempDir()
	cdx, err := CreateCDX(filepath.Join(dir, "arc.cdx"))
	if err != nil {
		t.Fatal(err)
	}
	cdxj, err := CreateCDXJ(filepath.Join(dir, "arc.cdxj"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := Create(filepath.Join(dir, "arc"), Options{Indexes: []Index{cdx, cdxj}})
	if err != nil {
		t.Fatal(err)
	}
	fx := fixtures()
	var entries []Entry
	for _, f := range fx {
		entries = append(entries, record(t, w, f.h, f.block, 1<<20))
	}
	redirect := record(t, w, Header{Type: Response, TargetURI: "http://127.0.0.1:8080/old dir/", ContentType: HTTPResponseType},
		[]byte("HTTP/1.1 301 Moved\r\nLocation: /new dir/\r\nContent-Type: text/html \r\nContent-Length: 0\r\n\r\n"), 1<<20)
	w.Close()
	cdx.Close()
	cdxj.Close()
	if _, err := CreateCDX(filepath.Join(dir, "arc.cdx")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateCDX over an index: %v", err)
	}

	text, _ := os.ReadFile(filepath.Join(dir, "arc.cdx"))
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	if lines[0] != CDXHeader {
		t.Errorf("header %q", lines[0])
	}
	// The responses, the resources and the redirect; no request,
	// metadata or revisit.
	want := []string{
		"http://127.0.0.1:8080/a.html 20261127100000 http://127.0.0.1:8080/a.html text/html 200 " + strings.TrimPrefix(sha1Of([]byte("<html>hello, archive</html>\n")), "sha1:") + " - - ",
		"http://127.0.0.1:8080/chunked ",
		"ftp://127.0.0.1:2121/pub/a.txt ",
		"gopher://127.0.0.1:7070/0/cut ",
		"http://127.0.0.1:8080/old%20dir/ ",
	}
	if len(lines) != len(want)+1 {
		t.Fatalf("%d lines:\n%s", len(lines), text)
	}
	for i, l := range lines[1:] {
		if !strings.HasPrefix(l, want[i]) || len(strings.Fields(l)) != 11 {
			t.Errorf("line %d: %q, want 11 columns from %q", i, l, want[i])
		}
	}
	if f := strings.Fields(lines[5]); f[3] != "text/html" || f[4] != "301" || f[6] != "/new%20dir/" || f[8] != itoa(redirect.Offset) || f[9] != "arc.warc.gz" || f[10] != redirect.ID {
		t.Errorf("redirect line %q", lines[5])
	}

	d, err := ReadCDX(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 5 {
		t.Errorf("%d captures, want 5", d.Len())
	}
	c, ok := d.Lookup(entries[1].PayloadDigest, "http://127.0.0.1:8080/a.html")
	if !ok || c.RecordID != entries[1].ID || !c.Date.Equal(fx[1].h.Date) || c.URL != "http://127.0.0.1:8080/a.html" {
		t.Errorf("lookup: %+v %v", c, ok)
	}
	if _, ok := d.Lookup(entries[1].PayloadDigest, "http://127.0.0.1:8080/other"); ok {
		t.Error("a capture of another URL matched")
	}
	// The chunked response has the same payload: either capture matches
	// the digest alone.
	if c, ok := d.Lookup(strings.TrimPrefix(entries[1].PayloadDigest, "sha1:"), ""); !ok || (c.RecordID != entries[1].ID && c.RecordID != entries[2].ID) {
		t.Errorf("URL-agnostic lookup: %+v %v", c, ok)
	}

	js, _ := os.ReadFile(filepath.Join(dir, "arc.cdxj"))
	jl := strings.Split(strings.TrimSuffix(string(js), "\n"), "\n")
	if len(jl) != 7 { // and the metadata and revisit
		t.Fatalf("%d CDXJ lines:\n%s", len(jl), js)
	}
	key, rest, _ := strings.Cut(jl[0], " ")
	ts, obj, _ := strings.Cut(rest, " ")
	var m map[string]string
	if err := json.Unmarshal([]byte(obj), &m); err != nil {
		t.Fatal(err)
	}
	if key != "1,0,0,127:8080)/a.html" || ts != "20261127100000" || m["url"] != "http://127.0.0.1:8080/a.html" || m["status"] != "200" ||
		m["mime"] != "text/html" || "sha1:"+m["digest"] != entries[1].PayloadDigest || m["offset"] != itoa(entries[1].Offset) ||
		m["length"] != itoa(entries[1].Length) || m["filename"] != "arc.warc.gz" {
		t.Errorf("CDXJ line %q", jl[0])
	}
	if !strings.Contains(jl[4], `"mime":"warc/revisit"`) {
		t.Errorf("revisit line %q", jl[4])
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestReadCDXWget reads an index as wget writes it, and the ways a file
// can be wrong.
func TestReadCDXWget(t *testing.T) {
	wget := ` CDX a b a m s k r M V g u
http://127.0.0.1:33001/ 20260810203702 http://127.0.0.1:33001/ text/html 200 ZHZVNSD7CHQFFQFY74ZTUDD5DD3YBW77 - - 2949 o.warc.gz <urn:uuid:6b6e2d37-7a3c-4b3e-9f39-1f6ab4c4a3d1>
http://127.0.0.1:33001/r 20260810203703 http://127.0.0.1:33001/r - 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ /i.html - 4000 o.warc.gz <urn:uuid:0f7d5a10-2b3c-4d5e-8f90-a1b2c3d4e5f6>
http://127.0.0.1:33001/bad 20260810203703 http://127.0.0.1:33001/bad - 200 NOTBASE32! - - 5000 o.warc.gz <urn:uuid:x>
http://127.0.0.1:33001/noid 20260810203703 http://127.0.0.1:33001/noid - 200 ZHZVNSD7CHQFFQFY74ZTUDD5DD3YBW77 - - 6000 o.warc.gz urn:uuid:x
short line
`
	d, err := ReadCDX(strings.NewReader(wget))
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 2 {
		t.Errorf("%d captures, want 2", d.Len())
	}
	c, ok := d.Lookup("sha1:ZHZVNSD7CHQFFQFY74ZTUDD5DD3YBW77", "http://127.0.0.1:33001/")
	if !ok || c.RecordID != "<urn:uuid:6b6e2d37-7a3c-4b3e-9f39-1f6ab4c4a3d1>" || !c.Date.Equal(time.Date(2026, 8, 10, 20, 37, 2, 0, time.UTC)) {
		t.Errorf("%+v %v", c, ok)
	}
	// Columns in another order, without a date.
	other := "CDX u k a\n<urn:uuid:1> ZHZVNSD7CHQFFQFY74ZTUDD5DD3YBW77 http://h/\n"
	if d, err := ReadCDX(strings.NewReader(other)); err != nil || d.Len() != 1 {
		t.Errorf("reordered columns: %v", err)
	} else if c, ok := d.Lookup("ZHZVNSD7CHQFFQFY74ZTUDD5DD3YBW77", "http://h/"); !ok || !c.Date.IsZero() || c.RecordID != "<urn:uuid:1>" {
		t.Errorf("reordered columns: %+v", c)
	}
	for _, bad := range []string{"", "\n", "CDX a b k\n", "not a header\n", " CDX a k\n"} {
		if _, err := ReadCDX(strings.NewReader(bad)); !errors.Is(err, ErrCDXHeader) {
			t.Errorf("%q: %v, want ErrCDXHeader", bad, err)
		}
	}
	long := " CDX a k u\n" + strings.Repeat("x", maxCDXLine+1) + "\n"
	if _, err := ReadCDX(strings.NewReader(long)); err == nil {
		t.Error("a line past the bound is read")
	}
}

func TestSURT(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://www.Example.com/A/b?z=1&a=2", "com,example)/a/b?a=2&z=1"},
		{"https://www2.example.com:443/", "com,example)/"},
		{"http://example.com:8080", "com,example:8080)/"},
		{"http://127.0.0.1:8080/x", "1,0,0,127:8080)/x"},
		{"http://[::1]:8080/x", "[::1]:8080)/x"},
		{"ftp://Example.com/F.txt", "ftp://Example.com/F.txt"},
		{"gopher://127.0.0.1/1/a b", "gopher://127.0.0.1/1/a%20b"},
	} {
		if got := SURT(c.in); got != c.want {
			t.Errorf("SURT(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
