package cli

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"golang.org/x/sys/unix"

	"github.com/urlget/urlget/integration/ftptest"
)

// runOut runs the command with args, stdin none, and returns its stdout,
// stderr and exit status. ~/.urlgetrc is not read (-q).
func runOut(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errw bytes.Buffer
	code := run(append([]string{"-q"}, args...), nil, &out, &errw)
	return out.String(), errw.String(), code
}

// countingHandler serves a fixed answer per path and counts the requests
// each path got.
type countingHandler struct {
	hits  map[string]*atomic.Int32
	serve func(w http.ResponseWriter, r *http.Request, n int32)
}

func newCounting(t *testing.T, paths []string, serve func(w http.ResponseWriter, r *http.Request, n int32)) (*httptest.Server, map[string]*atomic.Int32) {
	h := &countingHandler{hits: map[string]*atomic.Int32{}, serve: serve}
	for _, p := range paths {
		h.hits[p] = new(atomic.Int32)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := h.hits[r.URL.Path]
		if c == nil {
			http.NotFound(w, r)
			return
		}
		h.serve(w, r, c.Add(1))
	}))
	t.Cleanup(srv.Close)
	return srv, h.hits
}

// TestRetryWarnings: --retry says on stderr, in curl's words, why it
// retries, how long it waits and how many retries are left; -s keeps it
// quiet; a refused connection is retried only with --retry-connrefused,
// a 404 only with --retry-all-errors.
func TestRetryWarnings(t *testing.T) {
	srv, hits := newCounting(t, []string{"/busy", "/gone"}, func(w http.ResponseWriter, r *http.Request, n int32) {
		switch {
		case r.URL.Path == "/gone":
			http.NotFound(w, r)
		case n <= 2:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			fmt.Fprint(w, "ok\n")
		}
	})
	out, errw, code := runOut(t, "--retry", "3", "--retry-delay", "0.01", srv.URL+"/busy")
	if code != 0 || out != "ok\n" {
		t.Fatalf("exit %d, out %q, err %q", code, out, errw)
	}
	for _, want := range []string{
		"Warning: Problem : HTTP error. Will retry in 0 seconds. 3 retries left.\n",
		"Warning: Problem : HTTP error. Will retry in 0 seconds. 2 retries left.\n",
	} {
		if !strings.Contains(errw, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errw)
		}
	}
	if strings.Contains(errw, "1 retries left") || hits["/busy"].Load() != 3 {
		t.Errorf("%d requests; stderr:\n%s", hits["/busy"].Load(), errw)
	}

	hits["/busy"].Store(0)
	if _, errw, _ := runOut(t, "-s", "--retry", "3", "--retry-delay", "0.01", srv.URL+"/busy"); errw != "" {
		t.Errorf("-s: stderr %q", errw)
	}

	// A 404 (with -f: without, it is the answer, as curl's) is no
	// transient failure, but for --retry-all-errors.
	_, errw, code = runOut(t, "-f", "--retry", "1", "--retry-delay", "0.01", srv.URL+"/gone")
	if code != exitHTTP || strings.Contains(errw, "Warning") || hits["/gone"].Load() != 1 {
		t.Errorf("404: exit %d after %d requests, stderr %q", code, hits["/gone"].Load(), errw)
	}
	_, errw, code = runOut(t, "-f", "--retry", "1", "--retry-delay", "0.01", "--retry-all-errors", srv.URL+"/gone")
	if code != exitHTTP || !strings.Contains(errw, "Warning: Problem (retrying all errors). Will retry in 0 seconds. 1 retries left.") || hits["/gone"].Load() != 3 {
		t.Errorf("404, --retry-all-errors: exit %d after %d requests, stderr %q", code, hits["/gone"].Load(), errw)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/"
	l.Close()
	_, errw, code = runOut(t, "--retry", "2", "--retry-delay", "0.01", closed)
	if code != exitConnect || strings.Contains(errw, "Warning") {
		t.Errorf("refused: exit %d, stderr %q", code, errw)
	}
	_, errw, code = runOut(t, "--retry", "2", "--retry-delay", "0.01", "--retry-connrefused", closed)
	if code != exitConnect || strings.Count(errw, "Warning: Problem : connection refused. Will retry in 0 seconds.") != 2 {
		t.Errorf("refused, --retry-connrefused: exit %d, stderr %q", code, errw)
	}
	// Each failed attempt is told before its warning, as curl tells it.
	if strings.Count(errw, "urlget: "+closed) != 3 {
		t.Errorf("refused, --retry-connrefused: the attempts' errors are not each told:\n%s", errw)
	}
}

// TestRetryWarningAsCurl runs curl and urlget with --retry on the same
// server that answers 503 with Retry-After: 1: both wait the second the
// server asks for and print the same warning.
func TestRetryWarningAsCurl(t *testing.T) {
	curl, err := lookCurl(t)
	if err != nil {
		t.Skip("no curl to compare with")
	}
	srv, _ := newCounting(t, []string{"/r"}, func(w http.ResponseWriter, r *http.Request, n int32) {
		if n%2 == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok\n")
	})
	warning := regexp.MustCompile(`(?m)^Warning: .*$`)
	dir := t.TempDir()
	// -s would mute curl's warnings: the meter is turned off instead.
	// Into a file, which curl empties again for the retry.
	cmd := exec.Command(curl, "--no-progress-meter", "--retry", "2", "-o", filepath.Join(dir, "curl"), srv.URL+"/r")
	var cerr bytes.Buffer
	cmd.Stderr = &cerr
	if err := cmd.Run(); err != nil {
		t.Fatalf("curl: %v\n%s", err, cerr.String())
	}
	_, errw, code := runOut(t, "--retry", "2", "-o", filepath.Join(dir, "urlget"), srv.URL+"/r")
	cb, _ := os.ReadFile(filepath.Join(dir, "curl"))
	ub, _ := os.ReadFile(filepath.Join(dir, "urlget"))
	if code != 0 || string(ub) != string(cb) {
		t.Fatalf("exit %d, file %q; curl's %q", code, ub, cb)
	}
	want, got := warning.FindAllString(cerr.String(), -1), warning.FindAllString(errw, -1)
	if len(want) != 1 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings %q, curl's %q", got, want)
	}
}

