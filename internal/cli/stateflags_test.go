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
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/integration/nntptest"
)

// stateBody is the resource the state flags' tests fetch, and stateMod
// its modification time.
const stateBody = "0123456789abcdefghij"

var stateMod = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// stateServer serves stateBody with ranges, conditions and an ETag, the
// routes of the hostile ones, and records the Cookie field of each
// request.
type stateServer struct {
	*httptest.Server
	mu      sync.Mutex
	cookies []string
	inm     []string
}

func newStateServer(t *testing.T) *stateServer {
	s := &stateServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/f", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.inm = append(s.inm, r.Header.Get("If-None-Match"))
		s.mu.Unlock()
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "f", stateMod, strings.NewReader(stateBody))
	})
	mux.HandleFunc("/norange", func(w http.ResponseWriter, r *http.Request) {
		// Ignores Range and the conditions: 200 and the whole body.
		w.Header().Set("Last-Modified", stateMod.Format(http.TimeFormat))
		io.WriteString(w, stateBody)
	})
	mux.HandleFunc("/wrongpart", func(w http.ResponseWriter, r *http.Request) {
		// Any range asked: the first ten bytes, said to be them.
		w.Header().Set("Content-Range", "bytes 0-9/20")
		w.WriteHeader(http.StatusPartialContent)
		io.WriteString(w, stateBody[:10])
	})
	mux.HandleFunc("/longpart", func(w http.ResponseWriter, r *http.Request) {
		// The range asked for in Content-Range, more bytes in the body.
		w.Header().Set("Content-Range", "bytes 2-5/20")
		w.Header().Set("Content-Length", "10")
		w.WriteHeader(http.StatusPartialContent)
		io.WriteString(w, stateBody[2:12])
	})
	mux.HandleFunc("/chunkedpart", func(w http.ResponseWriter, r *http.Request) {
		// The range asked for, chunked, with more bytes than it holds.
		w.Header().Set("Content-Range", "bytes 2-5/20")
		w.WriteHeader(http.StatusPartialContent)
		w.(http.Flusher).Flush()
		io.WriteString(w, stateBody[2:12])
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.cookies = append(s.cookies, r.Header.Get("Cookie"))
		s.mu.Unlock()
		for _, c := range r.URL.Query()["set"] {
			w.Header().Add("Set-Cookie", c)
		}
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		io.WriteString(w, "ok\n")
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// sent returns the Cookie fields the server received so far, and forgets
// them.
func (s *stateServer) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cookies
	s.cookies = nil
	return c
}

// runQ runs the command without ~/.urlgetrc.
func runQ(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCmd(t, append([]string{"-q"}, args...)...)
}

// runCurl runs curl with args and returns its exit status and stdout.
func runCurl(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(curlPath(t), append([]string{"-q", "-s"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String()
}

// TestRangeHTTP: --range sends "Range: bytes=RANGE" as given, and writes
// what curl writes: the part, the multipart answer to several, the whole
// of a 200.
func TestRangeHTTP(t *testing.T) {
	s := newStateServer(t)
	for _, tt := range []struct{ rng, path, want string }{
		{"2-5", "/f", "2345"},
		{"-3", "/f", "hij"},
		{"15-", "/f", "fghij"},
		{"2-5", "/norange", stateBody},
		{"7", "/f", stateBody[7:]},
	} {
		code, out, errOut := runQ(t, "--range", tt.rng, s.URL+tt.path)
		if code != 0 || out != tt.want {
			t.Errorf("--range %s %s: exit %d, %q (%s); want %q", tt.rng, tt.path, code, out, errOut, tt.want)
		}
		if _, err := lookCurl(t); err == nil {
			if ccode, cout := runCurl(t, "-r", tt.rng, s.URL+tt.path); ccode != code || cout != out {
				t.Errorf("-r %s %s: curl exit %d, %q; urlget exit %d, %q", tt.rng, tt.path, ccode, cout, code, out)
			}
		}
	}
	code, out, _ := runQ(t, "--range", "0-1,4-5", s.URL+"/f")
	if code != 0 || !strings.Contains(out, "Content-Range: bytes 0-1/20\r\n") || !strings.Contains(out, "Content-Range: bytes 4-5/20\r\n") {
		t.Errorf("two ranges: exit %d, want the multipart body as sent:\n%s", code, out)
	}
}

// TestRangeHostile206: a 206 whose part is not the one asked for, or
// whose body is longer than its Content-Range, fails (exit 8) and leaves
// no file, rather than a file of the wrong bytes.
func TestRangeHostile206(t *testing.T) {
	s := newStateServer(t)
	dir := t.TempDir()
	for _, path := range []string{"/wrongpart", "/longpart", "/chunkedpart"} {
		target := filepath.Join(dir, "out")
		code, _, errOut := runQ(t, "--range", "2-5", "-o", target, s.URL+path)
		if code != exitProtocol {
			t.Errorf("%s: exit %d (%s), want %d", path, code, errOut, exitProtocol)
		}
		if _, err := os.Stat(target); err == nil {
			t.Errorf("%s: a file was written", path)
		}
	}
}

// stateFS is the tree the ftp and file tests serve.
func stateFS() fstest.MapFS {
	return fstest.MapFS{"f": {Data: []byte(stateBody), ModTime: stateMod, Mode: 0o644}}
}

// TestRangeFTP: REST to the start, and no more than the range's bytes;
// a suffix range counts from SIZE's answer; a range past the end fails.
func TestRangeFTP(t *testing.T) {
	srv := ftptest.NewServer(stateFS())
	t.Cleanup(srv.Close)
	for _, tt := range []struct{ rng, want, rest string }{
		{"2-5", "2345", "REST 2"},
		{"-3", "hij", "REST 17"},
		{"15-", "fghij", "REST 15"},
		{"0-3", "0123", ""},
		{"0-1,4-5", "01", ""},
	} {
		srv.ResetCommands()
		code, out, errOut := runQ(t, "--range", tt.rng, srv.URL+"/f")
		if code != 0 || out != tt.want {
			t.Errorf("--range %s: exit %d, %q (%s); want %q", tt.rng, code, out, errOut, tt.want)
		}
		if tt.rest != "" && !slices.Contains(srv.Commands(), tt.rest) {
			t.Errorf("--range %s: commands %q, want %s", tt.rng, srv.Commands(), tt.rest)
		}
		if _, err := lookCurl(t); err == nil {
			if ccode, cout := runCurl(t, "-r", tt.rng, srv.URL+"/f"); ccode != 0 || cout != out {
				t.Errorf("-r %s: curl exit %d, %q; urlget %q", tt.rng, ccode, cout, out)
			}
		}
	}
	// The connection a range cut short is not the next URL's.
	if code, out, errOut := runQ(t, "--range", "0-3", srv.URL+"/f", srv.URL+"/f", srv.URL+"/f"); code != 0 || out != "012301230123" {
		t.Errorf("three ranges in one run: exit %d, %q (%s)", code, out, errOut)
	}
	if code, _, _ := runQ(t, "--range", "30-", srv.URL+"/f"); code != exitPastEnd {
		t.Errorf("a range past the end: exit %d, want curl's %d", code, exitPastEnd)
	}
	if code, _, _ := runQ(t, "--range", "5-3", srv.URL+"/f"); code != exitRange {
		t.Errorf("--range 5-3: exit %d, want %d", code, exitRange)
	}
	// A server that refuses REST cannot serve the range: not the file's
	// first bytes in its place.
	srv.ReplyOnce("REST", "502 REST not implemented.")
	if code, out, _ := runQ(t, "--range", "2-5", srv.URL+"/f"); code != exitRange || out != "" {
		t.Errorf("REST refused: exit %d, %q; want %d and nothing", code, out, exitRange)
	}
}

// TestRangeFile: a seek to the start and no more than the range.
func TestRangeFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	if err := os.WriteFile(name, []byte(stateBody), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ rng, want string }{
		{"2-5", "2345"}, {"-3", "hij"}, {"15-", "fghij"}, {"18-100", "ij"},
	} {
		code, out, errOut := runQ(t, "--range", tt.rng, "file://"+name)
		if code != 0 || out != tt.want {
			t.Errorf("--range %s: exit %d, %q (%s); want %q", tt.rng, code, out, errOut, tt.want)
		}
		if _, err := lookCurl(t); err == nil {
			if ccode, cout := runCurl(t, "-r", tt.rng, "file://"+name); ccode != 0 || cout != out {
				t.Errorf("-r %s: curl exit %d, %q; urlget %q", tt.rng, ccode, cout, out)
			}
		}
	}
	for _, rng := range []string{"-30", "30-"} {
		code, _, _ := runQ(t, "--range", rng, "file://"+name)
		if code != exitPastEnd {
			t.Errorf("--range %s past the end: exit %d, want %d", rng, code, exitPastEnd)
		}
		if _, err := lookCurl(t); err == nil {
			if ccode, _ := runCurl(t, "-r", rng, "file://"+name); ccode != code {
				t.Errorf("--range %s: curl exit %d, urlget %d", rng, ccode, code)
			}
		}
	}
}

// TestRangeGopherIgnored: gopher serves no part, and curl ignores -r
// for it: the whole item, and -v says why.
func TestRangeGopherIgnored(t *testing.T) {
	mux := gophertest.NewMux()
	mux.Handle("/f", gophertest.HandlerFunc(func(w io.Writer, r *gophertest.Request) { io.WriteString(w, stateBody) }))
	srv := gophertest.NewServer(mux)
	t.Cleanup(srv.Close)
	code, out, errOut := runQ(t, "-v", "--range", "2-5", srv.URL+"/0/f")
	if code != 0 || out != stateBody || !strings.Contains(errOut, "--range ignored: gopher:") {
		t.Errorf("exit %d, %q, stderr %q; want the whole item and a note", code, out, errOut)
	}
}

// TestTimeCondHTTP: -z sends If-Modified-Since (or, with '-',
// If-Unmodified-Since); a 304 writes nothing, makes no file, exits 0 and
// reports 304, as does a 200 the server sent though the condition was
// not met (curl's simulated 304).
func TestTimeCondHTTP(t *testing.T) {
	s := newStateServer(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "out")
	code, out, errOut := runQ(t, "-z", "Jan 3 2024", "-w", "%{http_code}", "-o", target, s.URL+"/f")
	if code != 0 || out != "304" {
		t.Errorf("newer date: exit %d, %q (%s); want 0 and 304", code, out, errOut)
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("a 304 made the output file")
	}
	if _, out, _ := runQ(t, "--json-lines", "-z", "Jan 3 2024", "-o", target, s.URL+"/f"); !strings.Contains(out, `"status":"unchanged"`) {
		t.Errorf("--json of a 304: %s", out)
	}
	for _, flag := range []string{"-i", "-I"} {
		if code, out, _ := runQ(t, flag, "-z", "Jan 3 2024", s.URL+"/f"); code != 0 || !strings.HasPrefix(out, "HTTP/1.1 304 Not Modified\r\n") {
			t.Errorf("%s with a 304: exit %d, %q; want its head", flag, code, out)
		}
	}
	code, out, _ = runQ(t, "-z", "Sun, 01 Jan 2023 00:00:00 GMT", s.URL+"/f")
	if code != 0 || out != stateBody {
		t.Errorf("older date: exit %d, %q", code, out)
	}
	code, out, _ = runQ(t, "-z", "Jan 3 2024", "-w", "%{http_code}", s.URL+"/norange")
	if code != 0 || out != "304" {
		t.Errorf("server ignoring the condition: exit %d, %q; want curl's simulated 304", code, out)
	}
	code, out, _ = runQ(t, "-z", "-Jan 3 2024", s.URL+"/f")
	if code != 0 || out != stateBody {
		t.Errorf("-z -DATE after the change: exit %d, %q", code, out)
	}
	code, out, _ = runQ(t, "-z", "-Jan 1 2024", "-w", "%{http_code}", s.URL+"/f")
	if !strings.HasSuffix(out, "412") {
		t.Errorf("-z -DATE before the change: exit %d, %q; want 412", code, out)
	}
	// A file's time; a name that is neither: a warning, no condition.
	ref := filepath.Join(dir, "ref")
	os.WriteFile(ref, nil, 0o644)
	os.Chtimes(ref, time.Time{}, stateMod.Add(time.Hour))
	if code, out, _ := runQ(t, "-z", ref, "-w", "%{http_code}", s.URL+"/f"); code != 0 || out != "304" {
		t.Errorf("-z FILE: exit %d, %q", code, out)
	}
	code, out, errOut = runQ(t, "-z", filepath.Join(dir, "missing"), s.URL+"/f")
	if code != 0 || out != stateBody || !strings.Contains(errOut, "Illegal date format for -z") {
		t.Errorf("-z MISSING: exit %d, %q, %q; want the body and curl's warning", code, out, errOut)
	}
}

// stateSources starts an FTP server of stateFS and writes its file in a
// directory of the test's too, with stateMod's time: the server, the
// directory, and the file's name.
func stateSources(t *testing.T) (*ftptest.Server, string, string) {
	t.Helper()
	srv := ftptest.NewServer(stateFS())
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	if err := os.WriteFile(name, []byte(stateBody), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(name, time.Time{}, stateMod); err != nil {
		t.Fatal(err)
	}
	return srv, dir, name
}

// TestTimeCondFTPAndFile: ftp: (MDTM) and file: compare the time
// themselves and skip the transfer, as curl does.
func TestTimeCondFTPAndFile(t *testing.T) {
	srv, dir, name := stateSources(t)
	for _, u := range []string{srv.URL + "/f", "file://" + name} {
		target := filepath.Join(dir, "out")
		code, out, errOut := runQ(t, "-v", "-z", "Jan 3 2024", "-o", target, u)
		if code != 0 || out != "" || !strings.Contains(errOut, "not new enough") {
			t.Errorf("%s: exit %d, %q; want nothing and curl's note", u, code, out)
		}
		if _, err := os.Stat(target); err == nil {
			t.Errorf("%s: the output file was made", u)
		}
		if code, out, _ := runQ(t, "-z", "Jan 1 2024", u); code != 0 || out != stateBody {
			t.Errorf("%s: older date: exit %d, %q", u, code, out)
		}
		if code, out, _ := runQ(t, "-z", "-Jan 1 2024", u); code != 0 || out != "" {
			t.Errorf("%s: -z -DATE before the change: exit %d, %q; want nothing", u, code, out)
		}
		if _, err := lookCurl(t); err == nil {
			for _, cond := range []string{"Jan 3 2024", "Jan 1 2024", "-Jan 1 2024", "-Jan 3 2024"} {
				_, out, _ := runQ(t, "-z", cond, u)
				if ccode, cout := runCurl(t, "-z", cond, u); ccode != 0 || cout != out {
					t.Errorf("%s -z %q: curl exit %d, %q; urlget %q", u, cond, ccode, cout, out)
				}
			}
		}
	}
}

// TestRemoteTime: -R gives the output file the remote time: HTTP's
// Last-Modified, FTP's MDTM, a file's own.
func TestRemoteTime(t *testing.T) {
	s := newStateServer(t)
	srv, dir, src := stateSources(t)
	for i, u := range []string{s.URL + "/f", srv.URL + "/f", "file://" + src} {
		target := filepath.Join(dir, fmt.Sprint("out", i))
		if code, _, errOut := runQ(t, "-R", "-o", target, u); code != 0 {
			t.Fatalf("%s: exit %d: %s", u, code, errOut)
		}
		fi, err := os.Stat(target)
		if err != nil || !fi.ModTime().Equal(stateMod) {
			t.Errorf("%s: %v, mtime %v; want %v", u, err, fi.ModTime(), stateMod)
		}
		if _, err := lookCurl(t); err == nil {
			runCurl(t, "-R", "-o", target+".curl", u)
			if cfi, err := os.Stat(target + ".curl"); err != nil || !cfi.ModTime().Equal(fi.ModTime()) {
				t.Errorf("%s: curl -R gave %v (%v), urlget %v", u, cfi.ModTime(), err, fi.ModTime())
			}
		}
		plain := target + ".plain"
		runQ(t, "-o", plain, u)
		if fi, _ := os.Stat(plain); fi.ModTime().Equal(stateMod) {
			t.Errorf("%s: without -R the remote time was given", u)
		}
	}
}

// TestRemoteTimeNews: a news article's Date is its time, for -R too.
func TestRemoteTimeNews(t *testing.T) {
	srv := nntptest.NewServer(nntptest.Config{Groups: []nntptest.Group{{Name: "test.group", Articles: []nntptest.Article{{
		MessageID: "a1@example", Header: [][2]string{{"Subject", "hi"}, {"Date", stateMod.Format(time.RFC1123Z)}}, Body: "hello\n",
	}}}}})
	t.Cleanup(srv.Close)
	target := filepath.Join(t.TempDir(), "article")
	if code, _, errOut := runQ(t, "-R", "-o", target, srv.URL+"/test.group/1"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if fi, err := os.Stat(target); err != nil || !fi.ModTime().Equal(stateMod) {
		t.Errorf("mtime %v (%v), want %v", fi.ModTime(), err, stateMod)
	}
}

// TestETag: --etag-save writes the ETag and a newline; --etag-compare
// sends it as If-None-Match, and a 304 writes nothing; a missing file is
// the empty tag, as curl sends it.
func TestETag(t *testing.T) {
	s := newStateServer(t)
	dir := t.TempDir()
	tag := filepath.Join(dir, "etag")
	if code, out, _ := runQ(t, "--etag-save", tag, s.URL+"/f"); code != 0 || out != stateBody {
		t.Fatalf("--etag-save: exit %d, %q", code, out)
	}
	if b, _ := os.ReadFile(tag); string(b) != "\"v1\"\n" {
		t.Errorf("saved %q, want \"v1\" and a newline", b)
	}
	target := filepath.Join(dir, "out")
	code, out, _ := runQ(t, "--etag-compare", tag, "-w", "%{http_code}", "-o", target, s.URL+"/f")
	if code != 0 || out != "304" {
		t.Errorf("--etag-compare: exit %d, %q; want 304", code, out)
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("a 304 made the output file")
	}
	runQ(t, "--etag-compare", filepath.Join(dir, "none"), s.URL+"/f")
	s.mu.Lock()
	inm := s.inm
	s.mu.Unlock()
	if want := []string{"", `"v1"`, `""`}; !slices.Equal(inm, want) {
		t.Errorf("If-None-Match sent: %q, want %q", inm, want)
	}
	if _, err := lookCurl(t); err == nil {
		ctag := filepath.Join(dir, "curl-etag")
		runCurl(t, "--etag-save", ctag, "-o", os.DevNull, s.URL+"/f")
		if a, b := readFile(t, ctag), readFile(t, tag); a != b {
			t.Errorf("curl saved %q, urlget %q", a, b)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// setURL is a URL of s's that sets the cookies given.
func setURL(base, path string, cookies ...string) string {
	u := base + path + "?"
	for _, c := range cookies {
		u += "set=" + strings.NewReplacer("%", "%25", "&", "%26", ";", "%3B", " ", "%20", "=", "%3D", "+", "%2B").Replace(c) + "&"
	}
	return u
}

// TestCookies: -c writes curl's file, -b reads it and sends the cookies
// by RFC 6265's rules; -b NAME=VALUE goes after the jar's, as in curl;
// -j leaves the session cookies out; cookies of a redirect travel on.
func TestCookies(t *testing.T) {
	s := newStateServer(t)
	dir := t.TempDir()
	jar := filepath.Join(dir, "jar")
	set := setURL(s.URL, "/set", "a=1; Path=/", "bb=2; Max-Age=3600", "ccc=3; HttpOnly", "d=4; Path=/sub")
	if code, _, errOut := runQ(t, "-c", jar, set); code != 0 {
		t.Fatalf("-c: exit %d: %s", code, errOut)
	}
	text := readFile(t, jar)
	if !strings.HasPrefix(text, "# Netscape HTTP Cookie File\n") || !strings.Contains(text, "#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tccc\t3\n") {
		t.Errorf("jar file:\n%s", text)
	}
	s.sent()
	runQ(t, "-b", jar, s.URL+"/sub/x")
	runQ(t, "-b", jar, "-b", "x=y", s.URL+"/")
	runQ(t, "-b", jar, "-j", s.URL+"/")
	if got, want := s.sent(), []string{"d=4; ccc=3; bb=2; a=1", "ccc=3; bb=2; a=1; x=y", "bb=2"}; !slices.Equal(got, want) {
		t.Errorf("sent %q, want %q", got, want)
	}
	// A cookie set by a redirect goes to where it leads; one run's jar
	// serves its later URLs.
	runQ(t, "-L", "-c", filepath.Join(dir, "jar2"), setURL(s.URL, "/", "r=1")+"to=/next", s.URL+"/again")
	if got := s.sent(); !slices.Equal(got, []string{"", "r=1", "r=1"}) {
		t.Errorf("across a redirect and URLs: %q", got)
	}
	// Parallel transfers share the jar.
	var many []string
	for i := 0; i < 8; i++ {
		many = append(many, setURL(s.URL, "/p", fmt.Sprintf("p%d=%d", i, i)))
	}
	if code, out, _ := runQ(t, append([]string{"-Z", "-b", jar, "-c", "-"}, many...)...); code != 0 || !strings.Contains(out, "\tp7\t7\n") || !strings.Contains(out, "\tp0\t0\n") {
		t.Errorf("-Z: exit %d, jar %q", code, out)
	}
	s.sent()
	// -b with no file still turns the cookie engine on.
	if code, out, _ := runQ(t, "-b", "", "-c", "-", setURL(s.URL, "/", "z=9")); code != 0 || !strings.Contains(out, "127.0.0.1\tFALSE\t/\tFALSE\t0\tz\t9\n") {
		t.Errorf("-c -: exit %d, %q", code, out)
	}
}

// TestCookiesAttacker: what a server may not do with cookies: set one
// for another domain, a public suffix, over plain http with Secure, or
// a path it does not own reaching another path; a hostile jar line is
// never sent.
func TestCookiesAttacker(t *testing.T) {
	s := newStateServer(t)
	port := s.Listener.Addr().(*net.TCPAddr).Port
	dir := t.TempDir()
	jar := filepath.Join(dir, "jar")
	resolve := func(host string) string { return fmt.Sprintf("%s:%d:127.0.0.1", host, port) }
	evil := fmt.Sprintf("http://evil.example.net:%d", port)
	good := fmt.Sprintf("http://www.example.com:%d", port)
	set := setURL(evil, "/dir/page",
		"victim=1; Domain=example.com",
		"suffix=1; Domain=net",
		"sec=1; Secure",
		"__Secure-x=1",
		"mine=1; Domain=example.net; Path=/",
		"local=1")
	code, _, errOut := runQ(t, "--resolve", resolve("evil.example.net"), "--resolve", resolve("www.example.com"),
		"-c", jar, set, good+"/", evil+"/other", evil+"/dir/x")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := s.sent()
	if want := []string{"", "", "mine=1", "local=1; mine=1"}; !slices.Equal(got, want) {
		t.Errorf("sent %q, want %q", got, want)
	}
	text := readFile(t, jar)
	for _, bad := range []string{"victim", "suffix", "sec\t", "__Secure"} {
		if strings.Contains(text, bad) {
			t.Errorf("the jar kept %s:\n%s", bad, text)
		}
	}
	// A jar whose line would split the request.
	hostile := filepath.Join(dir, "hostile")
	os.WriteFile(hostile, []byte("127.0.0.1\tFALSE\t/\tFALSE\t0\tok\t1\n127.0.0.1\tFALSE\t/\tFALSE\t0\tx\t1\rX-Injected: 1\n"), 0o644)
	runQ(t, "-b", hostile, s.URL+"/")
	if got := s.sent(); !slices.Equal(got, []string{"ok=1"}) {
		t.Errorf("hostile jar: sent %q", got)
	}
}

// TestCookiesWithCurl: a jar urlget writes makes curl send what urlget
// sends, and the other way round.
func TestCookiesWithCurl(t *testing.T) {
	curlPath(t)
	s := newStateServer(t)
	dir := t.TempDir()
	set := setURL(s.URL, "/set", "a=1; Path=/", "bb=2; Max-Age=3600", "ccc=3; HttpOnly", "d=4; Path=/sub", "e=5; Secure", "f=6; Domain=127.0.0.1")
	ujar, cjar := filepath.Join(dir, "u.jar"), filepath.Join(dir, "c.jar")
	runQ(t, "-c", ujar, set)
	runCurl(t, "-c", cjar, set)
	s.sent()
	for _, jar := range []string{ujar, cjar} {
		for _, path := range []string{"/sub/x", "/"} {
			runQ(t, "-b", jar, s.URL+path)
			runCurl(t, "-b", jar, s.URL+path)
			if got := s.sent(); len(got) != 2 || got[0] != got[1] || got[0] == "" {
				t.Errorf("%s %s: urlget and curl sent %q", filepath.Base(jar), path, got)
			}
		}
	}
	// The two files hold the same lines but for the program's name and
	// the expiry, which may differ by the second the runs took.
	norm := func(name string) []string {
		var lines []string
		for _, l := range strings.Split(readFile(t, name), "\n") {
			if strings.HasPrefix(l, "# This file was generated") {
				continue
			}
			f := strings.Split(l, "\t")
			if len(f) == 7 && f[4] != "0" {
				f[4] = "T"
			}
			lines = append(lines, strings.Join(f, "\t"))
		}
		return lines
	}
	if a, b := norm(ujar), norm(cjar); !slices.Equal(a, b) {
		t.Errorf("urlget's jar:\n%s\ncurl's:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

// TestCookieJarWrittenWhole: -c replaces an earlier jar by renaming a
// complete one over it, leaving no temporary file, and a jar name that
// is no regular file (a device) is written in place, never replaced.
func TestCookieJarWrittenWhole(t *testing.T) {
	s := newStateServer(t)
	dir := t.TempDir()
	jar := filepath.Join(dir, "jar")
	if err := os.WriteFile(jar, []byte("# an earlier jar\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runQ(t, "-c", jar, "-o", os.DevNull, setURL(s.URL, "/set", "a=1")); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b := readFile(t, jar); !strings.Contains(b, "\ta\t1\n") || strings.Contains(b, "an earlier jar") {
		t.Errorf("jar:\n%s", b)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("files left beside the jar: %v", names)
	}
	if code, _, errOut := runQ(t, "-c", os.DevNull, "-o", os.DevNull, setURL(s.URL, "/set", "a=1")); code != 0 {
		t.Fatalf("-c /dev/null: exit %d: %s", code, errOut)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer the null device: %v, %v", os.DevNull, fi, err)
	}
}
