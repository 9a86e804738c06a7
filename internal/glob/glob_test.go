package glob

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/urlget/urlget/uri"
)

// expand returns every URL of a glob, at most limit of them.
func expand(t *testing.T, raw string, limit int) ([]string, [][]string) {
	t.Helper()
	g, err := Parse(raw)
	if err != nil {
		t.Fatalf("Parse(%q): %v", raw, err)
	}
	if g == nil {
		return []string{raw}, nil
	}
	var urls []string
	var texts [][]string
	for len(urls) < limit {
		u, tx, ok := g.Next()
		if !ok {
			break
		}
		urls = append(urls, u)
		texts = append(texts, tx)
	}
	return urls, texts
}

func TestGlobExpansion(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"http://h/a", []string{"http://h/a"}},
		{"http://h/{a,b,c}", []string{"http://h/a", "http://h/b", "http://h/c"}},
		{"http://h/{a,}x", []string{"http://h/ax", "http://h/x"}},
		{"http://h/[1-3]", []string{"http://h/1", "http://h/2", "http://h/3"}},
		{"http://h/[08-11]", []string{"http://h/08", "http://h/09", "http://h/10", "http://h/11"}},
		{"http://h/[a-c]", []string{"http://h/a", "http://h/b", "http://h/c"}},
		{"http://h/[X-Z]", []string{"http://h/X", "http://h/Y", "http://h/Z"}},
		{"http://h/[1-25:10]", []string{"http://h/1", "http://h/11", "http://h/21"}},
		{"http://h/[a-e:2]", []string{"http://h/a", "http://h/c", "http://h/e"}},
		{"http://h/[5-5]", []string{"http://h/5"}},
		// The last glob varies fastest, as in curl.
		{"http://{x,y}.h/[1-2]/{p,q}", []string{
			"http://x.h/1/p", "http://x.h/1/q", "http://x.h/2/p", "http://x.h/2/q",
			"http://y.h/1/p", "http://y.h/1/q", "http://y.h/2/p", "http://y.h/2/q"}},
		// \ makes a glob character literal.
		{`http://h/\{a\}/{b,\,}`, []string{"http://h/{a}/b", "http://h/{a}/,"}},
		// [] is no range, and an escape without a glob is dropped too.
		{"http://h/a?x[]=1&y[]=2", []string{"http://h/a?x[]=1&y[]=2"}},
		{"http://h/[]{a,b}", []string{"http://h/[]a", "http://h/[]b"}},
		{`http://h/\[1-2\]`, []string{"http://h/[1-2]"}},
		// An IPv6 literal in the host is no range; one after it is.
		{"http://[::1]:8080/[1-2]", []string{"http://[::1]:8080/1", "http://[::1]:8080/2"}},
		{"http://[fe80::1%25eth0]/a", []string{"http://[fe80::1%25eth0]/a"}},
		{"ftp://u@[2001:db8::7]/{a,b}", []string{"ftp://u@[2001:db8::7]/a", "ftp://u@[2001:db8::7]/b"}},
	} {
		got, _ := expand(t, tt.in, 100)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q expands to %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGlobErrors(t *testing.T) {
	for _, tt := range []struct {
		in  string
		msg string
		col int
	}{
		{"http://h/{a,b", "unmatched brace", 10},
		{"http://h/a}", "unmatched close brace/bracket", 11},
		{"http://h/a]", "unmatched close brace/bracket", 11},
		{"http://h/[1-2", "unmatched bracket", 10},
		{"http://h/{a,{b}}", "nested brace", 13},
		{"http://h/{a,[1-2]}", "nested brace", 13},
		{"http://h/[1-{2}]", "nested brace", 13},
		{"http://h/[3-1]", "bad range", 10},
		{"http://h/[a-Z]", "bad range", 10},
		{"http://h/[a-9]", "bad range", 10},
		{"http://h/[1-]", "bad range", 10},
		{"http://h/[1-9:0]", "bad range step", 14},
		{"http://h/[1-9:x]", "bad range step", 14},
		{"http://h/[1-99999999999999999999]", "bad range", 10},
		{"http://h/" + strings.Repeat("{a,b}", 63), "range overflow", 10 + 5*62},
		{"http://h/" + strings.Repeat("{a}", maxGlobs+1), "too many globs", 10 + 3*maxGlobs},
		{"http://h/[1-4000000000][1-4000000000]", "range overflow", 24},
		// Not an IPv6 address: a range, and a bad one.
		{"http://[::1-2]/", "bad range step", 9},
	} {
		_, err := Parse(tt.in)
		var ue *uri.Error
		if !errors.As(err, &ue) || ue.Msg != tt.msg || ue.Col != tt.col {
			t.Errorf("Parse(%q) = %v, want %q at column %d", tt.in, err, tt.msg, tt.col)
		}
	}
}

// TestGlobLazy checks that a glob of a million URLs is expanded as it is
// taken: its state is one index a pattern, however many URLs it stands for.
func TestGlobLazy(t *testing.T) {
	g, err := Parse("http://h/[1-1000000]/[001-100]")
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() { g.Next() })
	if allocs > 4 {
		t.Errorf("next makes %v allocations a URL", allocs)
	}
	u, texts, _ := g.Next()
	if u != "http://h/2/002" || !slices.Equal(texts, []string{"2", "002"}) {
		t.Errorf("next = %q %q, want the 102nd combination", u, texts)
	}
}

func TestGlobName(t *testing.T) {
	texts := []string{"a", "07"}
	for in, want := range map[string]string{
		"f_#1_#2.txt": "f_a_07.txt",
		"#2#1":        "07a",
		"#3 #0 # #x":  "#3 #0 # #x",
		"plain":       "plain",
		"#12":         "#12",
	} {
		if got := Name(in, texts); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Name("#1", nil); got != "#1" {
		t.Errorf("Name without globs = %q", got)
	}
}

// FuzzParseGlob checks that any text either is refused with a column
// inside it or expands into exactly the product of its globs' sizes.
func FuzzParseGlob(f *testing.F) {
	for _, s := range []string{"http://h/{a,b}[1-3]", "http://[::1]/[a-c:2]", `x\{[01-10:3]}`, "{,}[]", "[1-2", "}{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := Parse(s)
		if err != nil {
			var ue *uri.Error
			if !errors.As(err, &ue) || ue.Col < 1 || ue.Col > len(s)+1 {
				t.Fatalf("Parse(%q) = %v", s, err)
			}
			return
		}
		if g == nil {
			return
		}
		want := int64(1)
		for _, p := range g.pats {
			if want > 1000/p.n {
				return
			}
			want *= p.n
		}
		var n int64
		for {
			_, texts, ok := g.Next()
			if !ok {
				break
			}
			if len(texts) != len(g.pats) {
				t.Fatalf("%q: %d texts for %d globs", s, len(texts), len(g.pats))
			}
			n++
		}
		if n != want {
			t.Fatalf("%q expands to %d URLs, want %d", s, n, want)
		}
	})
}
