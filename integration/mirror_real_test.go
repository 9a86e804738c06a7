package integration

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/mirror"
	"github.com/urlget/urlget/schemes/news"
)

// The recursive retrieval against the real servers .ci/servers starts:
// each publishes the fixture tree (mirrorFixture), a first run copies it
// whole, names and bytes, and a second run as --mirror makes it (with
// timestamping) transfers no file body, which the server's own log shows.

// mirrorOptions are --mirror's choices: no level limit, timestamping.
func mirrorOptions(out string) mirror.Options {
	return mirror.Options{Dir: out, Level: -1, NoParent: true, Timestamping: true, Parallel: 4}
}

// nginxMirror is the nginx .ci/servers/nginx.sh started, with the log of
// the requests below /mirror/.
type nginxMirror struct{ url, root, log string }

func nginxForMirror(t *testing.T) nginxMirror {
	t.Helper()
	v := realServer(t, "URLGET_NGINX_URL", "URLGET_NGINX_ROOT", "URLGET_NGINX_MIRROR_LOG")
	return nginxMirror{v[0], v[1], v[2]}
}

// hostDir is the directory a run makes for the server of base (a URL):
// HOST[:PORT], as wget names it.
func hostDir(t *testing.T, base string) string {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// nginxLogged returns, from nginx's mirror log lines ("METHOD STATUS BYTES
// URI"), the decoded paths of the requests answered with status.
func nginxLogged(lines []string, status string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 4 && f[1] == status {
			p, _, _ := strings.Cut(f[3], "?")
			m[unescaped(p)] = true
		}
	}
	return m
}

func TestMirrorNginx(t *testing.T) {
	ng := nginxForMirror(t)
	name := mirrorName("tree")
	files := mirrorFixture(false)
	writeMirrorFiles(t, filepath.Join(ng.root, "mirror", name), files)
	writeMirrorFiles(t, filepath.Join(ng.root, "mirror", name+"-marker"), []mirrorFile{{"m", []byte("m\n")}})
	start := ng.url + "/mirror/" + name + "/"
	marker := ng.url + "/mirror/" + name + "-marker/m"
	var c fetch.Client
	defer c.Close()
	out, outside := mirrorOut(t)
	local := filepath.Join(out, hostDir(t, ng.url), "mirror", name)

	log := markServerLog(t, ng.log)
	mirrorRun(t, &c, mirrorOptions(out), start)
	checkMirrored(t, local, files, "index.html")
	outside()
	lines := log.linesAfter(t, &c, marker, name+"-marker/m")
	sent := nginxLogged(lines, "200")
	for _, f := range files {
		if p := "/mirror/" + name + "/" + f.path; !sent[p] {
			t.Errorf("first run: nginx logged no 200 for %s: %q", p, lines)
		}
	}

	// Again, as --mirror: nginx answers 304 or is not asked for each file.
	log = markServerLog(t, ng.log)
	reports := mirrorRun(t, &c, mirrorOptions(out), start)
	checkMirrored(t, local, files, "index.html")
	outside()
	lines = log.linesAfter(t, &c, marker, name+"-marker/m")
	sent = nginxLogged(lines, "200")
	for _, f := range files {
		if p := "/mirror/" + name + "/" + f.path; sent[p] {
			t.Errorf("second run: nginx sent %s again (200): %q", p, lines)
		}
	}
	for _, r := range reports {
		if r.Status == mirror.Fetched && !strings.HasSuffix(r.URL, "/") {
			t.Errorf("second run: %s %s", r.URL, r.Status)
		}
	}
}

