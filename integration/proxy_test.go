package integration

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/integration/nntptest"
	"github.com/urlget/urlget/integration/proxytest"
	"github.com/urlget/urlget/integration/waistest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/ftp"
	"github.com/urlget/urlget/uri"
)

// proxySite is one server of one scheme to reach through proxies.
type proxySite struct {
	name string
	url  string      // the URL to fetch
	addr string      // the server's host:port, which the proxy must see
	tls  *tls.Config // trusts the server, nil without TLS
	want string      // a piece of the body, or of an entry's name in a listing

	setup func(*fetch.Client) // options the scheme needs, or nil
}

// proxySites starts one in-process server for each scheme, TLS variants
// included, and returns what to fetch from each.
func proxySites(t *testing.T) []proxySite {
	t.Helper()
	var sites []proxySite

	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "http body") }))
	t.Cleanup(h.Close)
	sites = append(sites, proxySite{"http", h.URL + "/x", h.Listener.Addr().String(), nil, "http body", nil})
	hs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "https body") }))
	t.Cleanup(hs.Close)
	sites = append(sites, proxySite{"https", hs.URL + "/x", hs.Listener.Addr().String(), trusting(hs.Certificate()), "https body", nil})

	tree := fstest.MapFS{"pub/file.txt": {Data: []byte("ftp file body\n"), Mode: 0o644}}
	f := ftptest.NewServer(tree)
	f.Anonymous = true
	t.Cleanup(f.Close)
	sites = append(sites, proxySite{"ftp", f.URL + "/pub/file.txt", f.Addr, nil, "ftp file body", nil})
	fl := proxySite{"ftp listing", f.URL + "/pub/", f.Addr, nil, "file.txt", nil}
	sites = append(sites, fl)
	fs := ftptest.NewUnstartedServer(tree)
	fs.Anonymous = true
	fs.StartTLS(true)
	t.Cleanup(fs.Close)
	sites = append(sites, proxySite{"ftps", fs.URL + "/pub/file.txt", fs.Addr, fs.ClientTLSConfig(), "ftp file body", nil})
	fe := ftptest.NewUnstartedServer(tree)
	fe.Anonymous = true
	fe.StartTLS(false)
	t.Cleanup(fe.Close)
	sites = append(sites, proxySite{"ftp AUTH TLS", fe.URL + "/pub/file.txt", fe.Addr, fe.ClientTLSConfig(), "ftp file body",
		func(c *fetch.Client) { c.Fetchers = registryWith(&ftp.Fetcher{RequireTLS: true}) }})

	mux := gophertest.NewMux()
	mux.Handle("/doc", gophertest.Raw([]byte("gopher body\r\n.\r\n")))
	g := gophertest.NewServer(mux)
	t.Cleanup(g.Close)
	sites = append(sites, proxySite{"gopher", g.URL + "/0/doc", hostOf(g.URL), nil, "gopher body", nil})
	gs := gophertest.NewTLSServer(mux)
	t.Cleanup(gs.Close)
	sites = append(sites, proxySite{"gophers", gs.URL + "/0/doc", hostOf(gs.URL), gs.ClientTLSConfig(), "gopher body", nil})

	n := nntptest.NewServer(newsConfig())
	t.Cleanup(n.Close)
	sites = append(sites, proxySite{"nntp", n.URL + "/test.urlget/10", n.Addr, nil, "leading dot", nil})
	ns := nntptest.NewTLSServer(newsConfig())
	t.Cleanup(ns.Close)
	sites = append(sites, proxySite{"nntps", ns.URL + "/test.urlget/10", ns.Addr, ns.ClientTLSConfig(), "leading dot", nil})

	w := waisServer(t, waistest.Config{})
	sites = append(sites, proxySite{"wais", w.URL + "?river", w.Addr, nil, "river", nil})
	return sites
}

func hostOf(u string) string {
	_, rest, _ := strings.Cut(u, "://")
	host, _, _ := strings.Cut(rest, "/")
	return host
}

// trusting returns a TLS configuration whose roots are certs.
func trusting(certs ...*x509.Certificate) *tls.Config {
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return &tls.Config{RootCAs: pool}
}

// withRoot adds cert to the roots c trusts (c may be nil).
func withRoot(c *tls.Config, cert *x509.Certificate) *tls.Config {
	if c == nil {
		return trusting(cert)
	}
	c = c.Clone()
	c.RootCAs.AddCert(cert)
	return c
}

