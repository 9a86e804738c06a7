package mirror

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/urlget/urlget/integration/ftptest"
)

// A server whose tree holds names of urlget's own state: a symbolic link
// named X.urlget-part beside X (to a file of the user's), a file named
// Y.urlget-part beside Y, a directory .urlget that --cut-dirs brings to
// the top of the tree, a name ending .urlget-link. Each is refused with a
// reason and not fetched; X and Y are fetched whole from the server; the
// user's files, a hard link under an old part name to a file outside the
// output directory included, keep their bytes; nothing of the server's
// lands in the state directory.
func TestMirrorRefusesStateNamesFTP(t *testing.T) {
	for _, mlsd := range []bool{false, true} {
		name := "LIST"
		if mlsd {
			name = "MLSD"
		}
		t.Run(name, func(t *testing.T) {
			mod := time.Date(2025, 4, 1, 10, 0, 0, 0, time.UTC)
			fsys := fstest.MapFS{
				"pub/X":                   {Data: []byte("x-remote"), Mode: 0o644, ModTime: mod},
				"pub/X.urlget-part":       {Data: []byte("mine.txt"), Mode: fs.ModeSymlink | 0o777, ModTime: mod},
				"pub/Y":                   {Data: []byte("y-remote"), Mode: 0o644, ModTime: mod},
				"pub/Y.urlget-part":       {Data: []byte("y-rem"), Mode: 0o644, ModTime: mod},
				"pub/.urlget/parts/evil":  {Data: []byte("evil"), Mode: 0o644, ModTime: mod},
				"pub/.urlget/manifest":    {Data: []byte("evil"), Mode: 0o644, ModTime: mod},
				"pub/Z.urlget-link":       {Data: []byte("z"), Mode: 0o644, ModTime: mod},
				"pub/sub/.urlget/x":       {Data: []byte("deep"), Mode: 0o644, ModTime: mod},
				"pub/sub/ok.txt":          {Data: []byte("ok"), Mode: 0o644, ModTime: mod},
				"pub/sub/ok.txt.urlget-x": {Data: []byte("fine"), Mode: 0o644, ModTime: mod},
			}
			srv := ftptest.NewServer(fsys)
			defer srv.Close()
			srv.MLSD = mlsd
			out := t.TempDir()
			outside := t.TempDir()
			secret := filepath.Join(outside, "secret")
			os.WriteFile(secret, []byte("keep me"), 0o644)
			os.WriteFile(filepath.Join(out, "mine.txt"), []byte("user data"), 0o644)
			if err := os.Link(secret, filepath.Join(out, "X.urlget-part")); err != nil {
				t.Fatal(err)
			}
			o := Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true, CutDirs: 1}}
			_, rec, err := run(t, o, srv.URL+"/pub/")
			if err != nil {
				t.Fatalf("%v %+v", err, rec.reports)
			}
			wantFile(t, filepath.Join(out, "X"), "x-remote")
			wantFile(t, filepath.Join(out, "Y"), "y-remote")
			wantFile(t, filepath.Join(out, "sub/ok.txt"), "ok")
			wantFile(t, filepath.Join(out, "sub/ok.txt.urlget-x"), "fine")
			wantFile(t, filepath.Join(out, "mine.txt"), "user data")
			wantFile(t, secret, "keep me")
			wantGone(t, filepath.Join(out, "Y.urlget-part"))
			wantGone(t, filepath.Join(out, "Z.urlget-link"))
			wantGone(t, filepath.Join(out, "sub/.urlget"))
			if fi, err := os.Lstat(filepath.Join(out, "X.urlget-part")); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("the user's X.urlget-part: %v %v", fi, err)
			}
			if ents, _ := os.ReadDir(filepath.Join(out, StateDir, "parts")); len(ents) != 0 {
				t.Errorf("state directory holds %v", ents)
			}
			wantGone(t, filepath.Join(out, StateDir, "manifest"))
			reasons := rec.reasons()
			for _, u := range []string{"/pub/X.urlget-part", "/pub/Y.urlget-part", "/pub/Z.urlget-link", "/pub/.urlget/", "/pub/sub/.urlget/"} {
				if r := reasons[srv.URL+u]; !strings.HasPrefix(r, "refused: ") {
					t.Errorf("%s: reason %q, want refused (reports %+v)", u, r, rec.reports)
				}
			}
			for _, c := range srv.Commands() {
				if strings.Contains(c, ".urlget-") && !strings.Contains(c, "urlget-x") || strings.HasSuffix(c, " .urlget") || strings.Contains(c, ".urlget/") {
					t.Errorf("sent %q", c)
				}
			}
		})
	}
}

// The same from a file: tree, whose links are the file system's own: a
// link named X.urlget-part to a file outside the tree mirrored, and a
// directory .urlget at the top.
func TestMirrorRefusesStateNamesFile(t *testing.T) {
	src := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("keep me"), 0o644)
	writeTree(t, src, map[string]string{
		"X":                "x-remote",
		".urlget/parts/ab": "evil",
		"d/Y.urlget-part":  "junk",
		"d/Y":              "y-remote",
	})
	if err := os.Symlink(victim, filepath.Join(src, "X.urlget-part")); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	// The source's own directories cut: its .urlget lands at the top.
	cut := len(strings.Split(strings.Trim(filepath.ToSlash(src), "/"), "/"))
	o := Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true, CutDirs: cut}}
	_, rec, err := run(t, o, "file://"+src+"/")
	if err != nil {
		t.Fatalf("%v %+v", err, rec.reports)
	}
	wantFile(t, filepath.Join(out, "X"), "x-remote")
	wantFile(t, filepath.Join(out, "d/Y"), "y-remote")
	wantFile(t, victim, "keep me")
	wantGone(t, filepath.Join(out, "X.urlget-part"))
	wantGone(t, filepath.Join(out, "d/Y.urlget-part"))
	wantGone(t, filepath.Join(out, StateDir, "parts", "ab"))
	n := 0
	for u, r := range rec.reasons() {
		if strings.HasPrefix(r, "refused: ") {
			n++
		} else {
			t.Errorf("%s skipped: %s", u, r)
		}
	}
	if n != 3 {
		t.Errorf("%d refused, want 3: %+v", n, rec.reports)
	}
}

// An output directory whose .urlget is a link to a directory of the
// user's: the run stops at the first file with ErrStateDir, and writes
// nothing through the link.
func TestMirrorStateDirLinkStops(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, map[string]string{"a.txt": "a", "b.txt": "b"})
	out := t.TempDir()
	os.Mkdir(filepath.Join(out, "mine"), 0o755)
	if err := os.Symlink("mine", filepath.Join(out, StateDir)); err != nil {
		t.Fatal(err)
	}
	cut := len(strings.Split(strings.Trim(filepath.ToSlash(src), "/"), "/"))
	_, rec, err := run(t, Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true, CutDirs: cut}}, "file://"+src+"/")
	if !errors.Is(err, ErrStateDir) || !errors.Is(err, ErrStopped) {
		t.Fatalf("run: %v, want ErrStateDir (%+v)", err, rec.reports)
	}
	if ents, _ := os.ReadDir(filepath.Join(out, "mine")); len(ents) != 0 {
		t.Errorf("mine holds %v", ents)
	}
	wantGone(t, filepath.Join(out, "a.txt"))
}
