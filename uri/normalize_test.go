package uri

import "testing"

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		// RFC 3986 §6.2.2.1: case of scheme and host, upper-case %-hex.
		{"HTTP://www.EXAMPLE.com/", "http://www.example.com/"},
		{"http://example.com/%7euser/%2f%3a", "http://example.com/~user/%2F%3A"},
		// RFC 3986 §6.2.2.2: decode unreserved characters.
		{"http://example.com/%41%2D%2E%5F%7E%7e", "http://example.com/A-._~~"},
		{"http://%65xample.COM/", "http://example.com/"},
		{"http://example.com/?%61=%62#%63", "http://example.com/?a=b#c"},
		{"http://us%65r:p%41ss@h/", "http://user:pAss@h/"},
		// RFC 3986 §6.2.2.3: dot segments, after decoding.
		{"http://example.com/a/./b/../c", "http://example.com/a/c"},
		{"http://example.com/a/%2E%2E/c", "http://example.com/c"},
		{"http://example.com/../../x", "http://example.com/x"},
		// RFC 3986 §6.2.3: default port, empty port, empty path.
		{"http://example.com", "http://example.com/"},
		{"http://example.com:/", "http://example.com/"},
		{"http://example.com:80/", "http://example.com/"},
		{"http://example.com:0080/", "http://example.com/"},
		{"http://example.com:8080", "http://example.com:8080/"},
		{"http://example.com:00/", "http://example.com:0/"},
		{"https://example.com:443", "https://example.com/"},
		{"https://example.com:80/", "https://example.com:80/"},
		{"ftp://h:21", "ftp://h/"},
		{"gopher://h:70/1", "gopher://h/1"},
		{"nntp://h:119/g", "nntp://h/g"},
		{"news://h:119/g", "news://h/g"},
		{"wais://h:210/db", "wais://h/db"},
		{"telnet://h:23", "telnet://h/"},
		{"prospero://h:1525/x", "prospero://h/x"},
		{"foo://h:80", "foo://h:80"},
		// The fragment and an empty query are kept.
		{"http://h/p?#", "http://h/p?#"},
		{"http://h/p#Frag", "http://h/p#Frag"},
		// IPv6 in lower case.
		{"http://[2001:DB8::A]:80/", "http://[2001:db8::a]/"},
		{"http://[V1.AbC]/", "http://[v1.abc]/"},
		// file: localhost is this machine (RFC 1738 §3.10).
		{"file://LocalHost/etc", "file:///etc"},
		{"file://h/a/../b", "file://h/b"},
		// Opaque paths keep their dots and their case; mailto is not case-folded.
		{"mailto:Joe@Example.COM", "mailto:Joe@Example.COM"},
		{"MAILTO:a%2bb@x", "mailto:a%2Bb@x"},
		{"news:comp.lang.GO", "news:comp.lang.GO"},
		{"foo:a/../b", "foo:a/../b"},
		// A path that would read as an authority keeps a "/." in front.
		{"foo:/..//x", "foo:/.//x"},
		{"foo:/.//x", "foo:/.//x"},
		// Relative references.
		{"/a/./b/../c?%7e", "/a/c?~"},
		{"a/./b", "a/./b"},
		{"//H:80/x", "//h:80/x"},
	}
	for _, tt := range tests {
		u, err := ParseReference(tt.in)
		if err != nil {
			t.Errorf("ParseReference(%q): %v", tt.in, err)
			continue
		}
		got := u.Normalize()
		if got.String() != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again := got.Normalize(); again.String() != got.String() {
			t.Errorf("Normalize(%q) is not idempotent: %q", got, again)
		}
		if s, err := Normalize(tt.in); err != nil || s != tt.want {
			t.Errorf("Normalize(%q) = %q, %v", tt.in, s, err)
		}
	}
}

func TestNormalizeURN(t *testing.T) {
	tests := []struct{ in, want string }{
		{"URN:ISBN:0-395-36341-1", "urn:isbn:0-395-36341-1"},
		{"urn:example:a%2cz%7e", "urn:example:a%2Cz%7E"},
		{"urn:example:A#frag", "urn:example:A"},
		{"urn:example:a?+r?=q#f", "urn:example:a?+r?=q"},
		{"urn:example:a?=b=2&a=1", "urn:example:a?=a=1&b=2"},
		{"urn:example:a?+z&y?=b&a", "urn:example:a?+y&z?=a&b"},
		{"urn:example:a?k2=v2&k1=v1", "urn:example:a?k1=v1&k2=v2"},
		{"urn:example:a?k&+r&=q&a", "urn:example:a?a&k&+r&=q"},
		{"urn:example:a?", "urn:example:a?"},
		{"urn:example:a/../b", "urn:example:a/../b"},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		if again, _ := Normalize(got); again != got {
			t.Errorf("Normalize(%q) not idempotent: %q", got, again)
		}
		if m := MustParse(tt.in).Normalize().String(); m != tt.want {
			t.Errorf("URL.Normalize(%q) = %q", tt.in, m)
		}
	}
	// URL.Normalize of a text that breaks RFC 8141 never decodes it into a
	// valid URN (which would then normalize differently).
	if got := MustParse("URN:%70A:%7e#F").Normalize().String(); got != "urn:%70A:%7E#F" {
		t.Errorf("Normalize of an invalid URN = %q", got)
	}
	if _, err := Normalize("urn:urn:x"); err == nil {
		t.Error("Normalize accepted the reserved NID urn")
	}
}

