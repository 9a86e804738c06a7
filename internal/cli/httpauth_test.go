package cli

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// digestParam reads the parameters of a Digest credentials field.
var digestParam = regexp.MustCompile(`(\w+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))`)

// digestSite is a server that asks for Digest credentials (RFC 7616) and
// checks them as the RFC computes them, independently of the client's
// code: the path /ALG/QOP names the algorithm and qop it offers
// ("none" for an RFC 2069 challenge without qop). It records the
// Authorization field of every request.
type digestSite struct {
	*httptest.Server
	user, password string

	mu    sync.Mutex
	auths []string
}

func newDigestSite(t *testing.T, user, password string) *digestSite {
	s := &digestSite{user: user, password: password}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *digestSite) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auths...)
}

func (s *digestSite) serve(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	s.mu.Lock()
	s.auths = append(s.auths, auth)
	s.mu.Unlock()
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 2 {
		http.NotFound(w, r)
		return
	}
	alg, qop := parts[0], parts[1]
	const realm, nonce, opaque = "test realm", "n0nce-1", "0paque"
	if checkDigest(auth, r.Method, s.user, s.password, alg, qop, realm, nonce, opaque) {
		fmt.Fprintf(w, "welcome by %s\n", alg)
		return
	}
	ch := `Digest realm="` + realm + `", nonce="` + nonce + `", opaque="` + opaque + `"`
	if qop != "none" {
		ch += `, qop="` + qop + `"`
	}
	if alg != "none" {
		ch += ", algorithm=" + alg
	}
	w.Header().Add("WWW-Authenticate", `Basic realm="`+realm+`"`)
	w.Header().Add("WWW-Authenticate", ch)
	http.Error(w, "who are you", http.StatusUnauthorized)
}

// checkDigest checks a Digest credentials field as RFC 7616 §3.4.1
// computes its response.
func checkDigest(auth, method, name, password, alg, qop, realm, nonce, opaque string) bool {
	rest, ok := strings.CutPrefix(auth, "Digest ")
	if !ok {
		return false
	}
	p := map[string]string{}
	for _, m := range digestParam.FindAllStringSubmatch(rest, -1) {
		p[m[1]] = m[2] + m[3]
	}
	var newHash func() hash.Hash
	switch strings.TrimSuffix(alg, "-sess") {
	case "none", "MD5":
		newHash = md5.New
	case "SHA-256":
		newHash = sha256.New
	case "SHA-512-256":
		newHash = sha512.New512_256
	}
	h := func(s string) string {
		d := newHash()
		d.Write([]byte(s))
		return hex.EncodeToString(d.Sum(nil))
	}
	user := name
	if p["userhash"] == "true" {
		user = h(name + ":" + realm)
	}
	if p["username"] != user || p["realm"] != realm || p["nonce"] != nonce || p["opaque"] != opaque {
		return false
	}
	ha1 := h(name + ":" + realm + ":" + password)
	if strings.HasSuffix(alg, "-sess") {
		ha1 = h(ha1 + ":" + nonce + ":" + p["cnonce"])
	}
	ha2 := h(method + ":" + p["uri"])
	if qop == "none" {
		return p["response"] == h(ha1+":"+nonce+":"+ha2)
	}
	if p["qop"] == "auth-int" {
		ha2 = h(method + ":" + p["uri"] + ":" + h(""))
	}
	return p["qop"] != "" && strings.Contains(qop, p["qop"]) &&
		p["response"] == h(ha1+":"+nonce+":"+p["nc"]+":"+p["cnonce"]+":"+p["qop"]+":"+ha2)
}

