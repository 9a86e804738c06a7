package uri

import (
	"sort"
	"strings"
)

// URN is the view of a URN (RFC 8141 §2), as written: a URN's NSS is never
// %-decoded, because its namespace alone says what an escape means.
type URN struct {
	NID, NSS string
	Query    string // the text after the first '?': "+r", "=q", "+r?=q", or keywd=value&… directives
	HasQuery bool
}

// URN returns the URN view: RFC 8141 §2,
// "urn:" NID ":" NSS [ "?+" r-component ] [ "?=" q-component ] [ "#" f-component ].
func (u URL) URN() (URN, error) {
	if err := u.checkScheme("urn"); err != nil {
		return URN{}, err
	}
	if u.flags&hasAuthority != 0 {
		return URN{}, u.viewError(int(u.schemeEnd)+1, "URN has an authority (\"//\")")
	}
	p := u.Path()
	off := int(u.pathStart)
	nid, nss, ok := strings.Cut(p, ":")
	if !ok {
		return URN{}, u.viewError(off+len(p), "URN has no ':' after its NID")
	}
	if k := checkNID(nid); k >= 0 {
		return URN{}, u.viewError(off+k, "invalid URN namespace identifier (NID): 2 to 32 letters, digits or '-', starting and ending with a letter or digit")
	}
	if strings.EqualFold(nid, "urn") {
		// RFC 2141 §2 and RFC 8141 §5.1: the NID "urn" is reserved.
		return URN{}, u.viewError(off, "URN namespace identifier \"urn\" is reserved")
	}
	// RFC 8141 §2: NSS = pchar *( pchar / "/" ).
	if nss == "" || nss[0] == '/' {
		return URN{}, u.viewError(off+len(nid)+1, "URN namespace-specific string (NSS) is empty or starts with '/'")
	}
	q, hasQ := u.Query()
	return URN{NID: nid, NSS: nss, Query: q, HasQuery: hasQ}, nil
}

// checkNID checks NID = (alphanum) 0*30(ldh) (alphanum) (RFC 8141 §2) and
// returns -1, or the offset of the first wrong byte.
func checkNID(nid string) int {
	if len(nid) < 2 {
		return len(nid)
	}
	if len(nid) > 32 {
		return 32
	}
	for i := 0; i < len(nid); i++ {
		c := nid[i]
		if ctab[c]&(cAlpha|cDigit) != 0 || c == '-' && i > 0 && i < len(nid)-1 {
			continue
		}
		return i
	}
	return -1
}

// normalizeURN returns the RFC 8141 §3.1 lexical-equivalence form: "urn" and
// the NID in lower case, %-escapes with upper-case hex and never decoded, the
// f-component removed. The query is kept, with its components in a fixed order
// (r before q) and the keywd=value directives of each sorted, so that two URNs
// differing only in the order of directives normalize alike.
func normalizeURN(u URL) (string, error) {
	n, err := u.URN()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(len(u.s))
	b.WriteString("urn:")
	b.WriteString(lower(n.NID))
	b.WriteByte(':')
	b.WriteString(upperEscapes(n.NSS))
	if n.HasQuery {
		b.WriteByte('?')
		b.WriteString(normalizeURNQuery(upperEscapes(n.Query)))
	}
	return b.String(), nil
}

// normalizeURNQuery orders an RFC 8141 rq-components text ("+r?=q") or a
// plain directive list ("k=v&k2=v2").
func normalizeURNQuery(q string) string {
	if strings.HasPrefix(q, "+") || strings.HasPrefix(q, "=") {
		var r, qc string
		var hasR, hasQ bool
		rest := q
		if strings.HasPrefix(rest, "+") {
			var found bool
			r, rest, found = strings.Cut(rest[1:], "?=")
			hasR = true
			if found {
				qc, hasQ = rest, true
			}
		} else {
			qc, hasQ = rest[1:], true
		}
		var b strings.Builder
		if hasR {
			b.WriteByte('+')
			b.WriteString(sortDirectives(r))
		}
		if hasQ {
			if hasR {
				b.WriteByte('?')
			}
			b.WriteByte('=')
			b.WriteString(sortDirectives(qc))
		}
		return b.String()
	}
	// A directive list must not come to start with '+' or '=' once sorted,
	// or it would read as RFC 8141 components the next time.
	d := strings.Split(q, "&")
	sort.SliceStable(d, func(i, j int) bool {
		ci, cj := componentLike(d[i]), componentLike(d[j])
		if ci != cj {
			return cj
		}
		return d[i] < d[j]
	})
	return strings.Join(d, "&")
}

func componentLike(s string) bool { return strings.HasPrefix(s, "+") || strings.HasPrefix(s, "=") }

// sortDirectives sorts the '&'-joined keywd=value directives of a URN query.
func sortDirectives(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	d := strings.Split(s, "&")
	sort.Strings(d)
	return strings.Join(d, "&")
}

// upperEscapes rewrites the hex digits of every %-escape in upper case
// (RFC 3986 §6.2.2.1).
func upperEscapes(s string) string {
	var b []byte
	for i := 0; i+2 < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		for k := i + 1; k <= i+2; k++ {
			if c := s[k]; c >= 'a' && c <= 'f' {
				if b == nil {
					b = []byte(s)
				}
				b[k] = c - 'a' + 'A'
			}
		}
		i += 2
	}
	if b == nil {
		return s
	}
	return string(b)
}

// EquivalentURN reports whether two URNs are equivalent under RFC 8141 §3.1
// exactly: only "urn", the NID (both case-insensitive) and the NSS (with
// %-escapes compared case-insensitively) count; the r-, q- and f-components
// are ignored. Equal, by contrast, compares the normalized forms, which keep
// the query.
func EquivalentURN(a, b string) (bool, error) {
	ua, err := Parse(a)
	if err != nil {
		return false, err
	}
	ub, err := Parse(b)
	if err != nil {
		return false, err
	}
	na, err := ua.URN()
	if err != nil {
		return false, err
	}
	nb, err := ub.URN()
	if err != nil {
		return false, err
	}
	return strings.EqualFold(na.NID, nb.NID) && upperEscapes(na.NSS) == upperEscapes(nb.NSS), nil
}