// TestFailEarly: with several URLs, curl goes on after a failure unless
// --fail-early, which stops the run at the first and exits with its
// status, one after another and with -Z alike.
func TestFailEarly(t *testing.T) {
	srv, hits := newCounting(t, []string{"/a", "/b"}, func(w http.ResponseWriter, r *http.Request, n int32) {
		fmt.Fprint(w, "body\n")
	})
	for _, par := range [][]string{nil, {"-Z", "--parallel-max", "1"}} {
		hits["/b"].Store(0)
		// -f: a 404 is a failure only with it, as in curl.
		args := append(append([]string{"-f"}, par...), srv.URL+"/missing", srv.URL+"/b")
		_, _, code := runOut(t, args...)
		if code != exitHTTP || hits["/b"].Load() != 1 {
			t.Errorf("%v: exit %d, /b fetched %d times", par, code, hits["/b"].Load())
		}
		hits["/b"].Store(0)
		_, errw, code := runOut(t, append([]string{"--fail-early"}, args...)...)
		if code != exitHTTP || hits["/b"].Load() != 0 {
			t.Errorf("%v --fail-early: exit %d, /b fetched %d times; stderr %q", par, code, hits["/b"].Load(), errw)
		}
	}
}

// TestHashProgressBar: -# draws curl's bar on stderr, wherever it goes,
// ending at 100%; --no-progress-meter and -s draw nothing.
func TestHashProgressBar(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		w.Write(bytes.Repeat([]byte("x"), 100000))
	}))
	t.Cleanup(srv.Close)
	t.Setenv("COLUMNS", "40")
	dir := t.TempDir()
	_, errw, code := runOut(t, "-#", "-o", filepath.Join(dir, "f"), srv.URL+"/f")
	want := "\r" + strings.Repeat("#", 33) + " 100.0%\n"
	if code != 0 || !strings.HasSuffix(errw, want) {
		t.Errorf("exit %d, stderr %q, want it to end with %q", code, errw, want)
	}
	for _, quiet := range []string{"-s", "--no-progress-meter"} {
		if _, errw, _ := runOut(t, "-#", quiet, "-o", filepath.Join(dir, "f"), srv.URL+"/f"); errw != "" {
			t.Errorf("-# %s: stderr %q", quiet, errw)
		}
	}
}

// openPTY opens a pseudo-terminal and returns its controlling side and
// the terminal, whose output is drained into the returned buffer until
// the test ends.
func openPTY(t *testing.T) (*os.File, func() string) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Raw mode: the terminal passes the bytes as they are (no CR added).
	tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Oflag &^= unix.OPOST
	if err := unix.IoctlSetTermios(int(s.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 4096)
		for {
			n, err := m.Read(b)
			buf.Write(b[:n])
			if err != nil {
				return
			}
		}
	}()
	var closed bool
	read := func() string {
		if !closed {
			s.Close()
			// The controlling side reads EIO once the terminal is closed
			// and drained.
			select {
			case <-done:
			case <-time.After(5 * time.Second):
			}
			m.Close()
			closed = true
		}
		return buf.String()
	}
	t.Cleanup(func() { read() })
	return s, read
}

// TestBinaryOutputWarning: a body with a NUL byte in its first 2000
// bytes is not written to a terminal: curl's warning on stderr, exit 23;
// "-o -" writes it anyway; a text body, or binary bytes further on, go.
func TestBinaryOutputWarning(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bin":
			w.Write([]byte("PK\x03\x04\x00\x00binary"))
		case "/late":
			w.Write(append(bytes.Repeat([]byte("t"), 2000), 0))
		default:
			w.Write([]byte("plain text\n"))
		}
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		args    []string
		code    int
		written string
		warned  bool
	}{
		{[]string{srv.URL + "/bin"}, exitWrite, "", true},
		{[]string{"-s", srv.URL + "/bin"}, exitWrite, "", false},
		{[]string{"-o", "-", srv.URL + "/bin"}, 0, "PK\x03\x04\x00\x00binary", false},
		{[]string{srv.URL + "/text"}, 0, "plain text\n", false},
		{[]string{srv.URL + "/late"}, 0, strings.Repeat("t", 2000) + "\x00", false},
	} {
		tty, read := openPTY(t)
		var errw bytes.Buffer
		code := run(append([]string{"-q"}, tc.args...), nil, tty, &errw)
		got := read()
		if code != tc.code || got != tc.written {
			t.Errorf("%v: exit %d, terminal got %q", tc.args, code, got)
		}
		if warned := strings.Contains(errw.String(), `Warning: Binary output can mess up your terminal. Use "--output -" to tell urlget`); warned != tc.warned {
			t.Errorf("%v: stderr %q", tc.args, errw.String())
		}
	}
}