// TestDigestAuth: --digest answers the server's Digest challenge (RFC
// 7616) for each algorithm and qop curl 7.88 answers and SHA-512-256, the
// first request
// going without credentials, as curl's; the site's checker is first
// proved against curl itself where it is installed.
func TestDigestAuth(t *testing.T) {
	s := newDigestSite(t, "alice", `p"w:1`)
	for _, path := range []string{"/MD5/auth", "/none/none", "/MD5-sess/auth", "/SHA-256/auth", "/SHA-256-sess/auth", "/SHA-512-256/auth", "/MD5/auth-int", "/SHA-256/auth,auth-int"} {
		u := s.URL + path + "?q=1"
		// curl 7.88 has no SHA-512-256 (curl 8.8 added it).
		if _, err := lookCurl(t); err == nil && !strings.HasPrefix(path, "/SHA-512-256") {
			if code := curlStatus(t, "-f", "--digest", "-u", `alice:p"w:1`, u); code != 0 {
				t.Errorf("%s: curl exits %d: the checker is wrong", path, code)
			}
		}
		s.mu.Lock()
		s.auths = nil
		s.mu.Unlock()
		code, out, errOut := runCmd(t, "-sS", "--digest", "-u", `alice:p"w:1`, u)
		if code != 0 || !strings.HasPrefix(out, "welcome") {
			t.Errorf("%s: exit %d, %q, %s", path, code, out, errOut)
		}
		if seen := s.seen(); len(seen) != 2 || seen[0] != "" || !strings.HasPrefix(seen[1], "Digest ") {
			t.Errorf("%s: Authorization fields %q, want none then Digest", path, seen)
		}
	}
	// -i shows the challenge's 401, then the answer's 200, as curl's.
	statusLines := func(out string) (lines []string) {
		for _, l := range strings.Split(out, "\r\n") {
			if strings.HasPrefix(l, "HTTP/") {
				lines = append(lines, l)
			}
		}
		return lines
	}
	_, out, _ := runCmd(t, "-s", "-i", "--digest", "-u", `alice:p"w:1`, s.URL+"/MD5/auth")
	if got := statusLines(out); len(got) != 2 || got[0] != "HTTP/1.1 401 Unauthorized" || got[1] != "HTTP/1.1 200 OK" {
		t.Errorf("-i: status lines %q", got)
	}
	if curl, err := lookCurl(t); err == nil {
		want, _ := exec.Command(curl, "-s", "-i", "--digest", "-u", `alice:p"w:1`, s.URL+"/MD5/auth").Output()
		if !slicesEqual(statusLines(string(want)), statusLines(out)) {
			t.Errorf("-i: status lines %q, curl's %q", statusLines(out), statusLines(string(want)))
		}
	}
	// A wrong password: the answer fails, and only once (exit 22 with -f).
	s.mu.Lock()
	s.auths = nil
	s.mu.Unlock()
	if code, _, _ := runCmd(t, "-sf", "--digest", "-u", "alice:wrong", s.URL+"/MD5/auth"); code != exitHTTP {
		t.Errorf("wrong password: exit %d", code)
	}
	if seen := s.seen(); len(seen) != 2 {
		t.Errorf("wrong password: %d requests, want 2", len(seen))
	}
}

