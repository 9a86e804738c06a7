package schemes

import (
	"context"
	"crypto/tls"

	"github.com/urlget/urlget/uri"
)

// ProxyWays is a set of the ways a fetcher's connections can go through
// a proxy, which the fetch package chooses among for each request.
type ProxyWays uint8

// The ways through a proxy.
const (
	// ViaDialer: every connection the fetcher makes goes through the
	// request's Dialer, which the fetch package points at a SOCKS proxy
	// (RFC 1928) or a CONNECT tunnel through an HTTP proxy (RFC 9110
	// §9.3.6). The fetcher speaks its own protocol inside.
	ViaDialer ProxyWays = 1 << iota
	// ViaHTTPProxy: the fetcher speaks to an HTTP proxy itself (the
	// absolute-form request, RFC 9112 §3.2.2, or a CONNECT of its own),
	// given by the request's Route, for each hop of a redirect.
	ViaHTTPProxy
	// ViaGateway: an HTTP proxy can fetch the URL for the client, asked
	// for it in the absolute form (RFC 1738 §3 leaves the protocol to the
	// proxy; squid gateways ftp:), through the registry's Gateway.
	ViaGateway
	// GatewayFallback: a gateway that refuses the request (400, 403,
	// 405, 501, 502 or 503: RFC 9110 §15.6.2's Not Implemented, and what
	// proxies that only tunnel answer instead) is passed over for
	// ViaDialer's CONNECT tunnel, for the rest of the run once the tunnel
	// opened or the refusal was one of the request itself (400, 405,
	// 501). Squid stopped gatewaying gopher: in version 4 and still
	// tunnels it; tinyproxy answers 400 to ftp: and 503 to gopher:.
	GatewayFallback
)

// ProxyAware is implemented by a Fetcher that tells which ways its
// requests can go through a proxy. A Fetcher that does not implement it
// goes through its Dialer (ViaDialer).
type ProxyAware interface {
	// ProxyWays tells the ways req can go through a proxy: none for a
	// URL that never goes through one (file:). An error tells that req
	// cannot go through any proxy (active FTP, whose server could not
	// connect back through it); it is reported only when a proxy is to
	// be used.
	ProxyWays(req *Request) (ProxyWays, error)
}

// Route is the way to one URL a fetch reaches (Request.Route).
type Route struct {
	// Dialer opens the connections to the URL's server, or to HTTPProxy
	// when there is one: directly, or through the SOCKS proxy (RFC 1928)
	// or CONNECT tunnel (RFC 9110 §9.3.6) the fetch package chose. Nil
	// means the request's Dialer.
	Dialer Dialer

	// HTTPProxy, when not nil, is the http or https proxy the fetcher
	// speaks to itself: in the absolute form for an http: URL (RFC 9112
	// §3.2.2), through a CONNECT tunnel of its own for https: (RFC 9110
	// §9.3.6). Its port is always given, and its credentials, if any,
	// are in the userinfo: they go in Proxy-Authorization (RFC 9110
	// §11.7.2) and nowhere else.
	HTTPProxy *uri.URL
}

// A Gateway is a Fetcher that can ask an HTTP proxy to fetch a URL of
// another scheme for it (ViaGateway): the fetch package uses the one its
// registry holds for the proxy's own scheme (http or https).
type Gateway interface {
	// FetchThroughGateway fetches req, of another scheme, through the
	// proxy p acting as a gateway, and returns what the proxy sent as a
	// Resource: a file's bytes, or a directory's or menu's listing.
	FetchThroughGateway(ctx context.Context, req *Request, p *GatewayProxy) (*Resource, error)
}

// GatewayProxy describes the HTTP proxy a Gateway sends a request to.
type GatewayProxy struct {
	// URL is the proxy's, http or https, with its credentials, if any,
	// in the userinfo: they go in Proxy-Authorization (RFC 9110
	// §11.7.1) and nowhere else.
	URL uri.URL

	// Dialer reaches the proxy; its errors name the proxy.
	Dialer Dialer

	// TLSConfig is the base TLS configuration, for an https proxy.
	TLSConfig *tls.Config

	// Waiting, when not nil, is called as the request goes to the proxy;
	// the function it returns is called once the proxy's answer has
	// begun. Until then a connect timeout names the proxy, which answers
	// for the server.
	Waiting func(ctx context.Context) (answered func())
}