// TestDefaultMeterOnTerminal: the default meter is drawn on a terminal's
// stderr, with the time left while the size is known;
// --no-progress-meter draws none, and errors are still told.
func TestDefaultMeterOnTerminal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "4096")
		w.Write(bytes.Repeat([]byte("x"), 4096))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	tty, read := openPTY(t)
	code := run([]string{"-q", "-o", filepath.Join(dir, "f"), srv.URL + "/f"}, nil, &bytes.Buffer{}, tty)
	if got := read(); code != 0 || !strings.Contains(got, "100.0% [####################] of 4.0 KiB") {
		t.Errorf("exit %d, meter %q", code, got)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + l.Addr().String() + "/"
	l.Close()
	tty, read = openPTY(t)
	code = run([]string{"-q", "--no-progress-meter", "-o", filepath.Join(dir, "f"), "-o", filepath.Join(dir, "g"), srv.URL + "/f", closed}, nil, &bytes.Buffer{}, tty)
	if got := read(); code != exitConnect || strings.Contains(got, "%") || !strings.Contains(got, "urlget: "+closed) {
		t.Errorf("--no-progress-meter: exit %d, stderr %q", code, got)
	}
}

// TestStderrFlag: --stderr sends what goes to stderr to a file, '-' to
// stdout.
func TestStderrFlag(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "errors")
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + l.Addr().String() + "/"
	l.Close()
	_, errw, code := runOut(t, "--stderr", name, closed)
	b, _ := os.ReadFile(name)
	if code != exitConnect || errw != "" || !strings.Contains(string(b), "urlget: "+closed) {
		t.Errorf("exit %d, stderr %q, file %q", code, errw, b)
	}
	out, errw, _ := runOut(t, "--stderr", "-", closed)
	if errw != "" || !strings.Contains(out, "urlget: "+closed) {
		t.Errorf("--stderr -: stdout %q, stderr %q", out, errw)
	}
}

// fixedServer answers every request with the same bytes, header fields
// and all, so that two clients' traces of it compare.
func fixedServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Date"] = nil
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", "6")
		w.Write([]byte("hello\n"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// traceBlocks returns a trace's blocks of one kind ("<= Recv header"), the
// heading and the dump, from the heading on.
func traceBlocks(trace, kind string) []string {
	var blocks []string
	for _, b := range strings.Split(trace, "\n"+kind)[1:] {
		if i := strings.Index(b, "\n=="); i >= 0 {
			b = b[:i]
		}
		if i := strings.Index(b, "\n<="); i >= 0 {
			b = b[:i]
		}
		if i := strings.Index(b, "\n=>"); i >= 0 {
			b = b[:i]
		}
		blocks = append(blocks, kind+b)
	}
	return blocks
}

// TestTraceHTTP: --trace writes curl's hex dump of the request as sent,
// each response header line and the body; the Authorization field's
// credentials are masked.
func TestTraceHTTP(t *testing.T) {
	srv := fixedServer(t)
	dir := t.TempDir()
	name := filepath.Join(dir, "trace")
	out, errw, code := runOut(t, "--trace", name, "-u", "alice:s3cret", srv.URL+"/x")
	if code != 0 || out != "hello\n" {
		t.Fatalf("exit %d, out %q, err %q", code, out, errw)
	}
	b, _ := os.ReadFile(name)
	trace := string(b)
	for _, want := range []string{
		"== Info: Trying ",
		"\n0000: 47 45 54 20 2f 78 20 48 54 54 50 2f 31 2e 31 0d GET /x HTTP/1.1.\n",
		// Authorization before User-Agent, where curl writes it.
		"0020: 3a ",
		" 0d 0a 41 75 74 68 6f 72 69 7a :",
		"0030: 61 74 69 6f 6e 3a 20 42 61 73 69 63 20 2a 2a 2a ation: Basic ***\n0040: 2a 0d 0a 55 73 65 72 2d 41 67 65 6e 74 3a 20 75 *..User-Agent: u\n",
		"<= Recv header, 17 bytes (0x11)\n0000: 48 54 54 50 2f 31 2e 31 20 32 30 30 20 4f 4b 0d HTTP/1.1 200 OK.\n0010: 0a                                              .\n",
		"<= Recv header, 2 bytes (0x2)\n0000: 0d 0a                                           ..\n",
		"<= Recv data, 6 bytes (0x6)\n0000: 68 65 6c 6c 6f 0a                               hello.\n",
	} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %q:\n%s", want, trace)
		}
	}
	if strings.Contains(trace, "s3cret") || strings.Contains(trace, "YWxpY2U6czNjcmV0") {
		t.Errorf("the password is in the trace:\n%s", trace)
	}
	if m := regexp.MustCompile(`=> Send header, (\d+) bytes \(0x([0-9a-f]+)\)`).FindStringSubmatch(trace); m == nil || fmt.Sprintf("%x", atoi(m[1])) != m[2] {
		t.Errorf("no request heading with its size twice: %v", m)
	}
	// The request is in the trace once, -v's lines are not on stderr.
	if strings.Count(trace, "=> Send header") != 1 || strings.Count(trace, "<= Recv header, 17 bytes") != 1 || errw != "" {
		t.Errorf("-v lines: stderr %q, trace:\n%s", errw, trace)
	}
	// '%' is stderr, '-' stdout, and --trace-time stamps each heading.
	out, errw, _ = runOut(t, "--trace-ascii", "%", "--trace-time", srv.URL+"/x")
	if out != "hello\n" || !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{6} <= Recv header, 17 bytes \(0x11\)\n0000: HTTP/1.1 200 OK\n`).MatchString(errw) {
		t.Errorf("--trace-ascii %% --trace-time: out %q, stderr:\n%s", out, errw)
	}
	// --trace-time stamps -v's lines too.
	_, errw, _ = runOut(t, "-v", "--trace-time", srv.URL+"/x")
	if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{6} > GET /x HTTP/1.1$`).MatchString(errw) {
		t.Errorf("-v --trace-time:\n%s", errw)
	}
	// A trace file that cannot be made is warned of, the run goes on.
	out, errw, code = runOut(t, "--trace", filepath.Join(dir, "no", "such"), srv.URL+"/x")
	if code != 0 || out != "hello\n" || !strings.HasPrefix(errw, "Warning: --trace: ") {
		t.Errorf("unmade trace file: exit %d, out %q, stderr %q", code, out, errw)
	}
	out, _, _ = runOut(t, "--trace-ascii", "-", srv.URL+"/x")
	if !strings.HasPrefix(out, "== Info: ") || !strings.Contains(out, "<= Recv data, 6 bytes (0x6)\n0000: hello.\n") {
		t.Errorf("--trace-ascii -: %q", out)
	}
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// TestTraceAsCurl traces the same server's answer with curl and urlget:
// the response's blocks (each header line, the body) are the same bytes
// in the same layout, in both --trace and --trace-ascii.
func TestTraceAsCurl(t *testing.T) {
	curl, err := lookCurl(t)
	if err != nil {
		t.Skip("no curl to compare with")
	}
	srv := fixedServer(t)
	for _, flag := range []string{"--trace", "--trace-ascii"} {
		want, err := exec.Command(curl, "-s", flag, "-", "-o", os.DevNull, srv.URL+"/x").Output()
		if err != nil {
			t.Fatal(err)
		}
		got, errw, code := runOut(t, flag, "-", "-o", os.DevNull, srv.URL+"/x")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errw)
		}
		for _, kind := range []string{"<= Recv header", "<= Recv data"} {
			w, g := traceBlocks(string(want), kind), traceBlocks(got, kind)
			if strings.TrimSpace(strings.Join(g, "\n")) != strings.TrimSpace(strings.Join(w, "\n")) {
				t.Errorf("%s %s:\n%s\ncurl's:\n%s", flag, kind, strings.Join(g, "\n"), strings.Join(w, "\n"))
			}
		}
	}
}

