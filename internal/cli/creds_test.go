package cli

import (
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/proxytest"
)

// credSeen is one request an echo server received: where it came in, and
// the credential fields it carried.
type credSeen struct {
	host, path          string
	auth, cookie, proxy string
}

// credServer is an HTTP server on a loopback address that records the
// credentials of every request and serves routes, as an attacker's server
// would to see what a client hands it.
type credServer struct {
	*httptest.Server
	hostPort string

	mu   sync.Mutex
	seen []credSeen
}

// newCredServer starts a credServer on ip (127.0.0.1, 127.0.0.2, …: all
// loopback on Linux) with the routes given; a route's value is a page
// body, or "->URL" for a 302 to URL. Every other path answers its own path.
func newCredServer(t *testing.T, ip string, routes func(s *credServer) map[string]string) *credServer {
	t.Helper()
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatalf("listen on %s: %v", ip, err)
	}
	s := &credServer{hostPort: l.Addr().String()}
	var table map[string]string
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, credSeen{host: r.Host, path: r.URL.Path, auth: r.Header.Get("Authorization"),
			cookie: r.Header.Get("Cookie"), proxy: r.Header.Get("Proxy-Authorization")})
		s.mu.Unlock()
		// A cookie for whoever asks, to see whether it travels.
		http.SetCookie(w, &http.Cookie{Name: "planted", Value: "from-" + s.hostPort})
		body, ok := table[r.URL.Path]
		switch {
		case ok && strings.HasPrefix(body, "->"):
			http.Redirect(w, r, body[2:], http.StatusFound)
		case ok:
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, body)
		default:
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "path "+r.URL.Path+"\n")
		}
	}))
	if routes != nil {
		table = routes(s)
	}
	s.Listener.Close()
	s.Listener = l
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// requests returns what the server saw.
func (s *credServer) requests() []credSeen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]credSeen(nil), s.seen...)
}

// saw reports whether a request for path came in.
func (s *credServer) saw(path string) bool {
	for _, r := range s.requests() {
		if r.path == path {
			return true
		}
	}
	return false
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// credSites is the attacker's playground of TestCredentials*: a start
// server, another port of the same address, another loopback host, the
// start server under another name (--resolve), and an FTP server on
// another port, the start page linking to all of them and redirecting to
// the other host.
type credSites struct {
	home, port2, host2 *credServer
	ftp                *ftptest.Server
	alias              string // the start server's port under another name
	noFTP              bool   // the run does not reach the FTP server (through an HTTP proxy)
}

func newCredSites(t *testing.T) *credSites {
	t.Helper()
	cs := &credSites{}
	cs.port2 = newCredServer(t, "127.0.0.1", nil)
	cs.host2 = newCredServer(t, "127.0.0.2", nil)
	tree := fstest.MapFS{"f.txt": {Data: []byte("ftp file\n"), Mode: 0o644}}
	cs.ftp = ftptest.NewUnstartedServer(tree)
	cs.ftp.Users = map[string]string{"alice": "secret"}
	cs.ftp.Start()
	t.Cleanup(cs.ftp.Close)
	cs.home = newCredServer(t, "127.0.0.1", func(s *credServer) map[string]string {
		_, port, _ := net.SplitHostPort(s.hostPort)
		cs.alias = "other.test:" + port
		return map[string]string{
			"/": fmt.Sprintf(`<html><body>
<a href="a.txt">same origin</a>
<a href="http://%s/b.txt">another port</a>
<a href="http://%s/c.txt">another host</a>
<a href="http://%s/d.txt">the same server by another name</a>
<a href="%s/f.txt">ftp on another port</a>
<a href="moved">a redirect to another host</a>
</body></html>`, cs.port2.hostPort, cs.host2.hostPort, cs.alias, cs.ftp.URL),
			"/moved": "->http://" + cs.host2.hostPort + "/moved.txt",
		}
	})
	return cs
}

// run runs a recursion from the start page with args before the URL,
// and fails the test unless every link was fetched.
func (cs *credSites) run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	_, port, _ := net.SplitHostPort(cs.home.hostPort)
	start := "http://" + cs.home.hostPort + "/"
	if len(args) > 0 && strings.Contains(args[len(args)-1], "@"+cs.home.hostPort+"/") {
		start, args = args[len(args)-1], args[:len(args)-1]
	}
	schemes := "http,ftp"
	if cs.noFTP {
		schemes = "http"
	}
	// robots.txt is asked for on every http server the walk meets: it
	// must carry no credentials either.
	args = append(append([]string{"--recursive", "--span-hosts", "--schemes", schemes, "--json-lines",
		"--resolve", "other.test:" + port + ":127.0.0.1", "--output-dir", dir}, args...), start)
	code, out, errOut := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("urlget %q: exit %d\n%s%s", args, code, out, errOut)
	}
	for _, p := range []struct {
		s    *credServer
		path string
	}{{cs.home, "/a.txt"}, {cs.port2, "/b.txt"}, {cs.host2, "/c.txt"}, {cs.home, "/d.txt"}, {cs.host2, "/moved.txt"}} {
		if !p.s.saw(p.path) {
			t.Fatalf("%s was never fetched from %s; output:\n%s%s", p.path, p.s.hostPort, out, errOut)
		}
	}
	if !cs.port2.saw("/robots.txt") || !cs.host2.saw("/robots.txt") {
		t.Fatalf("robots.txt was not asked for on the other servers")
	}
	if !cs.noFTP && !hasCommand(cs.ftp, "RETR f.txt") {
		t.Fatalf("the FTP file was never fetched: %q", cs.ftp.Commands())
	}
	return out + errOut
}

