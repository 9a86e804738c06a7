package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/mirror"
	"github.com/urlget/urlget/uri"
)

// mirrorFile is one file of the tree the recursive retrieval tests publish
// through each real server.
type mirrorFile struct {
	path string // slash-separated, relative to the tree; the remote name, decoded
	data []byte
}

// mirrorFixture returns the tree: names with a space, "%" (followed by hex
// digits, so that decoding twice shows), ";" (a parameter in RFC 1808, a
// plain character in RFC 3986), "#" and "?" (a fragment and a query when
// not escaped), UTF-8, in nested directories, with binary and empty files.
//
// gopher leaves out the names gophernicus cannot serve under their own
// selector: it %-decodes a request's selector, takes "?" as the start of a
// query, and uses "#" in selectors as an escape of its own ("#043").
func mirrorFixture(gopher bool) []mirrorFile {
	bin := make([]byte, 200<<10)
	for i := range bin {
		bin[i] = byte(i*131 + i>>8)
	}
	for i := 0; i < 256; i++ {
		bin[i] = byte(i) // every byte value, CR, LF and NUL among them
	}
	files := []mirrorFile{
		{"plain.txt", []byte("plain\n")},
		{"with space/a b.txt", []byte("spaces\n")},
		{"semi;colon/x;y=1.txt", []byte("semicolons\n")},
		{"ünïcødé/ファイル 1.txt", []byte("utf-8 names\n")},
		{"bin/all.bin", bin},
		{"bin/empty", nil},
		{"a/b/c/deep.txt", []byte("deep\r\nwith CR LF\r\n")},
	}
	if !gopher {
		files = append(files,
			mirrorFile{"pct%41dir/100%.txt", []byte("percent\n")},
			mirrorFile{"hash#dir/h#1.txt", []byte("hash\n")},
			mirrorFile{"query?dir/what?.txt", []byte("query\n")},
		)
	}
	return files
}

// mirrorName returns a fresh name for one test's tree, so that runs against
// a long-lived server do not meet each other's files.
func mirrorName(prefix string) string {
	var b [6]byte
	rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// writeMirrorFiles writes files under dir, readable by a server running as
// another user, and removes dir when the test ends.
func writeMirrorFiles(t *testing.T, dir string, files []mirrorFile) {
	t.Helper()
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// MkdirAll's mode is cut by the umask; the servers read as others.
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}

// mirrorOut returns the output directory of one run, inside a temporary
// directory of its own, and a check that the run wrote nothing beside it.
func mirrorOut(t *testing.T) (out string, outside func()) {
	t.Helper()
	parent := t.TempDir()
	out = filepath.Join(parent, "out")
	return out, func() {
		t.Helper()
		es, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if e.Name() != "out" {
				t.Errorf("the run wrote %s beside its output directory", e.Name())
			}
		}
	}
}

// mirrorRun runs one recursive retrieval and returns its reports. A run
// that fails fails the test, naming the reports that say why.
func mirrorRun(t *testing.T, c *fetch.Client, opts mirror.Options, start ...string) []mirror.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var reports []mirror.Report
	opts.Report = func(r mirror.Report) { reports = append(reports, r) }
	if _, err := mirror.Run(ctx, c, opts, parseURLs(t, start...)); err != nil {
		for _, r := range reports {
			if r.Status == mirror.Failed {
				t.Logf("failed: %s: %v", r.URL, r.Err)
			}
		}
		t.Fatalf("mirror %s: %v", strings.Join(start, " "), err)
	}
	for _, r := range reports {
		if strings.HasPrefix(r.Path, "/") || r.Path == ".." || strings.HasPrefix(r.Path, "../") {
			t.Errorf("%s: local path %q is not inside the output directory", r.URL, r.Path)
		}
	}
	return reports
}