// urnEquivalence holds a set of URNs and, for each pair, whether they are
// equivalent.
type urnEquivalence struct {
	urns  []string
	class []int // URNs with the same class are equivalent
}

func (q urnEquivalence) check(t *testing.T, name string, eq func(a, b string) (bool, error)) {
	t.Helper()
	for i, a := range q.urns {
		for j, b := range q.urns {
			got, err := eq(a, b)
			if err != nil {
				t.Errorf("%s(%q, %q): %v", name, a, b, err)
				continue
			}
			if want := q.class[i] == q.class[j]; got != want {
				t.Errorf("%s(%q, %q) = %v, want %v", name, a, b, got, want)
			}
		}
	}
}

// TestURNEquivalenceRFC2141 is the set of RFC 2141 §6 (Examples of lexical
// equivalence, under the rules of its §5): URNs 1, 2 and 3 are equivalent; 4
// is equivalent to no other; 5 and 6 only to each other.
func TestURNEquivalenceRFC2141(t *testing.T) {
	set := urnEquivalence{
		urns:  []string{"URN:foo:a123,456", "urn:foo:a123,456", "urn:FOO:a123,456", "urn:foo:A123,456", "urn:foo:a123%2C456", "URN:FOO:a123%2c456"},
		class: []int{1, 1, 1, 4, 5, 5},
	}
	set.check(t, "Equal", Equal)
	set.check(t, "EquivalentURN", EquivalentURN)
}

// TestURNEquivalenceRFC8141 is RFC 8141 §3.2, its fourteen URNs in its
// order. Under RFC 8141 §3.1 exactly (EquivalentURN) URNs 1–6 are
// equivalent, since r-, q- and f-components do not count. Equal compares
// normal forms, which keep the query, so there URNs 4 and 5 differ from 1–3
// and 6. Each of 7, 8 and 9 stands alone; 10 and 11 are equivalent to each
// other only; 12, 13 and 14 stand alone.
func TestURNEquivalenceRFC8141(t *testing.T) {
	urns := []string{
		"urn:example:a123,z456",
		"URN:example:a123,z456",
		"urn:EXAMPLE:a123,z456",
		"urn:example:a123,z456?+abc",
		"urn:example:a123,z456?=xyz",
		"urn:example:a123,z456#789",
		"urn:example:a123,z456/foo",
		"urn:example:a123,z456/bar",
		"urn:example:a123,z456/baz",
		"urn:example:a123%2Cz456",
		"URN:EXAMPLE:a123%2cz456",
		"urn:example:A123,z456",
		"urn:example:a123,Z456",
		"urn:example:%D0%B0123,z456",
	}
	urnEquivalence{urns, []int{1, 1, 1, 1, 1, 1, 7, 8, 9, 10, 10, 12, 13, 14}}.check(t, "EquivalentURN", EquivalentURN)
	urnEquivalence{urns, []int{1, 1, 1, 4, 5, 1, 7, 8, 9, 10, 10, 12, 13, 14}}.check(t, "Equal", Equal)
	// URN 14 is the Cyrillic small letter a (U+0430) %-encoded. Typed raw,
	// it is not a valid URI; FromText maps it (RFC 3987 §3.1) to URN 14.
	if s, err := FromText("urn:example:\u0430123,z456"); err != nil || s != urns[13] {
		t.Errorf("FromText(raw URN 14) = %q, %v; want %q", s, err, urns[13])
	}
	if _, err := Parse("urn:example:\u0430123,z456"); err == nil {
		t.Error("Parse accepted a raw non-ASCII URN")
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		// RFC 3986 §6.2.2, §6.2.2.1 and §6.2.3 examples.
		{"example://a/b/c/%7Bfoo%7D", "eXAMPLE://a/./b/../b/%63/%7bfoo%7d", true},
		{"HTTP://www.EXAMPLE.com/", "http://www.example.com/", true},
		{"http://example.com", "http://example.com:80/", true},
		{"http://example.com", "http://example.com/", true},
		{"http://example.com/", "http://example.com:/", true},
		{"http://example.com:/", "http://example.com:80/", true},
		{"HTTP://www.Example.com/", "http://www.example.com/", true},
		{"http://example.com/data", "http://example.com/data/", false},
		{"http://example.com/?", "http://example.com/", false},
		{"http://example.com/#a", "http://example.com/#b", false},
		{"ftp://h/a", "FTP://H:21/a", true},
		{"mailto:Joe@example.com", "mailto:joe@example.com", false},
		// RFC 3986 §6.2.3 allows folding the case of a mailto domain
		// ("mailto:Joe@Example.COM" and "mailto:Joe@example.com"); urlget
		// never case-folds a mailto address, so it stays different.
		{"mailto:Joe@Example.COM", "mailto:Joe@example.com", false},
		{"urn:foo:a#x", "URN:FOO:a", true},
	}
	for _, tt := range tests {
		got, err := Equal(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("Equal(%q, %q) = %v, %v; want %v", tt.a, tt.b, got, err, tt.want)
		}
	}
	if _, err := Equal("http://a b", "http://a"); err == nil {
		t.Error("Equal accepted an invalid URL")
	}
	if _, err := Equal("http://a", "urn:urn:x"); err == nil {
		t.Error("Equal accepted an invalid URN")
	}
}
