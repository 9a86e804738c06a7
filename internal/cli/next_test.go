package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// seen is what a test server saw of each request: the X-Test field and
// the connection it came on, by path.
type seen struct {
	mu    sync.Mutex
	field map[string]string
	conn  map[string]string
}

func nextServer(t *testing.T) (*httptest.Server, *seen) {
	t.Helper()
	s := &seen{field: map[string]string{}, conn: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.field[r.URL.Path] = r.Header.Get("X-Test")
		s.conn[r.URL.Path] = r.RemoteAddr
		s.mu.Unlock()
		fmt.Fprintf(w, "%s\n", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv, s
}

func runArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"-q"}, args...), nil, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestNextStartsAfresh: -:/--next starts an operation with the
// defaults, as curl's: -H and -o hold only for the URLs of their own
// operation, while a global option (-v) holds for all, wherever it is
// given.
func TestNextStartsAfresh(t *testing.T) {
	srv, s := nextServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "a.out")
	code, out, errOut := runArgs(t, "-s", "-H", "X-Test: one", "-o", file, srv.URL+"/a",
		"--next", srv.URL+"/b",
		"-:", "-H", "X-Test: three", "-v", srv.URL+"/c")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "/b\n/c\n" {
		t.Errorf("stdout %q, want /b and /c (/a went to its -o file)", out)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "/a\n" {
		t.Errorf("-o file: %q, %v", b, err)
	}
	for path, want := range map[string]string{"/a": "one", "/b": "", "/c": "three"} {
		if got := s.field[path]; got != want {
			t.Errorf("%s: X-Test %q, want %q", path, got, want)
		}
	}
	// -v, given in the third operation, shows the first one's request.
	if !strings.Contains(errOut, "> GET /a HTTP/1.1") || !strings.Contains(errOut, "> GET /c HTTP/1.1") {
		t.Errorf("-v did not hold for every operation:\n%s", errOut)
	}
}

// TestNextReusesConnections: operations whose options for a protocol are
// the same share its connections, as curl's do; an operation that
// changes them opens its own.
func TestNextReusesConnections(t *testing.T) {
	srv, s := nextServer(t)
	code, _, errOut := runArgs(t, "-s", srv.URL+"/a", "--next", srv.URL+"/b", "--next", "-H", "X-Test: x", srv.URL+"/c")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if s.conn["/a"] != s.conn["/b"] {
		t.Errorf("/a came on %s, /b on %s: the second operation did not reuse the connection", s.conn["/a"], s.conn["/b"])
	}
	if s.conn["/c"] == s.conn["/a"] {
		t.Errorf("/c, with other headers, came on the first operation's connection")
	}
}

// TestNextNeedsURLs: every operation needs a URL of its own.
func TestNextNeedsURLs(t *testing.T) {
	srv, _ := nextServer(t)
	for _, args := range [][]string{
		{srv.URL + "/a", "--next"},
		{"--next", srv.URL + "/a"},
		{srv.URL + "/a", "-:", "-s"},
	} {
		code, out, errOut := runArgs(t, args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "no URL given") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// TestLongOptionForms: long options may be shortened to an unambiguous
// prefix and switches turned off with --no-, as in curl; an ambiguous
// prefix and a --no- form of an option with a value are usage errors
// that say why.
func TestLongOptionForms(t *testing.T) {
	srv, s := nextServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "out")
	code, out, errOut := runArgs(t, "--sil", "--no-silent", "--max-ti", "20", "--output", file, "--heade", "X-Test: h", srv.URL+"/p")
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "/p\n" {
		t.Errorf("-o file: %q, %v", b, err)
	}
	if s.field["/p"] != "h" {
		t.Errorf("--heade was not taken for --header: X-Test %q", s.field["/p"])
	}
	for args, want := range map[string]string{
		"--re":          "option --re is ambiguous: --recursive,",
		"--outp":        "option --outp is ambiguous: --output, --output-dir",
		"--no-silent=x": "option --no-silent takes no value",
		"--no-output":   "--output takes a value, so it has no --no- form",
	} {
		code, out, errOut := runArgs(t, args, srv.URL+"/q")
		if code != exitUsage || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q, want %q", args, code, out, errOut, want)
		}
	}
}
