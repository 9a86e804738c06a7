package mirror

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urlget/urlget/uri"
)

// FuzzParseRobots checks the robots.txt reader (RFC 9309): Allowed
// answers for any path; a file with no disallow rule, an empty one
// included, allows everything (§2.2.2); /robots.txt is always allowed;
// and the agent's product token is matched without regard to case
// (§2.2.1).
func FuzzParseRobots(f *testing.F) {
	for _, s := range [][2]string{
		{"User-agent: *\nDisallow: /private\nAllow: /private/open\n", "/private/x"},
		{"User-agent: urlget\nDisallow: /\n\nUser-agent: *\nAllow: /\n", "/a"},
		{"\xef\xbb\xbfuser-AGENT: URLGET/2.0 # c\r\nDisallow: /*.gif$\r", "/a.gif"},
		{"Disallow: /before-group\n", "/before-group"},
		{"User-agent: *\nDisallow: /a%2fb\nDisallow: /%E4\n", "/a%2Fb"},
		{"User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a$\n", strings.Repeat("a", 64) + "b"},
		{"User-agent: *\nDisallow:\n", "/"},
		{"", ""},
		{"User-agent: *\nDisallow: /\n", "/robots.txt"},
	} {
		f.Add([]byte(s[0]), s[1])
	}
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		r := ParseRobots(bytes.NewReader(data), "urlget/1.0")
		allowed := r.Allowed(path)
		if !bytes.Contains(bytes.ToLower(data), []byte("disallow")) && !allowed {
			t.Fatalf("%q, with no disallow rule, refuses %q", data, path)
		}
		if !r.Allowed("/robots.txt") {
			t.Fatalf("%q refuses /robots.txt", data)
		}
		if got := ParseRobots(bytes.NewReader(data), "URLGET/9").Allowed(path); got != allowed {
			t.Fatalf("%q: %q allowed %v for urlget/1.0, %v for URLGET/9", data, path, allowed, got)
		}
	})
}

// FuzzRobotsMatch holds the pattern matcher to a regular expression: '*'
// any run of bytes, a final '$' the end of the path, every other byte
// itself, matched from the path's start (RFC 9309 §2.2.3).
func FuzzRobotsMatch(f *testing.F) {
	f.Add("/a*b$", "/axxb")
	f.Add("/*.php$", "/index.php?x")
	f.Add("*", "")
	f.Add("$", "")
	f.Add("/a$b", "/a$b")
	f.Add("**$$", "x$")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		// regexp reads UTF-8; the matcher's bytes are the same on valid
		// text, and real patterns and paths are %-encoded ASCII.
		if len(pattern) > 64 || len(path) > 256 || !utf8.ValidString(pattern) || !utf8.ValidString(path) {
			return
		}
		p, anchored := strings.CutSuffix(pattern, "$")
		parts := strings.Split(p, "*")
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		expr := "(?s)^" + strings.Join(parts, ".*")
		if anchored {
			expr += "$"
		}
		want := regexp.MustCompile(expr).MatchString(path)
		if got := robotsMatch(pattern, path); got != want {
			t.Fatalf("robotsMatch(%q, %q) = %v, want %v (%s)", pattern, path, got, want, expr)
		}
	})
}

