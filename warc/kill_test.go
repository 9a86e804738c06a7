package warc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestKilledWriter runs a writer in a child process, kills it with
// SIGKILL while it writes large records, and reads the archive: whole
// records, then at most one cut short at the end; the name cannot be
// created again.
func TestKilledWriter(t *testing.T) {
	if name := os.Getenv("URLGET_WARC_CHILD"); name != "" {
		childWriter(name)
		return
	}
	for _, compressed := range []bool{true, false} {
		dir := t.TempDir()
		name := filepath.Join(dir, "killed")
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriter$")
		cmd.Env = append(os.Environ(), "URLGET_WARC_CHILD="+name, fmt.Sprintf("URLGET_WARC_CHILD_GZ=%v", compressed))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		path := FileName(name, 0, compressed, 0)
		deadline := time.Now().Add(20 * time.Second)
		for {
			if st, err := os.Stat(path); err == nil && st.Size() > 3<<20 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the child wrote nothing within 20 s")
			}
			time.Sleep(5 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r := NewReader(f)
		whole := 0
		var last error
		for {
			h, body, err := r.Next()
			if err == nil {
				var b []byte
				b, err = io.ReadAll(body)
				if err == nil && whole > 0 && h.Get("WARC-Payload-Digest") != sha1Of(b) {
					t.Errorf("record %d: payload digest does not match its bytes", whole)
				}
			}
			if err != nil {
				last = err
				break
			}
			whole++
		}
		f.Close()
		t.Logf("compressed=%v: %d whole records, then %v", compressed, whole, last)
		if last != io.EOF && !errors.Is(last, io.ErrUnexpectedEOF) {
			t.Errorf("compressed=%v: after %d records: %v", compressed, whole, last)
		}
		if whole < 2 {
			t.Errorf("compressed=%v: %d whole records", compressed, whole)
		}
		if _, err := Create(name, Options{NoCompression: !compressed}); !errors.Is(err, fs.ErrExist) {
			t.Errorf("Create after a kill: %v", err)
		}
	}
}

// childWriter writes 256 KiB resource records, spooled, until killed (or
// for 30 s at the most).
func childWriter(name string) {
	w, err := Create(name, Options{NoCompression: os.Getenv("URLGET_WARC_CHILD_GZ") == "false", Spool: 64 << 10})
	if err != nil {
		os.Exit(2)
	}
	// Bytes gzip cannot shrink, so that the file grows as fast plain or
	// compressed.
	block := make([]byte, 256<<10)
	rand.New(rand.NewSource(1)).Read(block)
	start := time.Now()
	for i := 0; time.Since(start) < 30*time.Second && i < 100000; i++ {
		r, _ := w.Begin(Header{Type: Resource, TargetURI: fmt.Sprintf("file:///%d", i), ContentType: "application/octet-stream"})
		block[0] = byte(i)
		for p := block; len(p) > 0; p = p[4096:] {
			r.Write(p[:4096])
		}
		if _, err := r.Commit(); err != nil {
			os.Exit(3)
		}
	}
	os.Exit(0)
}
