package uri

import (
	"bytes"
	"strings"
)

// ResolveOption selects the reading of RFC 3986 §5.2 that ResolveReference
// follows.
type ResolveOption int

const (
	// Strict is RFC 3986 §5.2 as published (the default): remove_dot_segments
	// (§5.2.4) removes every "." and ".." segment, and a reference with a
	// scheme is absolute even when it is the base's scheme.
	Strict ResolveOption = iota
	// Draft2003 follows §5.2 of draft-fielding-uri-rfc2396bis-01 (March
	// 2003), whose appendix C it passes whole: as in RFC 2396, only a
	// relative-path reference has its "." and ".." segments resolved; an
	// absolute-path reference ("/./g"), a network-path reference and an
	// absolute URI are taken as written, and ".." segments that would climb
	// above the root are kept ("../../../g" against http://a/b/c/d;p?q gives
	// http://a/../g).
	Draft2003
	// NonStrict is the backwards-compatible reading of RFC 3986 §5.2.2: a
	// reference whose scheme equals the base's ("http:g") is resolved as if it
	// had no scheme.
	NonStrict
)

// component is a part of a URL being assembled: the text, and whether it is
// defined.
type component struct {
	s  string
	ok bool
}

// ResolveReference resolves ref against u, the base URL, with the algorithm of
// RFC 3986 §5.2.2, and returns the target URL. u should be absolute (RFC 3986
// §5.1); the target then is too. Options may combine Draft2003 and NonStrict.
func (u URL) ResolveReference(ref URL, opts ...ResolveOption) URL {
	var draft, nonStrict bool
	for _, o := range opts {
		switch o {
		case Draft2003:
			draft = true
		case NonStrict:
			nonStrict = true
		}
	}
	refScheme := ref.s[:ref.schemeEnd]
	if nonStrict && refScheme != "" && strings.EqualFold(refScheme, u.s[:u.schemeEnd]) {
		refScheme = ""
	}

	var (
		scheme string
		auth   URL // the URL whose authority the target takes
		path   string
		dots   bool // whether path still needs remove_dot_segments
		merged bool // whether path is base path + reference path
		query  component
	)
	refPath := ref.s[ref.pathStart:ref.pathEnd()]
	refQuery := component{}
	refQuery.s, refQuery.ok = ref.Query()
	switch {
	case refScheme != "":
		scheme, auth, path, dots, query = refScheme, ref, refPath, true, refQuery
	case ref.flags&hasAuthority != 0:
		scheme, auth, path, dots, query = u.s[:u.schemeEnd], ref, refPath, true, refQuery
	default:
		scheme, auth = u.s[:u.schemeEnd], u
		switch {
		case refPath == "":
			path = u.s[u.pathStart:u.pathEnd()]
			query = refQuery
			if !query.ok {
				query.s, query.ok = u.Query()
			}
		case refPath[0] == '/':
			path, dots, query = refPath, true, refQuery
		default:
			path, dots, merged, query = refPath, true, true, refQuery
		}
	}
	if draft && !merged {
		// draft-fielding-uri-rfc2396bis-01 §5.2 (as RFC 2396 §5.2 step 5):
		// T.path = R.path for an absolute-path, network-path or absolute
		// reference; only merge() treats "." and ".." as special.
		dots = false
	}

	// Assemble scheme ":" ["//" authority] path ["?" query] ["#" fragment].
	n := len(scheme) + 1 + len(path) + len(query.s) + 2 + len(ref.s) + 4
	var authText string
	hasAuth := auth.flags&hasAuthority != 0
	if hasAuth {
		authText = auth.s[auth.authStart():auth.pathStart]
		n += 2 + len(authText)
	}
	if merged {
		n += len(u.s)
	}
	var sbuf [256]byte // the target is assembled on the stack when short
	b := sbuf[:0]
	if n > len(sbuf) {
		b = make([]byte, 0, n)
	}
	var t URL
	if scheme != "" {
		b = append(b, scheme...)
		b = append(b, ':')
		t.schemeEnd = int32(len(scheme))
	}
	if hasAuth {
		b = append(b, '/', '/')
		shift := int32(len(b) - auth.authStart())
		b = append(b, authText...)
		t.flags = auth.flags & (hasAuthority | hasUser | hasPassword | hasPort)
		t.userEnd = auth.userEnd + shift
		t.passColon = auth.passColon + shift
		t.hostStart = auth.hostStart + shift
		t.hostEnd = auth.hostEnd + shift
	}
	t.pathStart = int32(len(b))
	switch {
	case merged:
		// RFC 3986 §5.2.3: merge the base path, up to its last '/', with the
		// reference path; "/" when the base has an authority and no path.
		// draft-fielding-uri-rfc2396bis-01 §5.2 merge step 1 copies "/" for
		// any empty base path, with or without an authority.
		bp := u.s[u.pathStart:u.pathEnd()]
		var buf [256]byte // keeps the merged path off the heap when short
		m := buf[:0]
		if bp == "" && (draft || u.flags&hasAuthority != 0) {
			m = append(m, '/')
		} else {
			m = append(m, bp[:strings.LastIndexByte(bp, '/')+1]...)
		}
		m = append(m, path...)
		b = removeDotSegments(b, m, draft)
	case dots:
		b = removeDotSegments(b, path, draft)
	default:
		b = append(b, path...)
	}
	if !hasAuth && len(b)-int(t.pathStart) >= 2 && b[t.pathStart] == '/' && b[t.pathStart+1] == '/' {
		// A path starting with "//" and no authority would read back as an
		// authority; "/." keeps it a path (the fix RFC 3986 errata and the
		// WHATWG URL standard apply).
		b = append(b[:t.pathStart], append([]byte("/."), b[t.pathStart:]...)...)
	}
	if query.ok {
		t.flags |= hasQuery
		t.query = int32(len(b))
		b = append(b, '?')
		b = append(b, query.s...)
	}
	if f, ok := ref.Fragment(); ok {
		t.flags |= hasFragment
		t.frag = int32(len(b))
		b = append(b, '#')
		b = append(b, f...)
	}
	t.s = string(b)
	return t
}