// TestTraceFTP: an FTP session's commands and replies are traced as
// "=> Send header" and "<= Recv header", each with its CRLF, PASS
// masked, and the file's bytes as "<= Recv data".
func TestTraceFTP(t *testing.T) {
	s := ftptest.NewUnstartedServer(fstest.MapFS{"f.txt": {Data: []byte("ftp data\n"), Mode: 0o644}})
	s.Users = map[string]string{"bob": "hunter2"}
	s.Start()
	t.Cleanup(s.Close)
	out, errw, code := runOut(t, "--trace-ascii", "%", strings.Replace(s.URL, "://", "://bob:hunter2@", 1)+"/f.txt")
	if code != 0 || out != "ftp data\n" {
		t.Fatalf("exit %d, out %q, err %q", code, out, errw)
	}
	for _, want := range []string{
		"=> Send header, 10 bytes (0xa)\n0000: USER bob\n",
		"=> Send header, 11 bytes (0xb)\n0000: PASS ****\n",
		"<= Recv data, 9 bytes (0x9)\n0000: ftp data.\n",
	} {
		if !strings.Contains(errw, want) {
			t.Errorf("trace lacks %q:\n%s", want, errw)
		}
	}
	if strings.Contains(errw, "hunter2") {
		t.Errorf("the password is in the trace:\n%s", errw)
	}
}

// TestWriteDump holds writeDump to curl's layout: a short last line
// padded in hex mode, a CRLF ending a line early in text mode, '.' for
// bytes that are not printable.
func TestWriteDump(t *testing.T) {
	var b bytes.Buffer
	writeDump(&b, "", "<= Recv data", []byte("ab\x00\xff"), false)
	if want := "<= Recv data, 4 bytes (0x4)\n0000: 61 62 00 ff                                     ab..\n"; b.String() != want {
		t.Errorf("hex:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	writeDump(&b, "", "=> Send header", []byte("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), true)
	if want := "=> Send header, 27 bytes (0x1b)\n0000: GET / HTTP/1.1\n0010: Host: h\n0019: \n"; b.String() != want {
		t.Errorf("ascii:\n%q\nwant\n%q", b.String(), want)
	}
}

// TestNoClobber: --no-clobber writes beside a file that exists, as
// FILE.1, FILE.2, and -w tells the name taken; without it the file is
// replaced.
func TestNoClobber(t *testing.T) {
	srv := fixedServer(t)
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	os.WriteFile(name, []byte("mine"), 0o644)
	os.WriteFile(name+".1", []byte("mine too"), 0o644)
	out, errw, code := runOut(t, "--no-clobber", "-o", name, "-w", "%{filename_effective}", srv.URL+"/x")
	if code != 0 || out != name+".2" {
		t.Fatalf("exit %d, -w %q, stderr %q", code, out, errw)
	}
	for n, want := range map[string]string{name: "mine", name + ".1": "mine too", name + ".2": "hello\n"} {
		if b, _ := os.ReadFile(n); string(b) != want {
			t.Errorf("%s holds %q, want %q", n, b, want)
		}
	}
	// -O: the server's name, the same rule.
	t.Chdir(dir)
	if _, errw, code := runOut(t, "--no-clobber", "-O", srv.URL+"/f"); code != 0 {
		t.Fatalf("-O: exit %d: %s", code, errw)
	}
	if b, _ := os.ReadFile(name + ".3"); string(b) != "hello\n" {
		t.Errorf("-O wrote %q to f.3", b)
	}
	if _, _, code := runOut(t, "-o", name, srv.URL+"/x"); code != 0 {
		t.Fatal(code)
	}
	if b, _ := os.ReadFile(name); string(b) != "hello\n" {
		t.Errorf("without --no-clobber: %q", b)
	}
}

