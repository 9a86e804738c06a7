package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/schemes"
	httpscheme "github.com/urlget/urlget/schemes/http"
)

// serveTCP runs handle on each connection accepted on 127.0.0.1 until the
// test ends, and returns the listener's address.
func serveTCP(t *testing.T, handle func(c net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return l.Addr().String()
}

// rawHTTPServer answers each request on 127.0.0.1 with the bytes routes
// gives for its path (a 404 for the others), byte for byte, so that a
// test chooses every header line a client sees; connections are kept
// alive. It returns the server's base URL.
func rawHTTPServer(t *testing.T, routes map[string]string) string {
	return "http://" + serveTCP(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			resp, ok := routes[req.URL.Path]
			if !ok {
				resp = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
			}
			if _, err := c.Write([]byte(resp)); err != nil {
				return
			}
		}
	})
}

// writeOutRoutes are the responses the -w tests compare urlget and curl
// on.
var writeOutRoutes = map[string]string{
	"/plain": "HTTP/1.1 200 OK\r\nServer: test\r\nContent-Type: text/plain; charset=utf-8\r\nX-B:   two  \r\nContent-Length: 6\r\n\r\nhello\n",
	// Fields of one name side by side: curl 7.88 groups them.
	"/dup":        "HTTP/1.1 200 OK\r\nX-A: 1\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nContent-Length: 2\r\n\r\nhi",
	"/old":        "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Length: 3\r\n\r\nold",
	"/r1":         "HTTP/1.1 302 Found\r\nLocation: /r2\r\nContent-Length: 0\r\n\r\n",
	"/r2":         "HTTP/1.1 301 Moved Permanently\r\nLocation: plain?x=1\r\nContent-Length: 0\r\n\r\n",
	"/missing":    "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nnope\n",
	"/to-missing": "HTTP/1.1 307 Temporary Redirect\r\nLocation: /missing\r\nContent-Length: 0\r\n\r\n",
	// A server's attack on a terminal and on JSON: control characters,
	// an escape sequence, quotes and backslashes in its fields.
	"/evil":     "HTTP/1.1 200 OK\r\nContent-Type: text/x\x1b[31m\"q\\\x01\r\nX-Ctl: a\x01b\x1b]0;title\x07\"\\\x7f\xc3\xa9\r\nContent-Length: 0\r\n\r\n",
	"/evil-loc": "HTTP/1.1 302 Found\r\nLocation: http://u:pw@127.0.0.1:1/a\x1b[2Jb\x01\r\nContent-Length: 0\r\n\r\n",
}

// runBoth runs urlget (in-process) and curl with args, neither reading a
// config file (-q), with stdin as standard input, and returns what each
// wrote to stdout and stderr and its exit status.
func runBoth(t *testing.T, stdin string, args ...string) (ours, theirs [2]string, oursCode, theirsCode int) {
	t.Helper()
	curl := curlPath(t)
	for _, k := range []string{"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "ftp_proxy", "FTP_PROXY"} {
		t.Setenv(k, "")
	}
	var in *os.File
	if stdin != "" {
		f, err := os.CreateTemp(t.TempDir(), "stdin")
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(stdin)
		f.Seek(0, 0)
		defer f.Close()
		in = f
	}
	var out, errOut bytes.Buffer
	oursCode = Main(append([]string{"-q"}, args...), in, &out, &errOut)
	ours = [2]string{out.String(), errOut.String()}

	cmd := exec.Command(curl, append([]string{"-q"}, args...)...)
	var cout, cerr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &cout, &cerr
	cmd.Stdin = strings.NewReader(stdin)
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		theirsCode = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return ours, [2]string{cout.String(), strings.ReplaceAll(cerr.String(), "curl: ", "urlget: ")}, oursCode, theirsCode
}

// curlUA is the User-Agent both send in the comparisons, so that the
// sizes of their requests compare.
const curlUA = "curl/7.88.1"

