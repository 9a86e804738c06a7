package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"golang.org/x/net/http/httpproxy"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// Proxy is the proxy one URL goes through.
type Proxy struct {
	URL    uri.URL // http, https, socks4, socks4a, socks5 or socks5h, with optional user:password
	Tunnel bool    // an http(s) proxy reaches non-http schemes by CONNECT even where it could be a gateway (curl's -p)
	HTTP10 bool    // CONNECT requests to an http(s) proxy say HTTP/1.0 (curl's --proxy1.0)
}

// NoProxy is a proxy policy that sends every URL direct, whatever the
// environment says (curl's --noproxy '*').
var NoProxy = func(uri.URL) (*Proxy, error) { return nil, nil }

// proxySchemes are the proxy kinds urlget speaks, each with the port a
// proxy URL without one means: curl's 1080 for all but https, 443.
var proxySchemes = map[string]string{
	"http":    "1080",
	"https":   "443",
	"socks4":  "1080",
	"socks4a": "1080",
	"socks5":  "1080",
	"socks5h": "1080",
}

// ParseProxy parses a proxy as -x and the environment give it:
// [scheme://][user[:password]@]host[:port]. Without a scheme it is an HTTP
// proxy, as in curl.
func ParseProxy(s string) (*Proxy, error) {
	t := strings.TrimSpace(s)
	if !strings.Contains(t, "://") {
		t = "http://" + t
	}
	u, err := uri.Parse(t)
	if err != nil {
		return nil, fmt.Errorf("proxy %s: %v", uri.RedactText(s), err)
	}
	if _, ok := proxySchemes[u.Scheme()]; !ok {
		return nil, fmt.Errorf("proxy %s: the proxy kind %q is not one of http, https, socks4, socks4a, socks5, socks5h", u.Redacted(), u.Scheme())
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("proxy %s names no host", u.Redacted())
	}
	return &Proxy{URL: u}, nil
}

// proxyAddr is the host and port to dial for p.
func proxyAddr(p *Proxy) string {
	port, _ := p.URL.Port()
	if port == "" {
		port = proxySchemes[p.URL.Scheme()]
	}
	return net.JoinHostPort(p.URL.Hostname(), port)
}

// proxyCredentials returns the user and password p's URL carries.
func proxyCredentials(p *Proxy) (user, password string, ok bool) {
	user, ok = p.URL.User()
	password, _ = p.URL.Password()
	return user, password, ok
}

// withCredentials returns p with user and password in its URL, in place of
// any it had (curl's --proxy-user over the proxy URL's userinfo).
func withCredentials(p *Proxy, user, password string) (*Proxy, error) {
	host := p.URL.RawHost()
	if port, ok := p.URL.Port(); ok {
		host += ":" + port
	}
	u, err := uri.Parse(p.URL.Scheme() + "://" + url.UserPassword(user, password).String() + "@" + host)
	if err != nil {
		return nil, err
	}
	return &Proxy{URL: u, Tunnel: p.Tunnel, HTTP10: p.HTTP10}, nil
}

// routeURL is p as a schemes.Route names an HTTP proxy: its port filled
// in with the proxy's default (1080, where the scheme's own would be 80)
// and its credentials in the userinfo.
func routeURL(p *Proxy) (uri.URL, error) {
	s := p.URL.Scheme() + "://"
	if user, pw, ok := proxyCredentials(p); ok {
		s += url.UserPassword(user, pw).String() + "@"
	}
	return uri.Parse(s + proxyAddr(p))
}

// envNames lists, for each scheme, the variables that name its proxy, in
// curl's order: the scheme's own in lower case, then upper case, then
// those of the family it belongs to. http_proxy has no upper-case form:
// a CGI program receives a request's "Proxy:" header as HTTP_PROXY
// (httpoxy, CVE-2016-5385), so curl ignores it, and so does urlget.
var envNames = map[string][]string{
	"http":    {"http_proxy"},
	"https":   {"https_proxy", "HTTPS_PROXY"},
	"ftp":     {"ftp_proxy", "FTP_PROXY"},
	"ftps":    {"ftps_proxy", "FTPS_PROXY", "ftp_proxy", "FTP_PROXY"},
	"gopher":  {"gopher_proxy", "GOPHER_PROXY"},
	"gophers": {"gophers_proxy", "GOPHERS_PROXY", "gopher_proxy", "GOPHER_PROXY"},
	"news":    {"news_proxy", "NEWS_PROXY"},
	"nntp":    {"nntp_proxy", "NNTP_PROXY", "news_proxy", "NEWS_PROXY"},
	"nntps":   {"nntps_proxy", "NNTPS_PROXY", "news_proxy", "NEWS_PROXY"},
	"snews":   {"snews_proxy", "SNEWS_PROXY", "news_proxy", "NEWS_PROXY"},
	"wais":    {"wais_proxy", "WAIS_PROXY"},
}