// proxyFetch fetches url with a client whose every URL goes through
// proxyURL, and returns the body, or the entries' names one a line.
func proxyFetch(t *testing.T, proxyURL, url string, tc *tls.Config, setup func(*fetch.Client)) (string, error) {
	t.Helper()
	p, err := fetch.ParseProxy(proxyURL)
	if err != nil {
		t.Fatal(err)
	}
	if s, _, _ := strings.Cut(url, ":"); s == "ftp" || s == "ftps" || s == "gopher" {
		// An HTTP proxy could serve these as a gateway; here they go
		// by CONNECT (-p), whose every connection the log shows.
		p.Tunnel = true
	}
	c := &fetch.Client{Proxy: fetch.ProxyURL(p, ""), TLSConfig: tc}
	if setup != nil {
		setup(c)
	}
	defer c.Close()
	res, err := c.Fetch(testCtx(t), url)
	if err != nil {
		return "", err
	}
	if res.Listing != nil {
		var names []string
		for _, e := range readEntries(t, res) {
			names = append(names, e.Name)
		}
		return strings.Join(names, "\n"), nil
	}
	return string(readBody(t, res)), nil
}

// targets returns the targets a proxy log names.
func targets(log []proxytest.Entry) []string {
	var ts []string
	for _, e := range log {
		ts = append(ts, e.Method+" "+e.Target)
	}
	return ts
}

// sawTarget tells whether the log names addr (a CONNECT or SOCKS target,
// or an absolute-form URL on it).
func sawTarget(log []proxytest.Entry, addr string) bool {
	_, port, _ := net.SplitHostPort(addr)
	for _, e := range log {
		if strings.HasSuffix(e.Target, ":"+port) || strings.Contains(e.Target, ":"+port+"/") {
			return true
		}
	}
	return false
}

// TestProxyEveryScheme fetches a resource of every scheme through every
// kind of proxy, and checks in the proxy's log that the connection went
// through it; an FTP transfer's data connection as well as its control
// connection.
func TestProxyEveryScheme(t *testing.T) {
	sites := proxySites(t)
	hp := proxytest.NewHTTPProxy(false)
	defer hp.Close()
	hps := proxytest.NewHTTPProxy(true)
	defer hps.Close()
	sp := proxytest.NewSOCKS()
	defer sp.Close()

	type logger interface{ Log() []proxytest.Entry }
	kinds := []struct {
		url  string
		log  logger
		root *x509.Certificate
	}{
		{"http://" + hp.Listener.Addr().String(), hp, nil},
		{"https://" + hps.Listener.Addr().String(), hps, hps.Certificate()},
		{"socks5://" + sp.Addr(), sp, nil},
		{"socks5h://" + sp.Addr(), sp, nil},
		{"socks4://" + sp.Addr(), sp, nil},
		{"socks4a://" + sp.Addr(), sp, nil},
	}
	for _, k := range kinds {
		for _, s := range sites {
			t.Run(k.url[:strings.Index(k.url, ":")]+"/"+s.name, func(t *testing.T) {
				before := len(k.log.Log())
				tc := s.tls
				if k.root != nil {
					tc = withRoot(tc, k.root)
				}
				got, err := proxyFetch(t, k.url, s.url, tc, s.setup)
				if err != nil {
					t.Fatalf("fetch %s through %s: %v", s.url, k.url, err)
				}
				if !strings.Contains(got, s.want) {
					t.Errorf("got %q, want it to hold %q", got, s.want)
				}
				log := k.log.Log()[before:]
				if !sawTarget(log, s.addr) {
					t.Errorf("the proxy's log %q does not name %s", targets(log), s.addr)
				}
				if strings.HasPrefix(s.name, "ftp") {
					// The control connection and at least one data
					// connection, to another port.
					var ports = map[string]bool{}
					for _, e := range log {
						_, p, _ := net.SplitHostPort(e.Target)
						ports[p] = true
					}
					if len(ports) < 2 {
						t.Errorf("FTP data connection did not go through the proxy: log %q", targets(log))
					}
				}
			})
		}
	}
}