// TestWriteOutLikeCurl compares -w's output with curl's on the same
// responses, for every variable whose value does not depend on time or
// on the local port.
func TestWriteOutLikeCurl(t *testing.T) {
	base := rawHTTPServer(t, writeOutRoutes)
	all := "[%{http_code}|%{response_code}|%{num_headers}|%{size_header}|%{size_request}|%{size_download}|%{size_upload}|%{content_type}|" +
		"%{redirect_url}|%{url}|%{url_effective}|%{num_redirects}|%{http_version}|%{scheme}|%{method}|%{remote_ip}|%{remote_port}|" +
		"%{local_ip}|%{num_connects}|%{exitcode}|%{urlnum}|%{filename_effective}|%{ftp_entry_path}|%{http_connect}|%{referer}|" +
		"%{ssl_verify_result}|%{proxy_ssl_verify_result}|%{speed_upload}|%{certs}|%{num_certs}|%header{x-b}|%header{X-A}|%header{none}]\n"
	cases := [][]string{
		{"-s", "-o", "/dev/null", "-w", all, base + "/plain"},
		{"-s", "-o", "/dev/null", "-w", all, base + "/dup"},
		{"-s", "-w", all, base + "/old"},
		{"-s", "-L", "-w", all, base + "/r1"},
		// A redirect not followed: where it would have led.
		{"-s", "-L", "--max-redirs", "0", "-w", all, base + "/r1"},
		{"-s", "-f", "-w", all, base + "/missing"},
		{"-s", "-f", "-L", "-w", all, base + "/to-missing"},
		// Several URLs, a glob among them: urlnum counts the URLs given.
		{"-s", "-w", "%{urlnum} %{url} %{http_code}\n", base + "/{plain,dup}", base + "/old"},
		{"-s", "-o", "/dev/null", "-w", "%{header_json}\n", base + "/plain"},
		{"-s", "-o", "/dev/null", "-w", "%{header_json}\n", base + "/dup"},
		{"-s", "-o", "/dev/null", "-w", "%{header_json}\n", "file:///dev/null"},
		{"-s", "-f", "-o", "/dev/null", "-w", "%{header_json}\n", base + "/missing"},
		{"-s", "-w", "%{http_code} %{scheme} %{remote_ip} %{num_connects} %{exitcode} %{local_port} %{size_download}\n", "http://127.0.0.1:1/x"},
		{"-s", "-o", "/dev/null", "-w", "%{scheme} %{url} %{url_effective} %{local_port} %{remote_port} %{num_connects} %{size_download} %{http_version} %{method}\n", "file:///dev/null"},
		{"-s", "-I", "-o", "/dev/null", "-w", all, base + "/plain"},
		{"-s", "-I", "-o", "/dev/null", "-w", "%{method}\n", "file:///dev/null"},
		{"-s", "-e", "http://r/", "-o", "/dev/null", "-w", "[%{referer}]\n", "file:///dev/null"},
		{"-s", "-e", "http://r/", "-o", "/dev/null", "-w", "[%{referer}]\n", base + "/plain"},
		// A URL without a scheme: %{url} as given, the guess after.
		{"-s", "-o", "/dev/null", "-w", "%{url} %{url_effective}\n", strings.TrimPrefix(base, "http://") + "/plain"},
	}
	for _, args := range cases {
		args = append([]string{"-A", curlUA}, args...)
		ours, theirs, oc, tc := runBoth(t, "", args...)
		if ours[0] != theirs[0] || oc != tc {
			t.Errorf("%q:\nurlget (exit %d) %q\ncurl   (exit %d) %q", args, oc, ours[0], tc, theirs[0])
		}
	}
}

