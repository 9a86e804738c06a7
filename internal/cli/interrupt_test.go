//go:build unix

package cli

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/mirror"
)

// stallBody is what stallServer's /stall sends in all; a request without
// a Range header gets its first stallPart bytes and then nothing more.
var stallBody = strings.Repeat("0123456789abcdef", 64)

const stallPart = 100

// stallServer serves /stall, which sends part of stallBody and stalls
// until the client goes away (a request for a range gets the range, whole),
// and /big, a megabyte at once. Each /stall request is told on the channel
// once its part is sent.
func stallServer(t *testing.T) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	sent := make(chan struct{}, 16)
	stop := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") != "" {
			http.ServeContent(w, r, "stall", time.Time{}, strings.NewReader(stallBody))
			return
		}
		sendPartAndStall(w, r, sent, stop)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 1<<20))
		sent <- struct{}{}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })
	return srv, sent
}

// sendPartAndStall announces stallBody's length, sends its first
// stallPart bytes, tells sent, and then sends nothing more until the
// client goes away or stop is closed.
func sendPartAndStall(w http.ResponseWriter, r *http.Request, sent chan<- struct{}, stop <-chan struct{}) {
	w.Header().Set("Content-Length", strconv.Itoa(len(stallBody)))
	w.Write([]byte(stallBody[:stallPart]))
	w.(http.Flusher).Flush()
	sent <- struct{}{}
	select {
	case <-r.Context().Done():
	case <-stop:
	}
}

// TestResumeKeepsPartial: with -C - and a target that does not exist yet,
// a transfer that -m ends keeps what arrived, and the next -C - fetches the
// rest; without -C the target is written whole or not at all.
func TestResumeKeepsPartial(t *testing.T) {
	srv, _ := stallServer(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "new")
	var errOut bytes.Buffer
	if code := run([]string{"-C", "-", "-m", "1", "-o", target, srv.URL + "/stall"}, nil, io.Discard, &errOut); code != exitTimeout {
		t.Fatalf("exit %d, want %d: %s", code, exitTimeout, errOut.String())
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != stallBody[:stallPart] {
		t.Fatalf("after the timeout the target holds %q, %v; want the %d bytes that arrived", b, err, stallPart)
	}
	errOut.Reset()
	if code := run([]string{"-C", "-", "-o", target, srv.URL + "/stall"}, nil, io.Discard, &errOut); code != 0 {
		t.Fatalf("resuming: exit %d: %s", code, errOut.String())
	}
	if b, _ := os.ReadFile(target); string(b) != stallBody {
		t.Errorf("after resuming the target holds %d bytes, want the whole body's %d", len(b), len(stallBody))
	}

	other := t.TempDir()
	errOut.Reset()
	if code := run([]string{"-m", "1", "-o", filepath.Join(other, "new"), srv.URL + "/stall"}, nil, io.Discard, &errOut); code != exitTimeout {
		t.Fatalf("without -C: exit %d, want %d: %s", code, exitTimeout, errOut.String())
	}
	if names := dirNames(t, other); len(names) != 0 {
		t.Errorf("without -C a timed-out transfer left %q", names)
	}
}

// startCommand runs the program as a process in dir, and ends it when the
// test ends.
func startCommand(t *testing.T, dir string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command("urlget", args...)
	cmd.Dir = dir
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	cmd.Stdout = new(bytes.Buffer) // for a test that reads it once the process ended
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, &errOut
}

// waitExit waits for cmd to end, at most 10 s, and returns its status.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode()
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("the command did not end within 10 s")
		return -1
	}
}

// waitFor waits until the server has sent a response's part, at most 10 s.
func waitFor(t *testing.T, sent <-chan struct{}) {
	t.Helper()
	select {
	case <-sent:
	case <-time.After(10 * time.Second):
		t.Fatal("the server sent nothing within 10 s")
	}
}

// waitTemp waits until dir holds the command's temporary file, at most
// 10 s: the body is then being written.
func waitTemp(t *testing.T, dir string) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		for _, n := range dirNames(t, dir) {
			if strings.Contains(n, ".urlget-") {
				return
			}
		}
	}
	t.Fatal("no temporary file appeared within 10 s")
}