// TestMirrorNginxDelete: a --delete run removes the local copies of files
// the server no longer has, and keeps the others.
func TestMirrorNginxDelete(t *testing.T) {
	ng := nginxForMirror(t)
	name := mirrorName("delete")
	files := mirrorFixture(false)
	dir := filepath.Join(ng.root, "mirror", name)
	writeMirrorFiles(t, dir, files)
	start := ng.url + "/mirror/" + name + "/"
	var c fetch.Client
	defer c.Close()
	out, outside := mirrorOut(t)
	local := filepath.Join(out, hostDir(t, ng.url), "mirror", name)
	opts := mirrorOptions(out)
	opts.Delete = true
	mirrorRun(t, &c, opts, start)
	checkMirrored(t, local, files, "index.html")

	gone := map[string]bool{"plain.txt": true, "a/b/c/deep.txt": true}
	var kept []mirrorFile
	for _, f := range files {
		if gone[f.path] {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f.path))); err != nil {
				t.Fatal(err)
			}
		} else {
			kept = append(kept, f)
		}
	}
	reports := mirrorRun(t, &c, opts, start)
	checkMirrored(t, local, kept, "index.html")
	outside()
	deleted := map[string]bool{}
	for _, r := range reports {
		if r.Status == mirror.Deleted {
			deleted[r.Path] = true
		}
	}
	for p := range gone {
		if want := hostDir(t, ng.url) + "/mirror/" + name + "/" + p; !deleted[want] {
			t.Errorf("no %s report for %s: %+v", mirror.Deleted, want, reports)
		}
	}
}

// TestMirrorNginxPages follows hand-written HTML pages: relative links
// across directories (../), a <base href>, escaped and raw UTF-8 links,
// a page that links back to the first, and links to ftp: and gopher: URLs,
// which a run follows only when its schemes allow them.
func TestMirrorNginxPages(t *testing.T) {
	ng := nginxForMirror(t)
	ftpEnv := realServer(t, "URLGET_VSFTPD_ADDR", "URLGET_VSFTPD_ROOT")
	gopherEnv := realServer(t, "URLGET_GOPHERNICUS_ADDR", "URLGET_GOPHERNICUS_ROOT")
	name := mirrorName("pages")
	tree := mirrorFixture(false)
	writeMirrorFiles(t, filepath.Join(ng.root, "mirror", name, "tree"), tree)
	leaf := []mirrorFile{{"plain.txt", []byte("from another scheme\n")}}
	writeMirrorFiles(t, filepath.Join(ftpEnv[1], "mirror", name), leaf)
	writeMirrorFiles(t, filepath.Join(gopherEnv[1], "mirror", name), leaf)
	ftpURL := "ftp://" + ftpEnv[0] + "/mirror/" + name + "/plain.txt"
	gopherURL := "gopher://" + gopherEnv[0] + "/0/mirror/" + name + "/plain.txt"
	site := []mirrorFile{
		{"site/index.html", []byte(`<!DOCTYPE html>
<html><head><title>start</title><link rel="stylesheet" href="style.css"></head><body>
<p><a href="sub/page2.html">page two</a>
<a href="../tree/with%20space/a%20b.txt">space</a>
<a href="../tree/hash%23dir/h%231.txt">hash</a>
<a href="../tree/query%3Fdir/what%3F.txt">query</a>
<a href="../tree/pct%2541dir/100%25.txt">percent</a>
<a href="../tree/semi;colon/x;y=1.txt">semicolons</a>
<a href="../tree/ünïcødé/ファイル%201.txt">raw UTF-8</a>
<a href="#top">a fragment of this page</a>
<img src="img/pic.bin" alt="">
<a href="` + ftpURL + `">ftp</a>
<a href="` + gopherURL + `">gopher</a>
</body></html>
`)},
		{"site/style.css", []byte("body { color: black }\n")},
		{"site/sub/page2.html", []byte(`<html><head><base href="../other/"></head><body>
<a href="x.txt">x, below the base</a>
<a href="../index.html">back to the start</a>
<a href="../sub/page2.html">this page</a>
<a href="../../tree/bin/all.bin">binary</a>
</body></html>
`)},
		{"site/other/x.txt", []byte("x\n")},
		{"site/img/pic.bin", tree[4].data[:4096]},
	}
	writeMirrorFiles(t, filepath.Join(ng.root, "mirror", name), site)
	// What the pages reach: themselves and the tree's files they name.
	want := append([]mirrorFile{}, site...)
	for _, f := range tree {
		switch f.path {
		case "with space/a b.txt", "hash#dir/h#1.txt", "query?dir/what?.txt", "pct%41dir/100%.txt",
			"semi;colon/x;y=1.txt", "ünïcødé/ファイル 1.txt", "bin/all.bin":
			want = append(want, mirrorFile{"tree/" + f.path, f.data})
		}
	}
	start := ng.url + "/mirror/" + name + "/site/index.html"
	var c fetch.Client
	defer c.Close()

	for _, schemesAllowed := range [][]string{nil, {"http", "ftp", "gopher"}} {
		t.Run(fmt.Sprintf("schemes %v", schemesAllowed), func(t *testing.T) {
			out, outside := mirrorOut(t)
			// The other servers listen on other ports of the same host;
			// SpanHosts lets a run reach them, whatever a host is to it.
			opts := mirror.Options{Dir: out, Level: 3, SpanHosts: true, Schemes: schemesAllowed, Parallel: 4}
			reports := mirrorRun(t, &c, opts, start)
			// Where the tree went: a run that crosses schemes may put a
			// directory for the scheme first.
			local := ""
			for _, r := range reports {
				if r.URL == start {
					local = filepath.Join(out, filepath.FromSlash(strings.TrimSuffix(r.Path, "site/index.html")))
				}
			}
			if local == "" {
				t.Fatalf("no report for %s: %+v", start, reports)
			}
			if !strings.HasSuffix(filepath.ToSlash(local), hostDir(t, ng.url)+"/mirror/"+name) {
				t.Errorf("%s saved in %s, want HOST:PORT/PATH", start, local)
			}
			checkMirrored(t, local, want, "")
			outside()
			others := map[string]bool{}
			for _, r := range reports {
				if strings.HasPrefix(r.URL, "ftp:") || strings.HasPrefix(r.URL, "gopher:") {
					if r.Status != mirror.Fetched {
						t.Errorf("%s: %s %v", r.URL, r.Status, r.Err)
						continue
					}
					others[r.URL] = true
					got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(r.Path)))
					if err != nil || string(got) != string(leaf[0].data) {
						t.Errorf("%s saved as %s: %q, %v", r.URL, r.Path, got, err)
					}
				}
			}
			if schemesAllowed == nil {
				if len(others) != 0 {
					t.Errorf("the default schemes followed %v", others)
				}
				es, _ := os.ReadDir(out)
				es = slices.DeleteFunc(es, func(e os.DirEntry) bool { return e.Name() == mirror.StateDir })
				if len(es) != 1 {
					t.Errorf("the default schemes made %d directories in the output directory: %q", len(es), listFiles(out))
				}
				return
			}
			if !others[ftpURL] || !others[gopherURL] {
				t.Errorf("with schemes %v, fetched %v; want %s and %s", schemesAllowed, others, ftpURL, gopherURL)
			}
		})
	}
}

