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

// get returns what the server saw of path: its X-Test field, the
// connection it came on, and whether it came at all.
func (s *seen) get(path string) (field, conn string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	conn, ok = s.conn[path]
	return s.field[path], conn, ok
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
		if got := fieldOf(s, path); got != want {
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
	if connOf(s, "/a") != connOf(s, "/b") {
		t.Errorf("/a came on %s, /b on %s: the second operation did not reuse the connection", connOf(s, "/a"), connOf(s, "/b"))
	}
	if connOf(s, "/c") == connOf(s, "/a") {
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
	if fieldOf(s, "/p") != "h" {
		t.Errorf("--heade was not taken for --header: X-Test %q", fieldOf(s, "/p"))
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

// TestNextFailEarly: --fail-early, a global option, stops the command
// line at its first failure, later operations included.
func TestNextFailEarly(t *testing.T) {
	srv, s := nextServer(t)
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	code, _, _ := runArgs(t, "-s", "-f", missing.URL+"/x", "--next", srv.URL+"/after")
	if _, _, ran := s.get("/after"); code != exitHTTP || !ran {
		t.Errorf("without --fail-early: exit %d, later operation ran: %v", code, ran)
	}
	s.mu.Lock()
	delete(s.conn, "/after")
	s.mu.Unlock()
	code, _, _ = runArgs(t, "-s", "-f", missing.URL+"/x", "--next", "--fail-early", srv.URL+"/after")
	if _, _, ran := s.get("/after"); code != exitHTTP || ran {
		t.Errorf("--fail-early: exit %d, later operation ran: %v", code, ran)
	}
}

func fieldOf(s *seen, path string) string { f, _, _ := s.get(path); return f }
func connOf(s *seen, path string) string  { _, c, _ := s.get(path); return c }
