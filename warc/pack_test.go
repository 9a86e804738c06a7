package warc

import (
	"bytes"
	"compress/gzip"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
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