// ProxyFromEnvironment returns the proxy policy of curl's environment
// variables, read once, now: <scheme>_proxy for each scheme (http_proxy
// in lower case only; news_proxy for news, nntp, nntps and snews), else
// all_proxy/ALL_PROXY, except for the hosts no_proxy/NO_PROXY lists (host
// name suffixes, IP addresses, CIDR ranges, each optionally with a port,
// or "*" for all). The rules are those of golang.org/x/net/http/httpproxy,
// applied to every scheme; like it, and unlike curl, the environment never
// sends localhost or a loopback address through a proxy (ProxyURL does).
// file: URLs are never proxied.
func ProxyFromEnvironment() func(uri.URL) (*Proxy, error) {
	return envPolicy(os.Getenv, "", false)
}

// ProxyFromEnvironmentExcept is ProxyFromEnvironment with noProxy in place
// of no_proxy and NO_PROXY (curl's --noproxy).
func ProxyFromEnvironmentExcept(noProxy string) func(uri.URL) (*Proxy, error) {
	return envPolicy(os.Getenv, noProxy, true)
}

// EnvNoProxy returns the no_proxy list of the environment (no_proxy, else
// NO_PROXY).
func EnvNoProxy() string { return firstEnv(os.Getenv, "no_proxy", "NO_PROXY") }

