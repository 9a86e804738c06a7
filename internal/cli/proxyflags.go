package cli

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/uri"
)

// proxyOptions are the proxy flags, curl's names and meanings.
type proxyOptions struct {
	proxy        string // -x: the proxy URL
	hasProxy     bool   // -x was given, "" included (no proxy at all)
	noProxy      string // --noproxy: hosts that go direct
	hasNoProxy   bool
	proxyUser    string // --proxy-user user:password
	hasProxyUser bool
	tunnel       bool // -p: CONNECT even where a gateway would do
	fs           *pflag.FlagSet
}

// addProxyFlags defines the proxy flags on fs.
func addProxyFlags(fs *pflag.FlagSet, o *options) {
	p := &o.proxyOpts
	p.fs = fs
	fs.StringVarP(&p.proxy, "proxy", "x", "", "go through the proxy `url` (http, https, socks4, socks4a, socks5, socks5h); \"\" for none")
	fs.StringVar(&p.noProxy, "noproxy", "", "go direct to the hosts in `list` (as no_proxy; '*' for all)")
	fs.StringVarP(&p.proxyUser, "proxy-user", "U", "", "the proxy's credentials `user:password`")
	fs.BoolVarP(&p.tunnel, "proxytunnel", "p", false, "through an HTTP proxy, CONNECT for every scheme, never a gateway")
}

// configure sets cl's proxy policy from the flags: -x, else the
// environment (http_proxy, ftp_proxy, all_proxy, …); no_proxy, or
// --noproxy in its place, lists the hosts that go direct.
func (p *proxyOptions) configure(cl *fetch.Client) error {
	if p.fs != nil {
		p.hasProxy = p.fs.Changed("proxy")
		p.hasNoProxy = p.fs.Changed("noproxy")
		p.hasProxyUser = p.fs.Changed("proxy-user")
	}
	noProxy := fetch.EnvNoProxy()
	if p.hasNoProxy {
		noProxy = p.noProxy
	}
	switch {
	case p.hasProxy && p.proxy == "":
		cl.Proxy = fetch.NoProxy
	case p.hasProxy:
		px, err := fetch.ParseProxy(p.proxy)
		if err != nil {
			return fmt.Errorf("--proxy: %v", err)
		}
		px.Tunnel = p.tunnel
		cl.Proxy = fetch.ProxyURL(px, noProxy)
	case p.hasNoProxy:
		cl.Proxy = fetch.ProxyFromEnvironmentExcept(noProxy)
	default:
		cl.Proxy = fetch.ProxyFromEnvironment()
	}
	if p.tunnel && !p.hasProxy {
		env := cl.Proxy
		cl.Proxy = func(u uri.URL) (*fetch.Proxy, error) {
			px, err := env(u)
			if px != nil {
				t := *px
				t.Tunnel = true
				px = &t
			}
			return px, err
		}
	}
	if p.hasProxyUser {
		user, pw, _ := strings.Cut(p.proxyUser, ":")
		cl.ProxyUser = url.UserPassword(user, pw)
	}
	return nil
}
