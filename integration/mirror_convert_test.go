package integration

import (
	"bufio"
	"bytes"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/mirror"
)

// convertFixture adds to the mirror fixture the names that caught
// --convert-links before: a directory "50%off" (a "%" and two hex digits
// after it, which decode), names holding "%25", "&", and one that starts
// with a ":" segment.
func convertFixture(gopher bool) []mirrorFile {
	files := mirrorFixture(gopher)
	files = append(files,
		mirrorFile{"a&b/x&y.txt", []byte("amp\n")},
		mirrorFile{"c:d/e.txt", []byte("colon\n")},
	)
	if !gopher {
		// gophernicus %-decodes a selector: these name other files there.
		files = append(files,
			mirrorFile{"50%off/sale.txt", []byte("sale\n")},
			mirrorFile{"lit%25/p%2541.txt", []byte("literal escapes\n")},
		)
	}
	return files
}

// brokenLocalLinks resolves every local link of every converted page
// below out as a browser would (a relative reference's path %-decoded,
// resolved against the page's directory; a gophermap's local selector as
// gophernicus reads it) and returns those that name no file, with the
// number of local links checked.
func brokenLocalLinks(t *testing.T, out string) (broken []string, checked int) {
	t.Helper()
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch {
		case d.Name() == mirror.GophermapName:
			b, n := brokenMenuLinks(t, out, p)
			broken, checked = append(broken, b...), checked+n
		case strings.HasSuffix(d.Name(), ".html"):
			b, n := brokenHTMLLinks(t, p)
			broken, checked = append(broken, b...), checked+n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return broken, checked
}

func brokenHTMLLinks(t *testing.T, page string) (broken []string, checked int) {
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	z := html.NewTokenizer(bytes.NewReader(data))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return broken, checked
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		for {
			k, v, more := z.TagAttr()
			if string(k) == "href" || string(k) == "src" {
				ref, err := url.Parse(string(v))
				switch {
				case err != nil:
					broken = append(broken, page+": "+string(v)+": "+err.Error())
				case ref.Scheme != "" || ref.Host != "" || ref.Path == "":
					// Absolute (not in the tree) or a fragment only.
				default:
					checked++
					if !existsLocal(filepath.Join(filepath.Dir(page), filepath.FromSlash(ref.Path)), "index.html") {
						broken = append(broken, page+": "+string(v))
					}
				}
			}
			if !more {
				break
			}
		}
	}
}

// brokenMenuLinks checks a converted gophermap's local items: "Tdisplay
// TAB selector" with no host, the selector relative to the map's
// directory or, starting with "/", to the tree's root, %-decoded as
// gophernicus decodes it.
func brokenMenuLinks(t *testing.T, root, menu string) (broken []string, checked int) {
	f, err := os.Open(menu)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(strings.TrimRight(sc.Text(), "\r"), "\t")
		if len(fields) != 2 || len(fields[0]) == 0 || fields[0][0] == 'i' {
			continue
		}
		checked++
		sel, err := url.PathUnescape(fields[1])
		if err != nil {
			broken = append(broken, menu+": "+fields[1]+": "+err.Error())
			continue
		}
		base := filepath.Dir(menu)
		if strings.HasPrefix(sel, "/") {
			base = root
		}
		if !existsLocal(filepath.Join(base, filepath.FromSlash(path.Clean(sel))), mirror.GophermapName) {
			broken = append(broken, menu+": "+fields[1])
		}
	}
	return broken, checked
}

// existsLocal reports whether p is a file, or a directory holding index.
func existsLocal(p, index string) bool {
	fi, err := os.Stat(p)
	if err == nil && fi.IsDir() {
		fi, err = os.Stat(filepath.Join(p, index))
	}
	return err == nil && fi.Mode().IsRegular()
}

// checkLinksResolve fails the test for every local link in the converted
// pages below out that names no file, and when there were none to check.
func checkLinksResolve(t *testing.T, out string, atLeast int) {
	t.Helper()
	broken, checked := brokenLocalLinks(t, out)
	for _, b := range broken {
		t.Errorf("a local link that names no file: %s", b)
	}
	if checked < atLeast {
		t.Errorf("%d local links checked, want at least %d (tree: %q)", checked, atLeast, listFiles(out))
	}
}

// --convert-links over http: Go's file server lists every directory of a
// tree whose names hold spaces, "%", "#", "?", ";", "&", ":" and UTF-8,
// and every link of every converted listing names a local file.
func TestMirrorConvertLinksNames(t *testing.T) {
	src := t.TempDir()
	files := convertFixture(false)
	writeMirrorFiles(t, src, files)
	srv := httptest.NewServer(http.FileServer(http.Dir(src)))
	defer srv.Close()
	convertAndCheck(t, srv.URL+"/", srv.URL, "", "index.html", files)
}

// --convert-links over gopher: the saved gophermaps' local selectors name
// the local files too.
func TestMirrorConvertLinksGophermap(t *testing.T) {
	src := t.TempDir()
	files := convertFixture(true)
	writeMirrorFiles(t, src, files)
	srv := gophertest.NewServer(gophertest.Dir(src))
	defer srv.Close()
	convertAndCheck(t, srv.URL+"/", srv.URL, "", "gophermap", files)
}

// --convert-links against nginx's autoindex, the tree of the mirror
// tests with the names above: every local link resolves. (It broke one
// link in five when the links were encoded twice: "50%off/" became
// "50%2525off/index.html".)
func TestMirrorNginxConvertLinks(t *testing.T) {
	ng := nginxForMirror(t)
	name := mirrorName("convert")
	files := convertFixture(false)
	writeMirrorFiles(t, filepath.Join(ng.root, "mirror", name), files)
	convertAndCheck(t, ng.url+"/mirror/"+name+"/", ng.url, path.Join("mirror", name), "index.html", files)
}

// --convert-links against gophernicus, serving the gopher hole of the
// mirror tests: the converted gophermaps' local selectors name the local
// files.
func TestMirrorGophernicusConvertLinks(t *testing.T) {
	env := realServer(t, "URLGET_GOPHERNICUS_ADDR", "URLGET_GOPHERNICUS_ROOT")
	addr, root := env[0], env[1]
	name := mirrorName("convert")
	files := convertFixture(true)
	writeGopherHole(t, root, name, addr, "http://127.0.0.1:1/none", files)
	base := "gopher://" + addr
	convertAndCheck(t, base+"/1/mirror/"+name, base, path.Join("mirror", name), "gophermap", files)
}

// convertAndCheck mirrors start with --convert-links, checks the tree
// below the host directory of base, then sub, against files, and every
// local link of the converted pages.
func convertAndCheck(t *testing.T, start, base, sub, listing string, files []mirrorFile) {
	t.Helper()
	var c fetch.Client
	defer c.Close()
	out, outside := mirrorOut(t)
	opts := mirrorOptions(out)
	opts.ConvertLinks = true
	mirrorRun(t, &c, opts, start)
	outside()
	checkMirrored(t, filepath.Join(out, hostDir(t, base), filepath.FromSlash(sub)), files, listing)
	// Each file is linked from its directory's listing.
	checkLinksResolve(t, out, len(files))
}
