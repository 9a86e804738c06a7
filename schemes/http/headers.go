package http

import (
	"fmt"
	"mime"
	"net/url"
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

// Field is one request header field as the user gave it: its name as
// spelled, its value (empty for a field sent empty).
type Field struct {
	Name, Value string
}

// applyHeaders applies RemoveHeader and Header to r, after the defaults
// and the credentials, as curl's -H does: a name Header gives takes the
// place of every default field of that name, and Header's fields go out
// after the defaults in the order given, spelled as given. On a Foreign
// request neither touches the credential fields (Authorization, Cookie):
// they were given for another origin.
func (f *Fetcher) applyHeaders(req *schemes.Request, r *outRequest) error {
	for _, name := range f.RemoveHeader {
		if req.Foreign && isCredentialField(name) {
			// The user's choice for their own origin: a foreign URL's
			// own userinfo still goes.
			continue
		}
		if !strings.EqualFold(name, "Host") {
			// Host is always written, from the request (RFC 9112 §3.2).
			r.fields.del(name)
		}
	}
	host := false
	merged := "" // a Connection field merged into --tr-encoding's
	for _, h := range f.Header {
		if req.Foreign && isCredentialField(h.Name) {
			continue
		}
		if err := checkField(h.Name, h.Value); err != nil {
			return req.Fail(schemes.ErrBadURL, "", 0, "", err)
		}
		if strings.EqualFold(h.Name, "Host") {
			// Host is written first, from the first one given, as
			// curl takes it (RFC 9112 §3.2).
			if !host && h.Value != "" {
				r.host, host = h.Value, true
			}
			continue
		}
		if f.TransferEncoding && merged == "" && strings.EqualFold(h.Name, "Connection") && h.Value != "" {
			// --tr-encoding's TE must be named in Connection (RFC
			// 9110 §7.6.1): curl adds it to the user's field, where
			// its own goes.
			merged = h.Name
			for i := range r.fields {
				if r.fields[i][0] == "Connection" {
					r.fields[i][1] = h.Value + ", TE"
				}
			}
			continue
		}
		r.fields.del(h.Name)
	}
	for _, h := range f.Header {
		if (req.Foreign && isCredentialField(h.Name)) || strings.EqualFold(h.Name, "Host") || (merged != "" && strings.EqualFold(h.Name, "Connection")) {
			continue
		}
		r.fields.add(h.Name, h.Value)
	}
	return nil
}

// isCredentialField reports whether a header field holds the user's
// credentials for an origin: Authorization (RFC 9110 §11.6.2) and Cookie
// (RFC 6265 §5.4), which curl drops on the way to another origin.
func isCredentialField(name string) bool {
	return strings.EqualFold(name, "Authorization") || strings.EqualFold(name, "Cookie")
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
