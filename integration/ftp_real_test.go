package integration

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/ftp"
	"github.com/urlget/urlget/uri"
)

// vsftpdEnv describes the vsftpd instance .ci/servers/vsftpd.sh started.
type vsftpdEnv struct {
	addr, root       string
	user, pass, home string
	cert             string
}

// vsftpd returns the running vsftpd (see realServer for when it is
// missing).
func vsftpd(t *testing.T) vsftpdEnv {
	t.Helper()
	v := realServer(t, "URLGET_VSFTPD_ADDR", "URLGET_VSFTPD_ROOT", "URLGET_VSFTPD_USER",
		"URLGET_VSFTPD_PASS", "URLGET_VSFTPD_HOME", "URLGET_VSFTPD_CERT")
	return vsftpdEnv{addr: v[0], root: v[1], user: v[2], pass: v[3], home: v[4], cert: v[5]}
}

// realFTP is a real FTP server that the tests reach anonymously.
type realFTP struct {
	name       string
	addr, root string // root: the local directory ftp://addr/ shows
	// crlfASCII is what ;type=a makes of a file whose lines end in CR LF.
	// In ASCII type (RFC 959 §3.1.1.1) vsftpd sends such a line end as
	// it is; Pure-FTPd sends CR LF for the LF, the CR before it being
	// part of the line, which the client keeps.
	crlfASCII string
	// bareCWD is the server's reply to a CWD with no argument (RFC 1738
	// §3.2.2's empty segment): vsftpd refuses it with 550, ProFTPD with
	// 501, and Pure-FTPd goes to the login directory (0).
	bareCWD int
}

// realFTPServers returns the anonymous FTP servers .ci/servers started
// (vsftpd, Pure-FTPd, ProFTPD): those whose variables are set, skipping
// when none is (see lookupRealServer for URLGET_REAL).
func realFTPServers(t *testing.T) []realFTP {
	t.Helper()
	var out []realFTP
	var names []string
	for _, s := range []struct {
		name, env, crlfASCII string
		bareCWD              int
	}{
		{"vsftpd", "VSFTPD", "one\ntwo\n", 550},
		{"pure-ftpd", "PUREFTPD", "one\r\ntwo\r\n", 0},
		{"proftpd", "PROFTPD", "one\ntwo\n", 501},
	} {
		env := []string{"URLGET_" + s.env + "_ADDR", "URLGET_" + s.env + "_ROOT"}
		names = append(names, env...)
		if v, ok := lookupRealServer(t, env...); ok {
			out = append(out, realFTP{s.name, v[0], v[1], s.crlfASCII, s.bareCWD})
		}
	}
	if len(out) == 0 {
		t.Skipf("no real FTP server running: set the ADDR and ROOT of one of %s (start them with .ci/servers, see docs/testing.md)", strings.Join(names, ", "))
	}
	return out
}

// eachRealFTP runs test as a subtest against each real FTP server.
func eachRealFTP(t *testing.T, test func(t *testing.T, e realFTP)) {
	for _, e := range realFTPServers(t) {
		t.Run(e.name, func(t *testing.T) { test(t, e) })
	}
}

// ftpFile is one file of the tree the real-server tests write.
type ftpFile struct {
	path string // slash-separated, relative to the tree
	data []byte
	mode os.FileMode
}

func ftpFiles() []ftpFile {
	all := make([]byte, 1<<20)
	for i := range all {
		all[i] = byte(i * 7)
	}
	for i := 0; i < 256; i++ {
		all[i] = byte(i)
	}
	return []ftpFile{
		{"a/b/c/deep.txt", []byte("deep\n"), 0o644},
		{"one/only.txt", []byte("only\n"), 0o644},
		{"dir with space/file with space.txt", []byte("spaces\n"), 0o644},
		{"pct%20dir/100%.txt", []byte("percent\n"), 0o644},
		{"semi;colon/x;y.txt", []byte("semicolon\n"), 0o644},
		{"hash#dir/h#1.txt", []byte("hash\n"), 0o644},
		{"ünïcødé/ファイル.txt", []byte("utf-8\n"), 0o644},
		{"text/crlf.txt", []byte("one\r\ntwo\r\n"), 0o644},
		{"text/lf.txt", []byte("one\ntwo\n"), 0o644},
		{"bin/all.bin", all, 0o644},
		{"bin/empty", nil, 0o644},
		{"bin/secret", []byte("unreadable\n"), 0o600},
	}
}