// TestProxyKindsOfRequest checks what each kind of proxy is asked: an
// http: URL in the absolute form, everything else by CONNECT; socks5 and
// socks4 with an address resolved here, socks5h and socks4a with the name.
func TestProxyKindsOfRequest(t *testing.T) {
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer h.Close()
	_, port, _ := net.SplitHostPort(h.Listener.Addr().String())
	byName := "http://localhost:" + port + "/p"
	hp := proxytest.NewHTTPProxy(false)
	defer hp.Close()
	sp := proxytest.NewSOCKS()
	defer sp.Close()

	if _, err := proxyFetch(t, hp.URL, byName, nil, nil); err != nil {
		t.Fatal(err)
	}
	if log := hp.Log(); len(log) != 1 || log[0].Method != "GET" || log[0].Target != byName {
		t.Errorf("http proxy log %q, want one absolute-form GET %s", targets(log), byName)
	}
	if _, err := proxyFetch(t, hp.URL, byName, nil, func(c *fetch.Client) {
		c.Proxy = fetch.ProxyURL(&fetch.Proxy{URL: mustProxy(t, hp.URL).URL, Tunnel: true}, "")
	}); err != nil {
		t.Fatal(err)
	}
	if log := hp.Log(); len(log) != 2 || log[1].Method != "CONNECT" || log[1].Target != "localhost:"+port {
		t.Errorf("with -p, http proxy log %q, want a CONNECT to localhost:%s", targets(log), port)
	}

	for _, c := range []struct{ kind, method, target string }{
		{"socks5", "SOCKS5", "127.0.0.1:" + port},
		{"socks5h", "SOCKS5", "localhost:" + port},
		{"socks4", "SOCKS4", "127.0.0.1:" + port},
		{"socks4a", "SOCKS4a", "localhost:" + port},
	} {
		before := len(sp.Log())
		if _, err := proxyFetch(t, c.kind+"://"+sp.Addr(), byName, nil, nil); err != nil {
			t.Fatalf("%s: %v", c.kind, err)
		}
		log := sp.Log()[before:]
		if len(log) != 1 || log[0].Method != c.method || log[0].Target != c.target {
			t.Errorf("%s: log %q, want %s %s", c.kind, targets(log), c.method, c.target)
		}
	}
}

func mustProxy(t *testing.T, s string) *fetch.Proxy {
	t.Helper()
	p, err := fetch.ParseProxy(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProxyCredentials checks that the proxy's credentials go to the proxy
// only and the site's to the site only, for an HTTP proxy (Basic, on
// CONNECT and on the absolute form) and SOCKS5 (RFC 1929).
func TestProxyCredentials(t *testing.T) {
	var siteAuth, siteProxyAuth []string
	site := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		siteAuth = append(siteAuth, r.Header.Get("Authorization"))
		siteProxyAuth = append(siteProxyAuth, r.Header.Get("Proxy-Authorization"))
		io.WriteString(w, "ok")
	}))
	defer site.Close()
	tree := fstest.MapFS{"f": {Data: []byte("secret file\n"), Mode: 0o644}}
	f := ftptest.NewServer(tree)
	f.Users = map[string]string{"suser": "spass"}
	defer f.Close()

	hp := proxytest.NewHTTPProxy(false)
	hp.User, hp.Pass = "puser", "ppass"
	defer hp.Close()
	sp := proxytest.NewSOCKS()
	sp.User, sp.Pass = "puser", "ppass"
	defer sp.Close()

	siteURL := strings.Replace(site.URL, "https://", "https://suser:spass@", 1) + "/"
	ftpURL := strings.Replace(f.URL, "ftp://", "ftp://suser:spass@", 1) + "/f"
	tc := trusting(site.Certificate())
	for _, proxyURL := range []string{
		"http://puser:ppass@" + hp.Listener.Addr().String(),
		"socks5://puser:ppass@" + sp.Addr(),
	} {
		for _, u := range []string{siteURL, ftpURL} {
			if _, err := proxyFetch(t, proxyURL, u, tc, nil); err != nil {
				t.Fatalf("%s through %s: %v", u, proxyURL, err)
			}
		}
	}
	// --proxy-user in place of the URL's credentials.
	if _, err := proxyFetch(t, "http://nobody:wrong@"+hp.Listener.Addr().String(), siteURL, tc, func(c *fetch.Client) {
		c.ProxyUser = url.UserPassword("puser", "ppass")
	}); err != nil {
		t.Fatalf("with ProxyUser: %v", err)
	}

	for _, e := range hp.Log() {
		if e.User != "puser" || e.Pass != "ppass" {
			t.Errorf("HTTP proxy got credentials %q:%q for %s, want puser:ppass", e.User, e.Pass, e.Target)
		}
		if a := e.Header.Get("Authorization"); a != "" {
			t.Errorf("the site's credentials reached the proxy: %s %s Authorization: %s", e.Method, e.Target, a)
		}
	}
	for _, e := range sp.Log() {
		if e.User != "puser" || e.Pass != "ppass" {
			t.Errorf("SOCKS proxy got credentials %q:%q, want puser:ppass", e.User, e.Pass)
		}
	}
	if len(siteAuth) != 3 {
		t.Fatalf("the site saw %d requests, want 3", len(siteAuth))
	}
	for i := range siteAuth {
		if siteAuth[i] == "" {
			t.Errorf("request %d reached the site without its credentials", i)
		}
		if siteProxyAuth[i] != "" {
			t.Errorf("the proxy's credentials reached the site: %q", siteProxyAuth[i])
		}
	}
	for _, c := range f.Commands() {
		if strings.Contains(c, "ppass") || strings.Contains(c, "puser") {
			t.Errorf("the proxy's credentials reached the FTP server: %q", c)
		}
	}
}