// ftpMirrorServer is a real FTP server with the log of the files it sent.
type ftpMirrorServer struct {
	name, addr, root, log string
	// downloads returns the decoded paths of the files the log lines send.
	downloads func(lines []string) map[string]bool
}

// vsftpdLine is a line of vsftpd's own log for a file sent:
// ... OK DOWNLOAD: Client "127.0.0.1", "/path", 6 bytes, ...
var vsftpdLine = regexp.MustCompile(`OK DOWNLOAD: Client "[^"]*", "(.*)", \d+ bytes`)

// pureFTPdLine is a line of Pure-FTPd's log in the common log format:
// 127.0.0.1 - ftp [date] "GET /absolute/escaped/path" 200 6
var pureFTPdLine = regexp.MustCompile(`"GET ([^"]*)" 200 \d+`)

func logPaths(re *regexp.Regexp, decode bool) func([]string) map[string]bool {
	return func(lines []string) map[string]bool {
		m := map[string]bool{}
		for _, l := range lines {
			if s := re.FindStringSubmatch(l); s != nil {
				p := s[1]
				if decode {
					p = unescaped(p)
				}
				m[p] = true
			}
		}
		return m
	}
}

// ftpMirrorServers returns vsftpd (LIST only: it has no MLSD) and
// Pure-FTPd (MLSD), those that run.
func ftpMirrorServers(t *testing.T) []ftpMirrorServer {
	t.Helper()
	var out []ftpMirrorServer
	var names []string
	for _, s := range []ftpMirrorServer{
		{name: "vsftpd", addr: "VSFTPD", downloads: logPaths(vsftpdLine, false)},
		{name: "pure-ftpd", addr: "PUREFTPD", downloads: logPaths(pureFTPdLine, true)},
	} {
		env := []string{"URLGET_" + s.addr + "_ADDR", "URLGET_" + s.addr + "_ROOT", "URLGET_" + s.addr + "_LOG"}
		names = append(names, env...)
		if v, ok := lookupRealServer(t, env...); ok {
			s.addr, s.root, s.log = v[0], v[1], v[2]
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		t.Skipf("no real FTP server running: set %s (start them with .ci/servers, see docs/testing.md)", strings.Join(names, ", "))
	}
	return out
}

// ftpMirrorTree writes the marker file beside the tree name on s (its
// download ends what a run's log shows) and returns the tree's start URL,
// the marker's URL, the output directory, where the tree's copy goes in
// it, and the check that nothing was written beside it.
func ftpMirrorTree(t *testing.T, s ftpMirrorServer, name string) (start, marker, out, local string, outside func()) {
	t.Helper()
	writeMirrorFiles(t, filepath.Join(s.root, "mirror", name+"-marker"), []mirrorFile{{"m", []byte("m\n")}})
	base := "ftp://" + s.addr
	out, outside = mirrorOut(t)
	return base + "/mirror/" + name + "/", base + "/mirror/" + name + "-marker/m", out, filepath.Join(out, hostDir(t, base), "mirror", name), outside
}

func TestMirrorFTP(t *testing.T) {
	for _, s := range ftpMirrorServers(t) {
		t.Run(s.name, func(t *testing.T) {
			name := mirrorName("tree")
			files := mirrorFixture(false)
			writeMirrorFiles(t, filepath.Join(s.root, "mirror", name), files)
			start, marker, out, local, outside := ftpMirrorTree(t, s, name)
			var c fetch.Client
			defer c.Close()

			log := markServerLog(t, s.log)
			mirrorRun(t, &c, mirrorOptions(out), start)
			checkMirrored(t, local, files, "")
			outside()
			lines := log.linesAfter(t, &c, marker, name+"-marker/m")
			sent := s.downloads(lines)
			for _, f := range files {
				// A client may make an empty file from the listing alone.
				if len(f.data) > 0 && !loggedPath(sent, "/mirror/"+name+"/"+f.path) {
					t.Errorf("first run: %s logged no download of %s: %q", s.name, f.path, lines)
				}
			}

			log = markServerLog(t, s.log)
			reports := mirrorRun(t, &c, mirrorOptions(out), start)
			checkMirrored(t, local, files, "")
			outside()
			lines = log.linesAfter(t, &c, marker, name+"-marker/m")
			for p := range s.downloads(lines) {
				if strings.Contains(p, "/mirror/"+name+"/") {
					t.Errorf("second run: %s sent %s again", s.name, p)
				}
			}
			for _, r := range reports {
				if r.Status == mirror.Fetched && !strings.HasSuffix(r.URL, "/") {
					t.Errorf("second run: %s %s", r.URL, r.Status)
				}
			}
		})
	}
}

// TestMirrorFTPEmptyDirs: an empty directory on vsftpd (LIST) and
// Pure-FTPd (MLSD), and one holding only an empty one, are made locally,
// as wget and lftp make them.
func TestMirrorFTPEmptyDirs(t *testing.T) {
	for _, s := range ftpMirrorServers(t) {
		t.Run(s.name, func(t *testing.T) {
			name := mirrorName("empty")
			files := []mirrorFile{{"a.txt", []byte("a\n")}}
			dir := filepath.Join(s.root, "mirror", name)
			writeMirrorFiles(t, dir, files)
			for _, d := range []string{"empty", "outer/inner"} {
				if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
					t.Fatal(err)
				}
				os.Chmod(filepath.Join(dir, d), 0o755)
				os.Chmod(filepath.Dir(filepath.Join(dir, d)), 0o755)
			}
			start, _, out, local, outside := ftpMirrorTree(t, s, name)
			var c fetch.Client
			defer c.Close()
			mirrorRun(t, &c, mirrorOptions(out), start)
			checkMirrored(t, local, files, "")
			outside()
			for _, d := range []string{"empty", "outer/inner"} {
				if fi, err := os.Stat(filepath.Join(local, d)); err != nil || !fi.IsDir() {
					t.Errorf("%s: %s not made: %v", s.name, d, err)
				}
			}
		})
	}
}

