package http

import (
	"net/url"
	"strings"

	"github.com/urlget/urlget/schemes"
)

// HSTS is a set of known HSTS hosts (HTTP Strict Transport Security, RFC
// 6797), kept by the caller across runs; internal/hsts's Cache is one.
type HSTS interface {
	// Secure reports whether host is a known HSTS host (RFC 6797 §8.2).
	Secure(host string) bool
	// Observe takes a Strict-Transport-Security field a response from
	// host gave over https (§8.1).
	Observe(host, value string)
}

// upgradeHSTS turns r, an http request to a known HSTS host, into an
// https one before it is sent (RFC 6797 §8.3): port 80, written or not,
// becomes https's default; another port is kept.
func (f *Fetcher) upgradeHSTS(req *schemes.Request, r *outRequest) {
	if f.HSTS == nil || r.url.Scheme != "http" || !f.HSTS.Secure(r.url.Hostname()) {
		return
	}
	old := r.url.Host
	u := *r.url
	u.Scheme = "https"
	if port := u.Port(); port == "" || port == "80" {
		// Hostname drops an IPv6 literal's brackets; JoinHostPort
		// would add a port.
		u.Host = u.Hostname()
		if strings.Contains(u.Host, ":") {
			u.Host = "[" + u.Host + "]"
		}
	}
	r.url = &u
	if r.host == old {
		r.host = u.Host
	}
	req.Trace.TraceLine(schemes.Info, "Switched from HTTP to HTTPS due to HSTS => "+(&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}).String())
}

// observeHSTS gives the first Strict-Transport-Security field of an https
// response to the fetcher's HSTS (RFC 6797 §8.1: only the first is
// processed, and one over plain http is ignored).
func (f *Fetcher) observeHSTS(r *outRequest, resp *response) {
	if f.HSTS == nil || r.url.Scheme != "https" {
		return
	}
	if v := resp.Header.Values("Strict-Transport-Security"); len(v) > 0 {
		f.HSTS.Observe(r.url.Hostname(), v[0])
	}
}