// TestRemoveOnError: urlget never leaves a partial file of its own; what
// -C appended to stays for the next -C - unless --remove-on-error.
func TestRemoveOnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("part"))
		if hj, ok := w.(http.Hijacker); ok {
			w.(http.Flusher).Flush()
			c, _, _ := hj.Hijack()
			c.Close()
		}
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	_, _, code := runOut(t, "-C", "-", "-o", name, srv.URL+"/x")
	if b, err := os.ReadFile(name); code != exitTruncated || err != nil || string(b) != "part" {
		t.Fatalf("-C -: exit %d, file %q (%v)", code, b, err)
	}
	os.Remove(name)
	_, _, code = runOut(t, "--remove-on-error", "-C", "-", "-o", name, srv.URL+"/x")
	if _, err := os.Stat(name); code != exitTruncated || err == nil {
		t.Errorf("--remove-on-error: exit %d, file still there (%v)", code, err)
	}
	// Without -C nothing was there to remove: no file either way.
	_, _, code = runOut(t, "--remove-on-error", "-o", name, srv.URL+"/x")
	if entries, _ := os.ReadDir(dir); code != exitTruncated || len(entries) != 0 {
		t.Errorf("exit %d, left %v", code, entries)
	}
	// --fail-with-body keeps the error page, but for --remove-on-error.
	page := fixedStatus(t, http.StatusNotFound)
	_, _, code = runOut(t, "--fail-with-body", "-o", name, page.URL+"/x")
	if b, _ := os.ReadFile(name); code != exitHTTP || string(b) != "gone\n" {
		t.Errorf("--fail-with-body: exit %d, file %q", code, b)
	}
	// A file that was there before the run is left as it was: nothing of
	// it was written.
	_, _, code = runOut(t, "--fail-with-body", "--remove-on-error", "-o", name, page.URL+"/x")
	if b, _ := os.ReadFile(name); code != exitHTTP || string(b) != "gone\n" {
		t.Errorf("--fail-with-body --remove-on-error over a file: exit %d, file %q", code, b)
	}
	os.Remove(name)
	_, _, code = runOut(t, "--fail-with-body", "--remove-on-error", "-o", name, page.URL+"/x")
	if _, err := os.Stat(name); code != exitHTTP || err == nil {
		t.Errorf("--fail-with-body --remove-on-error: exit %d, file still there (%v)", code, err)
	}
}

// TestXattr: --xattr stores the URL, without its credentials, and the
// media type in the file's extended attributes, as curl does.
func TestXattr(t *testing.T) {
	srv := fixedServer(t)
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	u := strings.Replace(srv.URL, "://", "://alice:s3cret@", 1) + "/x"
	if _, errw, code := runOut(t, "--xattr", "-o", name, u); code != 0 {
		t.Fatalf("exit %d: %s", code, errw)
	}
	get := func(attr string) string {
		b := make([]byte, 256)
		n, err := unix.Getxattr(name, attr, b)
		if err != nil {
			t.Fatalf("%s: %v", attr, err)
		}
		return string(b[:n])
	}
	if got := get("user.xdg.origin.url"); got != srv.URL+"/x" {
		t.Errorf("origin %q", got)
	}
	if got := get("user.mime_type"); got != "text/plain" {
		t.Errorf("mime type %q", got)
	}
}

// TestProto: --proto refuses a disabled protocol with curl's exit 1
// before any connection; --proto-redir refuses a redirect to one; a
// token with a modifier curl does not know is a usage error.
func TestProto(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/away" {
			http.Redirect(w, r, "https://127.0.0.1:1/x", http.StatusFound)
			return
		}
		fmt.Fprint(w, "ok\n")
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		proto string
		code  int
	}{
		{"=https", exitUnsupported},
		{"-all,+https", exitUnsupported},
		{"-http", exitUnsupported},
		{"=https,http", 0},
		{"all,-ftp", 0},
		{"-all,+gopher,=http", 0},
	} {
		hits.Store(0)
		_, errw, code := runOut(t, "--proto", tc.proto, srv.URL+"/x")
		if code != tc.code || (code != 0) != (hits.Load() == 0) {
			t.Errorf("--proto %s: exit %d after %d requests; %s", tc.proto, code, hits.Load(), errw)
		}
		if code != 0 && !strings.Contains(errw, `protocol "http" not supported or disabled`) {
			t.Errorf("--proto %s: %s", tc.proto, errw)
		}
	}
	if _, errw, code := runOut(t, "--proto", "=http,*ftp", srv.URL+"/x"); code != exitUsage {
		t.Errorf("bad modifier: exit %d, %s", code, errw)
	}
	// A name urlget does not know is skipped, as curl 7.88 skips it, but
	// for '=', which still clears the set.
	if _, errw, code := runOut(t, "--proto", "bogus", srv.URL+"/x"); code != 0 || errw != "" {
		t.Errorf("unknown protocol: exit %d, %s", code, errw)
	}
	if _, _, code := runOut(t, "--proto", "=bogus", srv.URL+"/x"); code != exitUnsupported {
		t.Errorf("=unknown: exit %d", code)
	}
	if _, _, code := runOut(t, "--proto", "=HTTP", srv.URL+"/x"); code != 0 {
		t.Errorf("=HTTP: exit %d", code)
	}
	// The redirect would go to https: refused with --proto-redir =http
	// (exit 1), tried without it (refused connection, 7).
	if _, errw, code := runOut(t, "-L", "--proto-redir", "=http", srv.URL+"/away"); code != exitUnsupported {
		t.Errorf("--proto-redir: exit %d, %s", code, errw)
	}
	if _, errw, code := runOut(t, "-L", "--proto", "=http", srv.URL+"/away"); code != exitUnsupported {
		t.Errorf("--proto on a redirect: exit %d, %s", code, errw)
	}
	if _, errw, code := runOut(t, "-L", srv.URL+"/away"); code != exitConnect {
		t.Errorf("redirect allowed: exit %d, %s", code, errw)
	}
}

