package http

import (
	"net/url"
	"strings"
)

// CookieJar keeps cookies between requests (RFC 6265) for a Fetcher's
// Jar, as net/http's CookieJar does for its Client, but with the fields'
// own bytes: the cookies package's Jar implements it. It must be safe for
// use by several goroutines.
type CookieJar interface {
	// SetCookies stores the cookies of a response to u: the values of
	// its Set-Cookie fields, in the server's order.
	SetCookies(u *url.URL, fields []string)
	// Cookies returns the value of the Cookie field a request to u
	// carries, "" for none.
	Cookies(u *url.URL) string
}

// withCookies returns r as it goes on the wire with the Jar's cookies for
// its URL: one Cookie field, the jar's cookies first and then those of a
// Cookie field r already has (-H, curl's -b NAME=VALUE), as curl joins
// them; r itself when there is no jar or it has nothing for the URL, so
// that the redirect rules keep seeing only the fields the user gave.
func (f *Fetcher) withCookies(r *outRequest) *outRequest {
	if f.Jar == nil {
		return r
	}
	v := f.Jar.Cookies(r.url)
	if v == "" {
		return r
	}
	given := r.fields.values("Cookie")
	w := r.clone()
	if len(given) > 0 {
		v += "; " + strings.Join(given, "; ")
		w.fields.del("Cookie")
	}
	w.fields.add("Cookie", v)
	return w
}

// keepCookies gives the Set-Cookie fields of resp, the response to r, to
// the Jar.
func (f *Fetcher) keepCookies(r *outRequest, resp *response) {
	if f.Jar == nil {
		return
	}
	if sc := resp.Header.Values("Set-Cookie"); len(sc) > 0 {
		f.Jar.SetCookies(r.url, sc)
	}
}