func hasCommand(s *ftptest.Server, cmd string) bool {
	for _, c := range s.Commands() {
		if c == cmd {
			return true
		}
	}
	return false
}

// homeRequest reports whether a request to the start server came for the
// start's own origin, not by the alias name.
func (cs *credSites) homeRequest(r credSeen) bool { return r.host == cs.home.hostPort }

// TestCredentialsRecursion: with -u, a start URL's userinfo, or -H
// Authorization and Cookie, a recursion that spans hosts hands them only
// to the start URL's scheme, host and port: not to another port of the
// same address, another loopback host, the same server by another name, a
// redirect's target, or an FTP server a link leads to (which sees an
// anonymous login). --location-trusted hands them to all. A cookie a
// server sets is sent back to no one.
func TestCredentialsRecursion(t *testing.T) {
	cases := []struct {
		name    string
		args    func(cs *credSites) []string
		auth    string // the Authorization the start's origin must see
		cookie  string
		trusted bool
	}{
		{"-u", func(*credSites) []string { return []string{"-u", "alice:secret"} }, basic("alice", "secret"), "", false},
		{"userinfo", func(cs *credSites) []string { return []string{"http://alice:secret@" + cs.home.hostPort + "/"} }, basic("alice", "secret"), "", false},
		{"-H", func(*credSites) []string {
			return []string{"-H", "Authorization: Bearer tok", "-H", "Cookie: sid=1"}
		}, "Bearer tok", "sid=1", false},
		{"-u trusted", func(*credSites) []string { return []string{"-u", "alice:secret", "--location-trusted"} }, basic("alice", "secret"), "", true},
		{"-H trusted", func(*credSites) []string {
			return []string{"-H", "Authorization: Bearer tok", "-H", "Cookie: sid=1", "--location-trusted"}
		}, "Bearer tok", "sid=1", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := newCredSites(t)
			dir := t.TempDir()
			out := cs.run(t, dir, tc.args(cs)...)
			for _, s := range []*credServer{cs.home, cs.port2, cs.host2} {
				for _, r := range s.requests() {
					home := s == cs.home && cs.homeRequest(r)
					wantAuth, wantCookie := "", ""
					if home || tc.trusted {
						wantAuth, wantCookie = tc.auth, tc.cookie
					}
					if r.auth != wantAuth {
						t.Errorf("%s%s (Host %s) got Authorization %q, want %q", s.hostPort, r.path, r.host, r.auth, wantAuth)
					}
					if r.cookie != wantCookie {
						t.Errorf("%s%s (Host %s) got Cookie %q, want %q", s.hostPort, r.path, r.host, r.cookie, wantCookie)
					}
				}
			}
			cmds := strings.Join(cs.ftp.Commands(), "\n")
			if tc.trusted && strings.Contains(tc.name, "-u") {
				if !strings.Contains(cmds, "USER alice") {
					t.Errorf("trusted: the FTP server did not see alice's login:\n%s", cmds)
				}
			} else {
				if strings.Contains(cmds, "alice") || strings.Contains(cmds, "secret") {
					t.Errorf("the FTP server a link led to saw the start's credentials:\n%s", cmds)
				}
				if !strings.Contains(cmds, "USER anonymous") {
					t.Errorf("the FTP server saw no anonymous login:\n%s", cmds)
				}
			}
			if strings.Contains(out, "secret") {
				t.Errorf("the password is in the output:\n%s", out)
			}
			// No local name holds the userinfo.
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if strings.Contains(p, "alice") || strings.Contains(p, "secret") {
					t.Errorf("local path %s holds the credentials", p)
				}
				return nil
			})
		})
	}
}