// TestMirrorFTPSymlinks: the symbolic links of a directory on vsftpd
// (LIST) and Pure-FTPd (MLSD's OS.unix=slink) are made again locally, each
// leading to its target's copy; the one that leads out of the tree is
// skipped, and neither run downloads a link.
func TestMirrorFTPSymlinks(t *testing.T) {
	for _, s := range ftpMirrorServers(t) {
		t.Run(s.name, func(t *testing.T) {
			name := mirrorName("links")
			dir := filepath.Join(s.root, "mirror", name)
			writeMirrorFiles(t, dir, []mirrorFile{{"real.txt", []byte("real\n")}, {"sub/deep.txt", []byte("deep\n")}})
			links := map[string]string{"alias.txt": "real.txt", "sub/up.txt": "../real.txt", "into": "sub", "loop": ".", "out": "/etc/passwd"}
			for l, target := range links {
				if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(l))); err != nil {
					t.Fatal(err)
				}
			}
			start, marker, out, local, outside := ftpMirrorTree(t, s, name)
			var c fetch.Client
			defer c.Close()
			for run := 1; run <= 2; run++ {
				log := markServerLog(t, s.log)
				reports := mirrorRun(t, &c, mirrorOptions(out), start)
				outside()
				for l, target := range links {
					got, err := os.Readlink(filepath.Join(local, filepath.FromSlash(l)))
					if l == "out" {
						if err == nil {
							t.Errorf("run %d: the link out of the tree was made: out -> %s", run, got)
						}
						continue
					}
					if err != nil || got != target {
						t.Errorf("run %d: %s -> %q, %v; want %q", run, l, got, err, target)
					}
				}
				if b, err := os.ReadFile(filepath.Join(local, "into", "deep.txt")); err != nil || string(b) != "deep\n" {
					t.Errorf("run %d: into/deep.txt: %q %v", run, b, err)
				}
				lines := log.linesAfter(t, &c, marker, name+"-marker/m")
				for p := range s.downloads(lines) {
					if strings.Contains(p, "/mirror/"+name+"/") && (run == 2 || !strings.HasSuffix(p, "real.txt") && !strings.HasSuffix(p, "deep.txt")) {
						t.Errorf("run %d: %s sent %s", run, s.name, p)
					}
				}
				want := mirror.Linked
				if run == 2 {
					want = mirror.Unchanged
				}
				for _, r := range reports {
					switch {
					case strings.HasSuffix(r.URL, "/out"):
						if r.Status != mirror.Skipped {
							t.Errorf("run %d: out: %s", run, r.Status)
						}
					case strings.HasSuffix(r.URL, "/alias.txt"), strings.HasSuffix(r.URL, "/into"), strings.HasSuffix(r.URL, "/loop"):
						if r.Status != want {
							t.Errorf("run %d: %s: %s, want %s", run, r.URL, r.Status, want)
						}
					}
				}
			}
		})
	}
}

