package mirror

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/urlget/urlget/integration/ftptest"
)

// report returns the report of the URL ending in suffix.
func (r *recorder) report(suffix string) (Report, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rep := range r.reports {
		if strings.HasSuffix(rep.URL, suffix) {
			return rep, true
		}
	}
	return Report{}, false
}

// changingServer serves /big.txt, whose content, entity tag and time the
// test changes between runs, and cuts its first answer short after half
// the bytes, as a connection that drops.
type changingServer struct {
	mu      sync.Mutex
	body    string
	etag    string    // "" for none
	mod     time.Time // zero for none
	cut     bool
	ranges  []string // "Range|If-Range" of each request for /big.txt
	noneMat []string // If-None-Match of each
}

func (s *changingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	body, etag, mod, cut := s.body, s.etag, s.mod, s.cut
	if r.URL.Path == "/big.txt" {
		s.ranges = append(s.ranges, r.Header.Get("Range")+"|"+r.Header.Get("If-Range"))
		s.noneMat = append(s.noneMat, r.Header.Get("If-None-Match"))
	}
	s.mu.Unlock()
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<a href="big.txt">big</a>`)
		return
	case "/big.txt":
	default:
		http.NotFound(w, r)
		return
	}
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	if cut {
		if !mod.IsZero() {
			w.Header().Set("Last-Modified", mod.UTC().Format(http.TimeFormat))
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		io.WriteString(w, body[:len(body)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	http.ServeContent(w, r, "big.txt", mod, strings.NewReader(body))
}

func (s *changingServer) set(f func(s *changingServer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

// A mirror cut short mid-file, whose file then changes on the server
// (same length, another length) or stays: the next run resumes with
// If-Range on the validator the part began with; a changed file comes
// whole and is said to have changed, an unchanged one is resumed. The
// committed file is the server's current one byte for byte, and a -N run
// after it keeps it (no spliced file is taken as current). With a weak
// entity tag only, nothing proves the file the same: the part is not kept.
func TestMirrorResumeChangedHTTP(t *testing.T) {
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	v1 := strings.Repeat("1", 50000)
	for _, tc := range []struct {
		name       string
		etag, etg2 string
		mod, mod2  time.Time
		body2      string
		resumes    bool
	}{
		{name: "etag same length", etag: `"v1"`, etg2: `"v2"`, body2: strings.Repeat("2", 50000)},
		{name: "etag other length", etag: `"v1"`, etg2: `"v2"`, body2: strings.Repeat("2", 70000)},
		{name: "etag unchanged", etag: `"v1"`, etg2: `"v1"`, body2: v1, resumes: true},
		{name: "last-modified same length", mod: old, mod2: old.Add(time.Minute), body2: strings.Repeat("2", 50000)},
		{name: "last-modified unchanged", mod: old, mod2: old, body2: v1, resumes: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &changingServer{body: v1, etag: tc.etag, mod: tc.mod, cut: true}
			srv := httptest.NewServer(s)
			defer srv.Close()
			out := t.TempDir()
			o := Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}
			if _, _, err := run(t, o, srv.URL+"/"); err == nil {
				t.Fatal("the cut run reported success")
			}
			part := filepath.Join(out, StateDir, "parts", partName("big.txt"))
			if fi, err := os.Stat(part); err != nil || fi.Size() != int64(len(v1)/2) {
				t.Fatalf("part after the cut run: %v %v", fi, err)
			}
			s.set(func(s *changingServer) {
				s.cut, s.body, s.etag, s.mod, s.ranges = false, tc.body2, tc.etg2, tc.mod2, nil
			})
			_, rec, err := run(t, o, srv.URL+"/")
			if err != nil {
				t.Fatalf("second run: %v %+v", err, rec.reports)
			}
			wantFile(t, filepath.Join(out, "big.txt"), tc.body2)
			wantGone(t, part)
			wantGone(t, part+recordSuffix)
			validator := tc.etag
			if validator == "" {
				validator = tc.mod.UTC().Format(http.TimeFormat)
			}
			if want := fmt.Sprintf("bytes=%d-|%s", len(v1)/2, validator); len(s.ranges) != 1 || s.ranges[0] != want {
				t.Errorf("requests %q, want one with %q", s.ranges, want)
			}
			rep, _ := rec.report("/big.txt")
			switch {
			case tc.resumes && (rep.Reason != "" || rep.Size != int64(len(v1)-len(v1)/2)):
				t.Errorf("resumed: %+v, want the rest only", rep)
			case !tc.resumes && (rep.Reason != reasonChanged || rep.Size != int64(len(tc.body2))):
				t.Errorf("changed: %+v, want it fetched whole and said to have changed", rep)
			}

			keptByN(t, out, srv.URL+"/", "big.txt", tc.body2)
		})
	}

	t.Run("weak etag", func(t *testing.T) {
		s := &changingServer{body: v1, etag: `W/"v1"`, cut: true}
		srv := httptest.NewServer(s)
		defer srv.Close()
		out := t.TempDir()
		o := Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}
		run(t, o, srv.URL+"/")
		wantGone(t, filepath.Join(out, StateDir, "parts", partName("big.txt")))
		s.set(func(s *changingServer) { s.cut, s.body, s.ranges = false, strings.Repeat("2", 50000), nil })
		if _, rec, err := run(t, o, srv.URL+"/"); err != nil {
			t.Fatalf("second run: %v %+v", err, rec.reports)
		}
		wantFile(t, filepath.Join(out, "big.txt"), strings.Repeat("2", 50000))
		if len(s.ranges) != 1 || s.ranges[0] != "|" {
			t.Errorf("requests %q, want one without Range", s.ranges)
		}
	})
}

// The same over FTP: a RETR cut short, then the file changed (same length,
// another length) or not. The next run compares SIZE and MDTM with what
// the MLSD listing said when the part began, sends REST only when both
// are the same, and otherwise fetches the whole file and says so. A file
// in ASCII (;type=a) is never resumed: its sizes do not compare.
func TestMirrorResumeChangedFTP(t *testing.T) {
	t1 := time.Date(2025, 5, 1, 10, 0, 7, 0, time.UTC)
	v1 := strings.Repeat("1", 40000)
	for _, tc := range []struct {
		name    string
		body2   string
		mod2    time.Time
		resumes bool
	}{
		{"same length", strings.Repeat("2", 40000), t1.Add(time.Second), false},
		{"other length", strings.Repeat("2", 30000), t1.Add(time.Hour), false},
		{"same size, same second", strings.Repeat("2", 40000), t1, true},
		{"unchanged", v1, t1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys, srv := cuttingFTP(t, "pub/big.bin", v1, t1)
			out := t.TempDir()
			o := Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}
			if _, _, err := run(t, o, srv.URL+"/pub/"); err == nil {
				t.Fatal("the cut run reported success")
			}
			part := filepath.Join(out, StateDir, "parts", partName("pub/big.bin"))
			if fi, err := os.Stat(part); err != nil || fi.Size() != 15000 {
				t.Fatalf("part after the cut run: %v %v", fi, err)
			}
			srv.Truncate = false
			fsys["pub/big.bin"] = &fstest.MapFile{Data: []byte(tc.body2), Mode: 0o644, ModTime: tc.mod2}
			srv.ResetCommands()
			_, rec, err := run(t, o, srv.URL+"/pub/")
			if err != nil {
				t.Fatalf("second run: %v %+v", err, rec.reports)
			}
			got, _ := os.ReadFile(filepath.Join(out, "pub/big.bin"))
			rep, _ := rec.report("/big.bin")
			if tc.resumes {
				// Same size and time to the second: by RFC 3659 the same
				// file, and the test's "changed" bytes are then spliced,
				// which is what resuming on SIZE and MDTM means.
				if string(got) != v1[:15000]+tc.body2[15000:] || rep.Size != int64(len(v1)-15000) {
					t.Errorf("resumed: %+v, file of %d bytes", rep, len(got))
				}
				if !hasCommand(srv.Commands(), "REST 15000") || !hasCommand(srv.Commands(), "MDTM") {
					t.Errorf("commands %q, want MDTM and REST 15000", srv.Commands())
				}
				return
			}
			if string(got) != tc.body2 {
				t.Errorf("pub/big.bin: %d bytes, not the server's %d", len(got), len(tc.body2))
			}
			if hasCommand(srv.Commands(), "REST") {
				t.Errorf("commands %q, want no REST", srv.Commands())
			}
			if rep.Reason != reasonChanged || rep.Size != int64(len(tc.body2)) {
				t.Errorf("changed: %+v, want it fetched whole and said to have changed", rep)
			}
			wantGone(t, part)

			keptByN(t, out, srv.URL+"/pub/", "pub/big.bin", tc.body2)
		})
	}

	t.Run("ascii", func(t *testing.T) {
		_, srv := cuttingFTP(t, "pub/big.txt", v1, t1)
		out := t.TempDir()
		o := Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}
		run(t, o, srv.URL+"/pub/big.txt;type=a")
		if ents, _ := os.ReadDir(filepath.Join(out, StateDir, "parts")); len(ents) != 0 {
			t.Errorf("parts kept of an ASCII transfer: %v", ents)
		}
		srv.Truncate = false
		srv.ResetCommands()
		if _, rec, err := run(t, o, srv.URL+"/pub/big.txt;type=a"); err != nil {
			t.Fatalf("second run: %v %+v", err, rec.reports)
		}
		if hasCommand(srv.Commands(), "REST") {
			t.Errorf("commands %q, want no REST", srv.Commands())
		}
	})
}

// cuttingFTP serves one file over FTP with MLSD, and cuts every RETR of
// it after 15000 bytes until the test sets Truncate false.
func cuttingFTP(t *testing.T, name, data string, mod time.Time) (fstest.MapFS, *ftptest.Server) {
	fsys := fstest.MapFS{name: {Data: []byte(data), Mode: 0o644, ModTime: mod}}
	srv := ftptest.NewServer(fsys)
	t.Cleanup(srv.Close)
	srv.MLSD = true
	srv.Truncate, srv.TruncateAt, srv.TruncateReply = true, 15000, "426 Connection closed; transfer aborted."
	return fsys, srv
}

// keptByN runs -N over start into out and checks that rel, which holds
// the server's current bytes, is found unchanged and kept byte for byte:
// a spliced copy would be kept as well, which is why the caller checked
// the bytes first.
func keptByN(t *testing.T, out, start, rel, want string) {
	t.Helper()
	_, rec, err := run(t, Options{Dir: out, Level: -1, Timestamping: true, Layout: Layout{NoHostDirs: true}}, start)
	if err != nil {
		t.Fatal(err)
	}
	if rep, _ := rec.report("/" + path.Base(rel)); rep.Status != Unchanged {
		t.Errorf("-N: %+v, want unchanged", rep)
	}
	wantFile(t, filepath.Join(out, rel), want)
}

func hasCommand(cmds []string, prefix string) bool {
	for _, c := range cmds {
		if strings.HasPrefix(c, prefix) {
			return true
		}
	}
	return false
}

// Over LIST, whose times go to the minute or (for a file older than six
// months) the day, an unchanged file is still resumed: MDTM's time is
// compared at the listing's precision. A change of size, or a time past
// that precision, restarts it.
func TestMirrorResumeOverLIST(t *testing.T) {
	t1 := time.Date(2025, 5, 1, 10, 0, 7, 0, time.UTC)
	v1 := strings.Repeat("1", 40000)
	for _, tc := range []struct {
		name    string
		body2   string
		mod2    time.Time
		resumes bool
	}{
		{"unchanged", v1, t1, true},
		{"other length", strings.Repeat("2", 30000), t1, false},
		{"same length, a day later", strings.Repeat("2", 40000), t1.Add(24 * time.Hour), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys, srv := cuttingFTP(t, "pub/big.bin", v1, t1)
			srv.MLSD = false
			out := t.TempDir()
			o := Options{Dir: out, Level: -1, Layout: Layout{NoHostDirs: true}}
			if _, _, err := run(t, o, srv.URL+"/pub/"); err == nil {
				t.Fatal("the cut run reported success")
			}
			srv.Truncate = false
			fsys["pub/big.bin"] = &fstest.MapFile{Data: []byte(tc.body2), Mode: 0o644, ModTime: tc.mod2}
			srv.ResetCommands()
			if _, rec, err := run(t, o, srv.URL+"/pub/"); err != nil {
				t.Fatalf("second run: %v %+v", err, rec.reports)
			}
			wantFile(t, filepath.Join(out, "pub/big.bin"), tc.body2)
			if got := hasCommand(srv.Commands(), "REST 15000"); got != tc.resumes {
				t.Errorf("commands %q: resumed %v, want %v", srv.Commands(), got, tc.resumes)
			}
		})
	}
}