// TestCredentialsRedirect: a redirect (-L) carries -u, -H Authorization
// and -H Cookie on to the same origin only; another port, another host or
// another name for the same server gets none of them unless
// --location-trusted.
func TestCredentialsRedirect(t *testing.T) {
	port2 := newCredServer(t, "127.0.0.1", nil)
	host2 := newCredServer(t, "127.0.0.2", nil)
	var alias string
	home := newCredServer(t, "127.0.0.1", func(s *credServer) map[string]string {
		_, port, _ := net.SplitHostPort(s.hostPort)
		alias = "other.test:" + port
		return map[string]string{
			"/to-same": "->/echo",
			"/to-port": "->http://" + port2.hostPort + "/echo",
			"/to-host": "->http://" + host2.hostPort + "/echo",
			"/to-name": "->http://" + alias + "/echo",
			// Away and back: the start's origin has them again.
			"/to-back": "->http://" + host2.hostPort + "/../back",
		}
	})
	_, port, _ := net.SplitHostPort(home.hostPort)
	for _, trusted := range []bool{false, true} {
		for _, cred := range [][]string{
			{"-u", "alice:secret"},
			{"-H", "Authorization: Bearer tok", "-H", "Cookie: sid=1"},
		} {
			wantAuth, wantCookie := basic("alice", "secret"), ""
			if cred[0] == "-H" {
				wantAuth, wantCookie = "Bearer tok", "sid=1"
			}
			for _, path := range []string{"/to-same", "/to-port", "/to-host", "/to-name"} {
				args := append([]string{"-sL", "--resolve", "other.test:" + port + ":127.0.0.1"}, cred...)
				if trusted {
					args = append(args, "--location-trusted")
				}
				args = append(args, "http://"+home.hostPort+path)
				before := map[*credServer]int{home: len(home.requests()), port2: len(port2.requests()), host2: len(host2.requests())}
				if code, out, errOut := runCmd(t, args...); code != 0 || !strings.Contains(out, "path /echo") {
					t.Fatalf("urlget %q: exit %d\n%s%s", args, code, out, errOut)
				}
				n := 0
				for s, from := range before {
					for _, r := range s.requests()[from:] {
						n++
						if r.path != "/echo" {
							continue
						}
						wa, wc := "", ""
						if trusted || s == home && r.host == home.hostPort {
							wa, wc = wantAuth, wantCookie
						}
						if r.auth != wa || r.cookie != wc {
							t.Errorf("%q: %s/echo (Host %s) got Authorization %q Cookie %q, want %q %q", args, s.hostPort, r.host, r.auth, r.cookie, wa, wc)
						}
					}
				}
				if n != 2 {
					t.Errorf("%q: %d requests, want the redirect and its target", args, n)
				}
			}
		}
	}
}

