package uri

import "testing"

const rfcBase = "http://a/b/c/d;p?q"

// rfc3986Normal is RFC 3986 §5.4.1.
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

// currentDocument is what draft-fielding-uri-rfc2396bis-01 writes
// "(current document)": its §5.2 returns the current document, not a new
// URI, for a reference with no scheme, authority, path or query. Its
// absolute form is the base URI, which is what ResolveReference returns.
const currentDocument = rfcBase

// draft2003Normal is appendix C.1 of draft-fielding-uri-rfc2396bis-01 (March
// 2003), entry by entry. It has no entry for the empty reference (that is
// "<>" in C.2), and "#s" is "(current document)#s".
var draft2003Normal = [][2]string{
	{"g:h", "g:h"},
	{"g", "http://a/b/c/g"},
	{"./g", "http://a/b/c/g"},
	{"g/", "http://a/b/c/g/"},
	{"/g", "http://a/g"},
	{"//g", "http://g"},
	{"?y", "http://a/b/c/d;p?y"},
	{"g?y", "http://a/b/c/g?y"},
	{"#s", currentDocument + "#s"},
	{"g#s", "http://a/b/c/g#s"},
	{"g?y#s", "http://a/b/c/g?y#s"},
	{";x", "http://a/b/c/;x"},
	{"g;x", "http://a/b/c/g;x"},
	{"g;x?y#s", "http://a/b/c/g;x?y#s"},
	{".", "http://a/b/c/"},
	{"./", "http://a/b/c/"},
	{"..", "http://a/b/"},
	{"../", "http://a/b/"},
	{"../g", "http://a/b/g"},
	{"../..", "http://a/"},
	{"../../", "http://a/"},
	{"../../g", "http://a/g"},
}

// draft2003Abnormal is appendix C.2 of draft-fielding-uri-rfc2396bis-01,
// entry by entry, with the validating parser's "http:g". The draft keeps
// ".." segments above the root and takes an absolute-path reference as
// written; RFC 3986 §5.4.2 later changed those four targets.
var draft2003Abnormal = [][2]string{
	{"", currentDocument},
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
	checkResolve(t, "draft normal", draft2003Normal, Draft2003)
	checkResolve(t, "draft abnormal", draft2003Abnormal, Draft2003)
	// Appendix C.2 gives "http://a/b/c/g" for "http:g" "for backwards
	// compatibility", the non-validating parser of its §5.2.
	checkResolve(t, "draft backwards-compatible", [][2]string{{"http:g", "http://a/b/c/g"}}, Draft2003, NonStrict)
	// The draft's §5.2 differs from RFC 3986 §5.2 only where a reference
	// holds dot segments that are not merged with the base path, or ".."
	// segments that climb above the root: every other example of either
	// table resolves the same way in both modes.
	for _, tt := range append(append([][2]string{}, rfc3986Normal...), rfc3986Abnormal...) {
		strict, _ := Resolve(rfcBase, tt[0])
		draft, _ := Resolve(rfcBase, tt[0], Draft2003)
		differs := tt[0] == "../../../g" || tt[0] == "../../../../g" || tt[0] == "/./g" || tt[0] == "/../g"
		if (strict != draft) != differs {
			t.Errorf("resolve %q: strict %q, draft %q", tt[0], strict, draft)
		}
	}
	// Merge step 1 of the draft's §5.2 copies "/" for an empty base path,
	// with or without an authority.
	for _, tt := range []struct{ base, ref, strict, draft string }{
		{"foo:", "g", "foo:g", "foo:/g"},
		{"foo:?q", "g?y", "foo:g?y", "foo:/g?y"},
		{"http://a", "g", "http://a/g", "http://a/g"},
		{"http://a/", "/./g/../h", "http://a/h", "http://a/./g/../h"},
		{"http://a/b", "//c/./d", "http://c/d", "http://c/./d"},
		{"http://a/b", "ftp://c/../d", "ftp://c/d", "ftp://c/../d"},
	} {
		if got, err := Resolve(tt.base, tt.ref); err != nil || got != tt.strict {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q", tt.base, tt.ref, got, err, tt.strict)
		}
		if got, err := Resolve(tt.base, tt.ref, Draft2003); err != nil || got != tt.draft {
			t.Errorf("Resolve(%q, %q, Draft2003) = %q, %v; want %q", tt.base, tt.ref, got, err, tt.draft)
		}
	}
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
