package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWgetArgs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"--recursive -nH -np URL", "--recursive --no-host-directories --no-parent URL"},
		{"-e robots=off --recursive URL", "--execute=robots=off --recursive URL"},
		{"-erobots=on URL", "--execute=robots=on URL"},
		{"-e http://ref/ URL", "-e http://ref/ URL"},
		{"-- -nH", "-- -nH"},
	} {
		if got := strings.Join(wgetArgs(strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRecursionFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args, msg string
	}{
		{"--timestamping http://h/", "--timestamping works with --recursive or --mirror"},
		{"--delete --recursive http://h/", "--delete works with --mirror only"},
		{"--level 3 http://h/", "--level works with --recursive or --mirror"},
		{"--recursive -o f http://h/", "-o and -O do not apply"},
		{"--recursive --level x http://h/", "--level takes a number or 'inf'"},
		{"--recursive --accept-regex ( http://h/", "bad regular expression"},
		{"--recursive -C - http://h/", "leave -C out"},
		{"--mirror --delete-emptied http://h/", "--delete-emptied works with --delete"},
		{"--mirror --max-delete 5 http://h/", "--max-delete works with --delete"},
		{"--mirror --delete --max-delete 0 http://h/", "--max-delete takes a number of at least 1 or 'inf'"},
		{"--dry-run http://h/", "--dry-run works with --recursive or --mirror"},
	} {
		var errOut bytes.Buffer
		code := run(strings.Fields(c.args), nil, io.Discard, &errOut)
		if code != exitUsage || !strings.Contains(errOut.String(), c.msg) {
			t.Errorf("%s: exit %d, %q; want %d and %q", c.args, code, errOut.String(), exitUsage, c.msg)
		}
	}
}

// pagesServer serves a small site of HTML pages and files.
func pagesServer(t *testing.T, pages map[string]string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/") || strings.HasSuffix(r.URL.Path, ".html") {
			w.Header().Set("Content-Type", "text/html")
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRecursiveJSONAndExitStatus(t *testing.T) {
	base := pagesServer(t, map[string]string{
		"/":          `<a href="a.txt">a</a> <a href="dir/">d</a> <a href="missing.txt">m</a>`,
		"/a.txt":     "A",
		"/dir/":      `<a href="b.txt">b</a> <a href="../">up</a>`,
		"/dir/b.txt": "B",
	})
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := run([]string{"--recursive", "-nH", "--json-lines", "--output-dir", dir, base + "/"}, nil, &out, &errOut)
	if code != exitHTTP {
		t.Errorf("exit %d, want %d (the 404's): %s", code, exitHTTP, errOut.String())
	}
	if !strings.Contains(errOut.String(), "missing.txt") || !strings.Contains(errOut.String(), "1 of 5 URLs failed") {
		t.Errorf("stderr: %q", errOut.String())
	}
	paths := map[string]string{}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, line := range lines[:len(lines)-1] {
		var r struct {
			URL, Path, Status, Error string
			Size                     int64
			Exit                     int
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		paths[strings.TrimPrefix(r.URL, base)] = fmt.Sprint(r.Status, " ", r.Path, " ", r.Exit)
	}
	// The last object sums the run up.
	var sum struct {
		Status                                  string
		Fetched, Unchanged, Failed, Bytes, Exit int64
		Seconds                                 float64
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.Status != "summary" ||
		sum.Fetched != 4 || sum.Failed != 1 || sum.Unchanged != 0 || sum.Bytes == 0 || sum.Exit != exitHTTP || sum.Seconds < 0 {
		t.Errorf("summary %q: %+v %v", lines[len(lines)-1], sum, err)
	}
	if !strings.Contains(errOut.String(), "Mirrored 4 files (0 unchanged, 1 failed), ") {
		t.Errorf("stderr has no summary: %q", errOut.String())
	}
	want := map[string]string{
		"/":            "fetched index.html 0",
		"/a.txt":       "fetched a.txt 0",
		"/dir/":        "fetched dir/index.html 0",
		"/dir/b.txt":   "fetched dir/b.txt 0",
		"/missing.txt": "failed missing.txt 22",
	}
	if fmt.Sprint(paths) != fmt.Sprint(want) {
		t.Errorf("reports:\n got %v\nwant %v", paths, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "dir", "b.txt")); err != nil || string(b) != "B" {
		t.Errorf("dir/b.txt: %q %v", b, err)
	}
}

// A disk that fills up mid-run ends the run with curl's write error, and
// leaves every file it wrote whole: the one being written stays a part.
// --mirror --delete from the command: the first run in a tree with no
// manifest deletes nothing and says so on stderr and in --json-lines; the next
// reports each deletion with its URL and reason, --dry-run prints what it
// would delete, and --max-delete ends the run with 25.
func TestRecursiveDelete(t *testing.T) {
	pages := map[string]string{
		"/":      `<a href="a.txt">a</a> <a href="b.txt">b</a> <a href="c.txt">c</a>`,
		"/a.txt": "A", "/b.txt": "B", "/c.txt": "C",
	}
	base := pagesServer(t, pages)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("mine"), 0o644)
	mirror := func(extra ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		args := append([]string{"--mirror", "--delete", "-nH", "-s", "-S", "--output-dir", dir}, extra...)
		code := run(append(args, base+"/"), nil, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	code, out, errOut := mirror("--json-lines")
	if code != exitOK || !strings.Contains(errOut, "no manifest") || !strings.Contains(out, `"status":"notice"`) {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, errOut)
	}
	pages["/"] = `<a href="a.txt">a</a>`
	code, out, _ = mirror("--dry-run")
	if code != exitOK || !strings.Contains(out, "would delete b.txt ("+base+"/b.txt): no page") || !strings.Contains(out, "would delete c.txt") {
		t.Errorf("--dry-run: exit %d, %q", code, out)
	}
	code, out, errOut = mirror("--json-lines", "--max-delete", "1")
	if code != exitMaxDelete || !strings.Contains(errOut, "--max-delete") {
		t.Errorf("--max-delete 1: exit %d, %q", code, errOut)
	}
	var deleted, kept int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct{ URL, Path, Status, Reason string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch r.Status {
		case "deleted":
			deleted++
			if !strings.HasPrefix(r.URL, base+"/") || r.Reason != "no page of the run links to it" {
				t.Errorf("deletion: %s", line)
			}
		case "kept":
			kept++
		}
	}
	if deleted != 1 || kept != 1 {
		t.Errorf("%d deleted, %d kept, want 1 and 1:\n%s", deleted, kept, out)
	}
	if code, _, _ = mirror(); code != exitOK {
		t.Errorf("the next run: exit %d", code)
	}
	for name, want := range map[string]bool{"a.txt": true, "b.txt": false, "c.txt": false, "mine.txt": true} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s there: %v, want %v", name, err == nil, want)
		}
	}
}

func TestRecursiveDiskFull(t *testing.T) {
	big := strings.Repeat("x", 64<<10)
	base := pagesServer(t, map[string]string{
		"/":          `<a href="small.txt">s</a> <a href="big.bin">b</a>`,
		"/small.txt": "small",
		"/big.bin":   big,
	})
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// ulimit -f counts 1024-byte blocks: 16 KiB fits small.txt, not big.bin.
	cmd := exec.CommandContext(ctx, "bash", "-c", `ulimit -f 16 && exec urlget --recursive -nH --parallel-max 1 --output-dir "$1" "$2"`, "bash", dir, base+"/")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitWrite {
		t.Fatalf("%v, want exit %d: %s", err, exitWrite, errOut.String())
	}
	if !strings.Contains(errOut.String(), "big.bin") {
		t.Errorf("stderr names no file: %q", errOut.String())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "small.txt")); err != nil || string(b) != "small" {
		t.Errorf("small.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.bin")); !os.IsNotExist(err) {
		t.Errorf("big.bin exists after the disk filled: %v", err)
	}
}

// TestRecursiveQueueFails: a page with more links than the queue keeps in
// memory, where no temporary file can be made for the rest: the run stops
// with one message that says why, curl's write error (23), and the
// transfers it cut short are not counted as failures of their own.
func TestRecursiveQueueFails(t *testing.T) {
	var links strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&links, `<a href="f%d.txt">f</a>`, i)
	}
	// The files' answers wait until the run gives up on them (or the
	// test ends), so that the workers cannot drain the queue while the
	// page's links are pushed: at most the URLs they take in hand (a
	// batch each) leave it, and the rest must spill past what it keeps
	// in memory, whatever the machine's speed.
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			select {
			case <-r.Context().Done():
			case <-done:
			case <-time.After(30 * time.Second):
			}
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, links.String())
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	base := srv.URL
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := run([]string{"--recursive", "-nH", "--output-dir", dir, base + "/"}, nil, &out, &errOut)
	if code != exitWrite {
		t.Errorf("exit %d, want %d: %s", code, exitWrite, errOut.String())
	}
	msg := errOut.String()
	if !strings.Contains(msg, "urlget: the run stopped: the queue of URLs could not be written to its temporary file") {
		t.Errorf("stderr does not say why the run stopped: %q", msg)
	}
	if strings.Contains(msg, "context canceled") {
		t.Errorf("stderr reports the transfers the stop cut short: %q", msg)
	}
}

