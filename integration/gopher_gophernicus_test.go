package integration

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/gopher"
)

// gophernicusTree is a tree the test generated under the server's root.
type gophernicusTree struct {
	base   string // gopher://addr
	sel    string // the tree's selector, "/urlget-<random>"
	blob   []byte
	search string // the search script's selector
}

// gophernicus finds the server .ci/servers/gophernicus.sh started and writes
// a fresh tree into its root (see realServer for when it is missing).
func gophernicus(t *testing.T) gophernicusTree {
	t.Helper()
	env := realServer(t, "URLGET_GOPHERNICUS_ADDR", "URLGET_GOPHERNICUS_ROOT")
	addr, root := env[0], env[1]
	var rnd [6]byte
	rand.Read(rnd[:])
	name := "urlget-" + hex.EncodeToString(rnd[:])
	dir := filepath.Join(root, name)
	tr := gophernicusTree{base: "gopher://" + addr, sel: "/" + name, blob: make([]byte, 1<<20)}
	rand.Read(tr.blob)
	copy(tr.blob, "3x\t\t\t\r\n.\r\n")
	files := map[string]string{
		"hello.txt":            "Hello from gophernicus\n.a line starting with a dot\n..two dots\nend\n",
		"name with spaces.txt": "spaced out\n",
		"sub/inner.txt":        "inner\n",
		"sub/deeper/leaf.txt":  "leaf\n",
		"gophermap":            "iWelcome to the urlget test tree\tfake\t(NULL)\t0\n0Hello\thello.txt\n0Spaces\tname with spaces.txt\n9Blob\tblob.bin\n1Sub\tsub\n7Search\t/cgi-bin/" + name + "\n",
		// gophernicus sends a script's output as it is: the script ends
		// its menu with the "." line RFC 1436 asks for, without which
		// the menu reads as cut short.
		"../cgi-bin/" + name: "#!/bin/sh\nprintf 'iYou searched for: %s\\tfake\\t(NULL)\\t0\\r\\n' \"$SEARCHREQUEST\"\nprintf '0Hello\\t" + tr.sel + "/hello.txt\\t127.0.0.1\\t" + addr[strings.LastIndexByte(addr, ':')+1:] + "\\r\\n.\\r\\n'\n",
		"blob.bin":           string(tr.blob),
	}
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		// Only the search script may be executable: gophernicus runs an
		// executable gophermap instead of reading it.
		mode := os.FileMode(0o644)
		if strings.HasPrefix(rel, "../cgi-bin/") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	tr.search = "/cgi-bin/" + name
	t.Cleanup(func() {
		os.RemoveAll(dir)
		os.Remove(filepath.Join(root, "cgi-bin", name))
	})
	return tr
}

func TestGophernicusMenu(t *testing.T) {
	tr := gophernicus(t)
	var f gopher.Fetcher
	es := readEntries(t, mustFetch(t, &f, gopherRequest(t, tr.base+"/1"+tr.sel+"/")))
	want := map[string]string{
		"Hello":  tr.base + "/0" + tr.sel + "/hello.txt",
		"Spaces": tr.base + "/0" + tr.sel + "/name%20with%20spaces.txt",
		"Blob":   tr.base + "/9" + tr.sel + "/blob.bin",
		"Sub":    tr.base + "/1" + tr.sel + "/sub",
		"Search": tr.base + "/7" + tr.search,
	}
	if len(es) == 0 || es[0].Kind != schemes.KindInfo || es[0].Name != "Welcome to the urlget test tree" {
		t.Errorf("first entry = %+v", es)
	}
	got := map[string]string{}
	for _, e := range es {
		got[e.Name] = e.URL
	}
	for name, u := range want {
		if got[name] != u {
			t.Errorf("entry %q URL = %q, want %q", name, got[name], u)
		}
	}

	// Every entry's URL fetches what it names; a generated menu lists a
	// sub-directory.
	text := readBody(t, mustFetch(t, &f, gopherRequest(t, got["Hello"])))
	// gophernicus neither dot-doubles nor terminates: lines come as written.
	if want := "Hello from gophernicus\n.a line starting with a dot\n.two dots\nend\n"; string(text) != want {
		t.Errorf("text = %q, want %q", text, want)
	}
	if b := readBody(t, mustFetch(t, &f, gopherRequest(t, got["Spaces"]))); string(b) != "spaced out\n" {
		t.Errorf("name with spaces = %q", b)
	}
	sub := readEntries(t, mustFetch(t, &f, gopherRequest(t, got["Sub"])))
	var names []string
	for _, e := range sub {
		names = append(names, e.Name)
	}
	if !strings.Contains(strings.Join(names, "|"), "inner.txt") || !strings.Contains(strings.Join(names, "|"), "deeper") {
		t.Errorf("generated menu = %q", names)
	}

	// --raw-listing: the menu as gophernicus sent it.
	req := gopherRequest(t, tr.base+"/1"+tr.sel+"/")
	req.Raw = true
	raw := readBody(t, mustFetch(t, &f, req))
	if !bytes.HasPrefix(raw, []byte("iWelcome to the urlget test tree\t")) || !bytes.HasSuffix(raw, []byte("\r\n.\r\n")) {
		t.Errorf("raw menu = %q", raw)
	}
}