// loggedPath tells whether a logged path names p: Pure-FTPd logs the path
// on the file system, vsftpd the one below its root with a "?" for each
// byte that is not printable ASCII.
func loggedPath(logged map[string]bool, p string) bool {
	masked := []byte(p)
	for i, b := range masked {
		if b < 0x20 || b >= 0x7f {
			masked[i] = '?'
		}
	}
	for l := range logged {
		if l == p || l == string(masked) || strings.HasSuffix(l, "/root"+p) {
			return true
		}
	}
	return false
}

// gopherItemType is the item type a menu gives f.
// A text file whose lines end in CR LF is a binary item: a text item's
// lines end in CR LF on the wire whatever the file holds (gophernicus adds
// the CR, RFC 1436 §3.8), and the client gives them back as LF, so only a
// binary item brings such a file byte for byte.
func gopherItemType(f mirrorFile) byte {
	if strings.HasSuffix(f.path, ".txt") && !bytes.Contains(f.data, []byte("\r")) {
		return '0'
	}
	return '9'
}

// writeGopherHole writes the fixture tree under root/mirror/name with a
// gophermap in every directory: its files, its subdirectories as menus,
// an item back to the top menu (a loop) and, at the top, an h item with a
// URL: selector to web (the nginx tree). Selectors are written out raw
// (UTF-8, spaces, semicolons), as gophernicus serves them.
func writeGopherHole(t *testing.T, root, name, addr, web string, files []mirrorFile) {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	top := "/mirror/" + name
	menus := map[string][]string{"": {"iThe urlget mirror test tree\tfake\t(NULL)\t0"}}
	linked := map[string]bool{} // the menus their parent's lists
	item := func(dir string, typ byte, title, sel string) {
		menus[dir] = append(menus[dir], fmt.Sprintf("%c%s\t%s\t%s\t%s", typ, title, sel, host, port))
	}
	for _, f := range files {
		dir, base := "", f.path
		if i := strings.LastIndexByte(f.path, '/'); i >= 0 {
			dir, base = f.path[:i], f.path[i+1:]
		}
		// The menus above it, each listed once by its parent.
		for d := dir; d != ""; {
			parent, sub := "", d
			if i := strings.LastIndexByte(d, '/'); i >= 0 {
				parent, sub = d[:i], d[i+1:]
			}
			if linked[d] {
				break
			}
			linked[d] = true
			item(parent, '1', sub, top+"/"+d)
			d = parent
		}
		item(dir, gopherItemType(f), base, top+"/"+f.path)
	}
	var maps []mirrorFile
	for dir, lines := range menus {
		lines = append(lines, fmt.Sprintf("1Back to the top\t%s\t%s\t%s", top, host, port))
		p := "gophermap"
		if dir != "" {
			p = dir + "/gophermap"
		} else {
			lines = append(lines, "hThe same tree on the web\tURL:"+web+"\t"+host+"\t"+port)
		}
		maps = append(maps, mirrorFile{p, []byte(strings.Join(lines, "\n") + "\n")})
	}
	writeMirrorFiles(t, filepath.Join(root, "mirror", name), append(append([]mirrorFile{}, files...), maps...))
}

