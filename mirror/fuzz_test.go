package mirror

import (
	"strings"
	"testing"

	"github.com/urlget/urlget/uri"
)

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