func TestGophernicusBinary(t *testing.T) {
	tr := gophernicus(t)
	var f gopher.Fetcher
	res := mustFetch(t, &f, gopherRequest(t, tr.base+"/9"+tr.sel+"/blob.bin"))
	out, err := os.Create(filepath.Join(t.TempDir(), "blob"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, res.Body); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got, _ := os.ReadFile(out.Name()); !bytes.Equal(got, tr.blob) {
		t.Errorf("binary differs: %d bytes, want %d", len(got), len(tr.blob))
	}
}

func TestGophernicusSearchAndErrors(t *testing.T) {
	tr := gophernicus(t)
	var f gopher.Fetcher

	req := gopherRequest(t, tr.base+"/7"+tr.search)
	terms := "gold bars"
	req.Search = &terms
	es := readEntries(t, mustFetch(t, &f, req))
	if len(es) != 2 || es[0].Name != "You searched for: gold bars" || es[1].URL != tr.base+"/0"+tr.sel+"/hello.txt" {
		t.Errorf("search result = %+v", es)
	}
	if _, err := f.Fetch(testCtx(t), gopherRequest(t, tr.base+"/7"+tr.search)); !errors.Is(err, schemes.ErrNotRetrievable) {
		t.Errorf("search without terms: err = %v", err)
	}

	// gophernicus answers a missing directory with a type-3 menu.
	res, err := f.Fetch(testCtx(t), gopherRequest(t, tr.base+"/1"+tr.sel+"/nothere/"))
	if !errors.Is(err, schemes.ErrNotFound) || !strings.Contains(err.Error(), "not found") {
		var got []schemes.Entry
		if err == nil {
			got = readEntries(t, res)
		}
		t.Errorf("missing directory: err = %v, entries %+v; want ErrNotFound with the server's message", err, got)
	}
}

// TestGophernicusAttributesFallBack asks gophernicus for a menu's Gopher+
// attributes (Gopher+ §2.6, "selector TAB $"). gophernicus answers "TAB $"
// with the empty selector by a fixed block describing its root menu (for
// the UMN client), and takes "$" after any other selector for search
// terms, sending the plain menu: it gives no Mod-Date and no sizes. The
// listing is then the plain menu's, whichever menu comes first, and only
// the first request of the Fetcher to the server asks for attributes.
func TestGophernicusAttributesFallBack(t *testing.T) {
	tr := gophernicus(t)
	for _, first := range []string{"/1", "/1" + tr.sel + "/"} {
		t.Run(first, func(t *testing.T) {
			f := gopher.Fetcher{Attributes: true}
			var mu sync.Mutex
			var sent []string
			fetch := func(url string) []schemes.Entry {
				req := gopherRequest(t, url)
				req.Trace = func(dir schemes.Direction, line string) {
					if dir == schemes.Sent {
						mu.Lock()
						sent = append(sent, line)
						mu.Unlock()
					}
				}
				return readEntries(t, mustFetch(t, &f, req))
			}
			es := fetch(tr.base + first)
			if first == "/1" {
				if !hasEntry(es, tr.base+"/1"+tr.sel+"/") {
					t.Errorf("root menu lacks %s: %+v", tr.sel, es)
				}
				es = fetch(tr.base + "/1" + tr.sel + "/")
			}
			if !hasEntry(es, tr.base+"/0"+tr.sel+"/hello.txt") || len(es) < 5 {
				t.Errorf("menu = %+v", es)
			}
			for _, e := range es {
				if !e.ModTime.IsZero() || e.Size != -1 {
					t.Errorf("%s: time %v, size %d from a server that gave neither", e.Name, e.ModTime, e.Size)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			want := []string{strings.TrimPrefix(first, "/1") + "\t$", strings.TrimPrefix(first, "/1")}
			if first == "/1" {
				want = append(want, tr.sel+"/")
			}
			if strings.Join(sent, "|") != strings.Join(want, "|") {
				t.Errorf("sent %q, want %q", sent, want)
			}
		})
	}
}
