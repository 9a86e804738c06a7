package fetch

import (
	"context"
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// TestProxyEnvironment checks the environment's policy: which variable
// each scheme reads, in which order, and which hosts no_proxy sends
// direct.
func TestProxyEnvironment(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		url  string
		want string // the proxy URL, "" for direct
	}{
		{"http lower", map[string]string{"http_proxy": "h:1"}, "http://example.com/", "http://h:1"},
		{"HTTP_PROXY ignored", map[string]string{"HTTP_PROXY": "h:1"}, "http://example.com/", ""},
		{"HTTP_PROXY ignored, all_proxy used", map[string]string{"HTTP_PROXY": "h:1", "all_proxy": "a:2"}, "http://example.com/", "http://a:2"},
		{"https lower first", map[string]string{"https_proxy": "l:1", "HTTPS_PROXY": "u:1"}, "https://example.com/", "http://l:1"},
		{"HTTPS_PROXY", map[string]string{"HTTPS_PROXY": "u:1"}, "https://example.com/", "http://u:1"},
		{"https does not read http_proxy", map[string]string{"http_proxy": "h:1"}, "https://example.com/", ""},
		{"ftp", map[string]string{"ftp_proxy": "socks5://s:1080"}, "ftp://example.com/f", "socks5://s:1080"},
		{"FTP upper", map[string]string{"FTP_PROXY": "f:1"}, "ftp://example.com/f", "http://f:1"},
		{"ftps falls back to ftp_proxy", map[string]string{"ftp_proxy": "f:1"}, "ftps://example.com/f", "http://f:1"},
		{"gopher", map[string]string{"gopher_proxy": "g:1"}, "gopher://example.com/", "http://g:1"},
		{"gophers falls back to gopher_proxy", map[string]string{"gopher_proxy": "g:1"}, "gophers://example.com/", "http://g:1"},
		{"news for nntp", map[string]string{"news_proxy": "n:1"}, "nntp://example.com/g", "http://n:1"},
		{"news for news", map[string]string{"news_proxy": "n:1"}, "news:comp.lang.go", "http://n:1"},
		{"news for nntps", map[string]string{"news_proxy": "n:1"}, "nntps://example.com/g", "http://n:1"},
		{"nntp_proxy first", map[string]string{"news_proxy": "n:1", "nntp_proxy": "m:1"}, "nntp://example.com/g", "http://m:1"},
		{"wais", map[string]string{"wais_proxy": "w:1"}, "wais://example.com/db", "http://w:1"},
		{"all_proxy", map[string]string{"all_proxy": "socks5h://a"}, "wais://example.com/db", "socks5h://a"},
		{"ALL_PROXY", map[string]string{"ALL_PROXY": "a:1"}, "gopher://example.com/", "http://a:1"},
		{"scheme before all", map[string]string{"all_proxy": "a:1", "gopher_proxy": "g:1"}, "gopher://example.com/", "http://g:1"},
		{"file never", map[string]string{"all_proxy": "a:1"}, "file:///etc/passwd", ""},
		{"localhost never", map[string]string{"all_proxy": "a:1"}, "http://localhost:8080/", ""},
		{"loopback never", map[string]string{"all_proxy": "a:1"}, "ftp://127.0.0.1/", ""},
		{"no_proxy suffix", map[string]string{"all_proxy": "a:1", "no_proxy": "example.com"}, "http://www.example.com/", ""},
		{"no_proxy the host itself", map[string]string{"all_proxy": "a:1", "no_proxy": "example.com"}, "gopher://example.com/", ""},
		{"no_proxy not a suffix of a label", map[string]string{"all_proxy": "a:1", "no_proxy": "example.com"}, "http://badexample.com/", "http://a:1"},
		{"no_proxy leading dot", map[string]string{"all_proxy": "a:1", "no_proxy": ".example.com"}, "http://www.example.com/", ""},
		// curl reads ".example.com" as "example.com": the name itself
		// goes direct too (httpproxy alone would proxy it).
		{"no_proxy leading dot, the name itself", map[string]string{"all_proxy": "a:1", "no_proxy": "other.org, .example.com"}, "http://example.com/", ""},
		{"no_proxy leading dot, not a suffix of a label", map[string]string{"all_proxy": "a:1", "no_proxy": ".example.com"}, "http://badexample.com/", "http://a:1"},
		{"no_proxy leading dot with a port", map[string]string{"all_proxy": "a:1", "no_proxy": ".example.com:8080"}, "http://example.com:8080/", ""},
		{"no_proxy port", map[string]string{"all_proxy": "a:1", "no_proxy": "example.com:8080"}, "http://example.com:8080/", ""},
		{"no_proxy other port", map[string]string{"all_proxy": "a:1", "no_proxy": "example.com:8080"}, "http://example.com/", "http://a:1"},
		{"no_proxy default port", map[string]string{"all_proxy": "a:1", "no_proxy": "example.com:70"}, "gopher://example.com/", ""},
		{"no_proxy IP", map[string]string{"all_proxy": "a:1", "no_proxy": "192.0.2.7"}, "nntp://192.0.2.7/g", ""},
		{"no_proxy CIDR", map[string]string{"all_proxy": "a:1", "no_proxy": "10.0.0.0/8"}, "http://10.1.2.3/", ""},
		{"no_proxy CIDR outside", map[string]string{"all_proxy": "a:1", "no_proxy": "10.0.0.0/8"}, "http://11.1.2.3/", "http://a:1"},
		{"no_proxy IPv6 CIDR", map[string]string{"all_proxy": "a:1", "no_proxy": "2001:db8::/32"}, "http://[2001:db8::1]/", ""},
		{"no_proxy star", map[string]string{"all_proxy": "a:1", "no_proxy": "*"}, "wais://example.com/", ""},
		{"no_proxy list", map[string]string{"all_proxy": "a:1", "no_proxy": "other.org, example.com"}, "http://example.com/", ""},
		{"no_proxy lower first", map[string]string{"all_proxy": "a:1", "no_proxy": "other.org", "NO_PROXY": "example.com"}, "http://example.com/", "http://a:1"},
		{"NO_PROXY", map[string]string{"all_proxy": "a:1", "NO_PROXY": "example.com"}, "http://example.com/", ""},
		{"credentials kept", map[string]string{"https_proxy": "http://u:p@h:3128"}, "https://example.com/", "http://u:****@h:3128"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			policy := envPolicy(func(k string) string { return tt.env[k] }, "", false)
			p, err := policy(uri.MustParse(tt.url))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if p != nil {
				got = p.URL.Redacted()
			}
			if got != tt.want {
				t.Errorf("proxy for %s = %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}

// TestProxyEnvironmentOverride checks --noproxy in place of no_proxy, and
// that a bad proxy in the environment is an error naming the variable.
func TestProxyEnvironmentOverride(t *testing.T) {
	env := map[string]string{"all_proxy": "a:1", "no_proxy": "example.com"}
	policy := envPolicy(func(k string) string { return env[k] }, "other.org", true)
	if p, _ := policy(uri.MustParse("http://example.com/")); p == nil {
		t.Error("--noproxy other.org: example.com went direct, as no_proxy, which --noproxy replaces, says")
	}
	if p, _ := policy(uri.MustParse("http://www.other.org/")); p != nil {
		t.Error("--noproxy other.org: www.other.org went through the proxy")
	}
	for _, v := range []string{"gopher://g", "http://[bad"} {
		bad := envPolicy(func(k string) string { return map[string]string{"ftp_proxy": v}[k] }, "", false)
		if _, err := bad(uri.MustParse("ftp://example.com/")); err == nil || !strings.HasPrefix(err.Error(), "ftp_proxy: ") {
			t.Errorf("ftp_proxy=%s: %v, want an error naming ftp_proxy", v, err)
		}
	}
}

// TestProxyURL checks -x's policy: every host through the proxy,
// loopback included, but those --noproxy lists.
func TestProxyURL(t *testing.T) {
	p, err := ParseProxy("socks5h://127.0.0.1:9050")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		noProxy, url string
		proxied      bool
	}{
		{"", "http://127.0.0.1:8080/", true},
		{"", "http://localhost/", true},
		{"", "file:///x", false},
		{"example.com", "http://127.0.0.1/", true},
		{"example.com", "http://www.example.com/", false},
		{".example.com", "http://example.com/", false},
		{".example.com", "http://www.example.com/", false},
		{"example.com", "wais://example.org/", true},
		{"127.0.0.1", "http://127.0.0.1:8080/", false},
		{"127.0.0.1:80", "http://127.0.0.1:8080/", true},
		{"127.0.0.1:8080", "http://127.0.0.1:8080/", false},
		{"127.0.0.0/8", "ftp://127.0.0.2/", false},
		{"localhost", "gopher://localhost/", false},
		{"[::1]", "http://[::1]/", false},
		{"*", "nntp://news.example.com/g", false},
		{"*", "http://127.0.0.1/", false},
	}
	for _, tt := range tests {
		got, err := ProxyURL(p, tt.noProxy)(uri.MustParse(tt.url))
		if err != nil {
			t.Fatal(err)
		}
		if (got != nil) != tt.proxied {
			t.Errorf("-x with --noproxy %q: %s proxied = %v, want %v", tt.noProxy, tt.url, got != nil, tt.proxied)
		}
	}
}

// TestParseProxy checks curl's defaults: http:// when no scheme is
// given, port 1080 unless named (443 for an https proxy).
func TestParseProxy(t *testing.T) {
	tests := []struct{ in, url, addr string }{
		{"proxy.example", "http://proxy.example", "proxy.example:1080"},
		{"proxy.example:3128", "http://proxy.example:3128", "proxy.example:3128"},
		{"https://proxy.example", "https://proxy.example", "proxy.example:443"},
		{"socks5h://u:p@[::1]", "socks5h://u:****@[::1]", "[::1]:1080"},
		{"socks4a://10.0.0.1:9", "socks4a://10.0.0.1:9", "10.0.0.1:9"},
	}
	for _, tt := range tests {
		p, err := ParseProxy(tt.in)
		if err != nil {
			t.Errorf("ParseProxy(%q): %v", tt.in, err)
			continue
		}
		if got := p.URL.Redacted(); got != tt.url {
			t.Errorf("ParseProxy(%q) = %q, want %q", tt.in, got, tt.url)
		}
		if got := proxyAddr(p); got != tt.addr {
			t.Errorf("ParseProxy(%q) dials %q, want %q", tt.in, got, tt.addr)
		}
	}
	for _, bad := range []string{"ftp://proxy.example", "socks5://", "http://[bad"} {
		if _, err := ParseProxy(bad); err == nil {
			t.Errorf("ParseProxy(%q) accepted it", bad)
		}
	}
}

// TestWithCredentials checks --proxy-user in place of the URL's userinfo,
// characters that need escaping included.
func TestWithCredentials(t *testing.T) {
	p, _ := ParseProxy("http://old:pw@proxy.example:8080")
	q, err := withCredentials(p, "new user", "p@ss:word")
	if err != nil {
		t.Fatal(err)
	}
	user, pw, ok := proxyCredentials(q)
	if !ok || user != "new user" || pw != "p@ss:word" {
		t.Errorf("credentials %q %q %v", user, pw, ok)
	}
	if got := proxyAddr(q); got != "proxy.example:8080" {
		t.Errorf("address %q", got)
	}
}

// TestGatewayChoice checks when a URL goes to the gateway fetcher: an
// ftp:, ftps: or gopher: URL through an HTTP proxy without Tunnel, and
// nothing else.
func TestGatewayChoice(t *testing.T) {
	var called []string
	gw := &recordingGateway{called: &called}
	tests := []struct {
		proxy, url string
		tunnel     bool
		gateway    bool
	}{
		{"http://127.0.0.1:9", "ftp://127.0.0.1/f", false, true},
		{"https://127.0.0.1:9", "ftps://127.0.0.1/f", false, true},
		{"http://127.0.0.1:9", "gopher://127.0.0.1/0/x", false, true},
		{"http://127.0.0.1:9", "ftp://127.0.0.1/f", true, false},
		{"socks5://127.0.0.1:9", "ftp://127.0.0.1/f", false, false},
		{"http://127.0.0.1:9", "nntp://127.0.0.1/g", false, false},
		{"http://127.0.0.1:9", "wais://127.0.0.1/db", false, false},
	}
	for _, tt := range tests {
		called = nil
		p, err := ParseProxy(tt.proxy)
		if err != nil {
			t.Fatal(err)
		}
		p.Tunnel = tt.tunnel
		reg := DefaultFetchers()
		reg["http"], reg["https"] = gw, gw
		c := &Client{Proxy: ProxyURL(p, ""), ConnectTimeout: time.Second, Fetchers: reg}
		res, err := c.Fetch(context.Background(), tt.url)
		if err == nil {
			closeResource(res)
		}
		if got := len(called) == 1; got != tt.gateway {
			t.Errorf("%s through %s (tunnel %v): gateway %v, want %v (%v)", tt.url, tt.proxy, tt.tunnel, got, tt.gateway, err)
		}
		c.Close()
	}
}

// recordingGateway is the registry's http and https fetcher in
// TestGatewayChoice: a schemes.Gateway that records what it is asked to
// fetch.
type recordingGateway struct {
	called *[]string
}

func (g *recordingGateway) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	return nil, req.Fail(schemes.ErrNotRetrievable, "", 0, "", errors.New("not an http fetcher"))
}

func (g *recordingGateway) FetchThroughGateway(ctx context.Context, req *schemes.Request, p *schemes.GatewayProxy) (*schemes.Resource, error) {
	*g.called = append(*g.called, req.URL.String()+" via "+p.URL.String())
	return &schemes.Resource{Body: io.NopCloser(strings.NewReader(""))}, nil
}

// TestRoute checks the way each hop of an http fetch is given
// (schemes.Request.Route): an HTTP proxy with its port filled in (curl's
// 1080) and the --proxy-user credentials for the fetcher to speak to, a
// SOCKS proxy or a tunnel through the Dialer alone, and nothing for a
// host the policy sends direct.
func TestRoute(t *testing.T) {
	proxies := map[string]string{
		"127.0.0.2": "http://127.0.0.1",
		"127.0.0.3": "socks5://127.0.0.1:9",
		"127.0.0.5": "http://127.0.0.1:9",
	}
	c := &Client{
		Proxy: func(u uri.URL) (*Proxy, error) {
			s, ok := proxies[u.Hostname()]
			if !ok {
				return nil, nil
			}
			p, err := ParseProxy(s)
			if err == nil && u.Hostname() == "127.0.0.5" {
				p.Tunnel = true
			}
			return p, err
		},
		ProxyUser: url.UserPassword("u", "p w"),
		Fetchers:  map[string]schemes.Fetcher{"http": &routeRecorder{}},
	}
	defer c.Close()
	rec := c.Fetchers["http"].(*routeRecorder)
	res, err := c.Fetch(context.Background(), "http://127.0.0.2/start")
	if err != nil {
		t.Fatal(err)
	}
	closeResource(res)
	want := map[string]string{
		"127.0.0.2": "proxy http://u:p%20w@127.0.0.1:1080",
		"127.0.0.3": "dialer through a proxy",
		"127.0.0.4": "direct",
		"127.0.0.5": "dialer through a proxy",
	}
	for host, w := range want {
		if got := rec.got[host]; got != w {
			t.Errorf("route to %s: %q, want %q", host, got, w)
		}
	}
}

// routeRecorder is the http fetcher of TestRoute: it speaks to HTTP
// proxies itself, and asks the request's Route for a URL on each of four
// hosts, as a redirect chain would.
type routeRecorder struct {
	got map[string]string
}

func (r *routeRecorder) ProxyWays(*schemes.Request) (schemes.ProxyWays, error) {
	return schemes.ViaHTTPProxy | schemes.ViaDialer, nil
}

func (r *routeRecorder) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	r.got = map[string]string{}
	if req.Route == nil {
		return nil, errors.New("no Route")
	}
	for _, host := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"} {
		rt, err := req.Route(uri.MustParse("http://" + host + "/"))
		switch {
		case err != nil:
			r.got[host] = err.Error()
		case rt.HTTPProxy != nil:
			r.got[host] = "proxy " + rt.HTTPProxy.String()
		case rt.Dialer == nil:
			r.got[host] = "no dialer"
		default:
			if _, ok := rt.Dialer.(*proxyDialer); ok {
				r.got[host] = "dialer through a proxy"
			} else {
				r.got[host] = "direct"
			}
		}
	}
	return &schemes.Resource{Body: io.NopCloser(strings.NewReader("")), Size: 0}, nil
}
