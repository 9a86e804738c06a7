package links

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urlget/urlget/uri"
)

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