// gophernicusLine is a line of gophernicus's log (-l, the combined log
// format): ... "GET 0/selector HTTP/1.0" 200 6 ...
var gophernicusLine = regexp.MustCompile(`"GET (.)(.*) HTTP/1\.0" (\d+) \d+`)

func TestMirrorGophernicus(t *testing.T) {
	env := realServer(t, "URLGET_GOPHERNICUS_ADDR", "URLGET_GOPHERNICUS_ROOT", "URLGET_GOPHERNICUS_LOG")
	addr, root, logPath := env[0], env[1], env[2]
	ng := nginxForMirror(t)
	name := mirrorName("hole")
	files := mirrorFixture(true)
	writeGopherHole(t, root, name, addr, ng.url+"/mirror/"+name+"/plain.txt", files)
	writeMirrorFiles(t, filepath.Join(ng.root, "mirror", name), []mirrorFile{{"plain.txt", []byte("on the web\n")}})
	writeMirrorFiles(t, filepath.Join(root, "mirror", name+"-marker"), []mirrorFile{{"m", []byte("m\n")}})
	base := "gopher://" + addr
	start := base + "/1/mirror/" + name
	marker := base + "/0/mirror/" + name + "-marker/m"
	var c fetch.Client
	defer c.Close()
	out, outside := mirrorOut(t)
	local := filepath.Join(out, hostDir(t, base), "mirror", name)

	log := markServerLog(t, logPath)
	mirrorRun(t, &c, mirrorOptions(out), start)
	checkMirrored(t, local, files, "gophermap")
	outside()
	if es, _ := os.ReadDir(out); len(es) != 2 || es[0].Name() != mirror.StateDir && es[1].Name() != mirror.StateDir {
		t.Errorf("the h item's http: URL was followed by default: %q", listFiles(out))
	}
	lines := log.linesAfter(t, &c, marker, name+"-marker/m")
	sent := gophernicusFiles(lines, name)
	for _, f := range files {
		if !sent["/mirror/"+name+"/"+f.path] {
			t.Errorf("first run: gophernicus logged no request for %s: %q", f.path, lines)
		}
	}

	log = markServerLog(t, logPath)
	mirrorRun(t, &c, mirrorOptions(out), start)
	checkMirrored(t, local, files, "gophermap")
	outside()
	lines = log.linesAfter(t, &c, marker, name+"-marker/m")
	for p := range gophernicusFiles(lines, name) {
		t.Errorf("second run: gophernicus sent %s again", p)
	}

	// With http among the schemes, the top menu's h item leads to nginx.
	out2, outside2 := mirrorOut(t)
	opts := mirrorOptions(out2)
	opts.Schemes = []string{"gopher", "http"}
	mirrorRun(t, &c, opts, start)
	outside2()
	web := filepath.Join(out2, "http", hostDir(t, ng.url), "mirror", name, "plain.txt")
	if b, err := os.ReadFile(web); err != nil || string(b) != "on the web\n" {
		t.Errorf("--schemes gopher,http: the h item's page: %q %v (there: %q)", b, err, listFiles(out2))
	}
}

