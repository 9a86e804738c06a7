package fetch

// A stand-in for the proxy API (Proxy, ProxyURL, gatewayFetcher and the
// Client's proxy fields) so that the gateway builds and its tests run on
// their own. This file is deleted when the proxy policy is merged.

import (
	"context"
	"crypto/tls"
	"strings"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// Proxy is a proxy a URL goes through.
type Proxy struct {
	URL    uri.URL // http, https, socks4, socks4a, socks5 or socks5h, with optional user:password
	Tunnel bool    // an http(s) proxy reaches non-http schemes by CONNECT even where it could be a gateway (curl's -p)
}

// ProxyURL returns a Client.Proxy function that sends every URL through p
// except those whose host noProxy names (a comma-separated list).
func ProxyURL(p *Proxy, noProxy string) func(uri.URL) (*Proxy, error) {
	return func(u uri.URL) (*Proxy, error) {
		for _, h := range strings.Split(noProxy, ",") {
			if h = strings.TrimSpace(h); h != "" && strings.EqualFold(h, u.Hostname()) {
				return nil, nil
			}
		}
		return p, nil
	}
}

var gatewayFetcher func(ctx context.Context, req *schemes.Request, proxy *Proxy, dial schemes.Dialer, tlsConf *tls.Config) (*schemes.Resource, error)

// gatewayStub routes an ftp, ftps or gopher URL whose proxy is an http(s)
// proxy without Tunnel to gatewayFetcher, as the proxy policy does.
func (c *Client) gatewayStub(u uri.URL, f schemes.Fetcher) schemes.Fetcher {
	if c.Proxy == nil {
		return f
	}
	p, err := c.Proxy(u)
	if err != nil || p == nil || p.Tunnel {
		return f
	}
	switch p.URL.Scheme() {
	case "http", "https":
	default:
		return f
	}
	switch u.Scheme() {
	case "ftp", "ftps", "gopher":
	default:
		return f
	}
	return schemes.FetcherFunc(func(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
		return gatewayFetcher(ctx, req, p, c.dialer, c.tls)
	})
}