// FuzzConvertGophermap checks --convert-links on a gophermap: a map whose
// items have no local copy comes out byte for byte; with every item
// mapped (to names the server's selectors choose, ".." and all) each line
// stays one line, and every selector written is one gophernicus reads as
// a file of the tree: no control character, '?' or '#', and no ".."
// segment that would leave it.
func FuzzConvertGophermap(f *testing.F) {
	for _, s := range []string{
		"iWelcome\t\tfake\t(NULL)\t0\r\n0A file\t/dir/file.txt\tg.example\t70\r\n1Sub\t/dir/sub/\tG.EXAMPLE\t70\t+\r\n.\r\n",
		"0Up\t/../../../etc/passwd\tg.example\t70\r\n1Root\t\tg.example\t70\r\n",
		"hWeb\tURL:http://w.example/a?b#c\tg.example\t70\r\n+Mirror\t/dir/x\tm.example\t7070\r\n",
		"0Odd\t/dir/a b%c?#\x01.txt\tg.example\t70\n9Bin\t/dir/bin\tg.example\t70",
		"0URL:odd\tURL:odd\tg.example\t70\r\n",
		"no tabs at all\r\n\r\n3Error\terror\terror.host\t1\r\n",
	} {
		f.Add([]byte(s), "g.example/dir")
	}
	menu := uri.MustParse("gopher://g.example/1/dir/")
	f.Fuzz(func(t *testing.T, data []byte, mapDir string) {
		var out bytes.Buffer
		none := func(uri.URL) (string, bool) { return "", false }
		if err := ConvertGophermap(bytes.NewReader(data), &out, menu, mapDir, none); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("a map with no local items changed:\n in %q\nout %q", data, out.Bytes())
		}
		out.Reset()
		// The path as the server wrote it, its first segment (the type)
		// dropped: names chosen by the server's bytes.
		all := func(u uri.URL) (string, bool) {
			p := strings.TrimPrefix(u.Path(), "/")
			_, rest, _ := strings.Cut(p, "/")
			return rest, true
		}
		if err := ConvertGophermap(bytes.NewReader(data), &out, menu, mapDir, all); err != nil {
			t.Fatal(err)
		}
		in, got := bytes.SplitAfter(data, []byte("\n")), bytes.SplitAfter(out.Bytes(), []byte("\n"))
		if len(in) != len(got) {
			t.Fatalf("%d lines became %d:\n in %q\nout %q", len(in), len(got), data, out.Bytes())
		}
		for i := range in {
			if bytes.Equal(in[i], got[i]) {
				continue
			}
			line := strings.TrimRight(string(got[i]), "\r\n")
			fields := strings.Split(line[1:], "\t") // after the type byte
			if len(fields) != 2 {
				t.Fatalf("line %q became %q, not \"Tdisplay<TAB>selector\"", in[i], got[i])
			}
			sel := fields[1]
			if strings.ContainsFunc(sel, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '?' || r == '#' }) {
				t.Fatalf("line %q: selector %q", in[i], sel)
			}
			for _, seg := range strings.Split(sel, "/") {
				if seg == ".." {
					t.Fatalf("line %q: selector %q climbs out", in[i], sel)
				}
			}
		}
	})
}

// FuzzReadRecord reads a part's record as the hostile input the state
// directory may hold: whatever it is, a record is taken only when every
// field is there once and well formed, of the path and URL asked for,
// with a validator and a size; and one that is taken is what
// formatRecord writes for it.
func FuzzReadRecord(f *testing.F) {
	rel, url := "pub/a.bin", "ftp://h/pub/a.bin"
	f.Add(formatRecord(rel, url, `"v1"`, partID{dev: 2049, ino: 77, size: 15000, mtime: 1700000000000000000}))
	f.Add(formatRecord("../../x", url, "size=1 mdtm=20250101000000", partID{size: 1}))
	f.Add(recordMagic + "\npath \"pub/a.bin\"\npath \"pub/a.bin\"\n")
	f.Add(recordMagic + "\npath \"pub/a.bin\"\r\nurl \"x\"\n")
	f.Fuzz(func(t *testing.T, text string) {
		p, ok := readRecord(strings.NewReader(text), rel, url)
		if !ok {
			return
		}
		if p.Offset <= 0 || p.Validator == "" || p.Offset != p.id.size {
			t.Fatalf("%q taken as %+v", text, p)
		}
		again, ok := readRecord(strings.NewReader(formatRecord(rel, url, p.Validator, p.id)), rel, url)
		if !ok || again != p {
			t.Fatalf("%q: %+v written and read back as %+v, %v", text, p, again, ok)
		}
	})
}

// FuzzNormalizedPath holds the walk's shortcut to the normalized form of
// the path it checks every entry by to uri.URL.Normalize itself.
func FuzzNormalizedPath(f *testing.F) {
	for _, s := range []string{"ftp://h/pub/a.txt", "ftp://h/pub/%7Ea/", "ftp://h/a/../b", "file:///srv/./x", "ftp://h", "ftp://h/.hidden/x", "gopher://h/1/a/b", "ftp://H/PUB/x;type=i"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := uri.Parse(s)
		if err != nil {
			return
		}
		if got, want := normalizedPath(u), u.Normalize().Path(); got != want {
			t.Fatalf("normalizedPath(%q) = %q, Normalize gives %q", s, got, want)
		}
	})
}
