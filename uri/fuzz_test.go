package uri

import (
	"net/url"
	"strings"
	"testing"
)

// components lists every component of u with its definedness, for comparing
// two URLs built different ways.
func components(u URL) string {
	return strings.Join([]string{
		u.String(), u.RawScheme(), opt(u.RawUser()), opt(u.RawPassword()), u.RawHost(),
		opt(u.Port()), u.Path(), opt(u.Query()), opt(u.Fragment()),
		map[bool]string{true: "auth", false: "noauth"}[u.HasAuthority()],
	}, "|")
}

// checkNetURL compares u, parsed from s, with net/url's reading of s. Inputs
// net/url refuses are skipped: it accepts more than RFC 3986 in some places
// and less in others (it refuses %-escapes of ASCII in a host, for one). The
// deliberate differences listed in the package documentation are those where
// this package refuses what net/url accepts, so on inputs both accept the
// components agree:
//   - the scheme, lower-cased by both;
//   - the user and password, split at the first ':' by both, decoded;
//   - the host and port (net/url's Host is the decoded host, ':' and port);
//   - the path decoded (net/url's Path), or as written for an opaque URL
//     (net/url's Opaque);
//   - the query as written (net/url's RawQuery, ForceQuery for "?");
//   - the fragment decoded (net/url keeps no difference between "#" and none).
func checkNetURL(t *testing.T, s string, u URL) {
	t.Helper()
	v, err := url.Parse(s)
	if err != nil {
		return
	}
	if !u.IsAbs() && strings.HasPrefix(s, "///") {
		// net/url reads a reference starting "///" as a path; RFC 3986
		// §4.2 reads it as an empty authority and the path "/…".
		return
	}
	if v.Scheme != u.Scheme() {
		t.Errorf("%q: scheme %q, net/url %q", s, u.Scheme(), v.Scheme)
	}
	if v.Opaque != "" || (v.Scheme != "" && !u.HasAuthority() && !strings.HasPrefix(u.Path(), "/")) {
		if v.Opaque != u.Path() {
			t.Errorf("%q: opaque path %q, net/url %q", s, u.Path(), v.Opaque)
		}
	} else if v.Path != unescape(u.Path()) {
		t.Errorf("%q: decoded path %q, net/url %q", s, unescape(u.Path()), v.Path)
	}
	user, hasUser := u.User()
	if hasUser != (v.User != nil) {
		t.Errorf("%q: user defined %v, net/url %v", s, hasUser, v.User != nil)
	} else if hasUser {
		pass, hasPass := u.Password()
		vp, vHasPass := v.User.Password()
		if user != v.User.Username() || pass != vp || hasPass != vHasPass {
			t.Errorf("%q: user %q password %q (%v), net/url %q %q (%v)", s, user, pass, hasPass, v.User.Username(), vp, vHasPass)
		}
	}
	host := unescape(u.RawHost())
	if p, ok := u.Port(); ok {
		host += ":" + p
	}
	if v.Host != host {
		t.Errorf("%q: host and port %q, net/url %q", s, host, v.Host)
	}
	q, hasQ := u.Query()
	if q != v.RawQuery || hasQ != (v.RawQuery != "" || v.ForceQuery) {
		t.Errorf("%q: query %q (%v), net/url %q (force %v)", s, q, hasQ, v.RawQuery, v.ForceQuery)
	}
	if f, _ := u.Fragment(); unescape(f) != v.Fragment {
		t.Errorf("%q: fragment %q, net/url %q", s, unescape(f), v.Fragment)
	}
}

// seeds are inputs every fuzz target starts from.
var seeds = []string{
	"http://b%C3%BCcher.example:8080/p?q#f",
	"ftp://u:p@fa%C3%9F.de/",
	"http://b%C3%BC-.example/",
	"http://a/b/c/d;p?q", "ftp://@host.com/", "ftp://foo:@host.com/%2Fetc/motd;type=a",
	"gopher://h/1sel%09search%09plus", "news:comp.lang.go", "news:a@b", "nntp://h/g/1",
	"wais://h/db?s", "wais://h/db/t/p", "file:///etc/motd", "file://localhost/x",
	"telnet://u:p@h:23/", "mailto:Joe@Example.COM", "prospero://h/a;x=1",
	"urn:Example:a%2cb?+r&b&a?=q#f", "http://[::1]:80/", "http://[v1.x]/",
	"HTTP://U:P@H:0080/%7e/./../a?%aa#%bb", "//g", "../g", "?y", "#s", "", "a:",
	"foo:/..//x", "http://h:", "http://h/?#",
}

