package warc

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// read is a record as the tests read it back.
type read struct {
	head  *Head
	block []byte
}

// readAll reads every record of a WARC file with Reader.
func readAll(t *testing.T, path string) []read {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []read
	r := NewReader(f)
	for {
		h, body, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: record %d: %v", path, len(out), err)
		}
		b, err := io.ReadAll(body)
		if err != nil {
			t.Fatalf("%s: record %d: %v", path, len(out), err)
		}
		out = append(out, read{h, b})
	}
}

// record writes one record with the block given, in pieces of n bytes.
func record(t *testing.T, w *Writer, h Header, block []byte, n int) Entry {
	t.Helper()
	r, err := w.Begin(h)
	if err != nil {
		t.Fatal(err)
	}
	for len(block) > 0 {
		k := min(n, len(block))
		if _, err := r.Write(block[:k]); err != nil {
			t.Fatal(err)
		}
		block = block[k:]
	}
	e, err := r.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func sha1Of(p []byte) string {
	s := sha1.Sum(p)
	return "sha1:" + b32.EncodeToString(s[:])
}

// fixture is one exchange of each record type, with the payload each
// record's digest must be of.
type fixture struct {
	h       Header
	block   []byte
	payload []byte // nil: no payload digest of ours to check
}

func fixtures() []fixture {
	body := []byte("<html>hello, archive</html>\n")
	reqID, respID := NewRecordID(), NewRecordID()
	date := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	chunked := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"7;ext=1\r\n<html>h\r\n" + fmt.Sprintf("%x", len(body)-7) + "\r\n" + string(body[7:]) + "\r\n0\r\nX-Trailer: 1\r\n\r\n")
	chunked = bytes.Replace(chunked, []byte("<html>h"), body[:7], 1)
	return []fixture{
		{Header{Type: Request, ID: reqID, TargetURI: "http://127.0.0.1:8080/a.html", ContentType: HTTPRequestType, IPAddress: "127.0.0.1", ConcurrentTo: []string{respID}, Date: date},
			[]byte("GET /a.html HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"), []byte{}},
		{Header{Type: Response, ID: respID, TargetURI: "http://127.0.0.1:8080/a.html", ContentType: HTTPResponseType, IPAddress: "127.0.0.1", ConcurrentTo: []string{reqID}, Date: date},
			append([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n", len(body))), body...), body},
		{Header{Type: Response, TargetURI: "http://127.0.0.1:8080/chunked", ContentType: HTTPResponseType},
			chunked, body},
		{Header{Type: Resource, TargetURI: "ftp://127.0.0.1:2121/pub/a.txt", ContentType: "text/plain", IPAddress: "127.0.0.1"},
			[]byte("a file over ftp\n"), []byte("a file over ftp\n")},
		{Header{Type: Metadata, TargetURI: "ftp://127.0.0.1:2121/pub/a.txt", ContentType: "text/plain", ConcurrentTo: []string{respID}},
			[]byte("USER anonymous\r\n331 Password required\r\nPASS ****\r\n"), nil},
		{Header{Type: Revisit, TargetURI: "http://127.0.0.1:8080/b.html", ContentType: HTTPResponseType,
			RefersTo: respID, RefersToTargetURI: "http://127.0.0.1:8080/a.html", RefersToDate: date, PayloadDigest: sha1Of(body)},
			[]byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"), body},
		{Header{Type: Resource, TargetURI: "gopher://127.0.0.1:7070/0/cut", ContentType: "text/plain", Truncated: TruncatedDisconnect},
			[]byte("half a docu"), []byte("half a docu")},
	}
}

// TestEveryRecordType writes a record of each type, compressed and not,
// in pieces of several sizes, and reads each back: its fields, block and
// digests.
func TestEveryRecordType(t *testing.T) {
	for _, compressed := range []bool{true, false} {
		for _, piece := range []int{1, 7, 1 << 20} {
			t.Run(fmt.Sprintf("gzip=%v/piece=%d", compressed, piece), func(t *testing.T) {
				dir := t.TempDir()
				w, err := Create(filepath.Join(dir, "arc"), Options{NoCompression: !compressed, Software: "urlget/test",
					Info: []Field{{"robots", "classic"}, {"urlget-arguments", "--warc-file arc -u user:**** http://127.0.0.1/"}}})
				if err != nil {
					t.Fatal(err)
				}
				fx := fixtures()
				var entries []Entry
				for _, f := range fx {
					entries = append(entries, record(t, w, f.h, f.block, piece))
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				name := "arc.warc"
				if compressed {
					name += ".gz"
				}
				recs := readAll(t, filepath.Join(dir, name))
				if len(recs) != len(fx)+1 {
					t.Fatalf("%d records, want %d", len(recs), len(fx)+1)
				}
				info := recs[0]
				if info.head.Get("WARC-Type") != "warcinfo" || info.head.Get("WARC-Filename") != name ||
					info.head.Get("Content-Type") != "application/warc-fields" {
					t.Errorf("warcinfo head: %+v", info.head.Fields)
				}
				for _, want := range []string{"software: urlget/test\r\n", "format: WARC File Format 1.1\r\n", "conformsTo: http://iipc.github.io/", "robots: classic\r\n", "urlget-arguments: --warc-file arc -u user:****"} {
					if !bytes.Contains(info.block, []byte(want)) {
						t.Errorf("warcinfo block lacks %q:\n%s", want, info.block)
					}
				}
				infoID := info.head.Get("WARC-Record-ID")
				for i, f := range fx {
					got := recs[i+1]
					h := got.head
					if h.Version != "WARC/1.1" || h.Get("WARC-Type") != string(f.h.Type) || h.Get("WARC-Target-URI") != f.h.TargetURI {
						t.Errorf("record %d: %s %s %s", i, h.Version, h.Get("WARC-Type"), h.Get("WARC-Target-URI"))
					}
					if !bytes.Equal(got.block, f.block) {
						t.Errorf("record %d: block %q, want %q", i, got.block, f.block)
					}
					if d := h.Get("WARC-Block-Digest"); d != sha1Of(f.block) {
						t.Errorf("record %d: block digest %s, want %s", i, d, sha1Of(f.block))
					}
					if f.payload != nil {
						if d := h.Get("WARC-Payload-Digest"); d != sha1Of(f.payload) {
							t.Errorf("record %d (%s): payload digest %s, want %s", i, f.h.Type, d, sha1Of(f.payload))
						}
					} else if d := h.Get("WARC-Payload-Digest"); d != "" {
						t.Errorf("record %d (%s): payload digest %s, want none", i, f.h.Type, d)
					}
					if h.Get("WARC-Warcinfo-ID") != infoID {
						t.Errorf("record %d: warcinfo ID %q, want %q", i, h.Get("WARC-Warcinfo-ID"), infoID)
					}
					if f.h.ID != "" && h.Get("WARC-Record-ID") != f.h.ID {
						t.Errorf("record %d: ID %s, want %s", i, h.Get("WARC-Record-ID"), f.h.ID)
					}
					if id := h.Get("WARC-Record-ID"); !validID(id) || id != entries[i].ID {
						t.Errorf("record %d: ID %q, entry's %q", i, id, entries[i].ID)
					}
					if len(f.h.ConcurrentTo) > 0 && h.Get("WARC-Concurrent-To") != f.h.ConcurrentTo[0] {
						t.Errorf("record %d: concurrent to %q", i, h.Get("WARC-Concurrent-To"))
					}
					if _, err := time.Parse(time.RFC3339, h.Get("WARC-Date")); err != nil || !strings.HasSuffix(h.Get("WARC-Date"), "Z") {
						t.Errorf("record %d: WARC-Date %q", i, h.Get("WARC-Date"))
					}
					wantCut := f.h.Truncated
					if f.h.Type == Revisit && len(f.block) > 0 {
						// The response's header section without its known
						// payload (WARC 1.1 §6.7.2).
						wantCut = TruncatedLength
					}
					if h.Get("WARC-Truncated") != wantCut {
						t.Errorf("record %d: WARC-Truncated %q, want %q", i, h.Get("WARC-Truncated"), wantCut)
					}
					if h.Offset != entries[i].Offset {
						t.Errorf("record %d: at %d, entry says %d", i, h.Offset, entries[i].Offset)
					}
				}
				rv := recs[6].head
				if rv.Get("WARC-Profile") != ProfileIdenticalPayload || rv.Get("WARC-Refers-To-Target-URI") != "http://127.0.0.1:8080/a.html" ||
					rv.Get("WARC-Refers-To-Date") != "2026-11-27T10:00:00Z" || rv.Get("WARC-Refers-To") != fx[1].h.ID {
					t.Errorf("revisit: %+v", rv.Fields)
				}
				if e := entries[1]; e.Status != 200 || e.MIME != "text/html" || e.Date != fx[1].h.Date {
					t.Errorf("response entry: %+v", e)
				}
			})
		}
	}
}

func validID(id string) bool {
	if !strings.HasPrefix(id, "<urn:uuid:") || !strings.HasSuffix(id, ">") {
		return false
	}
	u := strings.TrimSuffix(strings.TrimPrefix(id, "<urn:uuid:"), ">")
	parts := strings.Split(u, "-")
	return len(parts) == 5 && len(u) == 36 && u[14] == '4' && strings.ContainsRune("89ab", rune(u[19]))
}

// TestCreateNeverOverwrites: an archive's name taken, by an earlier
// archive or any file, is an error; the file is left as it was.
func TestCreateNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	for _, opt := range []Options{{}, {NoCompression: true}, {MaxSize: 1000}} {
		name := filepath.Join(dir, "x")
		path := FileName(name, 0, !opt.NoCompression, opt.MaxSize)
		if err := os.WriteFile(path, []byte("earlier"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Create(name, opt); !errors.Is(err, fs.ErrExist) {
			t.Errorf("%s: Create: %v, want fs.ErrExist", path, err)
		}
		if b, _ := os.ReadFile(path); string(b) != "earlier" {
			t.Errorf("%s: now %q", path, b)
		}
	}
}

// TestRollover: with MaxSize, the files are numbered as wget numbers
// them, each starts with its own warcinfo naming it, and every record is
// in exactly one of them.
func TestRollover(t *testing.T) {
	for _, compressed := range []bool{true, false} {
		dir := t.TempDir()
		w, err := Create(filepath.Join(dir, "roll"), Options{NoCompression: !compressed, MaxSize: 2000})
		if err != nil {
			t.Fatal(err)
		}
		const n = 40
		for i := range n {
			record(t, w, Header{Type: Resource, TargetURI: fmt.Sprintf("file:///doc/%d", i), ContentType: "text/plain"},
				bytes.Repeat([]byte{byte('a' + i%26)}, 300+i), 1<<20)
		}
		w.Close()
		seen := 0
		var files []string
		for k := 0; ; k++ {
			path := FileName(filepath.Join(dir, "roll"), k, compressed, 1)
			if _, err := os.Stat(path); err != nil {
				break
			}
			files = append(files, path)
			recs := readAll(t, path)
			if len(recs) < 2 || recs[0].head.Get("WARC-Type") != "warcinfo" || recs[0].head.Get("WARC-Filename") != filepath.Base(path) {
				t.Fatalf("%s does not start with its warcinfo", path)
			}
			for _, r := range recs[1:] {
				if r.head.Get("WARC-Target-URI") != fmt.Sprintf("file:///doc/%d", seen) {
					t.Errorf("%s: %s, want doc %d", path, r.head.Get("WARC-Target-URI"), seen)
				}
				if r.head.Get("WARC-Warcinfo-ID") != recs[0].head.Get("WARC-Record-ID") {
					t.Errorf("%s: record names another file's warcinfo", path)
				}
				seen++
			}
		}
		if seen != n || len(files) < 3 {
			t.Errorf("compressed=%v: %d records in %d files", compressed, seen, len(files))
		}
		want := "roll-00000.warc"
		if compressed {
			want += ".gz"
		}
		if len(files) > 0 && filepath.Base(files[0]) != want {
			t.Errorf("first file %s, want %s", files[0], want)
		}
		if _, err := os.Stat(filepath.Join(dir, "roll.warc.gz")); err == nil {
			t.Error("an unnumbered file besides the numbered ones")
		}
	}
}

// TestSpoolLargeBlock: a block past the bound goes to a temporary file,
// unlinked, in the archive's directory; its digests and bytes are whole
// and nothing is left behind.
func TestSpoolLargeBlock(t *testing.T) {
	for _, compressed := range []bool{true, false} {
		dir := t.TempDir()
		w, err := Create(filepath.Join(dir, "big"), Options{Spool: 4096, NoCompression: !compressed})
		if err != nil {
			t.Fatal(err)
		}
		body := make([]byte, 300_000)
		for i := range body {
			body[i] = byte(i * 7 % 251)
		}
		head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(body))
		r, err := w.Begin(Header{Type: Response, TargetURI: "http://127.0.0.1/big", ContentType: HTTPResponseType})
		if err != nil {
			t.Fatal(err)
		}
		r.Write([]byte(head))
		for p := body; len(p) > 0; p = p[min(1000, len(p)):] {
			r.Write(p[:min(1000, len(p))])
		}
		if r.sp == nil || r.buf.Len() != 0 {
			t.Fatal("a block past the bound is not spooled, or is held in memory too")
		}
		e, err := r.Commit()
		if err != nil {
			t.Fatal(err)
		}
		// A small record after it starts where the index says.
		e2 := record(t, w, Header{Type: Resource, TargetURI: "ftp://127.0.0.1/small", ContentType: "text/plain"}, []byte("small\n"), 3)
		w.Close()
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Errorf("files left in the directory: %v", ents)
		}
		name := FileName(filepath.Join(dir, "big"), 0, compressed, 0)
		recs := readAll(t, name)
		if got := recs[1]; !bytes.Equal(got.block[len(head):], body) || got.head.Get("WARC-Payload-Digest") != sha1Of(body) {
			t.Errorf("compressed %v: spooled record's block or payload digest is wrong", compressed)
		}
		if len(recs) != 3 || string(recs[2].block) != "small\n" {
			t.Fatalf("compressed %v: the record after the spooled one is not whole", compressed)
		}
		end := e.Offset + e.Length
		if !compressed {
			end += int64(len(recordEnd))
		}
		if e2.Offset != end {
			t.Errorf("compressed %v: the next record at %d, want %d, where the spooled one ends", compressed, e2.Offset, end)
		}
		if fi, _ := os.Stat(name); compressed && fi.Size() != e2.Offset+e2.Length {
			t.Errorf("file of %d bytes, the index ends it at %d", fi.Size(), e2.Offset+e2.Length)
		}
	}
}

// TestConcurrentRollover: records committed at once from several
// goroutines while the archive rolls over each name the warcinfo of the
// file they land in, though the file changed while they were packed.
func TestConcurrentRollover(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(filepath.Join(dir, "roll"), Options{MaxSize: 3000})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 30 {
				r, err := w.Begin(Header{Type: Resource, TargetURI: fmt.Sprintf("gopher://127.0.0.1/0/%d.%d", g, i), ContentType: "text/plain"})
				if err != nil {
					t.Error(err)
					return
				}
				fmt.Fprintf(r, "item %d of %d %s\n", i, g, bytes.Repeat([]byte("x"), 200))
				if _, err := r.Commit(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	w.Close()
	total := 0
	for n := 0; ; n++ {
		name := FileName(filepath.Join(dir, "roll"), n, true, 3000)
		if _, err := os.Stat(name); err != nil {
			if n < 2 {
				t.Fatalf("only %d files: no rollover happened", n)
			}
			break
		}
		recs := readAll(t, name)
		info := recs[0].head.Get("WARC-Record-ID")
		for _, r := range recs[1:] {
			if got := r.head.Get("WARC-Warcinfo-ID"); got != info {
				t.Errorf("%s: a record names warcinfo %s, the file's is %s", name, got, info)
			}
		}
		total += len(recs) - 1
	}
	if total != 180 {
		t.Errorf("%d records in all, want 180", total)
	}
}

// TestInterruptedArchive: a file cut mid-record (a run killed while
// writing) reads back as its whole records and then an unexpected EOF,
// and a later Create of the name refuses rather than append after it.
func TestInterruptedArchive(t *testing.T) {
	for _, compressed := range []bool{true, false} {
		dir := t.TempDir()
		name := filepath.Join(dir, "cut")
		w, err := Create(name, Options{NoCompression: !compressed})
		if err != nil {
			t.Fatal(err)
		}
		var last Entry
		for i := range 5 {
			last = record(t, w, Header{Type: Resource, TargetURI: fmt.Sprintf("gopher://127.0.0.1/0/%d", i), ContentType: "text/plain"},
				bytes.Repeat([]byte("gopher text\n"), 50), 1<<20)
		}
		w.Close()
		path := FileName(name, 0, compressed, 0)
		cutAt := last.Offset + last.Length/2
		if err := os.Truncate(path, cutAt); err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(path)
		r := NewReader(f)
		whole := 0
		var rerr error
		for {
			h, body, err := r.Next()
			if err == nil {
				_, err = io.Copy(io.Discard, body)
				if err == nil {
					if h.Offset >= cutAt {
						t.Errorf("a record at %d past the cut at %d", h.Offset, cutAt)
					}
					whole++
					continue
				}
			}
			rerr = err
			break
		}
		f.Close()
		if whole != 5 || !errors.Is(rerr, io.ErrUnexpectedEOF) {
			t.Errorf("compressed=%v: %d whole records then %v; want warcinfo and 4 then an unexpected EOF", compressed, whole, rerr)
		}
		before, _ := os.ReadFile(path)
		if _, err := Create(name, Options{NoCompression: !compressed}); !errors.Is(err, fs.ErrExist) {
			t.Errorf("Create over a cut archive: %v", err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Error("the cut archive changed")
		}
	}
}

// TestConcurrentRecords: records built on several goroutines land whole,
// one after another.
func TestConcurrentRecords(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(filepath.Join(dir, "par"), Options{Spool: 2048})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				r, err := w.Begin(Header{Type: Resource, TargetURI: fmt.Sprintf("news://127.0.0.1/<%d.%d@x>", g, i), ContentType: "message/news"})
				if err != nil {
					t.Error(err)
					return
				}
				for range 40 {
					fmt.Fprintf(r, "article %d of %d\n", i, g)
				}
				if _, err := r.Commit(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	late, _ := w.Begin(Header{Type: Resource, TargetURI: "news://127.0.0.1/<late@x>"})
	w.Close()
	if _, err := late.Commit(); !errors.Is(err, ErrClosed) {
		t.Errorf("a record committed after Close: %v", err)
	}
	if _, err := w.Begin(Header{Type: Resource}); !errors.Is(err, ErrClosed) {
		t.Errorf("a record begun after Close: %v", err)
	}
	recs := readAll(t, filepath.Join(dir, "par.warc.gz"))
	if len(recs) != 81 {
		t.Fatalf("%d records, want 81", len(recs))
	}
	for _, r := range recs[1:] {
		var g, i int
		fmt.Sscanf(r.head.Get("WARC-Target-URI"), "news://127.0.0.1/<%d.%d@x>", &g, &i)
		if !bytes.Equal(r.block, bytes.Repeat([]byte(fmt.Sprintf("article %d of %d\n", i, g)), 40)) {
			t.Errorf("%s: block mixed with another", r.head.Get("WARC-Target-URI"))
		}
	}
}

// TestHeaderInjection plays a server whose bytes reach header fields: a
// URL, a content type, an address and more with CR, LF and other control
// bytes. Every record reads back with exactly the fields written, none
// added, and a field name that is no token is refused.
func TestHeaderInjection(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(filepath.Join(dir, "evil"), Options{Info: []Field{{"robots", "off\r\nformat: forged"}}})
	if err != nil {
		t.Fatal(err)
	}
	evil := "\r\nWARC-Type: forged\r\n\r\nWARC/1.1\n"
	h := Header{
		Type: Resource, TargetURI: "ftp://127.0.0.1/a b" + evil, ContentType: "text/plain" + evil,
		IPAddress: "127.0.0.1" + evil, Truncated: TruncatedLength + evil,
		ConcurrentTo: []string{"<urn:x>" + evil}, Fields: []Field{{"X-Ftp-Reply", "226 done" + evil + "\x00\x7f"}},
	}
	record(t, w, h, []byte("x"), 1)
	if _, err := w.Begin(Header{Type: Resource, Fields: []Field{{"X\r\nWARC-Type", "v"}}}); !errors.Is(err, ErrFieldName) {
		t.Errorf("a field name with CRLF: %v", err)
	}
	w.Close()
	recs := readAll(t, filepath.Join(dir, "evil.warc.gz"))
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	if bytes.Contains(recs[0].block, []byte("\nformat: forged")) {
		t.Error("a warcinfo value started a field of its own")
	}
	var names []string
	for _, f := range recs[1].head.Fields {
		names = append(names, f.Name)
		if strings.ContainsAny(f.Value, "\r\n\x00\x7f") {
			t.Errorf("%s: %q", f.Name, f.Value)
		}
	}
	want := "WARC-Type WARC-Record-ID WARC-Date WARC-Target-URI WARC-IP-Address WARC-Warcinfo-ID WARC-Concurrent-To WARC-Truncated Content-Type WARC-Block-Digest WARC-Payload-Digest X-Ftp-Reply Content-Length"
	if strings.Join(names, " ") != want {
		t.Errorf("fields %s\nwant   %s", strings.Join(names, " "), want)
	}
	if u := recs[1].head.Get("WARC-Target-URI"); strings.ContainsAny(u, " \t") || !strings.HasPrefix(u, "ftp://127.0.0.1/a%20b%0D%0AWARC-Type:") {
		t.Errorf("target URI %q", u)
	}
	if recs[1].head.Get("WARC-Type") != "resource" {
		t.Error("type forged")
	}
}

// TestPayloadDigest: an HTTP block's payload is its body after the header
// section, with chunked framing taken off (WARC 1.1 §5.9), however the
// bytes are split as they arrive.
func TestPayloadDigest(t *testing.T) {
	body := "The payload, and\r\n\r\nits blank lines."
	cases := []struct {
		name, block, payload string
	}{
		{"length", "HTTP/1.1 200 OK\r\nContent-Length: 36\r\n\r\n" + body, body},
		{"close", "HTTP/1.0 200 OK\r\n\r\n" + body, body},
		{"bare LF", "HTTP/1.1 200 OK\nServer: x\n\n" + body, body},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n" + body[:16] + "\r\n14;a=\"b\"\r\n" + body[16:] + "\r\n0\r\nT: 1\r\n\r\n", body},
		{"gzip, chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", "abc"},
		{"chunked, cut", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n" + body[:10], body[:10]},
		{"chunked, bad size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\nmore", "abc"},
		{"not chunked last", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n3\r\nabc", "3\r\nabc"},
		{"empty body", "HTTP/1.1 304 Not Modified\r\n\r\n", ""},
	}
	for _, c := range cases {
		for _, piece := range []int{1, 2, 3, 5, 1000} {
			m := newHTTPMessage()
			for p := []byte(c.block); len(p) > 0; p = p[min(piece, len(p)):] {
				m.Write(p[:min(piece, len(p))])
			}
			if got := m.payloadDigest(); got != sha1Of([]byte(c.payload)) {
				t.Errorf("%s, pieces of %d: payload digest %s, want sha1 of %q", c.name, piece, got, c.payload)
			}
		}
	}
	m := newHTTPMessage()
	m.Write([]byte("HTTP/1.1 200 OK\r\nServer: no end"))
	if m.payloadDigest() != "" {
		t.Error("a header section that never ends has a payload digest")
	}
	m = newHTTPMessage()
	m.Write(bytes.Repeat([]byte("X-Long: header\r\n"), maxHTTPHeader/16+2))
	if m.payloadDigest() != "" || m.head != nil || !m.tooLong {
		t.Error("a header section past the bound is held")
	}
}