// TestWriteOutFormatLikeCurl compares how the format itself is read:
// escapes, a '%' or '\' before anything else, an unfinished variable,
// names in any case, an unknown variable (told on stderr, each time),
// the switch between stdout and stderr, %{onerror}, and a format read
// from a file or standard input, its line ends dropped.
func TestWriteOutFormatLikeCurl(t *testing.T) {
	base := rawHTTPServer(t, writeOutRoutes)
	dir := t.TempDir()
	file := filepath.Join(dir, "format")
	if err := os.WriteFile(file, []byte("l1 %{http_code}\r\nl2\\n\nl3 %{NoSuch}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		stdin string
		args  []string
	}{
		{"", []string{"-w", `a\\b\qc%zd\t%%%{HTTP_CODE}\r%{x-%%e%{`, base + "/plain"}},
		{"", []string{"-w", `%header{x-b%{size_download}%`, base + "/plain"}},
		{"", []string{"-w", `%{nosuch}|%{nosuch}|%{exitcode}\n`, base + "/plain"}},
		{"", []string{"-w", `1%{stderr}2%{stdout}3%{stderr}4\n`, base + "/plain"}},
		{"", []string{"-w", `ok%{onerror}failed %{exitcode}\n`, base + "/plain"}},
		{"", []string{"-w", `ok%{onerror}failed %{exitcode}\n`, "http://127.0.0.1:1/"}},
		{"", []string{"-w", "@" + file, base + "/plain"}},
		{"x=%{http_code}\ny\n", []string{"-w", "@-", base + "/plain"}},
		{"", []string{"-w", "%{json", base + "/plain"}},
	}
	for _, c := range cases {
		args := append([]string{"-s", "-o", "/dev/null"}, c.args...)
		ours, theirs, oc, tc := runBoth(t, c.stdin, args...)
		if ours != theirs || oc != tc {
			t.Errorf("%q:\nurlget (exit %d) %q\ncurl   (exit %d) %q", args, oc, ours, tc, theirs)
		}
	}
}

var seconds6 = regexp.MustCompile(`^[0-9]+\.[0-9]{6}$`)

// TestWriteOutJSONLikeCurl compares %{json} with curl's: the same keys
// in the same order, times as seconds with six decimals, and the same
// values but for those of time, speed, local port, the error's words and
// the version.
func TestWriteOutJSONLikeCurl(t *testing.T) {
	base := rawHTTPServer(t, writeOutRoutes)
	for _, args := range [][]string{
		{base + "/plain"},
		{"-L", base + "/r1"},
		{"-L", "--max-redirs", "0", base + "/r1"},
		{"-f", base + "/missing"},
		{"http://127.0.0.1:1/"},
	} {
		args = append([]string{"-s", "-A", curlUA, "-o", "/dev/null", "-w", "%{json}"}, args...)
		ours, theirs, _, _ := runBoth(t, "", args...)
		ok, tk := jsonKeys(t, ours[0]), jsonKeys(t, theirs[0])
		if strings.Join(ok, ",") != strings.Join(tk, ",") {
			t.Errorf("%q: keys\nurlget %q\ncurl   %q", args, ok, tk)
		}
		var om, tm map[string]json.RawMessage
		if err := json.Unmarshal([]byte(ours[0]), &om); err != nil {
			t.Fatalf("%q: %v: %s", args, err, ours[0])
		}
		json.Unmarshal([]byte(theirs[0]), &tm)
		for k, v := range om {
			switch {
			case strings.HasPrefix(k, "time_"):
				if !seconds6.Match(v) {
					t.Errorf("%q: %s is %s, not seconds with six decimals", args, k, v)
				}
			case k == "speed_download" || k == "local_port" || k == "curl_version":
			case k == "errormsg":
				if (string(v) == "null") != (string(tm[k]) == "null") {
					t.Errorf("%q: errormsg %s, curl's %s", args, v, tm[k])
				}
			default:
				if string(v) != string(tm[k]) {
					t.Errorf("%q: %s is %s, curl's %s", args, k, v, tm[k])
				}
			}
		}
	}
}

// jsonKeys lists the keys of the JSON object s in their order.
func jsonKeys(t *testing.T, s string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	if _, err := dec.Token(); err != nil {
		t.Fatalf("%v: %q", err, s)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatalf("%v: %q", err, s)
		}
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%v: %q", err, s)
		}
	}
	return keys
}