// TestMirrorGophernicusRoot is the README's example, urlget --mirror
// --delete gopher://host/, against gophernicus: its submenus link back
// to the top as "1/" while the run started at "" (the empty selector),
// two URLs of one menu that map to one gophermap. Both runs end without
// a failure, the top menu saved once, and an empty directory is made.
func TestMirrorGophernicusRoot(t *testing.T) {
	env := realServer(t, "URLGET_GOPHERNICUS_ADDR", "URLGET_GOPHERNICUS_ROOT")
	addr, root := env[0], env[1]
	name := mirrorName("root")
	files := []mirrorFile{{"a.txt", []byte("a\n")}, {"sub/b.txt", []byte("b\n")}, {"sub/deeper/c.txt", []byte("c\n")}}
	writeMirrorFiles(t, filepath.Join(root, name), files)
	if err := os.MkdirAll(filepath.Join(root, name, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	var c fetch.Client
	defer c.Close()
	out, outside := mirrorOut(t)
	start := "gopher://" + addr + "/"
	opts := mirrorOptions(out)
	opts.Delete = true
	for run := 1; run <= 2; run++ {
		reports := mirrorRun(t, &c, opts, start)
		outside()
		top := 0
		for _, r := range reports {
			if r.Path == hostDir(t, start)+"/gophermap" && r.Status != mirror.Skipped {
				top++
			}
		}
		if top != 1 {
			t.Errorf("run %d: the top menu was saved %d times: %+v", run, top, reports)
		}
	}
	local := filepath.Join(out, hostDir(t, start), name)
	for _, f := range files {
		if b, err := os.ReadFile(filepath.Join(local, filepath.FromSlash(f.path))); err != nil || !bytes.Equal(b, f.data) {
			t.Errorf("%s: %q %v", f.path, b, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(local, "empty")); err != nil || !fi.IsDir() {
		t.Errorf("the empty menu's directory: %v", err)
	}
}

// gophernicusFiles returns the selectors of the files (not menus) below
// /mirror/name/ that gophernicus's log lines show it sent.
func gophernicusFiles(lines []string, name string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lines {
		s := gophernicusLine.FindStringSubmatch(l)
		if s == nil || s[1] == "1" || s[3] != "200" || !strings.HasPrefix(s[2], "/mirror/"+name+"/") {
			continue
		}
		m[s[2]] = true
	}
	return m
}

func TestMirrorINN(t *testing.T) {
	addr := innAddr(t, "URLGET_INN_ADDR")
	const group = "urlget.test.mirror"
	posted := innArticles(group)
	innPost(t, addr, posted)
	// INN logs readers' commands only through syslog (see
	// .ci/servers/inn.sh): the commands are counted on the connections.
	d := &commandDialer{}
	c := fetch.Client{Dialer: d, Fetchers: registryWith(&news.Fetcher{MaxArticles: -1})}
	defer c.Close()
	out, outside := mirrorOut(t)
	start := "nntp://" + addr + "/" + group
	local := filepath.Join(out, hostDir(t, "nntp://"+addr), group)

	mirrorRun(t, &c, mirrorOptions(out), start)
	outside()
	got := map[string]string{}
	es, err := os.ReadDir(local)
	if err != nil {
		t.Fatalf("the group's directory: %v (there: %q)", err, listFiles(out))
	}
	number := regexp.MustCompile(`^[0-9]+$`)
	for _, e := range es {
		if !number.MatchString(e.Name()) {
			t.Errorf("%s: not an article number", e.Name())
			continue
		}
		b, err := os.ReadFile(filepath.Join(local, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = string(b)
	}
	for _, a := range posted {
		found := false
		for _, text := range got {
			if strings.Contains(text, "\nMessage-ID: <"+a.id+">\n") {
				innCheckArticle(t, text, a)
				found = true
			}
		}
		if !found {
			t.Errorf("<%s> is not among the %d files", a.id, len(got))
		}
	}
	first := d.counts()
	if n := first["ARTICLE"] + first["BODY"]; n < len(posted) {
		t.Errorf("first run: %d ARTICLE and BODY commands for %d articles: %v", n, len(posted), first)
	}

	mirrorRun(t, &c, mirrorOptions(out), start)
	again := d.counts()
	if n := again["ARTICLE"] + again["BODY"]; n != 0 {
		t.Errorf("second run: %d ARTICLE and BODY commands: %v", n, again)
	}
}

// TestMirrorVsftpdUnreadableDir: vsftpd answers the listing of a
// directory it cannot open with 226 and no data ("226 Transfer done (but
// failed to open directory)."), which reads as an empty directory. The
// directory is made mode 0111: vsftpd may enter it (a mode 000 one fails
// CWD with 550, a failure no one would take for an empty listing) but
// not read it. --delete must not take that for a directory
// emptied on the server: nothing below it is deleted.
func TestMirrorVsftpdUnreadableDir(t *testing.T) {
	v := realServer(t, "URLGET_VSFTPD_ADDR", "URLGET_VSFTPD_ROOT")
	name := mirrorName("unreadable")
	dir := filepath.Join(v[1], "mirror", name)
	files := []mirrorFile{{"top.txt", []byte("top\n")}, {"sub/a.txt", []byte("a\n")}, {"sub/deeper/b.txt", []byte("b\n")}}
	writeMirrorFiles(t, dir, files)
	start := "ftp://" + v[0] + "/mirror/" + name + "/"
	var c fetch.Client
	defer c.Close()
	out, outside := mirrorOut(t)
	local := filepath.Join(out, hostDir(t, start), "mirror", name)
	opts := mirrorOptions(out)
	opts.Delete = true
	mirrorRun(t, &c, opts, start)
	checkMirrored(t, local, files, "")

	sub := filepath.Join(dir, "sub")
	if err := os.Chmod(sub, 0o111); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(sub, 0o755) })
	reports := mirrorRun(t, &c, opts, start)
	outside()
	checkMirrored(t, local, files, "")
	kept := 0
	for _, r := range reports {
		switch r.Status {
		case mirror.Deleted:
			t.Errorf("deleted %s (%s)", r.Path, r.Reason)
		case mirror.Kept:
			if !strings.Contains(r.Reason, "empty") {
				t.Errorf("kept %s: %s", r.Path, r.Reason)
			}
			kept++
		}
	}
	if kept != 2 {
		t.Errorf("%d files reported kept, want sub/a.txt and sub/deeper/b.txt: %+v", kept, reports)
	}
}

// TestMirrorGophernicusDelete: gophernicus's generated menus end with
// their "." line (RFC 1436), so a --mirror --delete run reads them whole
// and deletes, once the run is over, the file no menu names any more, and
// nothing else.
func TestMirrorGophernicusDelete(t *testing.T) {
	env := realServer(t, "URLGET_GOPHERNICUS_ADDR", "URLGET_GOPHERNICUS_ROOT")
	addr, root := env[0], env[1]
	name := mirrorName("gdelete")
	dir := filepath.Join(root, "mirror", name)
	files := []mirrorFile{{"a.txt", []byte("a\n")}, {"sub/b.txt", []byte("b\n")}, {"sub/c.txt", []byte("c\n")}}
	writeMirrorFiles(t, dir, files)
	start := "gopher://" + addr + "/1/mirror/" + name + "/"
	var c fetch.Client
	defer c.Close()
	out, outside := mirrorOut(t)
	local := filepath.Join(hostDir(t, start), "mirror", name)
	opts := mirrorOptions(out)
	opts.Delete = true
	mirrorRun(t, &c, opts, start)
	for _, f := range files {
		if !exists(out, filepath.ToSlash(filepath.Join(local, f.path))) {
			t.Fatalf("%s not mirrored: %q", f.path, listFiles(out))
		}
	}
	if err := os.Remove(filepath.Join(dir, "sub", "c.txt")); err != nil {
		t.Fatal(err)
	}
	reports := mirrorRun(t, &c, opts, start)
	outside()
	d := byStatus(reports, mirror.Deleted)
	want := filepath.ToSlash(filepath.Join(local, "sub", "c.txt"))
	if len(d) != 1 || d[want] != "no menu of the run links to it" {
		t.Errorf("deleted %v, want %s", d, want)
	}
	for _, p := range []string{"a.txt", "sub/b.txt"} {
		if !exists(out, filepath.ToSlash(filepath.Join(local, p))) {
			t.Errorf("%s deleted", p)
		}
	}
}
