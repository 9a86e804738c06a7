package http

import (
	"fmt"
	"maps"
	"mime"
	"net/textproto"
	"net/url"
	"slices"
	"strings"

	"github.com/urlget/urlget/schemes"
)

// isToken reports whether s is a token of RFC 9110 §5.6.2.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// applyHeaders applies RemoveHeader and Header to r, after the defaults
// and the credentials, so that a field the user names replaces the default
// one of that name (as curl's -H does). Header's fields go out in the order
// of their names, so that the same settings always write the same bytes.
// On a Foreign request neither touches the credential fields
// (Authorization, Cookie): they were given for another origin.
func (f *Fetcher) applyHeaders(req *schemes.Request, r *outRequest) error {
	for _, name := range f.RemoveHeader {
		name = textproto.CanonicalMIMEHeaderKey(name)
		if req.Foreign && isCredentialField(name) {
			// The user's choice for their own origin: a foreign URL's
			// own userinfo still goes.
			continue
		}
		if name != "Host" {
			// Host is always written, from the request (RFC 9112 §3.2).
			r.fields.del(name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(f.Header)) {
		values := f.Header[name]
		name = textproto.CanonicalMIMEHeaderKey(name)
		if req.Foreign && isCredentialField(name) {
			continue
		}
		for _, v := range values {
			if err := checkField(name, v); err != nil {
				return req.Fail(schemes.ErrBadURL, "", 0, "", err)
			}
		}
		if name == "Host" {
			// Host is written first, from the request (RFC 9112 §3.2).
			if len(values) > 0 {
				r.host = values[len(values)-1]
			}
			continue
		}
		r.fields.del(name)
		for _, v := range values {
			r.fields.add(name, v)
		}
	}
	return nil
}

// isCredentialField reports whether a header field holds the user's
// credentials for an origin: Authorization (RFC 9110 §11.6.2) and Cookie
// (RFC 6265 §5.4), which curl drops on the way to another origin.
func isCredentialField(name string) bool {
	return name == "Authorization" || name == "Cookie"
}

// checkField refuses a header field whose name is not a token (RFC 9110
// §5.1) or whose value holds a CR, LF or NUL, which would end the field
// early or smuggle a second one in (RFC 9110 §5.5).
func checkField(name, value string) error {
	if !isToken(name) {
		return fmt.Errorf("header field name %q is not a token", name)
	}
	if strings.ContainsAny(value, "\r\n\x00") {
		return fmt.Errorf("header %s holds a CR, LF or NUL byte", name)
	}
	return nil
}

// referer is the Referer a redirected request carries: the URL that
// redirected it with AutoReferer, its credentials and fragment left out
// (RFC 9110 §10.1.3), and none from https to http, which that section
// forbids; else the first request's own, given with Referer or Header;
// else none.
func (f *Fetcher) referer(first string, from, to *url.URL) string {
	if !f.AutoReferer {
		return first
	}
	if from.Scheme == "https" && to.Scheme != "https" {
		return ""
	}
	u := *from
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	return u.String()
}

// DispositionName returns the file name a Content-Disposition field value
// suggests (RFC 6266 §4.3): the filename* parameter decoded as RFC 8187
// says, else filename, reduced to its last path segment as curl's -J
// does. It is "" when there is none or the value does not parse, and may
// still be a name a caller must refuse, such as "..".
func DispositionName(v string) string {
	// mime.ParseMediaType decodes filename* (RFC 2231 §4, which RFC 8187
	// profiles) into "filename", preferring it to a plain filename.
	_, params, err := mime.ParseMediaType(v)
	if err != nil {
		return ""
	}
	name := params["filename"]
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return name
}
