package cli

import (
	"bufio"
	"bytes"
	"compress/gzip"
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
)

// rawHTTP is a server on 127.0.0.1 that records each request's bytes
// (request line, fields, and as much of a body as Content-Length gives)
// and answers with what answer returns for it, the answer's bytes sent as
// they are: each connection serves requests until answer's bytes say
// "Connection: close" or the client closes it.
type rawHTTP struct {
	addr   string
	answer func(n int, req string) string
	mu     sync.Mutex
	reqs   []string
}

// newRawHTTP starts a rawHTTP; answer receives the number of the request
// (from 0) and its head.
func newRawHTTP(t *testing.T, answer func(n int, req string) string) *rawHTTP {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawHTTP{addr: l.Addr().String(), answer: answer}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				s.serve(c)
			}()
		}
	}()
	return s
}

func (s *rawHTTP) serve(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		var head strings.Builder
		for {
			line, err := br.ReadString('\n')
			head.WriteString(line)
			if err != nil {
				return
			}
			if line == "\r\n" || line == "\n" {
				break
			}
		}
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, head.String())
		s.mu.Unlock()
		ans := s.answer(n, head.String())
		if _, err := io.WriteString(c, ans); err != nil {
			return
		}
		if strings.Contains(strings.ToLower(ans), "\r\nconnection: close\r\n") {
			return
		}
	}
}

// requests returns the heads of the requests received so far.
func (s *rawHTTP) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reqs...)
}

// reset forgets the requests received so far.
func (s *rawHTTP) reset() {
	s.mu.Lock()
	s.reqs = nil
	s.mu.Unlock()
}

// okAnswer is a short 200 on a connection closed after it.
func okAnswer(int, string) string {
	return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
}