// TestProxyErrors checks the proxy's failures against the taxonomy: a
// refused CONNECT with its status, a failed SOCKS handshake, a proxy that
// refuses the connection, a proxy name that does not resolve, and active
// FTP refused through a proxy.
func TestProxyErrors(t *testing.T) {
	site := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer site.Close()
	tc := trusting(site.Certificate())
	g := gophertest.NewServer(gophertest.NewMux())
	defer g.Close()
	f := ftptest.NewServer(fstest.MapFS{"f": {Data: []byte("x"), Mode: 0o644}})
	f.Anonymous = true
	defer f.Close()

	hp := proxytest.NewHTTPProxy(false)
	hp.Refuse = http.StatusForbidden
	defer hp.Close()
	for _, u := range []string{site.URL + "/", g.URL + "/0/x"} {
		_, err := proxyFetch(t, hp.URL, u, tc, nil)
		if !errors.Is(err, schemes.ErrProxyTunnel) || !strings.Contains(err.Error(), "proxy CONNECT failed: 403 Forbidden") {
			t.Errorf("%s through a refusing proxy: %v, want ErrProxyTunnel with its status", u, err)
		}
	}
	auth := proxytest.NewHTTPProxy(false)
	auth.User, auth.Pass = "u", "p"
	defer auth.Close()
	if _, err := proxyFetch(t, auth.URL, g.URL+"/0/x", nil, nil); !errors.Is(err, schemes.ErrProxyTunnel) || !strings.Contains(err.Error(), "407") {
		t.Errorf("without proxy credentials: %v, want ErrProxyTunnel with 407", err)
	}

	sp := proxytest.NewSOCKS()
	sp.Fail = 2
	defer sp.Close()
	for _, kind := range []string{"socks5", "socks5h", "socks4", "socks4a"} {
		if _, err := proxyFetch(t, kind+"://"+sp.Addr(), site.URL+"/", tc, nil); !errors.Is(err, schemes.ErrProxyHandshake) {
			t.Errorf("%s refusing: %v, want ErrProxyHandshake", kind, err)
		}
	}
	sa := proxytest.NewSOCKS()
	sa.User, sa.Pass = "u", "p"
	defer sa.Close()
	if _, err := proxyFetch(t, "socks5://u:wrong@"+sa.Addr(), g.URL+"/0/x", nil, nil); !errors.Is(err, schemes.ErrProxyHandshake) {
		t.Errorf("SOCKS5 with a wrong password: %v, want ErrProxyHandshake", err)
	}

	closed := proxytest.ClosedAddr()
	for _, kind := range []string{"http", "socks5"} {
		for _, u := range []string{site.URL + "/", g.URL + "/0/x"} {
			_, err := proxyFetch(t, kind+"://"+closed, u, tc, nil)
			if !errors.Is(err, schemes.ErrConnect) || !strings.Contains(err.Error(), "proxy") {
				t.Errorf("%s through a closed %s proxy: %v, want ErrConnect naming the proxy", u, kind, err)
			}
		}
	}

	noName := func(c *fetch.Client) { c.Dialer = proxytest.Unresolvable{} }
	for _, u := range []string{g.URL + "/0/x", site.URL + "/"} {
		if _, err := proxyFetch(t, "http://proxy.example:3128", u, tc, noName); !errors.Is(err, schemes.ErrProxyResolve) {
			t.Errorf("%s through a proxy whose name does not resolve: %v, want ErrProxyResolve", u, err)
		}
	}

	ok := proxytest.NewHTTPProxy(false)
	defer ok.Close()
	_, err := proxyFetch(t, ok.URL, f.URL+"/f", nil, func(c *fetch.Client) { c.Fetchers = registryWith(&ftp.Fetcher{ActiveAddr: "-"}) })
	if !errors.Is(err, schemes.ErrActiveFTPProxy) || !strings.Contains(err.Error(), "active FTP cannot go through a proxy") {
		t.Errorf("active FTP through a proxy's tunnel: %v", err)
	}
	// Nor through the proxy as a gateway, which would make the FTP
	// connection itself and drop the choice of active mode unsaid.
	c := &fetch.Client{Proxy: fetch.ProxyURL(mustProxy(t, ok.URL), ""), Fetchers: registryWith(&ftp.Fetcher{ActiveAddr: "-"})}
	defer c.Close()
	if _, err := c.Fetch(testCtx(t), f.URL+"/f"); !errors.Is(err, schemes.ErrActiveFTPProxy) {
		t.Errorf("active FTP through a proxy's gateway: %v", err)
	}
	if n := len(ok.Log()); n != 0 {
		t.Errorf("the proxy saw %v; an active FTP URL must not reach it", targets(ok.Log()))
	}
}