// TestWriteOutTimes checks the times -w reports over TLS with a redirect:
// each with six decimals, in the order the phases end, the handshake's
// after the connection's, and the redirect's within the whole.
func TestWriteOutTimes(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/go" {
			http.Redirect(w, r, "/there", http.StatusFound)
			return
		}
		w.Write([]byte("there\n"))
	}))
	defer srv.Close()
	names := []string{"time_namelookup", "time_connect", "time_appconnect", "time_pretransfer", "time_starttransfer", "time_total", "time_redirect", "num_redirects", "num_connects", "remote_ip", "http_version", "scheme"}
	var format string
	for _, n := range names {
		format += "%{" + n + "} "
	}
	var out, errOut bytes.Buffer
	if code := Main([]string{"-q", "-s", "-k", "-L", "-o", "/dev/null", "-w", format, srv.URL + "/go"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	f := strings.Fields(out.String())
	if len(f) != len(names) {
		t.Fatalf("%q", out.String())
	}
	var prev float64
	for i, n := range names[:6] {
		if !seconds6.MatchString(f[i]) {
			t.Errorf("%s = %q", n, f[i])
		}
		v, _ := strconv.ParseFloat(f[i], 64)
		if v <= 0 || v < prev {
			t.Errorf("%s = %s, before it %f: %s", n, f[i], prev, out.String())
		}
		prev = v
	}
	total, _ := strconv.ParseFloat(f[5], 64)
	redirect, _ := strconv.ParseFloat(f[6], 64)
	if redirect <= 0 || redirect > total {
		t.Errorf("time_redirect %v, time_total %v", redirect, total)
	}
	if got := strings.Join(f[7:], " "); got != "1 1 127.0.0.1 1.1 HTTPS" {
		t.Errorf("redirects, connects, ip, version, scheme: %q", got)
	}
	// Over plain HTTP there is no handshake: its time is 0.
	base := rawHTTPServer(t, writeOutRoutes)
	out.Reset()
	Main([]string{"-q", "-s", "-o", "/dev/null", "-w", "%{time_appconnect} %{time_redirect} %{time_connect}", base + "/plain"}, nil, &out, &errOut)
	if f := strings.Fields(out.String()); len(f) != 3 || f[0] != "0.000000" || f[1] != "0.000000" || f[2] == "0.000000" {
		t.Errorf("plain http: appconnect, redirect, connect %q", out.String())
	}
}

// TestWriteOutServerText checks what a server's text becomes in -w's
// output: JSON escapes every control character in %{header_json} and
// %{json}, plain text shows none of them, and a Location's control
// characters are %-encoded in %{redirect_url}, its password masked.
func TestWriteOutServerText(t *testing.T) {
	base := rawHTTPServer(t, writeOutRoutes)
	run := func(format, path string, more ...string) string {
		var out, errOut bytes.Buffer
		Main(append([]string{"-q", "-s", "-o", "/dev/null", "-w", format}, append(more, base+path)...), nil, &out, &errOut)
		return out.String()
	}
	hj := run("%{header_json}", "/evil")
	var h map[string][]string
	if err := json.Unmarshal([]byte(hj), &h); err != nil {
		t.Fatalf("%%{header_json} is no JSON: %v: %q", err, hj)
	}
	if got := h["x-ctl"]; len(got) != 1 || got[0] != "a\x01b\x1b]0;title\x07\"\\\x7fé" {
		t.Errorf("x-ctl %q", got)
	}
	if got := h["content-type"]; len(got) != 1 || got[0] != "text/x\x1b[31m\"q\\\x01" {
		t.Errorf("content-type %q", got)
	}
	if strings.ContainsAny(hj, "\x01\x07\x1b") {
		t.Errorf("raw control characters in %q", hj)
	}
	js := run("%{json}", "/evil")
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil || m["content_type"] != "text/x\x1b[31m\"q\\\x01" {
		t.Errorf("%%{json}: %v, content_type %q", err, m["content_type"])
	}
	if got := run("%{content_type}|%header{x-ctl}", "/evil"); got != `text/x?[31m"q\?|a?b?]0;title?"\?é` {
		t.Errorf("plain text %q", got)
	}
	if got := run("%{redirect_url}", "/evil-loc", "-L", "--max-redirs", "0"); got != "http://u:****@127.0.0.1:1/a%1B[2Jb%01" {
		t.Errorf("redirect_url %q", got)
	}
}

// FuzzWriteOutServerText feeds a server's header fields and Location to
// what -w makes of them: %{header_json} is always JSON holding every
// field's value under its lower-cased name, plain text and
// %{redirect_url} never hold a control character, and the Location's
// password never shows.
func FuzzWriteOutServerText(f *testing.F) {
	f.Add("X-A", " a\x01b\x1b[31m ", "http://u:pw@h/a\x1bb")
	f.Add("Set-Cookie", "\"\\\xff\xc3\xa9", "/rel?q=\x7f#f")
	f.Add("", "", "//other:pw@x/")
	f.Fuzz(func(t *testing.T, name, value, loc string) {
		head := &schemes.Resource{StatusCode: 302, Header: [][2]string{{name, value}, {"location", loc}, {name, "second"}}}
		var h map[string][]string
		b := appendHeaderJSON(nil, head)
		if err := json.Unmarshal(b, &h); err != nil {
			t.Fatalf("not JSON: %v: %q", err, b)
		}
		got := h[strings.ToLower(name)]
		if len(got) < 2 || utf8.ValidString(value) && got[0] != strings.Trim(value, " \t") {
			t.Errorf("%q: %q, want %q first", name, got, value)
		}
		if text := appendText(nil, value); bytes.ContainsFunc(text, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f }) {
			t.Errorf("control characters in %q", text)
		}
		tr := &transfer{url: "http://127.0.0.1/start"}
		r := redirectURL(tr, &schemes.MetricsReport{Head: head})
		if strings.ContainsFunc(r, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Errorf("control characters in redirect_url %q", r)
		}
		if u, err := url.Parse(r); err == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok && pw != "****" && pw != "" {
				t.Errorf("password %q shows in %q", pw, r)
			}
		}
	})
}