// TestProtoDefault: a URL without a scheme is taken for --proto-default's
// protocol, an ftp. host included; a protocol urlget lacks is exit 1 at
// once, as curl's.
func TestProtoDefault(t *testing.T) {
	s := ftptest.NewServer(fstest.MapFS{"f.txt": {Data: []byte("ftp data\n"), Mode: 0o644}})
	t.Cleanup(s.Close)
	addr := strings.TrimPrefix(s.URL, "ftp://")
	out, errw, code := runOut(t, "--proto-default", "ftp", addr+"/f.txt")
	if code != 0 || out != "ftp data\n" {
		t.Errorf("exit %d, out %q, err %q", code, out, errw)
	}
	if _, _, code := runOut(t, "--proto-default", "dict", addr+"/f.txt"); code != exitUnsupported {
		t.Errorf("unknown protocol: exit %d", code)
	}
}

// TestDisallowUsernameInURL: curl's exit 67 for a URL naming a user.
func TestDisallowUsernameInURL(t *testing.T) {
	srv := fixedServer(t)
	u := strings.Replace(srv.URL, "://", "://alice@", 1) + "/x"
	if _, errw, code := runOut(t, "--disallow-username-in-url", u); code != exitLoginDenied || !strings.Contains(errw, "--disallow-username-in-url") {
		t.Errorf("exit %d, %s", code, errw)
	}
	if out, _, code := runOut(t, "--disallow-username-in-url", srv.URL+"/x"); code != 0 || out != "hello\n" {
		t.Errorf("no user: exit %d, %q", code, out)
	}
}