func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseReference(s)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("ParseReference(%q) error is %T", s, err)
			}
			return
		}
		// Parse(u.String()) reproduces u.
		if u.String() != s {
			t.Fatalf("String() = %q, want %q", u.String(), s)
		}
		v, err := ParseReference(u.String())
		if err != nil || v != u {
			t.Fatalf("reparse of %q: %v, %v", s, components(v), err)
		}
		if u.IsAbs() {
			w, err := Parse(s)
			if err != nil || w != u {
				t.Fatalf("Parse(%q) = %v, %v; ParseReference gave %v", s, components(w), err, components(u))
			}
		}
		checkNetURL(t, s, u)
		// The views and decoders never panic.
		u.FTP()
		u.Gopher()
		u.News()
		u.NNTP()
		u.WAIS()
		u.File()
		u.Telnet()
		u.Mailto()
		u.Prospero()
		u.URN()
		u.Hostname()
		u.Addr()
		if _, ok := u.RawPassword(); ok {
			r, err := ParseReference(u.Redacted())
			if p, _ := r.RawPassword(); err != nil || p != "****" {
				t.Fatalf("Redacted(%q) = %q (%v)", s, u.Redacted(), err)
			}
		}
		if w := u.WithoutFragment(); !strings.HasPrefix(s, w.String()) || opt(w.Fragment()) != "-" || opt(w.Query()) != opt(u.Query()) {
			t.Fatalf("WithoutFragment(%q) = %v", s, components(w))
		}
		// The ASCII view changes the host alone, to an ASCII name, and
		// agrees with HostASCII.
		if a, err := u.ASCII(); err == nil {
			h, herr := u.HostASCII()
			if herr != nil || !isASCII(a.Hostname()) || a.Hostname() != strings.ToLower(h) ||
				a.Path() != u.Path() || opt(a.Query()) != opt(u.Query()) || opt(a.Port()) != opt(u.Port()) || opt(a.RawUserinfo()) != opt(u.RawUserinfo()) {
				t.Fatalf("ASCII(%q) = %v, HostASCII %q, %v", s, components(a), h, herr)
			}
		} else if _, herr := u.HostASCII(); herr == nil {
			t.Fatalf("ASCII(%q) fails (%v) where HostASCII does not", s, err)
		}
	})
}

func FuzzNormalize(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseReference(s)
		if err != nil {
			return
		}
		n := u.Normalize()
		if r, err := ParseReference(n.String()); err != nil || r != n {
			t.Fatalf("Normalize(%q) = %q, which reparses as %v, %v", s, n, components(r), err)
		}
		if n2 := n.Normalize(); n2.String() != n.String() {
			t.Fatalf("Normalize not idempotent: %q -> %q -> %q", s, n, n2)
		}
		if ns, err := Normalize(s); err == nil {
			ns2, err := Normalize(ns)
			if err != nil || ns2 != ns {
				t.Fatalf("Normalize(%q) = %q, then %q, %v", s, ns, ns2, err)
			}
			if eq, err := Equal(s, ns); err != nil || !eq {
				t.Fatalf("Equal(%q, %q) = %v, %v", s, ns, eq, err)
			}
		}
	})
}

func FuzzResolve(f *testing.F) {
	for _, s := range seeds {
		f.Add("http://a/b/c/d;p?q", s)
		f.Add(s, "../g")
	}
	f.Fuzz(func(t *testing.T, base, ref string) {
		b, err := Parse(base)
		if err != nil {
			return
		}
		r, err := ParseReference(ref)
		if err != nil {
			return
		}
		for _, opts := range [][]ResolveOption{nil, {Draft2003}, {NonStrict}, {Draft2003, NonStrict}} {
			tu := b.ResolveReference(r, opts...)
			if !tu.IsAbs() {
				t.Fatalf("resolving %q against %q %v gave relative %q", ref, base, opts, tu)
			}
			p, err := Parse(tu.String())
			if err != nil {
				t.Fatalf("resolving %q against %q %v gave invalid %q: %v", ref, base, opts, tu, err)
			}
			if components(p) != components(tu) {
				t.Fatalf("resolving %q against %q %v: %v, reparsed %v", ref, base, opts, components(tu), components(p))
			}
		}
	})
}

func FuzzFromText(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add("<URL:http://a/b\r\n   c>")
	f.Add(" <http://a/é> ")
	f.Fuzz(func(t *testing.T, s string) {
		out, err := FromText(s)
		if err != nil {
			return
		}
		if out == "" || strings.ContainsAny(out, "\r\n") {
			t.Fatalf("FromText(%q) = %q", s, out)
		}
		for i := 0; i < len(out); i++ {
			if out[i] >= 0x80 {
				t.Fatalf("FromText(%q) = %q keeps a non-ASCII byte", s, out)
			}
		}
		// Only one wrapper is removed, so a second call may remove another;
		// otherwise FromText is idempotent.
		if strings.HasPrefix(out, "<") && strings.HasSuffix(out, ">") {
			return
		}
		if again, err := FromText(out); err != nil || again != out {
			t.Fatalf("FromText(FromText(%q)) = %q, %v; want %q", s, again, err, out)
		}
	})
}