// TestSignals sends each signal that ends a run to the program while it
// writes a body into a new file: it exits 128 plus the signal's number,
// and leaves no file behind; with -C - what arrived stays in the target.
func TestSignals(t *testing.T) {
	srv, sent := stallServer(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGTERM} {
		dir := t.TempDir()
		cmd, errOut := startCommand(t, dir, "-o", "out", srv.URL+"/stall")
		waitFor(t, sent)
		waitTemp(t, dir)
		cmd.Process.Signal(sig)
		if code, want := waitExit(t, cmd), 128+int(sig); code != want {
			t.Errorf("%v: exit %d, want %d: %s", sig, code, want, errOut)
		}
		if !strings.Contains(errOut.String(), "interrupted") {
			t.Errorf("%v: stderr %q, want it to say interrupted", sig, errOut)
		}
		if names := dirNames(t, dir); len(names) != 0 {
			t.Errorf("%v: the directory holds %q, want nothing", sig, names)
		}
	}

	// A run writing to standard output ends the same way: SIGQUIT too
	// gives the one-line message and 131, not the runtime's goroutine dump.
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT} {
		cmd, errOut := startCommand(t, t.TempDir(), srv.URL+"/stall")
		waitFor(t, sent)
		cmd.Process.Signal(sig)
		if code, want := waitExit(t, cmd), 128+int(sig); code != want {
			t.Errorf("stdout, %v: exit %d, want %d: %s", sig, code, want, errOut)
		}
		if s := errOut.String(); !strings.Contains(s, "interrupted") || strings.Contains(s, "goroutine") {
			t.Errorf("stdout, %v: stderr %q, want one line saying interrupted", sig, s)
		}
	}

	dir := t.TempDir()
	cmd, errOut := startCommand(t, dir, "-C", "-", "-o", "out", srv.URL+"/stall")
	waitFor(t, sent)
	target := filepath.Join(dir, "out")
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if fi, err := os.Stat(target); err == nil && fi.Size() == stallPart {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd); code != 130 {
		t.Errorf("-C -: exit %d, want 130: %s", code, errOut)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != stallBody[:stallPart] {
		t.Errorf("-C -: after SIGINT the target holds %q, %v; want the %d bytes that arrived", b, err, stallPart)
	}
}

// TestFIFOTarget: an -o FIFO that nobody opens for reading, or whose
// reader reads nothing, does not hold the run past -m (exit 28), nor past
// Ctrl-C (exit 130).
func TestFIFOTarget(t *testing.T) {
	srv, sent := stallServer(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	timed := func(what string) {
		t.Helper()
		var errOut bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- run([]string{"-m", "1", "-o", fifo, srv.URL + "/big"}, nil, io.Discard, &errOut) }()
		select {
		case code := <-done:
			if code != exitTimeout {
				t.Errorf("%s: exit %d, want %d: %s", what, code, exitTimeout, errOut.String())
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: -m 1 did not end the run within 5 s", what)
		}
		<-sent
	}
	timed("no reader")

	// A reader that opens the FIFO and reads nothing: the megabyte does not
	// fit in the pipe.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	timed("a reader that reads nothing")
	r.Close()

	cmd, errOut := startCommand(t, dir, "-o", "fifo", srv.URL+"/big")
	waitFor(t, sent)
	time.Sleep(200 * time.Millisecond) // into the wait for a reader
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd); code != 130 {
		t.Errorf("SIGINT: exit %d, want 130: %s", code, errOut)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v, %v", fi, err)
	}
}

// TestParallelSignal: Ctrl-C stops every transfer of a -Z run: it exits
// 130 and leaves none of the files, whole or partial.
func TestParallelSignal(t *testing.T) {
	srv, sent := stallServer(t)
	dir := t.TempDir()
	cmd, errOut := startCommand(t, dir, "-Z", "-o", "a", srv.URL+"/stall", "-o", "b", srv.URL+"/stall", "-o", "c", srv.URL+"/stall")
	for range 3 {
		waitFor(t, sent)
	}
	waitTemp(t, dir)
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd); code != 130 {
		t.Errorf("exit %d, want 130: %s", code, errOut)
	}
	if n := strings.Count(errOut.String(), "interrupted"); n != 3 {
		t.Errorf("stderr %q, want each transfer to say interrupted", errOut)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("the directory holds %q, want nothing", names)
	}
}

