package uri

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// idnaProfile converts an internationalized host name to the ASCII form
// that name resolution, TLS server names and Host headers carry: UTS #46
// (RFC 5891 §5 for lookup) with non-transitional processing, so that "ß"
// and "ς" keep their own A-labels instead of becoming "ss" and "σ", the
// Bidi rule of RFC 5893, and label validation (hyphens, joiners, STD3
// characters). This is what curl does with libidn2
// (IDN2_NONTRANSITIONAL), and what browsers do since 2017.
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.BidiRule(),
	idna.ValidateLabels(true),
)

// HostError is the error HostASCII and URL.HostASCII return for a host name
// that IDNA rejects.
type HostError struct {
	Host string // the name as written, %-escapes decoded
	Err  error  // the reason, from IDNA
}

// Error says which name was rejected and why, on one line.
func (e *HostError) Error() string {
	return fmt.Sprintf("bad host name %q: %v", e.Host, e.Err)
}

// Unwrap returns the reason.
func (e *HostError) Unwrap() error { return e.Err }

// isASCII reports whether s holds only bytes below 0x80.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// HostASCII returns the ASCII form of a host name: a name with non-ASCII
// characters converted to its A-labels (xn--…) by IDNA as the idnaProfile
// comment describes, in lower case; an ASCII name unchanged. As curl does,
// only a name that holds non-ASCII characters goes through IDNA: an ASCII
// name is looked up as it is, so that names IDNA would refuse but DNS and
// /etc/hosts allow (an underscore, a label that ends in '-') keep working.
func HostASCII(name string) (string, error) {
	if isASCII(name) {
		return name, nil
	}
	if !utf8.ValidString(name) {
		return "", &HostError{Host: name, Err: errBadUTF8}
	}
	a, err := idnaProfile.ToASCII(name)
	if err != nil {
		return "", &HostError{Host: name, Err: err}
	}
	return a, nil
}

// errBadUTF8 is the reason a host whose %-escapes decode to bytes that are
// not UTF-8 cannot be converted: RFC 3986 §3.2.2 says a reg-name's non-ASCII
// characters are UTF-8 before %-encoding.
var errBadUTF8 = fmt.Errorf("idna: %%-escapes that are not UTF-8")

// HostASCII returns the host as it goes on the wire: Hostname (the host
// %-decoded, an IP literal without its brackets) with a registered name that
// holds non-ASCII characters, typed as such or %-encoded as UTF-8 (RFC 3986
// §3.2.2, RFC 3987 §3.1), converted to its A-labels (RFC 5891 §5, UTS #46).
// The error of a name IDNA rejects is an *Error whose Msg is the
// *HostError's text.
func (u URL) HostASCII() (string, error) {
	h := u.Hostname()
	a, err := HostASCII(h)
	if err != nil {
		return "", u.viewError(int(u.hostStart), err.Error())
	}
	return a, nil
}

// ASCII returns the URL with its host in ASCII form (see HostASCII), the URL
// every fetcher puts on the wire and the one listings and messages show.
// A URL whose host is already ASCII once decoded is returned unchanged, as
// written.
func (u URL) ASCII() (URL, error) {
	if u.flags&hasAuthority == 0 {
		return u, nil
	}
	h := u.Hostname()
	if isASCII(h) {
		return u, nil
	}
	a, err := u.HostASCII()
	if err != nil {
		return URL{}, err
	}
	var b strings.Builder
	b.Grow(len(u.s) - int(u.hostEnd-u.hostStart) + len(a))
	b.WriteString(u.s[:u.hostStart])
	b.WriteString(a)
	b.WriteString(u.s[u.hostEnd:])
	// An A-label is letters, digits, '-' and '.', all allowed in a
	// reg-name, so the new text parses as the old did.
	return reparse(b.String())
}

// Origin returns the URL's origin in one comparable string, as RFC 6454 §4
// computes it: the scheme in lower case, the host in the form that goes on
// the wire (HostASCII: lower case, IDNA A-labels, an IP literal without its
// brackets) and the port, the scheme's default one when the URL names none,
// as "scheme://host:port". Two URLs with the same Origin reach the same
// server under the same scheme; credentials given for one belong to the
// other too, and to no other. A host IDNA rejects is compared as it is
// written, lower-cased.
func (u URL) Origin() string {
	h, err := u.HostASCII()
	if err != nil {
		h = u.Hostname()
	}
	p, _ := u.Port()
	// RFC 3986 §6.2.3: a port is a decimal number, its leading zeros
	// meaning nothing, and an empty or default one is the same origin.
	if p = strings.TrimLeft(p, "0"); p == "" {
		p = DefaultPort(u.Scheme())
	}
	return u.Scheme() + "://" + JoinHostPort(h, p)
}
