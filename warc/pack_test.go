package warc

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCRC32Combine: the CRC-32 put together from two parts' is the one
// of the whole, for parts of every size from none to past a megabyte.
func TestCRC32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	whole := make([]byte, 3<<20)
	for i := range whole {
		whole[i] = byte(rng.Uint32())
	}
	cuts := []int{0, 1, 2, 3, 4, 7, 8, 255, 256, 4096, 65535, 1 << 20, len(whole) - 1, len(whole)}
	for range 20 {
		cuts = append(cuts, rng.IntN(len(whole)+1))
	}
	for _, n := range []int{len(whole), 5000, 17} {
		for _, c := range cuts {
			if c > n {
				continue
			}
			a, b := whole[:c], whole[c:n]
			got := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), int64(len(b)))
			if want := crc32.ChecksumIEEE(whole[:n]); got != want {
				t.Errorf("%d+%d bytes: %08x, want %08x", len(a), len(b), got, want)
			}
		}
	}
}

// TestSplicedMember: a spooled block's record is one gzip member that
// the standard library's reader and the system's gzip take whole, its
// CRC-32 and size checked, for blocks that compress and blocks that do
// not, one byte past the bound and many times it.
func TestSplicedMember(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	text := bytes.Repeat([]byte("Path: 127.0.0.1!not-for-mail\r\nSubject: the same line again\r\n"), 40000)
	noise := make([]byte, 2<<20)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	for _, block := range [][]byte{text[:4097], text, noise, append(append([]byte{}, noise[:70000]...), text[:90000]...)} {
		dir := t.TempDir()
		w, err := Create(filepath.Join(dir, "sp"), Options{Spool: 4096})
		if err != nil {
			t.Fatal(err)
		}
		e := record(t, w, Header{Type: Resource, TargetURI: "ftp://127.0.0.1/big", ContentType: "text/plain"}, block, 3000)
		small := record(t, w, Header{Type: Resource, TargetURI: "ftp://127.0.0.1/small", ContentType: "text/plain"}, []byte("x"), 1)
		w.Close()
		name := filepath.Join(dir, "sp.warc.gz")
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if small.Offset != e.Offset+e.Length || int64(len(raw)) != small.Offset+small.Length {
			t.Fatalf("entries %d+%d, %d+%d in a file of %d bytes", e.Offset, e.Length, small.Offset, small.Length, len(raw))
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw[e.Offset : e.Offset+e.Length]))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%d-byte block: the member does not decode whole: %v", len(block), err)
		}
		if !bytes.HasSuffix(got, append(append([]byte{}, block...), recordEnd...)) || !bytes.HasPrefix(got, []byte("WARC/1.1\r\n")) {
			t.Fatalf("%d-byte block: the member holds %d bytes, not the record", len(block), len(got))
		}
		if gz, err := exec.LookPath("gzip"); err == nil {
			if out, err := exec.Command(gz, "-t", name).CombinedOutput(); err != nil {
				t.Errorf("gzip -t: %v\n%s", err, out)
			}
		}
	}
}

// TestCommitAll: the records of exchanges committed together land one
// after another, each at the offset and of the length its entry gives,
// read back whole from there, compressed and plain, one of them spooled,
// across a roll-over; warcio's CDXJ of the files is ours, line for line.
func TestCommitAll(t *testing.T) {
	for _, opt := range []Options{{MaxSize: 2500, Spool: 8 << 10}, {NoCompression: true, MaxSize: 2500, Spool: 8 << 10}} {
		dir := t.TempDir()
		var cdxj bytes.Buffer
		ix := NewCDXJWriter(&cdxj)
		opt.Indexes = []Index{ix}
		w, err := Create(filepath.Join(dir, "ex"), opt)
		if err != nil {
			t.Fatal(err)
		}
		type pair struct{ req, resp Entry }
		var pairs []pair
		for i := range 12 {
			body := bytes.Repeat([]byte{byte('a' + i)}, 100+i*50)
			if i == 5 {
				body = bytes.Repeat([]byte("spooled "), 2000) // past Spool
			}
			u := fmt.Sprintf("http://127.0.0.1/%d", i)
			reqID, respID := NewRecordID(), NewRecordID()
			req, _ := w.Begin(Header{Type: Request, ID: reqID, TargetURI: u, ContentType: HTTPRequestType, ConcurrentTo: []string{respID}})
			fmt.Fprintf(req, "GET /%d HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", i)
			resp, _ := w.Begin(Header{Type: Response, ID: respID, TargetURI: u, ContentType: HTTPResponseType, ConcurrentTo: []string{reqID}})
			fmt.Fprintf(resp, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(body))
			resp.Write(body)
			es, err := w.CommitAll(req, resp)
			if err != nil || len(es) != 2 {
				t.Fatalf("CommitAll: %v, %d entries", err, len(es))
			}
			if es[0].File == es[1].File && es[1].Offset != es[0].Offset+es[0].Length+map[bool]int64{true: 4, false: 0}[opt.NoCompression] {
				t.Errorf("pair %d: the response at %d, the request ends at %d", i, es[1].Offset, es[0].Offset+es[0].Length)
			}
			pairs = append(pairs, pair{es[0], es[1]})
		}
		w.Close()
		ix.Close()
		files := map[string]bool{}
		for i, p := range pairs {
			for k, e := range []Entry{p.req, p.resp} {
				files[e.File] = true
				f, err := os.Open(filepath.Join(dir, e.File))
				if err != nil {
					t.Fatal(err)
				}
				h, body, err := NewReader(io.NewSectionReader(f, e.Offset, e.Length+4)).Next()
				if err != nil {
					t.Fatalf("pair %d record %d at %d in %s: %v", i, k, e.Offset, e.File, err)
				}
				b, err := io.ReadAll(body)
				if err != nil || h.Get("WARC-Record-ID") != e.ID || int64(len(b)) != mustInt(t, h.Get("Content-Length")) {
					t.Errorf("pair %d record %d: %v %v, %d bytes", i, k, err, h.Fields, len(b))
				}
				f.Close()
			}
		}
		if len(files) < 2 {
			t.Errorf("no roll-over: %v", files)
		}
		if bin := os.Getenv("URLGET_WARCIO"); bin != "" {
			var theirs []string
			for k := 0; ; k++ {
				name := FileName(filepath.Join(dir, "ex"), k, !opt.NoCompression, opt.MaxSize)
				if _, err := os.Stat(name); err != nil {
					break
				}
				out, err := exec.Command(bin, "cdx-index", name).Output()
				if err != nil {
					t.Fatal(err)
				}
				theirs = append(theirs, nonEmptyLines(string(out))...)
			}
			ours := nonEmptyLines(cdxj.String())
			if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
				t.Errorf("CDXJ:\nours\n%s\nwarcio\n%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"))
			}
		}
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLongHeaderLine: a header line many times the reader's buffer (a
// long URL, its bytes past ASCII percent-encoded) reads back whole.
func TestLongHeaderLine(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(filepath.Join(dir, "long"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	u := "http://127.0.0.1/?q=" + strings.Repeat("\xd0", 20000)
	record(t, w, Header{Type: Resource, TargetURI: u, ContentType: "text/plain"}, []byte("x"), 1)
	w.Close()
	recs := readAll(t, filepath.Join(dir, "long.warc.gz"))
	if got := recs[1].head.Get("WARC-Target-URI"); got != cleanURI(u) || len(got) < 60000 {
		t.Errorf("target URI of %d bytes read back as %d", len(cleanURI(u)), len(got))
	}
}