// TestAnyAuth: --anyauth sends the first request without credentials and
// answers with the strongest scheme offered: Digest when the server offers
// it besides Basic, Basic when it offers only that.
func TestAnyAuth(t *testing.T) {
	s := newDigestSite(t, "bob", "pw")
	code, out, _ := runCmd(t, "-s", "--anyauth", "-u", "bob:pw", s.URL+"/SHA-256/auth")
	if seen := s.seen(); code != 0 || !strings.HasPrefix(out, "welcome") || len(seen) != 2 || seen[0] != "" || !strings.HasPrefix(seen[1], "Digest ") {
		t.Errorf("exit %d, %q, %q", code, out, seen)
	}
	var mu sync.Mutex
	var auths []string
	basicOnly := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		if u, p, ok := r.BasicAuth(); ok && u == "bob" && p == "pw" {
			fmt.Fprintln(w, "basic ok")
			return
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer basicOnly.Close()
	code, out, _ = runCmd(t, "-s", "--anyauth", "-u", "bob:pw", basicOnly.URL+"/")
	if code != 0 || out != "basic ok\n" || len(auths) != 2 || auths[0] != "" || auths[1] != basic("bob", "pw") {
		t.Errorf("basic only: exit %d, %q, %q", code, out, auths)
	}
	// --digest against a server offering only Basic: no credentials go.
	auths = nil
	if code, _, _ := runCmd(t, "-sf", "--digest", "-u", "bob:pw", basicOnly.URL+"/"); code != exitHTTP || len(auths) != 1 || auths[0] != "" {
		t.Errorf("--digest, Basic offered: exit %d, %q", code, auths)
	}
	// --basic, the default, sends them at once; the last scheme given wins.
	auths = nil
	if code, _, _ := runCmd(t, "-s", "--digest", "--basic", "-u", "bob:pw", basicOnly.URL+"/"); code != 0 || len(auths) != 1 || auths[0] != basic("bob", "pw") {
		t.Errorf("--basic: exit %d, %q", code, auths)
	}
}

// TestOAuth2Bearer: --oauth2-bearer sends "Authorization: Bearer", in
// place of -u's credentials, as curl does.
func TestOAuth2Bearer(t *testing.T) {
	s := newRawHTTP(t, okAnswer)
	got := sameRequestAsCurl(t, s, "-A", "a", "--oauth2-bearer", "t0k.en", "http://"+s.addr+"/")
	if !strings.Contains(got, "\r\nAuthorization: Bearer t0k.en\r\n") {
		t.Errorf("request %q", got)
	}
	if code, _, _ := runCmd(t, "--oauth2-bearer", "a\r\nX: y", "http://"+s.addr+"/"); code != exitUsage {
		t.Errorf("a token with CRLF: exit %d", code)
	}
}

// TestAuthNotRedirected: an attacker's redirect to another port (another
// origin) receives no Authorization, whatever the scheme: Basic, Bearer,
// or a Digest answer; --location-trusted sends Basic and Bearer on, as
// curl's does.
func TestAuthNotRedirected(t *testing.T) {
	var mu sync.Mutex
	var got []string
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Digest realm="evil", nonce="n", qop="auth"`)
		http.Error(w, "again", http.StatusUnauthorized)
	}))
	defer evil.Close()
	s := newDigestSite(t, "carol", "pw")
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/go" {
			http.Redirect(w, r, evil.URL+"/stolen", http.StatusFound)
			return
		}
		s.serve(w, r)
	}))
	defer home.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(evil.URL, "http://"))
	for _, args := range [][]string{
		{"-u", "carol:pw"},
		{"--oauth2-bearer", "secret-token"},
		{"--digest", "-u", "carol:pw"},
		{"--anyauth", "-u", "carol:pw"},
		{"-H", "Authorization: Bearer hdr"},
	} {
		mu.Lock()
		got = nil
		mu.Unlock()
		runCmd(t, append([]string{"-sL"}, append(args, home.URL+"/go")...)...)
		mu.Lock()
		if len(got) == 0 {
			t.Errorf("%q: the redirect to port %s was not followed", args, port)
		}
		for _, a := range got {
			if a != "" {
				t.Errorf("%q: port %s received Authorization %q", args, port, a)
			}
		}
		mu.Unlock()
	}
	for _, args := range [][]string{{"-u", "carol:pw"}, {"--oauth2-bearer", "secret-token"}} {
		mu.Lock()
		got = nil
		mu.Unlock()
		runCmd(t, append([]string{"-sL", "--location-trusted"}, append(args, home.URL+"/go")...)...)
		mu.Lock()
		if len(got) == 0 || got[0] == "" {
			t.Errorf("%q --location-trusted: %q", args, got)
		}
		mu.Unlock()
	}
}

// digestProxyAnswer is a proxy on a rawHTTP that asks for Digest
// credentials (407, the connection kept) and, given valid ones, answers
// a GET with a page and a CONNECT with the tunnel's 200.
func digestProxyAnswer(_ int, head string) string {
	line, _, _ := strings.Cut(head, "\r\n")
	method, _, _ := strings.Cut(line, " ")
	if checkDigest(proxyAuthOf(head), method, "pu", "ppw", "MD5", "auth", "proxy", "pn", "po") {
		if method == "CONNECT" {
			// Closed at once: no TLS speaks behind it.
			return "HTTP/1.1 200 Connection established\r\nConnection: close\r\n\r\n"
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nproxied\n"
	}
	return "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Digest realm=\"proxy\", nonce=\"pn\", opaque=\"po\", qop=\"auth\", algorithm=MD5\r\nContent-Length: 4\r\n\r\nwho?"
}

// TestProxyDigest: --proxy-digest answers an HTTP proxy's Digest
// challenge, on a request for an http: URL through it and on a CONNECT,
// the first request going without credentials; --proxy-header's fields
// go to the proxy, on the CONNECT too, where -H's do not. The proxy's
// checker is first proved against curl where it is installed.
func TestProxyDigest(t *testing.T) {
	clearProxyEnv(t)
	p := newRawHTTP(t, digestProxyAnswer)
	proxy := "http://" + p.addr
	args := []string{"-x", proxy, "-U", "pu:ppw", "--proxy-digest", "--proxy-header", "X-To-Proxy: 1", "-H", "X-To-Site: 2", "http://site.test/page"}
	if _, err := lookCurl(t); err == nil {
		curlStatus(t, args...)
		if reqs := p.requests(); len(reqs) != 2 || !checkDigest(proxyAuthOf(reqs[1]), "GET", "pu", "ppw", "MD5", "auth", "proxy", "pn", "po") ||
			!strings.Contains(proxyAuthOf(reqs[1]), `uri="/page"`) {
			t.Fatalf("the checker refuses curl's requests %q", reqs)
		}
		p.reset()
	}
	code, out, errOut := runCmd(t, append([]string{"-s"}, args...)...)
	reqs := p.requests()
	if code != 0 || out != "proxied\n" || len(reqs) != 2 {
		t.Fatalf("exit %d, %q, %s, requests %q", code, out, errOut, reqs)
	}
	if proxyAuthOf(reqs[0]) != "" || !strings.Contains(reqs[1], "\r\nX-To-Proxy: 1\r\n") || !strings.Contains(reqs[1], "\r\nX-To-Site: 2\r\n") {
		t.Errorf("requests %q", reqs)
	}
	// The digest's uri is the origin form, as curl's.
	if !strings.Contains(proxyAuthOf(reqs[1]), `uri="/page"`) {
		t.Errorf("Proxy-Authorization %q", proxyAuthOf(reqs[1]))
	}
	// https: the CONNECT is answered, on the same connection or, when
	// the proxy closes it after its challenge, on a new one; the tunnel
	// leads nowhere TLS speaks, which fails the transfer after it.
	closing := newRawHTTP(t, func(n int, head string) string {
		a := digestProxyAnswer(n, head)
		return strings.Replace(a, "407 Proxy Authentication Required\r\n", "407 Proxy Authentication Required\r\nConnection: close\r\n", 1)
	})
	for _, p := range []*rawHTTP{p, closing} {
		p.reset()
		runCmd(t, "-s", "-x", "http://"+p.addr, "-U", "pu:ppw", "--proxy-digest", "--proxy-header", "X-To-Proxy: 1", "-H", "X-To-Site: 2", "https://site.test/page")
		reqs = p.requests()
		if len(reqs) != 2 || !strings.HasPrefix(reqs[1], "CONNECT site.test:443 HTTP/1.1\r\n") || proxyAuthOf(reqs[0]) != "" ||
			!checkDigest(proxyAuthOf(reqs[1]), "CONNECT", "pu", "ppw", "MD5", "auth", "proxy", "pn", "po") {
			t.Fatalf("CONNECT requests %q", reqs)
		}
		for _, r := range reqs {
			if !strings.Contains(r, "\r\nX-To-Proxy: 1\r\n") || strings.Contains(r, "X-To-Site") {
				t.Errorf("CONNECT %q: --proxy-header's field missing or -H's sent", r)
			}
		}
	}
}

// proxyAuthOf is the Proxy-Authorization of a request's head.
func proxyAuthOf(head string) string {
	for _, l := range strings.Split(head, "\r\n") {
		if k, v, ok := strings.Cut(l, ": "); ok && strings.EqualFold(k, "Proxy-Authorization") {
			return v
		}
	}
	return ""
}

// TestProxyHeaderGateway: --proxy-header's fields go on the request an
// HTTP proxy gateways for an ftp: URL, which is the proxy's alone.
func TestProxyHeaderGateway(t *testing.T) {
	clearProxyEnv(t)
	p := newRawHTTP(t, func(int, string) string {
		return "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfile\n"
	})
	code, out, errOut := runCmd(t, "-s", "-x", "http://"+p.addr, "--proxy-header", "X-To-Proxy: 1", "ftp://site.test/f.txt")
	reqs := p.requests()
	if code != 0 || out != "file\n" || len(reqs) != 1 || !strings.HasPrefix(reqs[0], "GET ftp://site.test/f.txt;type=i HTTP/1.1\r\n") || !strings.Contains(reqs[0], "\r\nX-To-Proxy: 1\r\n") {
		t.Errorf("exit %d, %q, %s, requests %q", code, out, errOut, reqs)
	}
}

// TestProxyRequestAsCurl: a request for an http: URL through an HTTP
// proxy carries the proxy's Basic credentials right after Host, the
// site's next, then the defaults, -H's fields and --proxy-header's last,
// as curl writes it (but for curl's Proxy-Connection, which urlget does
// not send: RFC 9112 knows no such field).
func TestProxyRequestAsCurl(t *testing.T) {
	clearProxyEnv(t)
	p := newRawHTTP(t, okAnswer)
	args := []string{"-s", "-A", "a", "-x", "http://" + p.addr, "-U", "pu:pp", "-u", "a:b", "-H", "X-S: 2", "--proxy-header", "X-P: 1", "http://site.test/x"}
	runCmd(t, args...)
	ours := p.requests()
	want := "GET http://site.test/x HTTP/1.1\r\nHost: site.test\r\nProxy-Authorization: " + basic("pu", "pp") + "\r\nAuthorization: " + basic("a", "b") +
		"\r\nUser-Agent: a\r\nAccept: */*\r\nX-S: 2\r\nX-P: 1\r\n\r\n"
	if len(ours) != 1 || ours[0] != want {
		t.Errorf("request %q, want %q", ours, want)
	}
	if _, err := lookCurl(t); err == nil {
		p.reset()
		curlStatus(t, args[1:]...)
		curl := p.requests()
		if len(curl) != 1 || strings.Replace(curl[0], "Proxy-Connection: Keep-Alive\r\n", "", 1) != want {
			t.Errorf("curl's request %q", curl)
		}
	}
}