// TestMirrorSignal: Ctrl-C during a mirror ends it with 130, and with
// --json-lines each file in flight says "interrupted" (exit 130), not a write
// error; what arrived stays as the file's part, and the next run resumes
// it and ends whole.
// partsOf returns what the parts in dir's state directory hold, those
// that are not empty.
func partsOf(t *testing.T, dir string) []string {
	t.Helper()
	parts, _ := filepath.Glob(filepath.Join(dir, mirror.StateDir, "parts", "*"))
	var out []string
	for _, p := range parts {
		if strings.Contains(filepath.Base(p), ".") {
			continue // a part's record
		}
		if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
			out = append(out, string(b))
		}
	}
	return out
}

func TestMirrorSignal(t *testing.T) {
	var stall atomic.Bool
	stall.Store(true)
	sent := make(chan struct{}, 16)
	var ranges atomic.Int32
	stop := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<a href="a.bin">a</a> <a href="b.bin">b</a> <a href="c.bin">c</a>`)
	})
	for _, n := range []string{"/a.bin", "/b.bin", "/c.bin"} {
		mux.HandleFunc(n, func(w http.ResponseWriter, r *http.Request) {
			// A strong validator, which a part is resumed on (If-Range).
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("Range") != "" && r.Header.Get("If-Range") == `"v1"` {
				ranges.Add(1)
			}
			if !stall.Load() || r.Header.Get("Range") != "" {
				http.ServeContent(w, r, "x", time.Time{}, strings.NewReader(stallBody))
				return
			}
			sendPartAndStall(w, r, sent, stop)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })

	dir := t.TempDir()
	cmd, errOut := startCommand(t, dir, "--mirror", "--json-lines", "-nH", srv.URL+"/")
	out := cmd.Stdout.(*bytes.Buffer)
	for range 3 {
		waitFor(t, sent)
	}
	// The parts hold what arrived once the bytes were written out.
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if len(partsOf(t, dir)) == 3 {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd); code != 130 {
		t.Errorf("exit %d, want 130: %s", code, errOut)
	}
	interrupted := 0
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.Contains(line, `"status":"failed"`) || strings.Contains(line, "write error") {
			t.Errorf("a file in flight reported as failed: %s", line)
		}
		if strings.Contains(line, `"status":"interrupted"`) && strings.Contains(line, `"exit":130`) {
			interrupted++
		}
	}
	if interrupted != 3 {
		t.Errorf("%d files said interrupted, want 3: %s", interrupted, out.String())
	}
	if s := errOut.String(); strings.Contains(s, "write error") || strings.Count(s, ": interrupted; what arrived is kept") != 3 ||
		!strings.Contains(s, "Mirrored 1 file (0 unchanged, 0 failed, 3 interrupted)") {
		t.Errorf("stderr %q, want each file in flight to say interrupted, and the summary", s)
	}
	if !strings.Contains(out.String(), `{"status":"summary","fetched":1,"unchanged":0,"failed":0,"skipped":0,"deleted":0,"linked":0,"interrupted":3,`) ||
		!strings.Contains(out.String(), `"exit":130}`) {
		t.Errorf("--json-lines: no summary object: %s", out.String())
	}
	if parts := partsOf(t, dir); len(parts) != 3 {
		t.Errorf("parts %q, want 3", parts)
	} else {
		for _, b := range parts {
			if b != stallBody[:stallPart] {
				t.Errorf("a part holds %q; want the %d bytes that arrived", b, stallPart)
			}
		}
	}

	// The next run resumes the parts.
	stall.Store(false)
	var errOut2 bytes.Buffer
	if code := run([]string{"--mirror", "-s", "-nH", "--output-dir", dir, srv.URL + "/"}, nil, io.Discard, &errOut2); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errOut2.String())
	}
	for _, f := range []string{"a.bin", "b.bin", "c.bin"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(b) != stallBody {
			t.Errorf("%s after resuming: %d bytes, %v", f, len(b), err)
		}
	}
	if ranges.Load() != 3 {
		t.Errorf("%d requests for a range, want the 3 parts resumed", ranges.Load())
	}
}