// checkMirrored compares the local tree dir with files: every file there,
// under its decoded remote name, byte for byte, and no other file but the
// saved listings, named listing ("index.html", "gophermap"; "" when a
// listing is not saved). No partial file may be left.
func checkMirrored(t *testing.T, dir string, files []mirrorFile, listing string) {
	t.Helper()
	want := map[string][]byte{}
	for _, f := range files {
		want[f.path] = f.data
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && d.Name() == mirror.StateDir:
			return filepath.SkipDir // urlget's record of the tree
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			t.Errorf("%s: not a regular file (%v)", rel, d.Type())
			return nil
		}
		data, ok := want[rel]
		if !ok {
			if listing == "" || d.Name() != listing {
				t.Errorf("%s: not a file of the tree", rel)
			}
			return nil
		}
		seen[rel] = true
		got, err := os.ReadFile(p)
		if err != nil {
			t.Error(err)
		} else if !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes differ from the %d sent: %.60q", rel, len(got), len(data), got)
		}
		return nil
	})
	if err != nil {
		// Where the files went instead, for the message.
		top := dir
		for {
			if _, err := os.Stat(top); err == nil || filepath.Dir(top) == top {
				break
			}
			top = filepath.Dir(top)
		}
		t.Fatalf("the local tree: %v (in %s: %q)", err, top, listFiles(top))
	}
	var missing []string
	for p := range want {
		if !seen[p] {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("missing from %s: %q (there: %q)", dir, missing, listFiles(dir))
	}
}

// listFiles returns the files below dir, for failure messages.
func listFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// serverLog reads what a server appends to its log file from a mark on.
type serverLog struct {
	path string
	off  int64
}

// markServerLog starts reading path from its present end.
func markServerLog(t *testing.T, path string) *serverLog {
	t.Helper()
	l := &serverLog{path: path}
	if fi, err := os.Stat(path); err == nil {
		l.off = fi.Size()
	}
	return l
}

// linesAfter fetches marker with c, so that the server logs one request
// after everything the run asked for, waits (at most 10 s) until the log
// shows a line holding markerLog, and returns the lines logged since the
// mark, the marker's among them. A server writes a line once a request
// is over, when the client may have moved on: the marker puts the run's
// requests in the past.
func (l *serverLog) linesAfter(t *testing.T, c *fetch.Client, marker, markerLog string) []string {
	t.Helper()
	res, err := c.Fetch(testCtx(t), marker)
	if err != nil {
		t.Fatalf("marker %s: %v", marker, err)
	}
	if res.Body != nil {
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	if res.Listing != nil {
		res.Listing.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines := l.read(t)
		for _, s := range lines {
			if strings.Contains(s, markerLog) {
				return lines
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no line with %q after 10 s: %q", l.path, markerLog, lines)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (l *serverLog) read(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(l.path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(l.off, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// unescaped decodes a logged, %-escaped path, leaving it as it is when it
// does not decode.
func unescaped(s string) string {
	if d, err := uri.Unescape(s); err == nil {
		return d
	}
	return s
}

// commandDialer records the commands a client sends on the connections it
// opens: the lines written to them, by their first word, upper-cased.
type commandDialer struct {
	mu    sync.Mutex
	count map[string]int
}

func (d *commandDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	var nd net.Dialer
	c, err := nd.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &commandConn{Conn: c, d: d}, nil
}

// counts returns the counts so far and starts again from zero.
func (d *commandDialer) counts() map[string]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := d.count
	d.count = map[string]int{}
	return m
}

type commandConn struct {
	net.Conn
	d       *commandDialer
	partial []byte
}

// Write counts the commands among the lines written: an NNTP client sends
// nothing but commands once it reads (it posts nothing here).
func (c *commandConn) Write(p []byte) (int, error) {
	c.partial = append(c.partial, p...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 {
			break
		}
		word, _, _ := strings.Cut(strings.TrimSpace(string(c.partial[:i])), " ")
		c.d.mu.Lock()
		if c.d.count == nil {
			c.d.count = map[string]int{}
		}
		c.d.count[strings.ToUpper(word)]++
		c.d.mu.Unlock()
		c.partial = c.partial[i+1:]
	}
	return c.Conn.Write(p)
}
