package uri

import "testing"

const rfcBase = "http://a/b/c/d;p?q"

// rfc3986Normal is RFC 3986 §5.4.1; the 2003 draft's appendix C.1 gives the
// same targets.
var rfc3986Normal = [][2]string{
	{"g:h", "g:h"},
	{"g", "http://a/b/c/g"},
	{"./g", "http://a/b/c/g"},
	{"g/", "http://a/b/c/g/"},
	{"/g", "http://a/g"},
	{"//g", "http://g"},
	{"?y", "http://a/b/c/d;p?y"},
	{"g?y", "http://a/b/c/g?y"},
	{"#s", "http://a/b/c/d;p?q#s"},
	{"g#s", "http://a/b/c/g#s"},
	{"g?y#s", "http://a/b/c/g?y#s"},
	{";x", "http://a/b/c/;x"},
	{"g;x", "http://a/b/c/g;x"},
	{"g;x?y#s", "http://a/b/c/g;x?y#s"},
	{"", "http://a/b/c/d;p?q"},
	{".", "http://a/b/c/"},
	{"./", "http://a/b/c/"},
	{"..", "http://a/b/"},
	{"../", "http://a/b/"},
	{"../g", "http://a/b/g"},
	{"../..", "http://a/"},
	{"../../", "http://a/"},
	{"../../g", "http://a/g"},
}

// rfc3986Abnormal is RFC 3986 §5.4.2, with the strict reading of "http:g".
var rfc3986Abnormal = [][2]string{
	{"../../../g", "http://a/g"},
	{"../../../../g", "http://a/g"},
	{"/./g", "http://a/g"},
	{"/../g", "http://a/g"},
	{"g.", "http://a/b/c/g."},
	{".g", "http://a/b/c/.g"},
	{"g..", "http://a/b/c/g.."},
	{"..g", "http://a/b/c/..g"},
	{"./../g", "http://a/b/g"},
	{"./g/.", "http://a/b/c/g/"},
	{"g/./h", "http://a/b/c/g/h"},
	{"g/../h", "http://a/b/c/h"},
	{"g;x=1/./y", "http://a/b/c/g;x=1/y"},
	{"g;x=1/../y", "http://a/b/c/y"},
	{"g?y/./x", "http://a/b/c/g?y/./x"},
	{"g?y/../x", "http://a/b/c/g?y/../x"},
	{"g#s/./x", "http://a/b/c/g#s/./x"},
	{"g#s/../x", "http://a/b/c/g#s/../x"},
	{"http:g", "http:g"},
}

// draft2003Abnormal is appendix C.2 of draft-fielding-uri-rfc2396bis-01: as
// RFC 3986 §5.4.2 except that ".." above the root is kept and an
// absolute-path reference is taken as written.
var draft2003Abnormal = [][2]string{
	{"../../../g", "http://a/../g"},
	{"../../../../g", "http://a/../../g"},
	{"/./g", "http://a/./g"},
	{"/../g", "http://a/../g"},
	{"g.", "http://a/b/c/g."},
	{".g", "http://a/b/c/.g"},
	{"g..", "http://a/b/c/g.."},
	{"..g", "http://a/b/c/..g"},
	{"./../g", "http://a/b/g"},
	{"./g/.", "http://a/b/c/g/"},
	{"g/./h", "http://a/b/c/g/h"},
	{"g/../h", "http://a/b/c/h"},
	{"g;x=1/./y", "http://a/b/c/g;x=1/y"},
	{"g;x=1/../y", "http://a/b/c/y"},
	{"g?y/./x", "http://a/b/c/g?y/./x"},
	{"g?y/../x", "http://a/b/c/g?y/../x"},
	{"g#s/./x", "http://a/b/c/g#s/./x"},
	{"g#s/../x", "http://a/b/c/g#s/../x"},
	{"http:g", "http:g"},
}

func checkResolve(t *testing.T, name string, table [][2]string, opts ...ResolveOption) {
	t.Helper()
	base := MustParse(rfcBase)
	for _, tt := range table {
		ref, err := ParseReference(tt[0])
		if err != nil {
			t.Errorf("%s: ParseReference(%q): %v", name, tt[0], err)
			continue
		}
		got := base.ResolveReference(ref, opts...)
		if got.String() != tt[1] {
			t.Errorf("%s: resolve %q = %q, want %q", name, tt[0], got, tt[1])
		}
		if p, err := Parse(got.String()); err != nil || components(p) != components(got) {
			t.Errorf("%s: resolve %q: result %v does not match its reparse %v (%v)", name, tt[0], components(got), components(p), err)
		}
		if s, err := Resolve(rfcBase, tt[0], opts...); err != nil || s != tt[1] {
			t.Errorf("%s: Resolve(%q) = %q, %v", name, tt[0], s, err)
		}
	}
}

func TestResolveRFC3986(t *testing.T) {
	checkResolve(t, "normal", rfc3986Normal)
	checkResolve(t, "abnormal", rfc3986Abnormal)
}

func TestResolveDraft2003(t *testing.T) {
	checkResolve(t, "draft normal", rfc3986Normal, Draft2003)
	checkResolve(t, "draft abnormal", draft2003Abnormal, Draft2003)
}

func TestResolveNonStrict(t *testing.T) {
	checkResolve(t, "nonstrict", [][2]string{
		{"http:g", "http://a/b/c/g"},
		{"HTTP:g", "http://a/b/c/g"},
		{"http:", "http://a/b/c/d;p?q"},
		{"http:?y", "http://a/b/c/d;p?y"},
		{"http://g", "http://g"},
		{"ftp:g", "ftp:g"},
		{"g:h", "g:h"},
	}, NonStrict)
	checkResolve(t, "nonstrict draft", [][2]string{{"http:../../../g", "http://a/../g"}}, NonStrict, Draft2003)
}

func TestResolveMore(t *testing.T) {
	tests := []struct{ base, ref, want string }{
		{"http://a", "g", "http://a/g"},
		{"http://a", "?y", "http://a?y"},
		{"http://a?x", "#f", "http://a?x#f"},
		{"http://u:p@a:8/b", "c", "http://u:p@a:8/c"},
		{"http://a/b", "//u:p@[::1]:9/x/../y", "http://u:p@[::1]:9/y"},
		{"mailto:x@y", "z", "mailto:z"},
		{"foo:/a/b", "..//c", "foo:/.//c"},
		{"foo:a/b", "../../../c", "foo:/c"},
		{"news:comp.lang.go", "#x", "news:comp.lang.go#x"},
		{"http://a/b/c/d;p?q", "HTTP://G/./x", "HTTP://G/x"},
		{"file:///etc/motd", "hosts", "file:///etc/hosts"},
	}
	for _, tt := range tests {
		got, err := Resolve(tt.base, tt.ref)
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q", tt.base, tt.ref, got, err, tt.want)
		}
		r, _ := Parse(got)
		b := MustParse(tt.base)
		ref, _ := ParseReference(tt.ref)
		if c := b.ResolveReference(ref); components(c) != components(r) {
			t.Errorf("Resolve(%q, %q): offsets %v, reparse %v", tt.base, tt.ref, components(c), components(r))
		}
	}
	if _, err := Resolve("g", "h"); err == nil {
		t.Error("Resolve accepted a relative base")
	}
	if _, err := Resolve("http://a/", "a b"); err == nil {
		t.Error("Resolve accepted an invalid reference")
	}
}