// TestCredentialsNetrc: in a recursion a .netrc machine entry serves its
// own host (and port, where the entry names one) wherever the walk meets
// it; the default entry serves the start's origin only.
func TestCredentialsNetrc(t *testing.T) {
	cs := newCredSites(t)
	netrc := filepath.Join(t.TempDir(), "netrc")
	_, port2, _ := net.SplitHostPort(cs.port2.hostPort)
	text := fmt.Sprintf(`machine 127.0.0.2 login bob password bobpw
machine 127.0.0.1:%s login carol password carolpw
default login dave password davepw
`, port2)
	if err := os.WriteFile(netrc, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	out := cs.run(t, t.TempDir(), "--netrc-file", netrc)
	for _, s := range []*credServer{cs.home, cs.port2, cs.host2} {
		for _, r := range s.requests() {
			var want string
			switch {
			case s == cs.home && cs.homeRequest(r):
				want = basic("dave", "davepw")
			case s == cs.port2:
				want = basic("carol", "carolpw")
			case s == cs.host2:
				want = basic("bob", "bobpw")
			}
			if r.auth != want {
				t.Errorf("%s%s (Host %s) got Authorization %q, want %q", s.hostPort, r.path, r.host, r.auth, want)
			}
		}
	}
	cmds := strings.Join(cs.ftp.Commands(), "\n")
	if strings.Contains(cmds, "dave") || strings.Contains(cmds, "carol") || !strings.Contains(cmds, "USER anonymous") {
		t.Errorf("the FTP server on another port got a .netrc login meant for others:\n%s", cmds)
	}
	for _, pw := range []string{"davepw", "carolpw", "bobpw"} {
		if strings.Contains(out, pw) {
			t.Errorf("a .netrc password is in the output:\n%s", out)
		}
	}
}

// TestCredentialsProxy: the proxy's credentials (-U, or the proxy URL's
// userinfo) go to the proxy alone: not to the site as Authorization or
// Proxy-Authorization, not in the request's URL; the site's credentials
// go to the site, and through a recursion only to the start's origin.
func TestCredentialsProxy(t *testing.T) {
	clearProxyEnv(t)
	cs := newCredSites(t)
	// squid and the test proxy are no gateway to ftp: (501); the links
	// to it are left out.
	cs.noFTP = true
	p := proxytest.NewHTTPProxy(false)
	p.User, p.Pass = "puser", "ppass"
	p.Hosts = proxytest.Hosts{"other.test": "127.0.0.1"}
	t.Cleanup(p.Close)
	paddr := p.Listener.Addr().String()
	for _, proxyArgs := range [][]string{
		{"-x", "http://" + paddr, "-U", "puser:ppass"},
		{"-x", "http://puser:ppass@" + paddr},
	} {
		args := append([]string{"-u", "alice:secret"}, proxyArgs...)
		out := cs.run(t, t.TempDir(), args...)
		if strings.Contains(out, "ppass") || strings.Contains(out, "secret") {
			t.Errorf("%q: a password is in the output:\n%s", args, out)
		}
	}
	proxied := 0
	for _, e := range p.Log() {
		if e.Method == "GET" {
			proxied++
		}
		if strings.Contains(e.Target, "ppass") || strings.Contains(e.Target, "puser") || strings.Contains(e.Target, "secret") {
			t.Errorf("a request's URL holds credentials: %s %s", e.Method, e.Target)
		}
		if a := e.Header.Get("Authorization"); a == basic("puser", "ppass") {
			t.Errorf("the proxy's credentials went as Authorization: %s %s", e.Method, e.Target)
		}
	}
	if proxied == 0 {
		t.Fatalf("nothing went through the proxy: %+v", p.Log())
	}
	for _, s := range []*credServer{cs.home, cs.port2, cs.host2} {
		for _, r := range s.requests() {
			if r.proxy != "" || r.auth == basic("puser", "ppass") {
				t.Errorf("%s%s got the proxy's credentials: %q %q", s.hostPort, r.path, r.auth, r.proxy)
			}
			if want := basic("alice", "secret"); (r.auth == want) != (s == cs.home && cs.homeRequest(r)) {
				t.Errorf("%s%s (Host %s) got Authorization %q", s.hostPort, r.path, r.host, r.auth)
			}
		}
	}
}

// TestCredentialsNotShown: no password in -w's %{url} and %{url_effective}
// (curl prints %{url} as given; urlget masks it), in --json-lines, in messages
// or in the -v trace, however the URL was written: blanks or tabs around
// it, a <URL:…> wrapper, a port that does not parse, a server that is not
// there.
func TestCredentialsNotShown(t *testing.T) {
	const pw = "Zpw9secret"
	tree := fstest.MapFS{"f.txt": {Data: []byte("ftp file\n"), Mode: 0o644}}
	srv := ftptest.NewUnstartedServer(tree)
	srv.Users = map[string]string{"u": pw}
	srv.Start()
	t.Cleanup(srv.Close)
	web := newCredServer(t, "127.0.0.1", func(*credServer) map[string]string { return map[string]string{"/r": "->/f.txt"} })
	hostPort := strings.TrimPrefix(srv.URL, "ftp://")
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := l.Addr().String()
	l.Close()
	for _, raw := range []string{
		" ftp://u:" + pw + "@" + hostPort + "/f.txt ",
		"\tftp://u:" + pw + "@" + hostPort + "/f.txt\t",
		"<URL:ftp://u:" + pw + "@" + hostPort + "/f.txt>",
		"ftp://u:" + pw + "@" + hostPort + "/f.txt",
		"ftp://u:" + pw + "@" + hostPort + "/missing.txt",
		"ftp://u:" + pw + "x@" + hostPort + "/f.txt",
		"ftp://u:" + pw + "@" + closed + "/f.txt",
		"ftp://u:" + pw + "@127.0.0.1:bad/f.txt",
		"ftp://u:" + pw + "@127.0.0.1:99999/f.txt",
		" http://u:" + pw + "@" + web.hostPort + "/r ",
	} {
		out := filepath.Join(t.TempDir(), "out")
		for _, extra := range [][]string{{"--json-lines", "-o", out}, {"-v", "-o", out}, {"-o", out}, {}} {
			args := append([]string{"-w", "%{url} %{url_effective} %{errormsg}\n"}, extra...)
			args = append(args, raw)
			code, stdout, stderr := runCmd(t, args...)
			all := stdout + stderr
			if strings.Contains(all, pw) || strings.Contains(all, base64.StdEncoding.EncodeToString([]byte("u:"+pw))) {
				t.Errorf("urlget %q (exit %d) shows the password:\n%s", args, code, all)
			}
			if !strings.Contains(all, "****") {
				t.Errorf("urlget %q (exit %d) shows no masked URL:\n%s", args, code, all)
			}
		}
	}
}
