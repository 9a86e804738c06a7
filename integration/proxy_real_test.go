package integration

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/news"
	"github.com/urlget/urlget/uri"
)

// proxyLog is a real proxy's log from a point on: what the proxy wrote
// after mark was called.
type proxyLog struct {
	path string
	from int64
}

// markLog notes where the proxy's log ends now.
func markLog(t *testing.T, path string) proxyLog {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatalf("proxy log: %v", err)
	}
	return proxyLog{path, st.Size()}
}

// since returns what the proxy logged after the mark.
func (l proxyLog) since(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(l.path)
	if err != nil {
		t.Fatalf("proxy log: %v", err)
	}
	if int64(len(b)) < l.from {
		return ""
	}
	return string(b[l.from:])
}

// waitFor waits, at most 5 seconds, until the proxy has logged each of
// want since the mark (a proxy logs a request once it ends), and fails the
// test naming what is missing.
func (l proxyLog) waitFor(t *testing.T, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := l.since(t)
		missing := ""
		for _, w := range want {
			if !strings.Contains(got, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the proxy's log %s does not show %q; since the test began it holds:\n%s", l.path, missing, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// proxied fetches each URL with a client whose every URL goes through
// proxy except those of the host "localhost" (the no_proxy list), and
// returns the bodies, or the listings' entries' URLs, one string each.
type proxied struct {
	c *fetch.Client
}

func newProxied(t *testing.T, proxyURL string, tunnel bool) proxied {
	t.Helper()
	c := &fetch.Client{Proxy: fetch.ProxyURL(&fetch.Proxy{URL: uri.MustParse(proxyURL), Tunnel: tunnel}, "localhost")}
	if cert := os.Getenv("URLGET_NGINX_CERT"); cert != "" {
		pem, err := os.ReadFile(cert)
		if err != nil {
			t.Fatal(err)
		}
		roots := x509.NewCertPool()
		roots.AppendCertsFromPEM(pem)
		c.TLSConfig = &tls.Config{RootCAs: roots}
	}
	t.Cleanup(func() { c.Close() })
	return proxied{c}
}

// get fetches url and returns its body, or its listing's entries as
// "kind name" lines.
func (p proxied) get(t *testing.T, url string) string {
	t.Helper()
	res, err := p.c.Fetch(testCtx(t), url)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	if res.Listing != nil {
		var lines []string
		for _, e := range readEntries(t, res) {
			lines = append(lines, e.Kind.String()+" "+e.Name+" "+e.URL)
		}
		return strings.Join(lines, "\n")
	}
	return string(readBody(t, res))
}

// localhostURL names the same server as url by the name "localhost",
// which the no_proxy list of newProxied holds.
func localhostURL(url string) string {
	return strings.Replace(url, "127.0.0.1", "localhost", 1)
}

// checkNoProxy fetches url by the name localhost, which must go direct,
// then marker through the proxy; once the proxy has logged the marker it
// must not have logged the first.
func (p proxied) checkNoProxy(t *testing.T, log proxyLog, url, want, marker, markerLog, notLog string) {
	t.Helper()
	if got := p.get(t, localhostURL(url)); got != want {
		t.Fatalf("%s direct: %q, want %q", localhostURL(url), got, want)
	}
	p.get(t, marker)
	if got := log.waitFor(t, markerLog); strings.Contains(got, notLog) {
		t.Errorf("the no_proxy host went through the proxy: its log shows %q:\n%s", notLog, got)
	}
}

// proxyFTPTree writes a directory with a file and a subdirectory into the
// anonymous root of vsftpd and returns its ftp: URL and the file's text.
func proxyFTPTree(t *testing.T) (dirURL, text string) {
	t.Helper()
	v := realServer(t, "URLGET_VSFTPD_ADDR", "URLGET_VSFTPD_ROOT")
	dir, err := os.MkdirTemp(v[1], "proxy-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	text = "through the proxy " + filepath.Base(dir) + "\n"
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a file.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// vsftpd serves anonymous users only what the world may read.
	for _, p := range []string{dir, filepath.Join(dir, "sub")} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return "ftp://" + v[0] + "/" + filepath.Base(dir) + "/", text
}

// nginxFile writes a file into nginx's root and returns its http: URL
// and text.
func nginxFile(t *testing.T) (url, text string) {
	t.Helper()
	_, dir, urlDir := nginxServer(t)
	text = "over http " + filepath.Base(dir) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return urlDir + "/f.txt", text
}

// hostPort is a URL's host:port as proxies log it.
func hostPort(url string) string {
	return uri.MustParse(url).Addr()
}

func squid(t *testing.T) (url string, log proxyLog) {
	t.Helper()
	v := realServer(t, "URLGET_SQUID_URL", "URLGET_SQUID_LOG")
	return v[0], markLog(t, v[1])
}

// http through squid: the absolute-form request (RFC 9112 §3.2.2), which
// squid logs with the whole URL.
func TestSquidHTTP(t *testing.T) {
	proxyURL, log := squid(t)
	url, text := nginxFile(t)
	p := newProxied(t, proxyURL, false)
	if got := p.get(t, url); got != text {
		t.Fatalf("got %q, want %q", got, text)
	}
	log.waitFor(t, "GET "+url)
	p.checkNoProxy(t, log, url, text, url+"?again", "GET "+url+"?again", localhostURL(url))
}

// https through squid: a CONNECT tunnel (RFC 9110 §9.3.6), the TLS inside
// it between urlget and nginx.
func TestSquidHTTPS(t *testing.T) {
	proxyURL, log := squid(t)
	env := realServer(t, "URLGET_NGINX_TLS_URL", "URLGET_NGINX_CERT")
	url, text := nginxFile(t)
	url = env[0] + url[strings.Index(url[len("http://"):], "/")+len("http://"):]
	p := newProxied(t, proxyURL, false)
	if got := p.get(t, url); got != text {
		t.Fatalf("got %q, want %q", got, text)
	}
	// squid logs a tunnel when it closes.
	p.c.Close()
	log.waitFor(t, "CONNECT "+hostPort(url))
}

// ftp through squid's gateway in front of vsftpd: GET ftp://… to the
// proxy, a file as its bytes and a directory as squid's HTML listing
// turned into entries.
func TestSquidFTPGateway(t *testing.T) {
	proxyURL, log := squid(t)
	dirURL, text := proxyFTPTree(t)
	p := newProxied(t, proxyURL, false)
	fileURL := dirURL + "a%20file.txt"
	if got := p.get(t, fileURL); got != text {
		t.Fatalf("file: got %q, want %q", got, text)
	}
	want := "file a file.txt " + fileURL + "\ndirectory sub " + dirURL + "sub/"
	if got := p.get(t, dirURL); got != want {
		t.Fatalf("listing:\n%s\nwant\n%s", got, want)
	}
	// A directory named without its '/': squid lists it all the same.
	if got := p.get(t, strings.TrimSuffix(dirURL, "/")); got != want {
		t.Fatalf("listing without '/':\n%s\nwant\n%s", got, want)
	}
	log.waitFor(t, "GET "+fileURL, "GET "+dirURL)
	_, err := p.c.Fetch(testCtx(t), dirURL+"missing.txt")
	if !errors.Is(err, schemes.ErrNotFound) {
		t.Errorf("missing file: %v, want not found", err)
	}
	p.checkNoProxy(t, log, fileURL, text, dirURL+"sub/", "GET "+dirURL+"sub/", localhostURL(dirURL))
}

// ftp through squid with Tunnel (curl's -p): CONNECT for the control
// connection and one for each passive data connection, the RFC 1738 walk
// kept.
func TestSquidFTPTunnel(t *testing.T) {
	proxyURL, log := squid(t)
	dirURL, text := proxyFTPTree(t)
	p := newProxied(t, proxyURL, true)
	if got := p.get(t, dirURL+"a%20file.txt"); got != text {
		t.Fatalf("file: got %q, want %q", got, text)
	}
	if got := p.get(t, dirURL); !strings.Contains(got, "file a file.txt ") || !strings.Contains(got, "directory sub ") {
		t.Fatalf("listing:\n%s", got)
	}
	p.c.Close()
	got := log.waitFor(t, "CONNECT "+hostPort(dirURL))
	if n := strings.Count(got, "CONNECT 127.0.0.1:"); n < 3 {
		t.Errorf("%d CONNECT tunnels, want the control connection's and one per data connection:\n%s", n, got)
	}
	if strings.Contains(got, "GET ftp://") {
		t.Errorf("with Tunnel the gateway was used:\n%s", got)
	}
}

// gopher through squid: squid 5 no longer gateways gopher: and answers
// 501, so the fetch goes on through a CONNECT tunnel to gophernicus, and
// the run's next gopher URL goes that way at once; with Tunnel it goes
// so from the start.
func TestSquidGopher(t *testing.T) {
	proxyURL, log := squid(t)
	tree := gophernicus(t)
	url := tree.base + "/0" + tree.sel + "/hello.txt"
	p := newProxied(t, proxyURL, false)
	for i := range 2 {
		if got := p.get(t, url); !strings.HasPrefix(got, "Hello from gophernicus\n") {
			t.Fatalf("gateway, fetch %d: got %q", i, got)
		}
	}
	if got := log.waitFor(t, "CONNECT "+hostPort(url)); strings.Count(got, "gopher://") > 1 {
		t.Errorf("the gateway was asked again after its 501:\n%s", got)
	}
	p = newProxied(t, proxyURL, true)
	if got := p.get(t, url); !strings.HasPrefix(got, "Hello from gophernicus\n") {
		t.Fatalf("tunnel: got %q", got)
	}
}

// nntp through squid: a CONNECT tunnel to INN.
func TestSquidNNTP(t *testing.T) {
	proxyURL, log := squid(t)
	log.waitFor(t, "CONNECT "+newsThrough(t, proxyURL))
}

// newsThrough posts an article to INN and reads it back by its
// message-id through proxyURL, returning INN's address.
func newsThrough(t *testing.T, proxyURL string) string {
	t.Helper()
	addr := innAddr(t, "URLGET_INN_ADDR")
	posted := innArticles("urlget.test")[:1]
	innPost(t, addr, posted)
	p := newProxied(t, proxyURL, false)
	p.c.Fetchers = registryWith(&news.Fetcher{Server: addr})
	innCheckArticle(t, p.get(t, "news:"+uri.EscapeSegment(posted[0].id)), posted[0])
	// The session ends here: squid logs a tunnel when it closes.
	p.c.Close()
	return addr
}

// socksAddr is the form dante logs an address in: "127.0.0.1.port".
func socksAddr(hostport string) string {
	return strings.Replace(hostport, ":", ".", 1)
}

// Every scheme with a real server through dante's SOCKS5, without and
// with a password (RFC 1929): http, ftp in passive mode (the data
// connection through the proxy too), nntp and gopher. dante logs each
// connection it passes with its destination.
func TestDante(t *testing.T) {
	env := realServer(t, "URLGET_DANTE_ADDR", "URLGET_DANTE_AUTH_ADDR", "URLGET_DANTE_USER", "URLGET_DANTE_PASS", "URLGET_DANTE_LOG")
	for _, tc := range []struct{ name, proxyURL, client string }{
		{"no-auth", "socks5h://" + env[0], ": 127.0.0.1."},
		// dante names the user it logged in before the client's address.
		{"password", "socks5h://" + uri.EscapeSegment(env[2]) + ":" + uri.EscapeSegment(env[3]) + "@" + env[1], ": username%" + env[2] + "@127.0.0.1."},
	} {
		proxyURL := tc.proxyURL
		t.Run(tc.name, func(t *testing.T) {
			log := markLog(t, env[4])
			p := newProxied(t, proxyURL, false)

			url, text := nginxFile(t)
			if got := p.get(t, url); got != text {
				t.Fatalf("http: got %q, want %q", got, text)
			}
			log.waitFor(t, "tcp/connect ["+tc.client, socksAddr(hostPort(url)))

			dirURL, text := proxyFTPTree(t)
			log = markLog(t, env[4])
			if got := p.get(t, dirURL+"a%20file.txt"); got != text {
				t.Fatalf("ftp: got %q, want %q", got, text)
			}
			// dante logs a connection as it opens ("[:") and as it ends.
			got := log.waitFor(t, socksAddr(hostPort(dirURL)))
			// The control connection and the passive data connection.
			if n := strings.Count(got, "tcp/connect [:"); n < 2 {
				t.Errorf("ftp: %d connections through the proxy, want the control and the data connection:\n%s", n, got)
			}

			tree := gophernicus(t)
			gurl := tree.base + "/0" + tree.sel + "/hello.txt"
			if got := p.get(t, gurl); !strings.HasPrefix(got, "Hello from gophernicus\n") {
				t.Fatalf("gopher: got %q", got)
			}
			log.waitFor(t, socksAddr(hostPort(gurl)))

			log.waitFor(t, socksAddr(newsThrough(t, proxyURL)))

			// no_proxy: localhost goes direct.
			log = markLog(t, env[4])
			url, text = nginxFile(t)
			p.checkNoProxy(t, log, url, text, gurl, socksAddr(hostPort(gurl)), socksAddr(hostPort(url)))
		})
	}
}

// tinyproxy as a CONNECT-only proxy: https, and ftp with Tunnel.
func TestTinyproxy(t *testing.T) {
	env := realServer(t, "URLGET_TINYPROXY_URL", "URLGET_TINYPROXY_LOG", "URLGET_NGINX_TLS_URL")
	log := markLog(t, env[1])
	p := newProxied(t, env[0], true)

	url, text := nginxFile(t)
	url = env[2] + url[strings.Index(url[len("http://"):], "/")+len("http://"):]
	if got := p.get(t, url); got != text {
		t.Fatalf("https: got %q, want %q", got, text)
	}
	log.waitFor(t, "CONNECT "+hostPort(url))

	dirURL, text := proxyFTPTree(t)
	if got := p.get(t, dirURL+"a%20file.txt"); got != text {
		t.Fatalf("ftp: got %q, want %q", got, text)
	}
	got := log.waitFor(t, "CONNECT "+hostPort(dirURL))
	if n := strings.Count(got, "CONNECT 127.0.0.1:3"); n < 1 {
		t.Errorf("no tunnel for the data connection:\n%s", got)
	}
	p.checkNoProxy(t, log, dirURL+"a%20file.txt", text, url, "CONNECT "+hostPort(url), "CONNECT localhost")
}

// tinyproxy as a proxy that tunnels but fetches no ftp: or gopher: URLs
// (it answers 400 to the gateway request, some versions 503 for
// gopher:): without Tunnel, the fetch goes on through CONNECT; to a port
// tinyproxy does not tunnel to, both refusals are named, and the error is
// the tunnel's (curl's exit 56).
func TestTinyproxyGatewayFallback(t *testing.T) {
	env := realServer(t, "URLGET_TINYPROXY_URL", "URLGET_TINYPROXY_LOG")
	log := markLog(t, env[1])
	p := newProxied(t, env[0], false)

	dirURL, text := proxyFTPTree(t)
	if got := p.get(t, dirURL+"a%20file.txt"); got != text {
		t.Fatalf("ftp: got %q, want %q", got, text)
	}
	log.waitFor(t, "CONNECT "+hostPort(dirURL))

	tr := gophernicus(t)
	if got := p.get(t, tr.base+"/0"+tr.sel+"/hello.txt"); !strings.HasPrefix(got, "Hello from gophernicus") {
		t.Fatalf("gopher: got %q", got)
	}
	log.waitFor(t, "CONNECT "+hostPort(tr.base+"/"))

	// A run that does not know yet that the proxy does not gateway.
	_, err := newProxied(t, env[0], false).c.Fetch(testCtx(t), "ftp://127.0.0.1:1/f")
	if !errors.Is(err, schemes.ErrProxyTunnel) || !strings.Contains(err.Error(), "fetches no ftp: URLs (it answered 400") {
		t.Errorf("a port tinyproxy does not tunnel to: %v, want both refusals", err)
	}
	// The run that knows goes by CONNECT at once: the refusal is the
	// tunnel's alone.
	_, err = p.c.Fetch(testCtx(t), "ftp://127.0.0.1:1/f")
	if !errors.Is(err, schemes.ErrProxyTunnel) || strings.Contains(err.Error(), "it answered") {
		t.Errorf("a port tinyproxy does not tunnel to, known not to gateway: %v", err)
	}
}

// The gateway's answers through squid for what fails: a listing of a
// directory that is not there is not found (exit 78, as for ftp).
func TestSquidFTPGatewayRaw(t *testing.T) {
	proxyURL, _ := squid(t)
	dirURL, _ := proxyFTPTree(t)
	p := newProxied(t, proxyURL, false)
	res, err := p.c.Do(testCtx(t), fetch.Request{URL: uri.MustParse(dirURL), Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	page := readBody(t, res)
	if !strings.Contains(string(page), "<html") || !strings.Contains(string(page), "a%20file.txt") {
		t.Errorf("--raw-listing: not squid's page:\n%.400s", page)
	}
	_, err = p.c.Fetch(testCtx(t), dirURL+"nowhere/")
	if !errors.Is(err, schemes.ErrNotFound) {
		t.Errorf("missing directory: %v, want not found", err)
	}
}

// A login through squid's gateway: the user and password in the URL, or
// given apart from it (Authorization), reach vsftpd's local user; a wrong
// password is a failed login.
func TestSquidFTPGatewayLogin(t *testing.T) {
	proxyURL, log := squid(t)
	v := realServer(t, "URLGET_VSFTPD_ADDR", "URLGET_VSFTPD_USER", "URLGET_VSFTPD_PASS", "URLGET_VSFTPD_HOME")
	addr, user, pass, home := v[0], v[1], v[2], v[3]
	name := "proxy-login-" + filepath.Base(t.TempDir()) + ".txt"
	text := "the local user's own file\n"
	if err := os.WriteFile(filepath.Join(home, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(filepath.Join(home, name)) })

	inURL := "ftp://" + uri.EscapeSegment(user) + ":" + uri.EscapeSegment(pass) + "@" + addr + "/" + name
	if got := newProxied(t, proxyURL, false).get(t, inURL); got != text {
		t.Errorf("credentials in the URL: got %q", got)
	}
	apart := newProxied(t, proxyURL, false)
	apart.c.User = url.UserPassword(user, pass)
	if got := apart.get(t, "ftp://"+addr+"/"+name); got != text {
		t.Errorf("credentials apart: got %q", got)
	}
	wrong := newProxied(t, proxyURL, false)
	wrong.c.User = url.UserPassword(user, "wrong")
	_, err := wrong.c.Fetch(testCtx(t), "ftp://"+addr+"/"+name)
	if !errors.Is(err, schemes.ErrLoginFailed) || strings.Contains(err.Error(), pass) {
		t.Errorf("wrong password: %v, want login failed", err)
	}
	log.waitFor(t, "GET ftp://"+addr+"/"+name)
}