// TestRate: --rate spaces the starts of transfers: three at 20 a second
// take at least two gaps of 50 ms.
func TestRate(t *testing.T) {
	srv := fixedServer(t)
	start := time.Now()
	out, errw, code := runOut(t, "--rate", "20/s", srv.URL+"/a", srv.URL+"/b", srv.URL+"/c")
	if code != 0 || out != strings.Repeat("hello\n", 3) {
		t.Fatalf("exit %d, %q, %s", code, out, errw)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("three transfers started within %v", d)
	}
	for _, bad := range []string{"0/s", "x", "3/w"} {
		if _, _, code := runOut(t, "--rate", bad, srv.URL+"/a"); code != exitUsage {
			t.Errorf("--rate %s: exit %d", bad, code)
		}
	}
	for in, want := range map[string]time.Duration{"2/s": 500 * time.Millisecond, "6": 10 * time.Minute, "1/d": 24 * time.Hour, "60/m": time.Second} {
		if got, err := parseRate(in); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
}

// TestAcceptedOutFlags: -M prints every option and points at the manual;
// --styled-output
// and --parallel-immediate are accepted.
func TestAcceptedOutFlags(t *testing.T) {
	srv := fixedServer(t)
	if out, errw, code := runOut(t, "-M"); code != 0 || !strings.Contains(out, "man urlget") || !strings.Contains(out, "--trace-ascii") {
		t.Errorf("-M: exit %d, %s%s", code, out, errw)
	}
	out, _, code := runOut(t, "--styled-output", "--parallel-immediate", "-Z", srv.URL+"/x")
	if code != 0 || out != "hello\n" {
		t.Errorf("exit %d, %q", code, out)
	}
}

// TestNoBufferListing: with --no-buffer a listing's entries come out as
// they arrive: the first entry of a gopher menu is read from the pipe
// while the server still holds the rest back.
func TestNoBufferListing(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	release := make(chan struct{})
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Read(make([]byte, 512)) // the selector line
		fmt.Fprintf(c, "0first\t/first\t127.0.0.1\t70\r\n")
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		fmt.Fprintf(c, "0second\t/second\t127.0.0.1\t70\r\n.\r\n")
	}()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	code := make(chan int, 1)
	go func() {
		var errw bytes.Buffer
		code <- run([]string{"-q", "--no-buffer", "gopher://" + l.Addr().String() + "/1/"}, nil, w, &errw)
		w.Close()
	}()
	first := make(chan string, 1)
	go func() {
		b := make([]byte, 4096)
		n, _ := r.Read(b)
		first <- string(b[:n])
	}()
	select {
	case got := <-first:
		if !strings.Contains(got, "first") || strings.Contains(got, "second") {
			t.Errorf("first read %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Error("the first entry did not come out before the listing ended")
	}
	close(release)
	if c := <-code; c != 0 {
		t.Errorf("exit %d", c)
	}
}

// TestVersion: --version in curl's shape, the protocols of every scheme
// urlget fetches and only the features it has.
func TestVersion(t *testing.T) {
	out, _, code := runOut(t, "--version")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 4 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !regexp.MustCompile(`^urlget `+regexp.QuoteMeta(version)+` \(\w+/\w+\) Go/\S+`).MatchString(lines[0]) || !strings.HasPrefix(lines[1], "Release-Date: ") {
		t.Errorf("heading %q, %q", lines[0], lines[1])
	}
	if want := "Protocols: file ftp ftps gopher gophers http https news nntp nntps snews wais"; lines[2] != want {
		t.Errorf("%q, want %q", lines[2], want)
	}
	if want := "Features: brotli HSTS HTTP2 HTTPS-proxy IDN IPv6 Largefile libz PSL SSL UnixSockets zstd"; lines[3] != want {
		t.Errorf("%q, want %q", lines[3], want)
	}
}

// TestRetryBodyTimeout: a body that stalls past -m is fetched again with
// --retry when its file can start over, as curl retries a timeout in any
// part of a transfer; a body that had begun on standard output is not.
func TestRetryBodyTimeout(t *testing.T) {
	srv, hits := newCounting(t, []string{"/stall"}, func(w http.ResponseWriter, r *http.Request, n int32) {
		w.Header().Set("Content-Length", "10")
		if n%2 == 1 {
			w.Write([]byte("01234"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		w.Write([]byte("0123456789"))
	})
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	_, errw, code := runOut(t, "-m", "0.5", "--retry", "2", "--retry-delay", "0.01", "-o", name, srv.URL+"/stall")
	if b, _ := os.ReadFile(name); code != 0 || string(b) != "0123456789" || hits["/stall"].Load() != 2 {
		t.Fatalf("exit %d, file %q after %d requests; stderr %q", code, b, hits["/stall"].Load(), errw)
	}
	if !strings.Contains(errw, "Warning: Problem : timeout. Will retry in 0 seconds. 2 retries left.") {
		t.Errorf("stderr %q", errw)
	}
	hits["/stall"].Store(0)
	out, errw, code := runOut(t, "-m", "0.5", "--retry", "2", "--retry-delay", "0.01", srv.URL+"/stall")
	if code != exitTimeout || out != "01234" || hits["/stall"].Load() != 1 || strings.Contains(errw, "Warning") {
		t.Errorf("stdout: exit %d, out %q after %d requests; stderr %q", code, out, hits["/stall"].Load(), errw)
	}
}

// TestOutFlagsAsCurl runs curl and urlget with the same --proto lists,
// --disallow-username-in-url and --no-clobber on the same server: the
// same exit statuses and the same files.
func TestOutFlagsAsCurl(t *testing.T) {
	curl, err := lookCurl(t)
	if err != nil {
		t.Skip("no curl to compare with")
	}
	srv := fixedServer(t)
	status := func(err error) int {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	user := strings.Replace(srv.URL, "://", "://alice@", 1) + "/x"
	for _, args := range [][]string{
		{"--proto", "=https", srv.URL + "/x"},
		{"--proto", "-all,+https", srv.URL + "/x"},
		{"--proto", "-http", srv.URL + "/x"},
		{"--proto", "=https,http", srv.URL + "/x"},
		{"--proto", "all,-ftp", srv.URL + "/x"},
		{"--proto", "=bogus", srv.URL + "/x"},
		{"--proto", "bogus", srv.URL + "/x"},
		{"--proto", "=HTTP", srv.URL + "/x"},
		{"--proto", "", srv.URL + "/x"},
		{"--proto", "=http,*ftp", srv.URL + "/x"},
		{"--disallow-username-in-url", user},
		{"--disallow-username-in-url", srv.URL + "/x"},
		{"--proto-default", "bogus", strings.TrimPrefix(srv.URL, "http://") + "/x"},
		{"--proto-default", "http", strings.TrimPrefix(srv.URL, "http://") + "/x"},
		{"--rate", "0/s", srv.URL + "/x"},
		{"--rate", "2/w", srv.URL + "/x"},
		{"--rate", "x", srv.URL + "/x"},
		{"--rate", "100/s", srv.URL + "/x"},
	} {
		want := status(exec.Command(curl, append([]string{"-s", "-o", os.DevNull}, args...)...).Run())
		_, errw, got := runOut(t, append([]string{"-s", "-o", os.DevNull}, args...)...)
		if got != want {
			t.Errorf("%q: exit %d, curl's %d; %s", args, got, want, errw)
		}
	}
	dir := t.TempDir()
	for _, tool := range []string{"curl", "urlget"} {
		name := filepath.Join(dir, tool)
		os.WriteFile(name, []byte("mine"), 0o644)
		for range 2 {
			if tool == "curl" {
				if err := exec.Command(curl, "-s", "--no-clobber", "-o", name, srv.URL+"/x").Run(); err != nil {
					t.Fatal(err)
				}
			} else if _, errw, code := runOut(t, "-s", "--no-clobber", "-o", name, srv.URL+"/x"); code != 0 {
				t.Fatalf("exit %d: %s", code, errw)
			}
		}
	}
	var names []string
	for _, e := range dirNames(t, dir) {
		names = append(names, strings.Replace(e, "urlget", "curl", 1))
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "curl curl curl.1 curl.1 curl.2 curl.2" {
		t.Errorf("files %v", dirNames(t, dir))
	}
}

// TestRetryFTP4xx: an FTP 4xx reply is transient (RFC 959 §4.2), which
// --retry retries as curl does, telling it as an FTP error; a 5xx is
// final.
func TestRetryFTP4xx(t *testing.T) {
	s := ftptest.NewServer(fstest.MapFS{"f.txt": {Data: []byte("ftp data\n"), Mode: 0o644}})
	t.Cleanup(s.Close)
	s.ReplyOnce("RETR", "450 Requested file action not taken; try again")
	out, errw, code := runOut(t, "--retry", "2", "--retry-delay", "0.01", s.URL+"/f.txt")
	if code != 0 || out != "ftp data\n" || !strings.Contains(errw, "Warning: Problem : FTP error. Will retry in 0 seconds. 2 retries left.") {
		t.Errorf("exit %d, out %q, stderr %q", code, out, errw)
	}
	s.ReplyOnce("RETR", "550 No such file")
	_, errw, code = runOut(t, "--retry", "2", "--retry-delay", "0.01", s.URL+"/f.txt")
	if code != exitNotFound || strings.Contains(errw, "Warning") {
		t.Errorf("550: exit %d, stderr %q", code, errw)
	}
}

// TestNoProgressMeterJobLine: --no-progress-meter takes the job line of
// a -Z run and of a recursion away too; the errors are still told.
func TestNoProgressMeterJobLine(t *testing.T) {
	jobTerminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { jobTerminal = isTerminal })
	srv := fixedServer(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-Z", "--output-dir", dir, "-O", srv.URL + "/a", "-O", srv.URL + "/b/"},
		{"--recursive", "--output-dir", dir, srv.URL + "/d/"},
	} {
		if _, errw, _ := runOut(t, args...); !strings.Contains(errw, "\r") {
			t.Errorf("%v: no job line drawn: %q", args, errw)
		}
		_, errw, _ := runOut(t, append([]string{"--no-progress-meter"}, args...)...)
		if strings.Contains(errw, "\r") || args[0] == "-Z" && !strings.Contains(errw, "urlget: ") {
			t.Errorf("--no-progress-meter %v: stderr %q", args, errw)
		}
	}
}

// TestProtoRecursion: a -r link to a protocol --proto disabled is
// refused with the protocol's message, before any connection to it.
func TestProtoRecursion(t *testing.T) {
	s := ftptest.NewServer(fstest.MapFS{"f.txt": {Data: []byte("ftp data\n"), Mode: 0o644}})
	t.Cleanup(s.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<a href="%s/f.txt">ftp</a>`, s.URL)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	_, errw, code := runOut(t, "--recursive", "--schemes", "http,ftp", "--span-hosts", "--output-dir", dir, srv.URL+"/")
	if code != 0 {
		t.Fatalf("without --proto: exit %d: %s", code, errw)
	}
	// The first run's session has ended (QUIT) once the server closed it.
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Contains(s.Commands(), "QUIT") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	before := len(s.Commands())
	dir = t.TempDir()
	_, errw, code = runOut(t, "--recursive", "--schemes", "http,ftp", "--span-hosts", "--proto", "=http", "--output-dir", dir, srv.URL+"/")
	if code != exitUnsupported || !strings.Contains(errw, `protocol "ftp" not supported or disabled`) || len(s.Commands()) != before {
		t.Errorf("exit %d, %d FTP commands; stderr %s", code, len(s.Commands())-before, errw)
	}
}

// TestHashProgressBarAsCurl draws -# with curl and urlget for the same
// body, 40 columns wide: the same last line.
func TestHashProgressBarAsCurl(t *testing.T) {
	curl, err := lookCurl(t)
	if err != nil {
		t.Skip("no curl to compare with")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		w.Write(bytes.Repeat([]byte("x"), 100000))
	}))
	t.Cleanup(srv.Close)
	t.Setenv("COLUMNS", "40")
	dir := t.TempDir()
	cmd := exec.Command(curl, "-#", "-o", filepath.Join(dir, "c"), srv.URL+"/f")
	var cerr bytes.Buffer
	cmd.Stderr = &cerr
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	_, errw, code := runOut(t, "-#", "-o", filepath.Join(dir, "u"), srv.URL+"/f")
	last := func(s string) string { return s[strings.LastIndex(s, "\r"):] }
	if code != 0 || last(errw) != last(cerr.String()) {
		t.Errorf("last line %q, curl's %q (all: %q)", last(errw), last(cerr.String()), cerr.String())
	}
}

// TestRetryResumes: with -C -, the body a retry fetches again starts
// where the file ends, as the next -C - run would.
func TestRetryResumes(t *testing.T) {
	var mu sync.Mutex
	var ranges []string
	srv, _ := newCounting(t, []string{"/f"}, func(w http.ResponseWriter, r *http.Request, n int32) {
		mu.Lock()
		ranges = append(ranges, r.Header.Get("Range"))
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Content-Length", "10")
			w.Write([]byte("01234"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		http.ServeContent(w, r, "f", time.Time{}, strings.NewReader("0123456789"))
	})
	name := filepath.Join(t.TempDir(), "f")
	_, errw, code := runOut(t, "-C", "-", "-m", "0.5", "--retry", "1", "--retry-delay", "0.01", "-o", name, srv.URL+"/f")
	mu.Lock()
	defer mu.Unlock()
	if b, _ := os.ReadFile(name); code != 0 || string(b) != "0123456789" || len(ranges) != 2 || ranges[1] != "bytes=5-" {
		t.Errorf("exit %d, file %q, ranges %q; stderr %q", code, b, ranges, errw)
	}
}

// fixedStatus answers every request with status code and the body "gone".
func fixedStatus(t *testing.T, code int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(code)
		w.Write([]byte("gone\n"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestTraceLastWins: of --trace and --trace-ascii the last given wins, as
// in curl.
func TestTraceLastWins(t *testing.T) {
	srv := fixedServer(t)
	out, _, code := runOut(t, "--trace", "-", "--trace-ascii", "-", "-o", os.DevNull, srv.URL+"/x")
	if code != 0 || !strings.Contains(out, "\n0000: hello.\n") {
		t.Errorf("--trace then --trace-ascii: exit %d, %q", code, out)
	}
	out, _, code = runOut(t, "--trace-ascii", "-", "--trace", "-", "-o", os.DevNull, srv.URL+"/x")
	if code != 0 || !strings.Contains(out, "0000: 68 65 6c 6c 6f 0a") {
		t.Errorf("--trace-ascii then --trace: exit %d, %q", code, out)
	}
}
