package cli

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingServers are HTTP servers on 127.0.0.1 that count the requests
// under way, on each and on all of them together, and keep the highest
// counts seen. The first requests are answered once `want` requests are
// under way in all (or after two seconds), so that a run that overlaps
// its transfers shows it, whatever the machine's speed; later ones at
// once.
type countingServers struct {
	want    int32
	gate    chan struct{} // closed once want requests were under way
	open    sync.Once
	all     atomic.Int32
	mu      sync.Mutex
	maxAll  int32
	maxEach map[string]int32
	srvs    []*httptest.Server
}

func newCountingServers(t *testing.T, n int, want int32) *countingServers {
	t.Helper()
	cs := &countingServers{want: want, gate: make(chan struct{}), maxEach: map[string]int32{}}
	for range n {
		var each atomic.Int32
		var srv *httptest.Server
		srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			nAll, nEach := cs.all.Add(1), each.Add(1)
			defer cs.all.Add(-1)
			defer each.Add(-1)
			cs.mu.Lock()
			cs.maxAll = max(cs.maxAll, nAll)
			cs.maxEach[srv.URL] = max(cs.maxEach[srv.URL], nEach)
			if nAll == cs.want {
				cs.open.Do(func() { close(cs.gate) })
			}
			cs.mu.Unlock()
			select {
			case <-cs.gate:
			case <-time.After(2 * time.Second):
			}
			w.Write(bigBody(r.URL.Path))
		}))
		t.Cleanup(srv.Close)
		cs.srvs = append(cs.srvs, srv)
	}
	return cs
}

// bigBody is the body served for path: 64 KiB that name it.
func bigBody(path string) []byte {
	line := fmt.Sprintf("%-31s\n", path)
	return bytes.Repeat([]byte(line), 64<<10/len(line))
}

// TestParallelCaps: -Z with six URLs on two servers keeps to
// --parallel-max in all and --parallel-host (or curl's
// --parallel-max-host) on each server, overlaps its transfers, and
// writes every file whole, leaving no temporary file.
func TestParallelCaps(t *testing.T) {
	for _, flag := range []string{"--parallel-host", "--parallel-max-host"} {
		t.Run(flag, func(t *testing.T) { testParallelCaps(t, flag) })
	}
}