// TestWriteOutFTPLikeCurl compares -w over FTP with curl's: the
// connections (the data connection counts, as curl counts it; a second
// URL reuses the control connection), the server's address, the scheme,
// a failure's reply code and exit status.
func TestWriteOutFTPLikeCurl(t *testing.T) {
	tree := fstest.MapFS{"f.txt": {Data: []byte("ftp file\n"), Mode: 0o644}}
	srv := ftptest.NewUnstartedServer(tree)
	srv.Anonymous = true
	srv.Start()
	t.Cleanup(srv.Close)
	format := "[%{num_connects}|%{remote_ip}|%{remote_port}|%{local_ip}|%{scheme}|%{size_download}|%{exitcode}|%{http_version}|%{method}|%{num_headers}|%{url_effective}|%{content_type}|%{redirect_url}]\n"
	for _, args := range [][]string{
		{srv.URL + "/f.txt", srv.URL + "/f.txt"},
		{srv.URL + "/missing.txt"},
	} {
		args = append([]string{"-s", "-o", "/dev/null", "-w", format}, args...)
		ours, theirs, oc, tc := runBoth(t, "", args...)
		if ours[0] != theirs[0] || oc != tc {
			t.Errorf("%q:\nurlget (exit %d) %q\ncurl   (exit %d) %q", args, oc, ours[0], tc, theirs[0])
		}
	}
	// A failure's reply code is the response code, as curl's.
	var out, errOut bytes.Buffer
	Main([]string{"-q", "-s", "-w", "%{response_code} %{http_code}", srv.URL + "/missing.txt"}, nil, &out, &errOut)
	if out.String() != "550 550" {
		t.Errorf("response code of a missing file %q", out.String())
	}
}