// curlStatus runs curl with args, its output discarded, and returns its exit
// status.
func curlStatus(t *testing.T, args ...string) int {
	t.Helper()
	cmd := exec.Command(curlPath(t), append([]string{"-s"}, args...)...)
	cmd.Env = append(os.Environ(), "CURL_HOME="+t.TempDir(), "HOME="+t.TempDir(), "http_proxy=", "https_proxy=", "all_proxy=", "HTTP_PROXY=", "ALL_PROXY=")
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// sameRequestAsCurl runs urlget and curl with the same arguments against
// s and compares the heads of the requests they sent, byte for byte.
func sameRequestAsCurl(t *testing.T, s *rawHTTP, args ...string) string {
	t.Helper()
	curlPath(t)
	s.reset()
	curlStatus(t, args...)
	curl := s.requests()
	s.reset()
	runCmd(t, append([]string{"-s"}, args...)...)
	ours := s.requests()
	if len(curl) == 0 || !slicesEqual(curl, ours) {
		t.Errorf("%q:\ncurl sent %q\nurlget sent %q", args, curl, ours)
	}
	if len(ours) == 0 {
		return ""
	}
	return ours[0]
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestHeaderOrderAsCurl: the request's fields go out as curl writes them:
// Host, the credentials, Range, the default fields, TE, Referer, then -H's
// in the order given
// and spelled as given, a default one that -H names left out, "Name;"
// empty, "Name:" removing the default only, the first Host given winning.
func TestHeaderOrderAsCurl(t *testing.T) {
	s := newRawHTTP(t, okAnswer)
	u := "http://" + s.addr + "/p?q=1"
	for _, args := range [][]string{
		{"-A", "agent/1", u},
		{"-A", "agent/1", "-H", "X-B: 1", "-H", "accept: text/x", "-H", "X-A: 2", "-H", "X-B: 3", "-H", "x-c;", u},
		{"-A", "agent/1", "-H", "X-C: 1", "-H", "X-C:", "-H", "Accept:", "-H", "X-D: 2", u},
		{"-A", "agent/1", "-H", "Host: first.example", "-H", "X: 1", "-H", "Host: second.example", u},
		{"-A", "agent/1", "-u", "al:pw", "-e", "http://ref.example/", "-H", "X-Last: 1", u},
		{"-A", "agent/1", "-u", "al:pw", "-H", "Authorization: Bearer tok", "-H", "User-Agent: mine", u},
		{"-A", "agent/1", "-C", "5", "-u", "al:pw", "-e", "http://ref.example/", "--tr-encoding", "-H", "X: 1", u},
		{"-A", "agent/1", "--tr-encoding", "-H", "X: 1", "-H", "connection: keep-alive", u},
	} {
		sameRequestAsCurl(t, s, args...)
	}
}

// TestHeaderFile: -H @FILE reads one field a line, as curl does, in the
// file's order among the -H given around it; blank lines and CRs are
// dropped, and a line that is no field fails the command line (exit 2).
func TestHeaderFile(t *testing.T) {
	s := newRawHTTP(t, okAnswer)
	dir := t.TempDir()
	file := filepath.Join(dir, "h")
	if err := os.WriteFile(file, []byte("X-One: 1\r\n\nX-Two: 2\nAccept:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u := "http://" + s.addr + "/"
	got := sameRequestAsCurl(t, s, "-A", "a", "-H", "X-Zero: 0", "-H", "@"+file, "-H", "X-Three: 3", u)
	if !strings.Contains(got, "X-Zero: 0\r\nX-One: 1\r\nX-Two: 2\r\nX-Three: 3\r\n") || strings.Contains(got, "Accept") {
		t.Errorf("request %q", got)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("X-Ok: 1\nnot a field\n"), 0o644)
	if code, _, _ := runCmd(t, "-H", "@"+bad, u); code != exitUsage {
		t.Errorf("a file with a line that is no field: exit %d", code)
	}
	// A file that is not there: curl's warning, and the request goes
	// without it; so for --url-query.
	missing := filepath.Join(dir, "none")
	code, _, errOut := runCmd(t, "-H", "@"+missing, "--url-query", "n@"+missing, u)
	if want := "Warning: Failed to open " + missing + "!\nWarning: Couldn't read data from file \"n@" + missing + "\", this makes an empty POST.\n"; code != 0 || !strings.HasPrefix(errOut, want) {
		t.Errorf("files that are not there: exit %d, %q", code, errOut)
	}
	if reqs := s.requests(); !strings.HasPrefix(reqs[len(reqs)-1], "GET / HTTP/1.1\r\n") {
		t.Errorf("request %q", reqs[len(reqs)-1])
	}
	if _, _, errOut := runCmd(t, "-s", "-H", "@"+missing, u); errOut != "" {
		t.Errorf("-s: %q", errOut)
	}
}

// TestResponseHeadAsCurl: -i, -I and -D write the server's status line
// and fields in its order and spelling, byte for byte as curl does.
func TestResponseHeadAsCurl(t *testing.T) {
	curl := curlPath(t)
	s := newRawHTTP(t, func(int, string) string {
		return "HTTP/1.1 200 Fine\r\nzeta: 1\r\nETag: \"x\"\r\nX-Dup: a\r\nx-dup: b\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
	})
	u := "http://" + s.addr + "/"
	for _, args := range [][]string{{"-i", u}, {"-I", u}, {"-D", "-", "-o", os.DevNull, u}} {
		want, err := exec.Command(curl, append([]string{"-s"}, args...)...).Output()
		if err != nil {
			t.Fatal(err)
		}
		_, got, _ := runCmd(t, append([]string{"-s"}, args...)...)
		if !bytes.Equal([]byte(got), want) {
			t.Errorf("%q: %q, curl %q", args, got, want)
		}
	}
}

// TestRequestLineAsCurl: -X, --request-target, --path-as-is, -0, -G and
// --url-query shape the request line as curl's do: dot segments removed
// unless --path-as-is, the query appended with curl's encoding (a space
// as '+', lower-case hex, '+data' as it is, name@file read), the fragment
// never sent.
func TestRequestLineAsCurl(t *testing.T) {
	s := newRawHTTP(t, okAnswer)
	dir := t.TempDir()
	qf := filepath.Join(dir, "q")
	os.WriteFile(qf, []byte("fi le\n"), 0o644)
	u := "http://" + s.addr + "/a/../b/./c?z=1#frag"
	for _, tc := range []struct {
		args []string
		line string
	}{
		{[]string{u}, "GET /b/c?z=1 HTTP/1.1"},
		{[]string{"--path-as-is", u}, "GET /a/../b/./c?z=1 HTTP/1.1"},
		{[]string{"-X", "PURGE", u}, "PURGE /b/c?z=1 HTTP/1.1"},
		{[]string{"-X", "OPTIONS", "--request-target", "*", u}, "OPTIONS * HTTP/1.1"},
		{[]string{"-0", u}, "GET /b/c?z=1 HTTP/1.0"},
		{[]string{"--http1.1", u}, "GET /b/c?z=1 HTTP/1.1"},
		{[]string{"-G", "--url-query", "a=b c&d", "--url-query", "=x/y", "--url-query", "n@" + qf, "--url-query", "+raw=%20", "--url-query", "n=é~", u},
			"GET /b/c?z=1&a=b+c%26d&x%2fy&n=fi+le%0a&raw=%20&n=%c3%a9~ HTTP/1.1"},
		{[]string{"--url-query", "@" + qf, "http://" + s.addr + "/p"}, "GET /p?fi+le%0a HTTP/1.1"},
		{[]string{"--url-query", "a=1", "http://" + s.addr + "/p?"}, "GET /p?a=1 HTTP/1.1"},
	} {
		got := sameRequestAsCurl(t, s, append([]string{"-A", "a"}, tc.args...)...)
		if line, _, _ := strings.Cut(got, "\r\n"); line != tc.line {
			t.Errorf("%q: request line %q, want %q", tc.args, line, tc.line)
		}
	}
}

// TestCustomHead: -X HEAD sends HEAD but reads the response as a GET's,
// its body by Content-Length, with curl's warning on stderr (none with
// -s); -I stays a HEAD that reads no body. A method that is not a token
// is refused (exit 2).
func TestCustomHead(t *testing.T) {
	s := newRawHTTP(t, func(int, string) string {
		return "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody"
	})
	u := "http://" + s.addr + "/"
	code, out, errOut := runCmd(t, "-X", "HEAD", u)
	if code != 0 || out != "body" || !strings.HasPrefix(errOut, "Warning: Setting custom HTTP method to HEAD with -X/--request may not work the \nWarning: way you want. Consider using -I/--head instead.\n") {
		t.Errorf("-X HEAD: exit %d, %q, %q", code, out, errOut)
	}
	if reqs := s.requests(); len(reqs) != 1 || !strings.HasPrefix(reqs[0], "HEAD / HTTP/1.1\r\n") {
		t.Errorf("requests %q", reqs)
	}
	if _, _, errOut := runCmd(t, "-s", "-X", "HEAD", u); strings.Contains(errOut, "Warning") {
		t.Errorf("-s -X HEAD warned: %q", errOut)
	}
	if code, _, _ := runCmd(t, "-X", "GET /x", u); code != exitUsage {
		t.Errorf("-X 'GET /x': exit %d", code)
	}
	if code, _, _ := runCmd(t, "--request-target", "a b", u); code != exitUsage {
		t.Errorf("--request-target 'a b': exit %d", code)
	}
}

// TestQueryPart: --url-query's forms as curl reads them.
func TestQueryPart(t *testing.T) {
	for in, want := range map[string]string{
		"a=b c":  "a=b+c",
		"=b c":   "b+c",
		"b c":    "b+c",
		"+a=%20": "a=%20",
		"a=&=":   "a=%26%3d",
		"":       "",
	} {
		if got, err := queryPart(in); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	for raw, want := range map[string]string{
		"http://h/p":       "http://h/p?q=1",
		"http://h/p?":      "http://h/p?q=1",
		"http://h/p?a":     "http://h/p?a&q=1",
		"http://h/p#f?x":   "http://h/p?q=1#f?x",
		"http://h/p?a#f":   "http://h/p?a&q=1#f",
		"gopher://h/7/s?x": "gopher://h/7/s?x&q=1",
	} {
		if got := withQuery(raw, "q=1"); got != want {
			t.Errorf("%s: %s, want %s", raw, got, want)
		}
	}
}

// TestHTTPVersions: --http2-prior-knowledge speaks h2 over cleartext from
// the first byte, -i showing "HTTP/2 200 " as curl's does; --http1.1 and
// -0 keep to HTTP/1.x over TLS, where the default and --http2 take h2 by
// ALPN.
func TestHTTPVersions(t *testing.T) {
	var mu sync.Mutex
	var protos []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		protos = append(protos, r.Proto)
		mu.Unlock()
		io.WriteString(w, "v\n")
	})
	last := func() string {
		mu.Lock()
		defer mu.Unlock()
		if len(protos) == 0 {
			return ""
		}
		return protos[len(protos)-1]
	}
	clear := httptest.NewUnstartedServer(h)
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	clear.Config.Protocols = &p
	clear.Start()
	defer clear.Close()
	code, out, errOut := runCmd(t, "-s", "-i", "--http2-prior-knowledge", clear.URL+"/")
	if code != 0 || !strings.HasPrefix(out, "HTTP/2 200 \r\n") || !strings.HasSuffix(out, "\r\n\r\nv\n") || last() != "HTTP/2.0" {
		t.Errorf("--http2-prior-knowledge: exit %d, %q, %s, server saw %s", code, out, errOut, last())
	}
	if code, out, _ := runCmd(t, "-s", "--http2", clear.URL+"/"); code != 0 || out != "v\n" || last() != "HTTP/1.1" {
		t.Errorf("--http2 over cleartext: exit %d, %q, server saw %s", code, out, last())
	}
	tls := httptest.NewUnstartedServer(h)
	tls.EnableHTTP2 = true
	tls.StartTLS()
	defer tls.Close()
	for _, tc := range []struct {
		flag, proto string
	}{{"--http2", "HTTP/2.0"}, {"--http1.1", "HTTP/1.1"}, {"-0", "HTTP/1.0"}, {"--http2-prior-knowledge", "HTTP/2.0"}} {
		if code, out, errOut := runCmd(t, "-sk", tc.flag, tls.URL+"/"); code != 0 || out != "v\n" || last() != tc.proto {
			t.Errorf("%s over TLS: exit %d, %q, %s, server saw %s", tc.flag, code, out, errOut, last())
		}
	}
}

// gzipped is s compressed with gzip.
func gzipped(t *testing.T, s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, s)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRawAndTransferCodings: curl's --raw writes a chunked body with its
// framing and trailer, byte for byte as curl does, a transfer coding and
// a content coding left in, the connection then still serving the next
// URL; --tr-encoding asks for "TE: gzip" as curl writes it and decodes
// the gzip transfer coding; --ignore-content-length reads the body to
// the connection's end.
func TestRawAndTransferCodings(t *testing.T) {
	const chunked = "5;ext=1\r\nhello\r\n3\r\n ok\r\n0\r\nX-Trailer: t\r\n\r\n"
	z := gzipped(t, "zipped body\n")
	s := newRawHTTP(t, func(_ int, head string) string {
		switch {
		case strings.HasPrefix(head, "GET /chunked "):
			return "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked
		case strings.HasPrefix(head, "GET /te "):
			return "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(z), z)
		case strings.HasPrefix(head, "GET /ce "):
			return "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + fmt.Sprint(len(z)) + "\r\n\r\n" + z
		case strings.HasPrefix(head, "GET /short "):
			return "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nall of it"
		}
		return okAnswer(0, head)
	})
	u := "http://" + s.addr
	code, out, errOut := runCmd(t, "-s", "--raw", u+"/chunked", u+"/chunked")
	if code != 0 || out != chunked+chunked {
		t.Errorf("--raw, chunked: exit %d, %q, %s", code, out, errOut)
	}
	if n := len(s.requests()); n != 2 {
		t.Errorf("%d requests", n)
	}
	if curl, err := lookCurl(t); err == nil {
		want, _ := exec.Command(curl, "-s", "--raw", u+"/chunked").Output()
		if string(want) != chunked {
			t.Errorf("curl --raw writes %q", want)
		}
	}
	if code, out, _ := runCmd(t, "-s", "--raw", "--compressed", u+"/ce"); code != 0 || out != z {
		t.Errorf("--raw --compressed: exit %d, %q", code, out)
	}
	if code, out, _ := runCmd(t, "-s", "--raw", u+"/te"); code != 0 || !strings.Contains(out, z) {
		t.Errorf("--raw, a gzip transfer coding: exit %d, %q", code, out)
	}
	if code, out, errOut := runCmd(t, "-s", "--tr-encoding", u+"/te"); code != 0 || out != "zipped body\n" {
		t.Errorf("--tr-encoding: exit %d, %q, %s", code, out, errOut)
	}
	got := sameRequestAsCurl(t, s, "-A", "a", "--tr-encoding", u+"/")
	if !strings.Contains(got, "Accept: */*\r\nConnection: TE\r\nTE: gzip\r\n") {
		t.Errorf("--tr-encoding request %q", got)
	}
	if code, out, _ := runCmd(t, "-s", "--ignore-content-length", u+"/short"); code != 0 || out != "all of it" {
		t.Errorf("--ignore-content-length: exit %d, %q", code, out)
	}
	if code, out, _ := runCmd(t, "-s", u+"/short"); code != 0 || out != "all" {
		t.Errorf("Content-Length 3: exit %d, %q", code, out)
	}
}

// TestHTTP09: a response without a status line is refused by default, as
// curl refuses it, and with --http0.9 is the body, written as curl
// writes it, -i adding nothing.
func TestHTTP09(t *testing.T) {
	s := newRawHTTP(t, func(int, string) string { return "hello 0.9\r\nConnection: close\r\n\r\n" })
	u := "http://" + s.addr + "/"
	if code, out, _ := runCmd(t, "-s", u); code == 0 || out != "" {
		t.Errorf("without --http0.9: exit %d, %q", code, out)
	}
	want := "hello 0.9\r\nConnection: close\r\n\r\n"
	if curl, err := lookCurl(t); err == nil {
		b, _ := exec.Command(curl, "-s", "-i", "--http0.9", u).Output()
		want = string(b)
	}
	if code, out, errOut := runCmd(t, "-s", "-i", "--http0.9", u); code != 0 || out != want {
		t.Errorf("--http0.9 -i: exit %d, %q, %s; want %q", code, out, errOut, want)
	}
}

// TestHTTP2HeadAsCurl: an HTTP/2 response's status line is curl's,
// "HTTP/2 200 ", and its fields are shown with the lower-case names they
// have on the wire (RFC 9113 §8.2.1), as curl shows them: the same
// lines, the Date aside, though not in the server's order, which
// net/http's HTTP/2 client does not keep.
func TestHTTP2HeadAsCurl(t *testing.T) {
	curl := curlPath(t)
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"e"`)
		w.Header().Set("X-Zeta", "z")
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "h2\n")
	}))
	s.EnableHTTP2 = true
	s.StartTLS()
	defer s.Close()
	noDate := func(b string) string {
		var keep []string
		for _, l := range strings.Split(b, "\r\n") {
			if !strings.HasPrefix(l, "date: ") {
				keep = append(keep, l)
			}
		}
		slices.Sort(keep[1:])
		return strings.Join(keep, "\r\n")
	}
	for _, args := range [][]string{{"-i"}, {"-I"}} {
		want, err := exec.Command(curl, append([]string{"-sk"}, append(args, s.URL+"/")...)...).Output()
		if err != nil {
			t.Fatal(err)
		}
		_, got, _ := runCmd(t, append([]string{"-sk"}, append(args, s.URL+"/")...)...)
		if noDate(got) != noDate(string(want)) || !strings.Contains(got, "\r\netag: \"e\"\r\n") {
			t.Errorf("%q: %q, curl %q", args, got, want)
		}
	}
}