// removeDotSegments appends to dst the path with its "." and ".." segments
// removed, by the algorithm of RFC 3986 §5.2.4. In draft mode, ".." segments
// that would climb above the root are kept, as the merge steps 5-7 of
// draft-fielding-uri-rfc2396bis-01 §5.2 (and RFC 2396 §5.2 step 6) do: a
// "<segment>/../" is removed only when <segment> is not "..", and the
// appendix C examples keep the leading ".." segments that remain.
func removeDotSegments[T ~string | ~[]byte](dst []byte, in T, draft bool) []byte {
	base := len(dst)
	for len(in) > 0 {
		switch {
		case hasPrefix(in, "../"):
			in = in[3:]
		case hasPrefix(in, "./"):
			in = in[2:]
		case hasPrefix(in, "/./"):
			in = in[2:]
		case string(in) == "/.":
			in = in[:1] // "/"
		case hasPrefix(in, "/../") || string(in) == "/..":
			if draft && climbsAboveRoot(dst[base:]) {
				dst = append(dst, "/.."...)
				in = in[3:]
				continue
			}
			if len(in) == 3 {
				in = in[:1] // "/.." becomes "/"
			} else {
				in = in[3:]
			}
			dst = dst[:base+lastSlash(dst[base:])]
		case string(in) == "." || string(in) == "..":
			in = in[:0]
		default:
			j := 0
			if in[0] == '/' {
				j = 1
			}
			k := j
			for k < len(in) && in[k] != '/' {
				k++
			}
			dst = append(dst, in[:k]...)
			in = in[k:]
		}
	}
	return dst
}

func hasPrefix[T ~string | ~[]byte](s T, prefix string) bool {
	return len(s) >= len(prefix) && string(s[:len(prefix)]) == prefix
}

// lastSlash returns the index of the last '/' in b, or 0 when there is none.
func lastSlash(b []byte) int {
	if k := bytes.LastIndexByte(b, '/'); k > 0 {
		return k
	}
	return 0
}

// climbsAboveRoot reports whether the output so far has no segment left for a
// ".." to remove, other than ".." segments kept earlier.
func climbsAboveRoot(out []byte) bool {
	for len(out) > 0 {
		k := bytes.LastIndexByte(out, '/')
		if k < 0 {
			return string(out) == ".."
		}
		if string(out[k+1:]) != ".." {
			return false
		}
		out = out[:k]
	}
	return true
}

// Resolve parses base (an absolute URL) and ref (a URI reference) and returns
// the resolved target as text.
func Resolve(base, ref string, opts ...ResolveOption) (string, error) {
	b, err := Parse(base)
	if err != nil {
		return "", err
	}
	r, err := ParseReference(ref)
	if err != nil {
		return "", err
	}
	return b.ResolveReference(r, opts...).String(), nil
}
