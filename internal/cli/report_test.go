package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestJobReport: with --json-lines, each URL written to a file has its line:
// the exit codes of a 404 (22) and of a refused connection (7), size and
// path of what came, the password masked; with and without -Z. The run's
// status is that of a failed transfer.
func TestJobReport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ok" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("fine\n"))
	}))
	t.Cleanup(srv.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/x"
	l.Close()
	ok := strings.Replace(srv.URL, "http://", "http://me:secret@", 1) + "/ok"

	for _, mode := range [][]string{{"-Z"}, nil} {
		dir := t.TempDir()
		args := append(mode, "-f", "--json-lines", "--output-dir", dir,
			"-o", "a", srv.URL+"/missing", "-o", "b", refused, "-o", "c", ok)
		var out, errOut bytes.Buffer
		code := run(args, nil, &out, &errOut)
		if code != exitHTTP && code != exitConnect {
			t.Errorf("%v: exit %d, want %d or %d: %s", mode, code, exitHTTP, exitConnect, errOut.String())
		}
		if mode == nil && code != exitConnect {
			t.Errorf("serial: exit %d, want the last failure's %d", code, exitConnect)
		}
		if n := strings.Count(errOut.String(), "\n"); n != 2 {
			t.Errorf("%v: stderr has %d lines, want one for each failure: %q", mode, n, errOut.String())
		}
		type line struct {
			URL, Path, Status, Error string
			Size                     *int64
			Exit                     int
		}
		got := map[string]line{}
		for _, s := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			var l line
			if err := json.Unmarshal([]byte(s), &l); err != nil {
				t.Fatalf("%v: %q: %v", mode, s, err)
			}
			got[filepath.Base(l.Path)] = l
		}
		if l := got["a"]; l.Exit != exitHTTP || l.Status != reportFailed || !strings.Contains(l.Error, "404") || l.Size != nil {
			t.Errorf("%v: the 404's line is %+v", mode, l)
		}
		if l := got["b"]; l.Exit != exitConnect || l.Status != reportFailed || l.Error == "" || l.URL != refused {
			t.Errorf("%v: the refused connection's line is %+v", mode, l)
		}
		if l := got["c"]; l.Exit != 0 || l.Status != reportFetched || l.Size == nil || *l.Size != 5 || l.Error != "" ||
			strings.Contains(l.URL, "secret") || l.Path != filepath.Join(dir, "c") {
			t.Errorf("%v: the fetched file's line is %+v", mode, l)
		}
		if names := dirNames(t, dir); len(names) != 1 || names[0] != "c" {
			t.Errorf("%v: the directory holds %q, want c alone", mode, names)
		}
	}
}

// TestWriteJobReport: one line each, empty fields left out, the error
// one line.
func TestWriteJobReport(t *testing.T) {
	for _, c := range []struct {
		r    jobReport
		want string
	}{
		{jobReport{URL: "ftp://u:pw@h/f", Path: "h/f", Size: 0, Status: reportFetched},
			`{"url":"ftp://u:****@h/f","path":"h/f","size":0,"status":"fetched","exit":0}`},
		{jobReport{URL: "http://h/g", Path: "h/g", Size: 9, Status: reportUnchanged},
			`{"url":"http://h/g","path":"h/g","size":9,"status":"unchanged","exit":0}`},
		{jobReport{URL: "http://h/s", Status: reportSkipped},
			`{"url":"http://h/s","status":"skipped","exit":0}`},
		{jobReport{URL: "file:///d/x", Path: "d/x", Status: reportDeleted},
			`{"url":"file:///d/x","path":"d/x","status":"deleted","exit":0}`},
		{jobReport{URL: "http://h/e", Path: "e", Status: reportFailed, Exit: 23, Err: fmt.Errorf("disk\nfull")},
			`{"url":"http://h/e","path":"e","status":"failed","exit":23,"error":"disk full"}`},
	} {
		var b bytes.Buffer
		if err := writeJobReport(&b, c.r); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != c.want+"\n" {
			t.Errorf("%+v:\n got %s\nwant %s", c.r, got, c.want)
		}
	}
}