func testParallelCaps(t *testing.T, hostFlag string) {
	cs := newCountingServers(t, 2, 3)
	dir := t.TempDir()
	args := []string{"-Z", "--parallel-max", "3", hostFlag, "2", "--remote-name-all", "--output-dir", dir}
	var names []string
	for i := range 6 {
		name := "f" + strconv.Itoa(i)
		names = append(names, name)
		args = append(args, cs.srvs[i/3].URL+"/"+name)
	}
	var out, errOut bytes.Buffer
	if code := run(args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.maxAll > 3 || cs.maxAll < 2 {
		t.Errorf("at most %d requests were under way at once; want 2 or 3 (--parallel-max 3)", cs.maxAll)
	}
	for srv, n := range cs.maxEach {
		if n > 2 {
			t.Errorf("%s had %d requests at once, over %s 2", srv, n, hostFlag)
		}
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(b, bigBody("/"+name)) {
			t.Errorf("%s: %d bytes, %v; want its whole body", name, len(b), err)
		}
	}
	if got := dirNames(t, dir); len(got) != len(names) {
		t.Errorf("the directory holds %q, want only the files", got)
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q, want nothing", out.String())
	}
}

// orderServer serves /o/N after a wait that is the longer the smaller N
// is, so that transfers run at once would end in the reverse order.
func orderServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/o/"))
		time.Sleep(time.Duration(4-n) * 20 * time.Millisecond)
		w.Write(bigBody(r.URL.Path))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestParallelStdoutOrder: bodies for standard output come whole and in
// the command line's order; a --json-lines line of a file fetched meanwhile
// lands between two bodies, never inside one.
func TestParallelStdoutOrder(t *testing.T) {
	srv := orderServer(t)
	var want []byte
	args := []string{"-Z"}
	for i := range 4 {
		args = append(args, fmt.Sprintf("%s/o/%d", srv.URL, i))
		want = append(want, bigBody(fmt.Sprintf("/o/%d", i))...)
	}
	var out, errOut bytes.Buffer
	if code := run(args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("stdout is not the four bodies in order (%d bytes, want %d)", out.Len(), len(want))
	}

	dir := t.TempDir()
	out.Reset()
	args = []string{"-Z", "--json-lines", "-o", filepath.Join(dir, "f"), srv.URL + "/o/0", srv.URL + "/o/2", srv.URL + "/o/3"}
	if code := run(args, nil, &out, &errOut); code != 0 {
		t.Fatalf("mixed: exit %d: %s", code, errOut.String())
	}
	b2, b3 := bigBody("/o/2"), bigBody("/o/3")
	s := out.String()
	i := strings.Index(s, `{"url":`)
	if i < 0 {
		t.Fatalf("mixed: no JSON line in stdout")
	}
	j := i + strings.IndexByte(s[i:], '\n') + 1
	if rest := s[:i] + s[j:]; rest != string(b2)+string(b3) {
		t.Errorf("mixed: the bodies around the JSON line are not /o/2 and /o/3 whole, in order")
	}
	if i != 0 && i != len(b2) && i != len(b2)+len(b3) {
		t.Errorf("mixed: the JSON line starts at byte %d, inside a body", i)
	}
}

// TestParallelReadsListLazily: with -Z, a URL list from a pipe is read as
// it comes: the first URL is fetched before the second line is written.
func TestParallelReadsListLazily(t *testing.T) {
	fetched := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched <- r.URL.Path
		w.Write([]byte(r.URL.Path))
	}))
	t.Cleanup(srv.Close)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	dir := t.TempDir()
	done := make(chan int, 1)
	var errOut bytes.Buffer
	go func() { done <- run([]string{"-Z", "--output-dir", dir, "--url", "@-"}, pr, &bytes.Buffer{}, &errOut) }()
	fmt.Fprintln(pw, srv.URL+"/one")
	select {
	case p := <-fetched:
		if p != "/one" {
			t.Errorf("fetched %s first", p)
		}
	case <-time.After(10 * time.Second):
		pw.Close()
		t.Fatal("the first URL was not fetched while the list stayed open")
	}
	fmt.Fprintln(pw, srv.URL+"/two")
	pw.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if names := dirNames(t, dir); len(names) != 2 {
		t.Errorf("the directory holds %q, want one and two", names)
	}
}

// TestParallelFlags: the bounds of --parallel-max and --parallel-host
// (--parallel-max-host).
func TestParallelFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--parallel-max", "0"}, {"--parallel-max", "65"}, {"--parallel-host", "0"}, {"--parallel-max", "x"},
		{"--parallel-max-host", "65"},
	} {
		var errOut bytes.Buffer
		if code := run(append(args, "-Z", "http://127.0.0.1:1/"), nil, &bytes.Buffer{}, &errOut); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
		if !strings.Contains(errOut.String(), "from 1 to 64") {
			t.Errorf("%v: stderr %q, want the bounds", args, errOut.String())
		}
	}
}

// TestParallelJobLine: a -Z run on a terminal draws the job line, and
// its error messages appear above the line, each on a line of its own;
// the line is cleared at the end.
func TestParallelJobLine(t *testing.T) {
	jobTerminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { jobTerminal = isTerminal })
	cs := newCountingServers(t, 1, 2)
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := run([]string{"-Z", "--output-dir", dir, "-O", cs.srvs[0].URL + "/a", "-O", cs.srvs[0].URL + "/b/", "-O", cs.srvs[0].URL + "/c"}, nil, &out, &errOut)
	if code != exitBadURL {
		t.Fatalf("exit %d, want %d for the URL with no file name: %s", code, exitBadURL, errOut.String())
	}
	s := errOut.String()
	if !strings.Contains(s, "\r") || !strings.HasSuffix(s, "\r\x1b[K") {
		t.Errorf("stderr %q: want the line drawn and cleared at the end", s)
	}
	var msgs int
	for _, l := range strings.Split(s, "\n") {
		if i := strings.LastIndex(l, "\r\x1b[K"); i >= 0 && strings.HasPrefix(l[i+4:], "urlget: ") {
			msgs++
		}
	}
	if msgs != 1 {
		t.Errorf("stderr %q: want the error on a line of its own, after the line is cleared", s)
	}
	if names := dirNames(t, dir); len(names) != 2 {
		t.Errorf("the directory holds %q, want a and c", names)
	}
}