// writeFTPTree writes the tree under root/name, fresh, and returns the URL
// path of its directory.
func writeFTPTree(t *testing.T, root, name string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range ftpFiles() {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.data, f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return "/" + uri.EscapeSegment(name) + "/"
}

// escapePath escapes each segment of a slash-separated path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = uri.EscapeSegment(s)
	}
	return strings.Join(segs, "/")
}

// countingDialer counts control connections (those to addr).
type countingDialer struct {
	addr string
	mu   sync.Mutex
	n    int
}

func (d *countingDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if address == d.addr {
		d.mu.Lock()
		d.n++
		d.mu.Unlock()
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, address)
}

func TestRealFTPFiles(t *testing.T) {
	eachRealFTP(t, func(t *testing.T, e realFTP) {
		dir := writeFTPTree(t, e.root, "files")
		dialer := &countingDialer{addr: e.addr}
		f := &ftp.Fetcher{}
		defer f.Close()
		var writes [][]string // the commands sent, one slice per run of them
		for i, file := range ftpFiles() {
			req := ftpRequest(t, "ftp://"+e.addr+dir+escapePath(file.path))
			req.Dialer = dialer
			if i == 0 {
				sent := false
				req.Trace = func(d schemes.Direction, l string) {
					if d == schemes.Sent {
						if !sent {
							writes = append(writes, nil)
						}
						writes[len(writes)-1] = append(writes[len(writes)-1], l)
					}
					sent = d == schemes.Sent
				}
			}
			body, err := fetchFTP(t, f, req)
			if file.mode&0o004 == 0 {
				// vsftpd (anon_world_readable_only) and Pure-FTPd
				// (reading as the account ftp) answer 550.
				if !errors.Is(err, schemes.ErrNotFound) {
					t.Errorf("%s: %v, want not found", file.path, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", file.path, err)
				continue
			}
			if !bytes.Equal([]byte(body), file.data) {
				t.Errorf("%s: %d bytes differ from the %d written", file.path, len(body), len(file.data))
			}
		}
		// "/nope.txt" is RETR at the login directory, on the port of an
		// EPSV sent ahead; ProFTPD closes that port as it refuses the
		// RETR, and its 550 is the error, not the refused connection.
		for _, p := range []string{"/nope.txt", "bin/missing", "nodir/missing", "no/dir/missing"} {
			u := "ftp://" + e.addr + dir + p
			if strings.HasPrefix(p, "/") {
				u = "ftp://" + e.addr + p
			}
			_, err := fetchFTP(t, f, ftpRequest(t, u))
			if !errors.Is(err, schemes.ErrNotFound) {
				t.Errorf("%s: %v, want not found", p, err)
			}
			// The EPSV sent with a refused CWD is answered before what
			// comes next, and the connection still serves.
			body, err := fetchFTP(t, f, ftpRequest(t, "ftp://"+e.addr+dir+"one/only.txt"))
			if err != nil || body != "only\n" {
				t.Errorf("after %s: %q, %v", p, body, err)
			}
		}
		if dialer.n != 1 {
			t.Errorf("%d control connections for %d URLs, want 1", dialer.n, len(ftpFiles()))
		}
		// The first URL, a/b/c/deep.txt: nothing waits for a reply but
		// each CWD for the one before and RETR for EPSV's port.
		want := [][]string{
			{"USER anonymous", "PASS ****", "PWD", "CWD " + strings.Trim(dir, "/")},
			{"CWD a"}, {"CWD b"}, {"CWD c", "TYPE I", "EPSV"}, {"RETR deep.txt"}, {"EPSV"},
		}
		if fmt.Sprint(writes) != fmt.Sprint(want) {
			t.Errorf("commands sent, by the replies between them:\n got %q\nwant %q", writes, want)
		}
	})
}

// TestRealFTPTypes checks RFC 1738 §3.2.3's ;type=a, ;type=i and ;type=d.
func TestRealFTPTypes(t *testing.T) {
	eachRealFTP(t, func(t *testing.T, e realFTP) {
		dir := writeFTPTree(t, e.root, "types")
		f := &ftp.Fetcher{}
		defer f.Close()
		for path, want := range map[string]string{
			"text/crlf.txt;type=a": e.crlfASCII,
			"text/lf.txt;type=a":   "one\ntwo\n",
			"text/crlf.txt;type=i": "one\r\ntwo\r\n",
			"one/;type=d":          "only.txt\n",
		} {
			body, err := fetchFTP(t, f, ftpRequest(t, "ftp://"+e.addr+dir+path))
			if err != nil || body != want {
				t.Errorf("%s: %q, %v; want %q", path, body, err, want)
			}
		}
	})
}

// TestRealFTPListing lists the tree (vsftpd with LIST, Pure-FTPd with
// MLSD) and fetches every file through the URL its entry carries.
func TestRealFTPListing(t *testing.T) {
	eachRealFTP(t, func(t *testing.T, e realFTP) {
		dir := writeFTPTree(t, e.root, "listing")
		f := &ftp.Fetcher{}
		defer f.Close()
		want := map[string][]byte{}
		for _, file := range ftpFiles() {
			if file.mode&0o004 != 0 {
				want["ftp://"+e.addr+dir+escapePath(file.path)] = file.data
			}
		}
		got := 0
		var walk func(u string)
		walk = func(u string) {
			res, err := f.Fetch(ftpContext(t, 30*time.Second), ftpRequest(t, u))
			if err != nil {
				t.Fatalf("%s: %v", u, err)
			}
			var entries []schemes.Entry
			for {
				en, err := res.Listing.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s: %v", u, err)
				}
				entries = append(entries, en)
			}
			res.Listing.Close()
			for _, en := range entries {
				switch en.Kind {
				case schemes.KindDirectory:
					walk(en.URL)
				case schemes.KindFile:
					data, ok := want[en.URL]
					if strings.HasSuffix(en.URL, "/secret") {
						continue
					}
					if !ok {
						t.Errorf("entry %q (%s) names no file written", en.URL, en.Raw)
						continue
					}
					if en.Size != int64(len(data)) {
						t.Errorf("%s: size %d, want %d", en.URL, en.Size, len(data))
					}
					body, err := fetchFTP(t, f, ftpRequest(t, en.URL))
					if err != nil || body != string(data) {
						t.Errorf("%s: %d bytes, %v", en.URL, len(body), err)
					}
					got++
				}
			}
		}
		walk("ftp://" + e.addr + dir)
		if got != len(want) {
			t.Errorf("fetched %d files through listings, want %d", got, len(want))
		}
		req := ftpRequest(t, "ftp://"+e.addr+dir+"one/")
		req.Raw = true
		body, err := fetchFTP(t, f, req)
		if err != nil || !strings.HasSuffix(body, " only.txt\r\n") {
			t.Errorf("raw listing %q, %v", body, err)
		}
	})
}

// TestRealFTPHeadResume checks -I (SIZE, MDTM) and a resumed fetch (REST).
func TestRealFTPHeadResume(t *testing.T) {
	eachRealFTP(t, func(t *testing.T, e realFTP) {
		dir := writeFTPTree(t, e.root, "head")
		f := &ftp.Fetcher{}
		defer f.Close()
		u := "ftp://" + e.addr + dir + "bin/all.bin"
		req := ftpRequest(t, u)
		req.Head = true
		res, err := f.Fetch(ftpContext(t, 30*time.Second), req)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(e.root, "head", "bin", "all.bin"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Size != 1<<20 || !res.ModTime.Equal(fi.ModTime().UTC().Truncate(time.Second)) {
			t.Errorf("head: size %d, time %v, want %v", res.Size, res.ModTime, fi.ModTime().UTC())
		}
		req = ftpRequest(t, u)
		req.Offset = 1000
		res, err = f.Fetch(ftpContext(t, 30*time.Second), req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.Offset != 1000 || !bytes.Equal(b, ftpFiles()[9].data[1000:]) {
			t.Errorf("resume: offset %d, %d bytes, %v", res.Offset, len(b), err)
		}
	})
}

// TestRealFTPBareCWD checks RFC 1738 §3.2.2's empty segment, a CWD with
// no argument: where the server refuses it (vsftpd's 550, ProFTPD's 501)
// the file is not found and the error says how to write an absolute path;
// where it goes to the login directory (Pure-FTPd), the file is fetched
// from there.
func TestRealFTPBareCWD(t *testing.T) {
	eachRealFTP(t, func(t *testing.T, e realFTP) {
		dir := writeFTPTree(t, e.root, "bare")
		f := &ftp.Fetcher{}
		defer f.Close()
		var sent []string
		req := ftpRequest(t, "ftp://"+e.addr+"/"+dir+"one/only.txt")
		req.Trace = func(d schemes.Direction, l string) {
			if d == schemes.Sent {
				sent = append(sent, l)
			}
		}
		body, err := fetchFTP(t, f, req)
		var se *schemes.Error
		switch {
		case e.bareCWD == 0:
			if err != nil || body != "only\n" {
				t.Errorf("bare CWD accepted: %q, %v", body, err)
			}
		case !errors.As(err, &se) || se.Code != e.bareCWD || !errors.Is(err, schemes.ErrNotFound):
			t.Errorf("error %v, want not found with %d", err, e.bareCWD)
		case !strings.Contains(err.Error(), "RFC 1738 §3.2.2") || !strings.Contains(err.Error(), "%2F"):
			t.Errorf("error %v, want one naming RFC 1738 §3.2.2 and %%2F", err)
		}
		if !strings.Contains(strings.Join(sent, "\n")+"\n", "\nCWD\n") {
			t.Errorf("no bare CWD among %q", sent)
		}
		body, err = fetchFTP(t, f, ftpRequest(t, "ftp://"+e.addr+"/%2F"+strings.Trim(dir, "/")+"/one/only.txt"))
		if err != nil || body != "only\n" {
			t.Errorf("absolute path: %q, %v", body, err)
		}
	})
}

// TestVsftpdLocalUser logs in with a password: paths are relative to the
// login directory, %2F makes them absolute, and a wrong password is a
// login failure.
func TestVsftpdLocalUser(t *testing.T) {
	e := vsftpd(t)
	if e.user == "" || e.home == "" {
		t.Fatal("URLGET_VSFTPD_USER and URLGET_VSFTPD_HOME are not set")
	}
	if err := os.WriteFile(filepath.Join(e.home, "mine.txt"), []byte("home\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(filepath.Join(e.home, "mine.txt")) })
	f := &ftp.Fetcher{}
	defer f.Close()
	cred := uri.EscapeSegment(e.user) + ":" + uri.EscapeSegment(e.pass) + "@"
	for _, path := range []string{"/mine.txt", "/%2Fhome/" + uri.EscapeSegment(e.user) + "/mine.txt", "/mine.txt"} {
		body, err := fetchFTP(t, f, ftpRequest(t, "ftp://"+cred+e.addr+path))
		if err != nil || body != "home\n" {
			t.Errorf("%s: %q, %v", path, body, err)
		}
	}
	_, err := fetchFTP(t, f, ftpRequest(t, "ftp://"+uri.EscapeSegment(e.user)+":wrong@"+e.addr+"/mine.txt"))
	if !errors.Is(err, schemes.ErrLoginFailed) {
		t.Errorf("wrong password: %v, want a login failure", err)
	}
}

// TestVsftpdTLS uses explicit AUTH TLS; vsftpd's require_ssl_reuse makes
// each data connection resume the control connection's session.
func TestVsftpdTLS(t *testing.T) {
	e := vsftpd(t)
	dir := writeFTPTree(t, e.root, "tls")
	pem, err := os.ReadFile(e.cert)
	if err != nil {
		t.Fatalf("URLGET_VSFTPD_CERT: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	conf := &tls.Config{RootCAs: pool}
	f := &ftp.Fetcher{RequireTLS: true}
	defer f.Close()
	for _, path := range []string{"bin/all.bin", "one/only.txt", "bin/all.bin"} {
		req := ftpRequest(t, "ftp://"+e.addr+dir+path)
		req.TLSConfig = conf
		body, err := fetchFTP(t, f, req)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if path == "one/only.txt" && body != "only\n" || path == "bin/all.bin" && len(body) != 1<<20 {
			t.Errorf("%s: %d bytes", path, len(body))
		}
	}
}