// TestProxyRedirectHops checks that each hop of a redirect chain goes the
// way the policy says for its own URL: an http: URL through an HTTP
// proxy redirected to an https: URL whose proxy is SOCKS, and an http:
// URL through SOCKS redirected to an https: URL that goes direct.
func TestProxyRedirectHops(t *testing.T) {
	final := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "final") }))
	defer final.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, final.URL+"/end", http.StatusFound)
	}))
	defer first.Close()
	hp := proxytest.NewHTTPProxy(false)
	defer hp.Close()
	sp := proxytest.NewSOCKS()
	defer sp.Close()
	httpKind := mustProxy(t, hp.URL)
	socks := mustProxy(t, "socks5://"+sp.Addr())

	for _, c := range []struct {
		name             string
		forHTTP, forTLS  *fetch.Proxy
		httpLog, socksIn []string // what each proxy must have seen
	}{
		{"http proxy, then SOCKS", httpKind, socks, []string{first.URL + "/start"}, []string{final.Listener.Addr().String()}},
		{"SOCKS, then direct", socks, nil, nil, []string{first.Listener.Addr().String()}},
	} {
		before, beforeS := len(hp.Log()), len(sp.Log())
		cl := &fetch.Client{TLSConfig: trusting(final.Certificate()), Proxy: func(u uri.URL) (*fetch.Proxy, error) {
			if u.Scheme() == "https" {
				return c.forTLS, nil
			}
			return c.forHTTP, nil
		}}
		res, err := cl.Fetch(testCtx(t), first.URL+"/start")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := string(readBody(t, res)); got != "final" {
			t.Errorf("%s: body %q", c.name, got)
		}
		cl.Close()
		var gotHTTP, gotSOCKS []string
		for _, e := range hp.Log()[before:] {
			gotHTTP = append(gotHTTP, e.Target)
		}
		for _, e := range sp.Log()[beforeS:] {
			gotSOCKS = append(gotSOCKS, e.Target)
		}
		if strings.Join(gotHTTP, " ") != strings.Join(c.httpLog, " ") || strings.Join(gotSOCKS, " ") != strings.Join(c.socksIn, " ") {
			t.Errorf("%s: the HTTP proxy saw %q (want %q), SOCKS %q (want %q)", c.name, gotHTTP, c.httpLog, gotSOCKS, c.socksIn)
		}
	}
}

// TestProxyGopherGatewayRefused: an HTTP proxy that answers a gopher:
// URL's absolute-form GET with 501 (squid since version 4) is no gateway
// to it: the fetch goes on through a CONNECT tunnel, and the run's next
// gopher: URL by CONNECT at once.
func TestProxyGopherGatewayRefused(t *testing.T) {
	mux := gophertest.NewMux()
	mux.Handle("/hello.txt", gophertest.Raw([]byte("hello through a tunnel\r\n.\r\n")))
	g := gophertest.NewServer(mux)
	defer g.Close()
	hp := proxytest.NewHTTPProxy(false)
	defer hp.Close()
	c := &fetch.Client{Proxy: fetch.ProxyURL(mustProxy(t, hp.URL), "")}
	defer c.Close()
	for i := range 2 {
		res, err := c.Fetch(testCtx(t), g.URL+"/0/hello.txt")
		if err != nil {
			t.Fatalf("fetch %d: %v", i, err)
		}
		if got := string(readBody(t, res)); got != "hello through a tunnel\r\n" && got != "hello through a tunnel\n" {
			t.Fatalf("fetch %d: %q", i, got)
		}
	}
	var gets, connects int
	for _, e := range hp.Log() {
		switch e.Method {
		case "GET":
			gets++
		case "CONNECT":
			connects++
		}
	}
	if gets != 1 || connects != 2 {
		t.Errorf("the proxy saw %v; want one GET gopher:// answered 501, then two CONNECTs", targets(hp.Log()))
	}
}
