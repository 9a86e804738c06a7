package warc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// warcio returns the command of the npm package warcio, the independent
// reader the archives are checked with: $URLGET_WARCIO (.ci/run installs
// the package and sets it), else warcio on the PATH. When it is missing
// the test skips, and under URLGET_REAL (set by .ci/run) fails.
func warcio(t *testing.T) string {
	t.Helper()
	path := os.Getenv("URLGET_WARCIO")
	if path == "" {
		path, _ = exec.LookPath("warcio")
	}
	if path != "" {
		if _, err := exec.LookPath("node"); err == nil {
			return path
		}
	}
	msg := "the npm package warcio is not installed: npm install --prefix DIR warcio and set URLGET_WARCIO=DIR/node_modules/.bin/warcio"
	if os.Getenv("URLGET_REAL") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// jsonLines runs warcio and returns its output's JSON objects, one a
// line, after the CDXJ key and timestamp when there are any.
func jsonLines(t *testing.T, bin string, args ...string) []map[string]any {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("warcio %v: %v\n%s", args, err, out)
	}
	var objs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		if i := strings.IndexByte(l, '{'); i >= 0 {
			l = l[i:]
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("warcio %v: %q: %v", args, l, err)
		}
		objs = append(objs, m)
	}
	return objs
}

// TestWarcioReadsOurs writes every record type, compressed and not, in
// one file and rolled over, and has warcio list them: each record at the
// offset we wrote it, of its type and target URI, with the payload
// digest of the bytes given; warcio's CDXJ of the file is the CDXJ we
// wrote beside it, line for line.
func TestWarcioReadsOurs(t *testing.T) {
	bin := warcio(t)
	for _, c := range []struct {
		name string
		opt  Options
	}{
		{"gzip", Options{}},
		{"plain", Options{NoCompression: true}},
		{"rolled", Options{MaxSize: 600}},
		// Blocks past 64 bytes spooled: each member spliced from its
		// header's, its block's and its end's deflate streams.
		{"spooled", Options{Spool: 64}},
		{"spooled-plain", Options{Spool: 64, NoCompression: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var cdxj bytes.Buffer
			ix := NewCDXJWriter(&cdxj)
			c.opt.Indexes = []Index{ix}
			c.opt.Software = "urlget/test"
			w, err := Create(filepath.Join(dir, "arc"), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			fx := fixtures()
			var entries []Entry
			for _, f := range fx {
				entries = append(entries, record(t, w, f.h, f.block, 5))
			}
			w.Close()
			ix.Close()

			var files []string
			for k := 0; ; k++ {
				p := FileName(filepath.Join(dir, "arc"), k, !c.opt.NoCompression, c.opt.MaxSize)
				if _, err := os.Stat(p); err != nil {
					break
				}
				files = append(files, p)
				if c.opt.MaxSize == 0 {
					break
				}
			}
			if c.opt.MaxSize > 0 && len(files) < 2 {
				t.Fatalf("%d files, want a roll-over", len(files))
			}
			i := 0
			for _, file := range files {
				recs := jsonLines(t, bin, "index", file, "--fields", "offset", "warc-type", "warc-target-uri", "warc-payload-digest", "warc-record-id")
				if len(recs) == 0 || recs[0]["warc-type"] != "warcinfo" {
					t.Fatalf("%s: warcio sees no warcinfo first: %v", file, recs)
				}
				for _, r := range recs[1:] {
					if i >= len(fx) {
						t.Fatalf("%s: more records than written", file)
					}
					f, e := fx[i], entries[i]
					if r["warc-type"] != string(f.h.Type) || r["warc-target-uri"] != f.h.TargetURI || r["warc-record-id"] != e.ID ||
						r["offset"] != float64(e.Offset) || filepath.Base(file) != e.File {
						t.Errorf("%s: warcio reads %v, we wrote %s %s %s at %d in %s", file, r, f.h.Type, f.h.TargetURI, e.ID, e.Offset, e.File)
					}
					if f.payload != nil && r["warc-payload-digest"] != sha1Of(f.payload) {
						t.Errorf("%s: %s: payload digest %v, sha1 of the payload %s", file, f.h.TargetURI, r["warc-payload-digest"], sha1Of(f.payload))
					}
					i++
				}
			}
			if i != len(fx) {
				t.Errorf("warcio read %d records, we wrote %d", i, len(fx))
			}

			var theirs []string
			for _, file := range files {
				out, err := exec.Command(bin, "cdx-index", file).Output()
				if err != nil {
					t.Fatal(err)
				}
				theirs = append(theirs, nonEmptyLines(string(out))...)
			}
			ours := nonEmptyLines(cdxj.String())
			if len(theirs) != len(ours) {
				t.Fatalf("warcio's CDXJ has %d lines, ours %d:\n%s\n--\n%s", len(theirs), len(ours), strings.Join(theirs, "\n"), cdxj.String())
			}
			for k := range ours {
				if ours[k] != theirs[k] {
					t.Errorf("CDXJ line %d:\nours   %s\nwarcio %s", k, ours[k], theirs[k])
				}
			}
		})
	}
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}