// TestWriteOutEachTransfer checks that -w is written after each
// transfer, in the order the URLs were given with -Z too, each with its
// own urlnum, connections and response.
func TestWriteOutEachTransfer(t *testing.T) {
	base := rawHTTPServer(t, writeOutRoutes)
	for _, z := range [][]string{nil, {"-Z"}} {
		var out, errOut bytes.Buffer
		args := append([]string{"-q", "-s", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{urlnum} %{http_code} %{size_download} %{num_headers}\n"}, z...)
		args = append(args, base+"/plain", base+"/dup", base+"/old")
		Main(args, nil, &out, &errOut)
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(z) > 0 {
			sort.Strings(lines)
		}
		if got := strings.Join(lines, "|"); got != "0 200 6 4|1 200 2 4|2 200 3 2" {
			t.Errorf("%q: %q", z, out.String())
		}
	}
}

// TestWriteOutMasksPasswords checks that no -w variable shows a password
// of the URL given, of the URL a redirect led to, or of the Referer sent.
func TestWriteOutMasksPasswords(t *testing.T) {
	const pw = "Zpw9secret"
	routes := map[string]string{
		"/to": "HTTP/1.1 302 Found\r\nLocation: http://u:" + pw + "@127.0.0.1:1/x\r\nContent-Length: 0\r\n\r\n",
		"/ok": "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
	}
	base := rawHTTPServer(t, routes)
	withPW := strings.Replace(base, "http://", "http://u:"+pw+"@", 1)
	for _, args := range [][]string{
		{withPW + "/ok"},
		{"-L", "--max-redirs", "0", base + "/to"},
		{"-e", "http://r:" + pw + "@127.0.0.1/", base + "/ok"},
	} {
		var out, errOut bytes.Buffer
		Main(append([]string{"-q", "-s", "-o", "/dev/null", "-w", "%{url} %{url_effective} %{redirect_url} %{referer} %{json}"}, args...), nil, &out, &errOut)
		if strings.Contains(out.String(), pw) || !strings.Contains(out.String(), "****") {
			t.Errorf("%q: %s", args, out.String())
		}
	}
}

// TestWriteOutHTTP2LikeCurl compares -w with curl's over HTTP/2: the
// version, the sizes of the heads as curl counts them, the connection
// reused by the second URL, and a redirect followed.
func TestWriteOutHTTP2LikeCurl(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/go" {
			http.Redirect(w, r, "/x", http.StatusFound)
			return
		}
		w.Header().Add("X-A", "1")
		w.Header().Add("X-A", "2")
		w.Write([]byte("hello\n"))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	format := "[%{http_version}|%{size_header}|%{size_request}|%{num_headers}|%{num_connects}|%{num_redirects}|%{remote_ip}|%{scheme}|%{http_code}|%header{x-a}]\n"
	for _, args := range [][]string{
		{"-o", "/dev/null", "-o", "/dev/null", srv.URL + "/", srv.URL + "/"},
		{"-L", "-o", "/dev/null", srv.URL + "/go"},
	} {
		args = append([]string{"-s", "-k", "-A", curlUA, "-w", format}, args...)
		ours, theirs, oc, tc := runBoth(t, "", args...)
		if ours[0] != theirs[0] || oc != tc {
			t.Errorf("%q:\nurlget (exit %d) %q\ncurl   (exit %d) %q", args, oc, ours[0], tc, theirs[0])
		}
	}
	// The server's certificate, in PEM.
	var out, errOut bytes.Buffer
	Main([]string{"-q", "-s", "-k", "-o", "/dev/null", "-w", "%{num_certs}\n%{certs}", srv.URL + "/"}, nil, &out, &errOut)
	want := "1\n" + string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	if out.String() != want {
		t.Errorf("certificates %q, want %q", out.String(), want)
	}
}

// connectProxy is an HTTP proxy on 127.0.0.1 that only tunnels (CONNECT,
// RFC 9110 §9.3.6), answering code; it returns its URL.
func connectProxy(t *testing.T, code int) string {
	return "http://" + serveTCP(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil || req.Method != http.MethodConnect || code != http.StatusOK {
			c.Write([]byte("HTTP/1.1 " + strconv.Itoa(code) + " " + http.StatusText(code) + "\r\nContent-Length: 0\r\n\r\n"))
			return
		}
		s, err := net.Dial("tcp", req.Host)
		if err != nil {
			return
		}
		defer s.Close()
		c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
		go io.Copy(s, br)
		io.Copy(c, s)
	})
}

// TestWriteOutProxyLikeCurl compares -w with curl's through a proxy that
// tunnels: the proxy's answer to CONNECT, its address as the remote one,
// and the heads counted.
func TestWriteOutProxyLikeCurl(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("tunnelled\n")) }))
	defer srv.Close()
	// (The sizes of the requests differ: curl's CONNECT carries a
	// User-Agent and Proxy-Connection, urlget's neither.)
	format := "[%{http_connect}|%{http_code}|%{remote_ip}|%{remote_port}|%{num_connects}|%{size_header}|%{exitcode}]\n"
	for _, code := range []int{http.StatusOK, http.StatusForbidden} {
		proxy := connectProxy(t, code)
		args := []string{"-s", "-k", "-A", curlUA, "-x", proxy, "-o", "/dev/null", "-w", format, srv.URL + "/"}
		ours, theirs, oc, tc := runBoth(t, "", args...)
		if ours[0] != theirs[0] || oc != tc {
			t.Errorf("%q:\nurlget (exit %d) %q\ncurl   (exit %d) %q", args, oc, ours[0], tc, theirs[0])
		}
	}
}

// TestWriteOutTimedNoPrefetch checks that a format reporting times or
// speeds keeps the next URL from starting before its turn, and one
// without them does not.
func TestWriteOutTimedNoPrefetch(t *testing.T) {
	for format, timed := range map[string]bool{
		"%{http_code}\n": false, "%{url} %{size_download}": false, "": false,
		"%{time_total}": true, "%{SPEED_download}": true, "%{json}": true,
	} {
		c := &command{opts: &options{writeOut: format, http: &httpscheme.Fetcher{}}}
		if got := c.prefetchable("https://127.0.0.1/x"); got == timed {
			t.Errorf("%q: prefetchable %v", format, got)
		}
	}
}