// lockedBuffer is a bytes.Buffer that a run writes to while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRecursiveProgressBytes: the job line of a recursion counts a
// body's bytes as they arrive, not when its file is done: while a large
// file is half sent and held there, the line shows its bytes. The run
// ends with the summary line; with -s neither is written.
func TestRecursiveProgressBytes(t *testing.T) {
	jobTerminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { jobTerminal = isTerminal })
	half := strings.Repeat("x", 300<<10)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<a href="big.bin">big</a>`)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(2*len(half)))
		io.WriteString(w, half)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, half)
	}))
	defer srv.Close()
	var errOut lockedBuffer
	done := make(chan int, 1)
	dir := t.TempDir()
	go func() {
		done <- run([]string{"--recursive", "-nH", "--output-dir", dir, srv.URL + "/"}, nil, io.Discard, &errOut)
	}()
	seen := false
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && !seen; time.Sleep(20 * time.Millisecond) {
		// The start page is done, big.bin is not: its bytes show.
		seen = strings.Contains(errOut.String(), "1 done  1 queued  300.")
	}
	if !seen {
		t.Errorf("the line did not count the half-sent body: %q", errOut.String())
	}
	close(release)
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end")
	}
	if s := errOut.String(); !strings.Contains(s, "Mirrored 2 files (0 unchanged, 0 failed), 600.0 KiB in ") {
		t.Errorf("no summary: %q", s)
	}

	var quiet bytes.Buffer
	if code := run([]string{"--recursive", "-s", "-nH", "--output-dir", t.TempDir(), srv.URL + "/"}, nil, io.Discard, &quiet); code != 0 || quiet.Len() != 0 {
		t.Errorf("-s: exit %d, stderr %q", code, quiet.String())
	}
}