func firstEnv(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// envPolicy builds the environment's policy from getenv.
func envPolicy(getenv func(string) string, noProxy string, override bool) func(uri.URL) (*Proxy, error) {
	if !override {
		noProxy = firstEnv(getenv, "no_proxy", "NO_PROXY")
	}
	noProxy = curlNoProxy(noProxy)
	all := firstEnv(getenv, "all_proxy", "ALL_PROXY")
	type choice struct {
		name, value string
		proxy       *Proxy
		err         error // the value is no proxy URL
		match       func(*url.URL) (*url.URL, error)
	}
	byScheme := map[string]choice{}
	for scheme, names := range envNames {
		ch := choice{name: "all_proxy", value: all}
		for _, n := range names {
			if v := getenv(n); v != "" {
				ch = choice{name: n, value: v}
				break
			}
		}
		if ch.value == "" {
			continue
		}
		if ch.proxy, ch.err = ParseProxy(ch.value); ch.err != nil {
			ch.err = fmt.Errorf("%s: %w", ch.name, ch.err)
		}
		// httpproxy decides for http: URLs by its HTTPProxy field: the
		// scheme's proxy is handed to it there, and each URL asked
		// about as an http: URL with its own host and port.
		ch.match = (&httpproxy.Config{HTTPProxy: ch.value, NoProxy: noProxy}).ProxyFunc()
		byScheme[scheme] = ch
	}
	return func(u uri.URL) (*Proxy, error) {
		ch, ok := byScheme[u.Scheme()]
		if !ok {
			return nil, nil
		}
		if ch.err != nil {
			// A value httpproxy cannot parse would send the URL
			// direct without a word; the user meant a proxy.
			return nil, ch.err
		}
		if p, _ := ch.match(asHTTP(u)); p == nil {
			return nil, nil
		}
		return ch.proxy, nil
	}
}

// asHTTP is u's host and port as an http: URL, for httpproxy's matching.
func asHTTP(u uri.URL) *url.URL {
	return &url.URL{Scheme: "http", Host: u.Addr()}
}

// ProxyURL returns the policy of curl's -x: every URL but file: ones goes
// through p, except those noProxy lists (curl's --noproxy, in no_proxy's
// syntax). Unlike the environment, it proxies localhost and loopback
// addresses too, unless noProxy names them.
func ProxyURL(p *Proxy, noProxy string) func(uri.URL) (*Proxy, error) {
	noProxy = curlNoProxy(noProxy)
	var match func(*url.URL) (*url.URL, error)
	if noProxy != "" {
		match = (&httpproxy.Config{HTTPProxy: "http://proxy.invalid", NoProxy: noProxy}).ProxyFunc()
	}
	return func(u uri.URL) (*Proxy, error) {
		if u.Scheme() == "file" {
			return nil, nil
		}
		if match == nil {
			return p, nil
		}
		if isLoopback(u.Hostname()) {
			if listsLoopback(noProxy, u) {
				return nil, nil
			}
			return p, nil
		}
		if q, _ := match(asHTTP(u)); q == nil {
			return nil, nil
		}
		return p, nil
	}
}

// curlNoProxy rewrites a no_proxy list from curl's reading to
// httpproxy's: curl takes ".example.com" for example.com and every name
// below it, as it takes "example.com", where httpproxy takes the leading
// dot to mean the names below only. Each such entry loses its dot.
func curlNoProxy(list string) string {
	if !strings.Contains(list, ".") {
		return list
	}
	entries := strings.Split(list, ",")
	for i, e := range entries {
		t := strings.TrimSpace(e)
		if len(t) > 1 && t[0] == '.' {
			entries[i] = t[1:]
		}
	}
	return strings.Join(entries, ",")
}

// isLoopback tells the hosts httpproxy never proxies.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// listsLoopback tells whether a no_proxy list names u's loopback host:
// "*", the host itself (with u's port or none), or a CIDR range holding
// it. httpproxy answers "direct" for such hosts before reading the list,
// so for an explicit proxy the list is read here.
func listsLoopback(list string, u uri.URL) bool {
	host := u.Hostname()
	_, port, _ := net.SplitHostPort(u.Addr())
	ip := net.ParseIP(host)
	for _, e := range strings.Split(list, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "*" {
			return true
		}
		if _, n, err := net.ParseCIDR(e); err == nil {
			if ip != nil && n.Contains(ip) {
				return true
			}
			continue
		}
		h, p, err := net.SplitHostPort(e)
		if err != nil {
			h, p = strings.Trim(e, "[]"), ""
		}
		if p != "" && p != port {
			continue
		}
		if h == host || ip != nil && ip.Equal(net.ParseIP(h)) {
			return true
		}
	}
	return false
}

// proxyFor returns the proxy for u with the Client's --proxy-user applied,
// nil for a direct connection.
func (c *Client) proxyFor(u uri.URL) (*Proxy, error) {
	if u.Scheme() == "file" {
		return nil, nil
	}
	p, err := c.proxy(u)
	if err != nil || p == nil {
		return nil, err
	}
	if c.ProxyUser != nil {
		password, _ := c.ProxyUser.Password()
		return withCredentials(p, c.ProxyUser.Username(), password)
	}
	return p, nil
}

// isHTTPProxy tells the proxies that speak HTTP: the ones a request can
// go through in the absolute form, or as a gateway, as well as by CONNECT.
func isHTTPProxy(p *Proxy) bool {
	s := p.URL.Scheme()
	return s == "http" || s == "https"
}

// proxyWays asks f the ways req can go through a proxy
// (schemes.ProxyAware); a fetcher that does not say goes through its
// Dialer.
func proxyWays(f schemes.Fetcher, req *schemes.Request) (schemes.ProxyWays, error) {
	if pa, ok := f.(schemes.ProxyAware); ok {
		return pa.ProxyWays(req)
	}
	return schemes.ViaDialer, nil
}

// route sets how req's connections reach its server (direct, through the
// fetcher's own HTTP proxy support, a CONNECT tunnel or SOCKS) and returns
// the fetcher to use: f, or a gateway through an HTTP proxy. The ways are
// the fetcher's to declare (schemes.ProxyAware); the choice among them is
// the proxy's kind and -p.
func (c *Client) route(req *schemes.Request, f schemes.Fetcher) (schemes.Fetcher, error) {
	ways, waysErr := proxyWays(f, req)
	if ways == 0 && waysErr == nil {
		return f, nil
	}
	p, err := c.proxyFor(req.URL)
	if err != nil {
		return nil, req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	if ways&schemes.ViaHTTPProxy != 0 {
		// Each hop of a redirect chain has its own choice of proxy.
		req.Route = func(target uri.URL) (schemes.Route, error) { return c.routeTo(req, target) }
	}
	if p == nil {
		return f, nil
	}
	req.Proxy = p.URL.Redacted()
	if waysErr != nil {
		// Refused here, before the choice of a gateway or a tunnel.
		return nil, req.Fail(schemes.ErrNotRetrievable, "", 0, "", fmt.Errorf("%w (%s)", waysErr, req.Proxy))
	}
	if isHTTPProxy(p) && !p.Tunnel {
		switch {
		case ways&schemes.ViaHTTPProxy != 0:
			if c.PreProxy != nil || p.HTTP10 {
				// The first hop goes through the request's Dialer:
				// the way to the proxy through the pre-proxy, or the
				// tunnel of an HTTP/1.0 CONNECT.
				req.Dialer = c.toProxy(req, p)
				if p.HTTP10 && req.URL.Scheme() == "https" {
					req.Dialer = c.tunnel(req, p)
				}
			}
			return f, nil
		case ways&schemes.ViaGateway != 0:
			gw, ok := c.registry[p.URL.Scheme()].(schemes.Gateway)
			fallback := ways&schemes.GatewayFallback != 0 && ways&schemes.ViaDialer != 0
			if _, no := c.noGateway.Load(gatewayKey(req)); ok && (!fallback || !no) {
				return gateway{c: c, via: gw, proxy: p, next: f, fallback: fallback}, nil
			}
		}
	}
	if ways&schemes.ViaDialer == 0 {
		return nil, req.Fail(schemes.ErrNotRetrievable, "", 0, "", fmt.Errorf("%s: URLs cannot go through the proxy %s", req.URL.Scheme(), req.Proxy))
	}
	req.Dialer = c.tunnel(req, p)
	return f, nil
}

// routeTo is the schemes.Request's Route for a fetcher that speaks to HTTP
// proxies itself: for target, a URL req reaches, the http(s) proxy it is
// to speak to, none when target goes direct or through SOCKS or a tunnel
// of its own (-p), and the Dialer, through that SOCKS proxy or tunnel,
// else direct.
func (c *Client) routeTo(req *schemes.Request, target uri.URL) (schemes.Route, error) {
	p, err := c.proxyFor(target)
	switch {
	case err != nil:
		return schemes.Route{}, err
	case p == nil:
		return schemes.Route{Dialer: c.dialer}, nil
	case isHTTPProxy(p) && !p.Tunnel:
		u, err := routeURL(p)
		if err != nil {
			return schemes.Route{}, err
		}
		if p.HTTP10 && target.Scheme() == "https" {
			// CONNECT in HTTP/1.0 is the tunnel's own, as -p's.
			return schemes.Route{Dialer: c.tunnel(req, p)}, nil
		}
		return schemes.Route{Dialer: c.toProxy(req, p), HTTPProxy: &u}, nil
	}
	return schemes.Route{Dialer: c.tunnel(req, p)}, nil
}

// tunnel is the Dialer of req's connections through p: a CONNECT
// tunnel or a SOCKS connection, p reached through the pre-proxy if any.
func (c *Client) tunnel(req *schemes.Request, p *Proxy) schemes.Dialer {
	return &proxyDialer{base: c.toProxy(req, p), proxy: p, req: req, tls: c.proxyTLS}
}

// toProxy is the Dialer that reaches p: through the Client's PreProxy
// when p is an HTTP proxy (curl's --preproxy), else direct.
func (c *Client) toProxy(req *schemes.Request, p *Proxy) schemes.Dialer {
	if c.PreProxy == nil || !isHTTPProxy(p) {
		return c.dialer
	}
	return &proxyDialer{base: c.dialer, proxy: c.PreProxy, req: req, tls: c.proxyTLS}
}

// ConnectHTTP10 returns policy with every http(s) proxy it gives asking
// for its CONNECT tunnels in HTTP/1.0 (curl's --proxy1.0).
func ConnectHTTP10(policy func(uri.URL) (*Proxy, error)) func(uri.URL) (*Proxy, error) {
	return func(u uri.URL) (*Proxy, error) {
		p, err := policy(u)
		if p == nil || err != nil || !isHTTPProxy(p) {
			return p, err
		}
		q := *p
		q.HTTP10 = true
		return &q, nil
	}
}

// gateway fetches through an HTTP proxy acting as a gateway, with the
// registry's Gateway for the proxy's scheme. With fallback, a proxy that
// refuses the request (gatewayRefusals: squid's 501 for gopher: since
// version 4, tinyproxy's 400 for ftp: and 503 for gopher:) is passed over
// for a CONNECT tunnel to the scheme's own fetcher, next: the gateway is
// used "where the proxy offers it", as DESIGN and the URL specifications
// have it, and the run remembers the answer.
type gateway struct {
	c        *Client
	via      schemes.Gateway
	proxy    *Proxy
	next     schemes.Fetcher
	fallback bool
}

func (g gateway) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	res, err := g.via.FetchThroughGateway(ctx, req, &schemes.GatewayProxy{
		URL:       g.proxy.URL,
		Dialer:    gatewayDialer{base: g.c.toProxy(req, g.proxy), req: req},
		TLSConfig: g.c.proxyTLS,
		Waiting:   waitingOnProxy,
	})
	var se *schemes.Error
	if err == nil || !g.fallback || !errors.As(err, &se) || !gatewayRefusals[se.Code] || ctx.Err() != nil {
		return res, err
	}
	req.Trace.TraceLine(schemes.Info, fmt.Sprintf("proxy %s does not gateway %s: (HTTP %d); tunnelling with CONNECT", req.Proxy, req.URL.Scheme(), se.Code))
	sure := se.Code == http.StatusBadRequest || se.Code == http.StatusMethodNotAllowed || se.Code == http.StatusNotImplemented
	if sure {
		g.c.noGateway.Store(gatewayKey(req), true)
	}
	tunnel := *req
	tunnel.Dialer = g.c.tunnel(&tunnel, g.proxy)
	res, terr := g.next.Fetch(ctx, &tunnel)
	var te *schemes.Error
	if !errors.Is(terr, schemes.ErrProxyTunnel) || !errors.As(terr, &te) {
		if !sure {
			// The tunnel opened: the proxy tunnels what it does not
			// fetch.
			g.c.noGateway.Store(gatewayKey(req), true)
		}
		return res, terr
	}
	// Refused both ways: one message with both of the proxy's answers,
	// the tunnel's last, and curl's exit code for a refused CONNECT. A
	// retry may still cure what the gateway's answer said may pass (a
	// site down behind a proxy that does gateway).
	gw := se.Reply
	if gw == "" {
		gw = fmt.Sprint(se.Code)
	}
	if se.Err != nil {
		gw += ", " + se.Err.Error()
	}
	return nil, &schemes.Error{Kind: schemes.ErrProxyTunnel, URL: req.URL.Redacted(), Reply: te.Reply,
		Err:       fmt.Errorf("the proxy %s fetches no %s: URLs (it answered %s) and tunnels none to %s", req.Proxy, req.URL.Scheme(), gw, req.URL.Addr()),
		Temporary: se.Temporary}
}

// gatewayRefusals are the answers of an HTTP proxy that does not fetch a
// URL of another scheme for its client: 501 Not Implemented (RFC 9110
// §15.6.2; squid for gopher:), 400 (tinyproxy for ftp:), 503 (tinyproxy
// for gopher:), and the 403, 405 and 502 of others.
var gatewayRefusals = map[int]bool{
	http.StatusBadRequest: true, http.StatusForbidden: true, http.StatusMethodNotAllowed: true,
	http.StatusNotImplemented: true, http.StatusBadGateway: true, http.StatusServiceUnavailable: true,
}

// gatewayKey names a proxy, by its URL as req.Proxy has it, and the
// scheme of req: what a 501 of the proxy's was about.
func gatewayKey(req *schemes.Request) string {
	return req.URL.Scheme() + " " + req.Proxy
}

// gatewayDialer reaches the proxy of a gateway, saying so in the trace;
// a failure is the proxy's (proxyDialError).
type gatewayDialer struct {
	base schemes.Dialer
	req  *schemes.Request
}

func (d gatewayDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.req.Trace.TraceLine(schemes.Info, "connecting to proxy "+addr)
	c, err := d.base.DialContext(ctx, network, addr)
	if err != nil {
		return nil, proxyDialError(d.req, addr, err)
	}
	return c, nil
}
