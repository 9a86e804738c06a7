package integration

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/ftp"
	"github.com/urlget/urlget/uri"
)

var ftpModTime = time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)

// ftpTree is the in-process server's content.
func ftpTree() fstest.MapFS {
	f := func(s string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(s), Mode: 0o644, ModTime: ftpModTime}
	}
	bin := make([]byte, 256*1024)
	for i := range bin {
		bin[i] = byte(i)
	}
	return fstest.MapFS{
		"motd":                     f("root motd\n"),
		"etc/motd":                 f("etc motd\n"),
		"one/only.txt":             f("only\n"),
		"a/b/f":                    f("inside a/b\n"),
		"a%2Fb/f":                  f("wrong: a literal %2F directory\n"),
		"text/crlf.txt":            f("line one\r\nline two\r\n"),
		"text/lf.txt":              f("line one\nline two\n"),
		"bin/all.bin":              {Data: bin, Mode: 0o644, ModTime: ftpModTime},
		"pub/dir with space/x;y#z": f("odd name\n"),
		"pub/ünï/çødé.txt":         f("utf-8\n"),
		"pub/empty":                f(""),
		"pub/secret":               {Data: []byte("no"), Mode: 0o000, ModTime: ftpModTime},
		"home/user/rel/file":       f("relative to the login directory\n"),
		"rel/file":                 f("wrong: relative to /\n"),
		"d0/f":                     f("d0\n"),
		"d1/f":                     f("d1\n"),
		"d2/sub/f":                 f("d2\n"),
	}
}

// newFTPServer starts an in-process server; configure runs before Start.
func newFTPServer(t *testing.T, configure func(s *ftptest.Server)) *ftptest.Server {
	t.Helper()
	s := ftptest.NewUnstartedServer(ftpTree())
	s.Users = map[string]string{"user": "secret"}
	s.Home = map[string]string{"user": "/home/user"}
	if configure != nil {
		configure(s)
	}
	if s.TLS == nil {
		s.Start()
	}
	t.Cleanup(s.Close)
	return s
}

// ftpRequest builds a request the way the fetch package does, with the
// credentials taken from the URL.
func ftpRequest(t testing.TB, raw string) *schemes.Request {
	t.Helper()
	u, err := uri.Parse(raw)
	if err != nil {
		t.Fatalf("parse %q: %v", raw, err)
	}
	req := &schemes.Request{URL: u, Dialer: &net.Dialer{}, TLSConfig: &tls.Config{}}
	if user, ok := u.User(); ok {
		req.User = url.User(user)
		if pw, ok := u.Password(); ok {
			req.User = url.UserPassword(user, pw)
		}
	}
	return req
}

// ftpContext bounds every exchange of a test.
func ftpContext(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// readResource reads a body to its end, or renders a listing one name per
// line.
func readResource(res *schemes.Resource) (string, error) {
	if res.Body != nil {
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return string(b), err
	}
	if res.Listing != nil {
		defer res.Listing.Close()
		var b strings.Builder
		for {
			e, err := res.Listing.Next()
			if err == io.EOF {
				return b.String(), nil
			}
			if err != nil {
				return b.String(), err
			}
			b.WriteString(e.Name)
			b.WriteByte('\n')
		}
	}
	return "", nil
}

func fetchFTP(t *testing.T, f *ftp.Fetcher, req *schemes.Request) (string, error) {
	t.Helper()
	res, err := f.Fetch(ftpContext(t, 20*time.Second), req)
	if err != nil {
		return "", err
	}
	return readResource(res)
}

// sessionCommands drops the login from a recorded session.
func sessionCommands(cmds []string) []string {
	var out []string
	for _, c := range cmds {
		if strings.HasPrefix(c, "USER ") || strings.HasPrefix(c, "PASS ") {
			continue
		}
		out = append(out, c)
	}
	return out
}

// closedCommands closes f and returns every command s received, once the
// QUIT that Close sends has arrived (boundedly: a command may still be in
// flight when a fetch returns).
func closedCommands(t *testing.T, f *ftp.Fetcher, s *ftptest.Server) []string {
	t.Helper()
	f.Close()
	for i := 0; i < 500; i++ {
		if cmds := s.Commands(); len(cmds) > 0 && cmds[len(cmds)-1] == "QUIT" {
			return cmds
		}
		time.Sleep(10 * time.Millisecond)
	}
	return s.Commands()
}

func checkCommands(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n got %q\nwant %q", got, want)
	}
}

// TestFTPRFC1738Examples checks the command sequence, line by line, for the
// examples of RFC 1738 §3.2.2 and §3.2.3 and the cases the issue names.
func TestFTPRFC1738Examples(t *testing.T) {
	tests := []ftpExample{
		{name: "file at the root", url: "/motd",
			want: []string{"TYPE I", "EPSV", "RETR motd"}, body: "root motd\n"},
		{name: "relative directory", url: "/etc/motd",
			want: []string{"PWD", "CWD etc", "TYPE I", "EPSV", "RETR motd"}, body: "etc motd\n"},
		{name: "%2F makes an absolute path", url: "/%2Fetc/motd",
			want: []string{"PWD", "CWD /etc", "TYPE I", "EPSV", "RETR motd"}, body: "etc motd\n"},
		{name: "empty segment is a bare CWD", url: "//etc/motd", bareCWD: true,
			want: []string{"PWD", "CWD", "CWD etc", "TYPE I", "EPSV", "RETR motd"}, body: "etc motd\n"},
		{name: "bare CWD refused", url: "//etc/motd",
			want: []string{"PWD", "CWD"}, errKind: schemes.ErrNotFound, errMatch: "RFC 1738 §3.2.2"},
		{name: "bare CWD refused with 501", url: "//etc/motd", bareCWDReply: "501 Invalid number of parameters",
			want: []string{"PWD", "CWD"}, errKind: schemes.ErrNotFound, errMatch: "RFC 1738 §3.2.2"},
		{name: "%2F inside one segment", url: "/a%2Fb/f",
			want: []string{"PWD", "CWD a/b", "TYPE I", "EPSV", "RETR f"}, body: "inside a/b\n"},
		{name: "type=d NLST of a directory", url: "/one/;type=d",
			want: []string{"PWD", "CWD one", "EPSV", "NLST"}, body: "only.txt\n"},
		{name: "type=d NLST of a name", url: "/one;type=d",
			want: []string{"EPSV", "NLST one"}, body: "one/only.txt\n"},
		{name: "type=a converts line ends", url: "/text/lf.txt;type=a",
			want: []string{"PWD", "CWD text", "TYPE A", "EPSV", "RETR lf.txt"}, body: "line one\nline two\n"},
		{name: "type=a on a CRLF file", url: "/text/crlf.txt;type=a",
			want: []string{"PWD", "CWD text", "TYPE A", "EPSV", "RETR crlf.txt"}, body: "line one\nline two\n"},
		{name: "type=i is byte-exact", url: "/text/crlf.txt;type=i",
			want: []string{"PWD", "CWD text", "TYPE I", "EPSV", "RETR crlf.txt"}, body: "line one\r\nline two\r\n"},
		{name: "directory listing with LIST", url: "/one/",
			want: []string{"PWD", "CWD one", "FEAT", "EPSV", "LIST"}, body: "only.txt\n"},
		{name: "directory listing with MLSD", url: "/one/", mlsd: true,
			want: []string{"PWD", "CWD one", "FEAT", "EPSV", "MLSD"}, body: "only.txt\n"},
		{name: "escaped names", url: "/pub/dir%20with%20space/x%3By%23z",
			want: []string{"PWD", "CWD pub", "CWD dir with space", "TYPE I", "EPSV", "RETR x;y#z"}, body: "odd name\n"},
		{name: "UTF-8 names", url: "/pub/%C3%BCn%C3%AF/%C3%A7%C3%B8d%C3%A9.txt",
			want: []string{"PWD", "CWD pub", "CWD ünï", "TYPE I", "EPSV", "RETR çødé.txt"}, body: "utf-8\n"},
		{name: "empty file", url: "/pub/empty",
			want: []string{"PWD", "CWD pub", "TYPE I", "EPSV", "RETR empty"}, body: ""},
		{name: "missing file", url: "/pub/missing",
			want: []string{"PWD", "CWD pub", "TYPE I", "EPSV", "RETR missing"}, errKind: schemes.ErrNotFound},
		{name: "missing directory", url: "/nope/f",
			// TYPE and EPSV go out with the last CWD; EPSV's reply
			// is read before the connection's next command.
			want: []string{"PWD", "CWD nope", "TYPE I", "EPSV"}, errKind: schemes.ErrNotFound},
		{name: "unreadable file", url: "/pub/secret",
			want: []string{"PWD", "CWD pub", "TYPE I", "EPSV", "RETR secret"}, errKind: schemes.ErrNotFound},
		{name: "singlecwd", url: "/d2/sub/f", method: ftp.SingleCWD,
			want: []string{"PWD", "CWD d2/sub", "TYPE I", "EPSV", "RETR f"}, body: "d2\n"},
		{name: "singlecwd absolute", url: "//etc/motd", method: ftp.SingleCWD,
			want: []string{"PWD", "CWD /etc", "TYPE I", "EPSV", "RETR motd"}, body: "etc motd\n"},
		{name: "nocwd", url: "/d2/sub/f", method: ftp.NoCWD,
			want: []string{"TYPE I", "EPSV", "RETR d2/sub/f"}, body: "d2\n"},
		{name: "nocwd listing", url: "/d2/", method: ftp.NoCWD,
			want: []string{"FEAT", "EPSV", "LIST d2"}, body: "sub\n"},
	}
	for _, tt := range tests {
		for _, last := range []bool{false, true} {
			name := tt.name
			if last {
				name += ", last"
			}
			t.Run(name, func(t *testing.T) { tt.check(t, last) })
		}
	}
}

// ftpExample is a case of TestFTPRFC1738Examples: a URL path on the test
// server and the commands its fetch sends after logging in.
type ftpExample struct {
	name    string
	url     string
	method  ftp.Method // the fetcher's
	bareCWD bool
	// bareCWDReply is the server's refusal of a bare CWD, 550 if "".
	bareCWDReply string
	mlsd         bool
	want         []string
	body         string
	errKind      error
	errMatch     string
}

// check fetches the example's URL on a fresh connection and checks its
// commands. As a request of a longer run, the walk starts with PWD (for
// the URLs that may follow) and a transfer that ended with its 226 is
// followed at once by the EPSV for the connection's next transfer, sent
// ahead, its reply read later. As the last request (told to the Fetcher
// as a run that ends with it, schemes.Expecter) it does neither. Close
// ends with QUIT.
func (tt ftpExample) check(t *testing.T, last bool) {
	s := newFTPServer(t, func(s *ftptest.Server) {
		s.AcceptBareCWD, s.BareCWDReply, s.MLSD = tt.bareCWD, tt.bareCWDReply, tt.mlsd
	})
	f := &ftp.Fetcher{Method: tt.method}
	defer f.Close()
	req := ftpRequest(t, s.URL+tt.url)
	if last {
		f.Expect([]*schemes.Request{req}, true)
	}
	body, err := fetchFTP(t, f, req)
	if tt.errKind != nil {
		if !errors.Is(err, tt.errKind) {
			t.Fatalf("error %v, want %v", err, tt.errKind)
		}
		if tt.errMatch != "" && !strings.Contains(err.Error(), tt.errMatch) {
			t.Errorf("error %q does not say %q", err, tt.errMatch)
		}
	} else if err != nil {
		t.Fatal(err)
	} else if body != tt.body {
		t.Errorf("body %q, want %q", body, tt.body)
	}
	var want []string
	for _, c := range tt.want {
		if c != "PWD" || !last {
			want = append(want, c)
		}
	}
	if tt.errKind == nil && !last {
		want = append(want, "EPSV")
	}
	want = append(want, "QUIT")
	checkCommands(t, sessionCommands(closedCommands(t, f, s)), want)
}

// TestFTPLoginDirectory checks that paths are relative to the login
// directory, and that a reused connection returns to it.
func TestFTPLoginDirectory(t *testing.T) {
	s := newFTPServer(t, nil)
	f := &ftp.Fetcher{}
	defer f.Close()
	for _, path := range []string{"/rel/file", "/%2Frel/file", "/rel/file"} {
		body, err := fetchFTP(t, f, ftpRequest(t, "ftp://user:secret@"+s.Addr+path))
		if err != nil {
			t.Fatal(err)
		}
		want := "relative to the login directory\n"
		if path == "/%2Frel/file" {
			want = "wrong: relative to /\n"
		}
		if body != want {
			t.Errorf("%s: body %q, want %q", path, body, want)
		}
	}
	checkCommands(t, closedCommands(t, f, s), []string{
		"USER user", "PASS secret", "PWD", "CWD rel", "TYPE I", "EPSV", "RETR file", "EPSV",
		"PWD", "CWD /home/user", "CWD /rel", "EPSV", "RETR file", "EPSV",
		// The server named /home/user/rel in PWD before the connection
		// left it: the file is reached without walking there again, on
		// the port of the EPSV sent ahead.
		"RETR /home/user/rel/file", "EPSV", "QUIT",
	})
	if s.Conns() != 1 {
		t.Errorf("%d control connections, want 1", s.Conns())
	}
}

// TestFTPReuseManyURLs fetches many files interleaved over several
// directories: one login, and each URL still means what RFC 1738 §3.2.2
// says from the login directory.
func TestFTPReuseManyURLs(t *testing.T) {
	s := newFTPServer(t, nil)
	f := &ftp.Fetcher{}
	defer f.Close()
	paths := []string{"/d0/f", "/d1/f", "/d2/sub/f"}
	for i := 0; i < 60; i++ {
		p := paths[i%len(paths)]
		body, err := fetchFTP(t, f, ftpRequest(t, s.URL+p))
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Split(p, "/")[1] + "\n"; body != want {
			t.Fatalf("%s: body %q, want %q", p, body, want)
		}
	}
	cmds := closedCommands(t, f, s)
	users := 0
	for _, c := range cmds {
		if strings.HasPrefix(c, "USER ") {
			users++
		}
	}
	if users != 1 || s.Conns() != 1 {
		t.Errorf("%d logins on %d connections, want 1 on 1", users, s.Conns())
	}
	// The first round walks each directory from the login directory;
	// after it, a file in another directory is named by the absolute path
	// the server gave in PWD, and the connection stays where it is.
	// Each transfer ends with the EPSV for the next one, sent ahead: a
	// file reached without CWD uses its port, a walk drops it.
	checkCommands(t, cmds[2:18], []string{
		"PWD", "CWD d0", "TYPE I", "EPSV", "RETR f", "EPSV",
		"PWD", "CWD /", "CWD d1", "EPSV", "RETR f", "EPSV",
		"PWD", "CWD /", "CWD d2", "CWD sub",
	})
	checkCommands(t, cmds[len(cmds)-7:], []string{
		"RETR /d0/f", "EPSV", "RETR /d1/f", "EPSV", "RETR f", "EPSV", "QUIT",
	})
}

// TestFTPEPSVAhead checks the EPSV sent at the end of each transfer for
// the next one: its port serves the next file; a port the server gave up
// meanwhile costs a new EPSV on the same connection when the server says
// so (425: nothing was transferred), whether the data connection was
// refused or made.
func TestFTPEPSVAhead(t *testing.T) {
	s := newFTPServer(t, nil)
	f := &ftp.Fetcher{}
	defer f.Close()
	get := func() {
		t.Helper()
		if body, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/motd")); err != nil || body != "root motd\n" {
			t.Fatalf("body %q, %v", body, err)
		}
	}
	get()
	get()
	if cmds := sessionCommands(s.Commands()); len(cmds) < 5 {
		t.Fatalf("commands %q", cmds)
	} else {
		checkCommands(t, cmds[:5], []string{
			"TYPE I", "EPSV", "RETR motd", "EPSV",
			"RETR motd", // on the port of the EPSV sent ahead
		})
	}
	// The server drops the port of the EPSV sent ahead (once it has set
	// it up: the EPSV may still be in flight when the fetch returns),
	// refuses the connection to it and answers RETR with 425.
	for i := 0; i < 500 && s.ExpirePassive() == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	s.ResetCommands()
	get()
	s.ReplyOnce("RETR", "425 Can't open data connection.")
	get()
	checkCommands(t, sessionCommands(closedCommands(t, f, s)), []string{
		"RETR motd", // refused port, 425
		"EPSV", "RETR motd", "EPSV",
		"RETR motd", // 425 with a data connection made
		"EPSV", "RETR motd", "EPSV",
		"QUIT",
	})
	if s.Conns() != 1 {
		t.Errorf("%d control connections, want 1", s.Conns())
	}
}

// TestFTPListingFormats checks that every LIST format is parsed, that
// lines no parser reads are kept, and that --raw-listing returns the server's bytes.
func TestFTPListingFormats(t *testing.T) {
	for _, format := range []string{"unix", "dos", "eplf", "mlsd"} {
		t.Run(format, func(t *testing.T) {
			s := newFTPServer(t, func(s *ftptest.Server) {
				s.ListFormat = format
				s.MLSD = format == "mlsd"
				s.ListPrefix = []string{"total 3"}
			})
			f := &ftp.Fetcher{}
			defer f.Close()
			res, err := f.Fetch(ftpContext(t, 20*time.Second), ftpRequest(t, s.URL+"/pub/"))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Listing.Close()
			var got []string
			for {
				e, err := res.Listing.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, e.Kind.String()+" "+e.Name+" "+e.URL)
				if e.Raw == "" {
					t.Errorf("entry %q has no raw line", e.Name)
				}
				// "ls -l" shows only the day for files older than six months.
				if y, m, d := e.ModTime.Date(); e.Name == "empty" && (e.Size != 0 || y != 2024 || m != 3 || d != 4) {
					t.Errorf("empty: size %d, time %v", e.Size, e.ModTime)
				}
			}
			base := s.URL + "/pub/"
			want := []string{
				"directory dir with space " + base + "dir%20with%20space/",
				"file empty " + base + "empty",
				"file secret " + base + "secret",
				"directory ünï " + base + "%C3%BCn%C3%AF/",
			}
			if format == "unix" || format == "dos" || format == "eplf" {
				want = append([]string{"info total 3 "}, want...)
			}
			checkCommands(t, got, want)
		})
	}
	t.Run("raw", func(t *testing.T) {
		s := newFTPServer(t, func(s *ftptest.Server) { s.MLSD = true })
		f := &ftp.Fetcher{}
		defer f.Close()
		req := ftpRequest(t, s.URL+"/one/")
		req.Raw = true
		body, err := fetchFTP(t, f, req)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(body, " only.txt\r\n") || !strings.HasPrefix(body, "-rw-r--r--") {
			t.Errorf("raw listing %q", body)
		}
		checkCommands(t, sessionCommands(closedCommands(t, f, s)), []string{"PWD", "CWD one", "EPSV", "LIST", "EPSV", "QUIT"})
	})
}

// TestFTPHeadAndResume checks -I (SIZE, MDTM) and -C (REST).
func TestFTPHeadAndResume(t *testing.T) {
	s := newFTPServer(t, nil)
	f := &ftp.Fetcher{}
	defer f.Close()
	req := ftpRequest(t, s.URL+"/bin/all.bin")
	req.Head = true
	res, err := f.Fetch(ftpContext(t, 20*time.Second), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Size != 256*1024 || !res.ModTime.Equal(ftpModTime) || res.Body != nil {
		t.Errorf("head: size %d, time %v", res.Size, res.ModTime)
	}
	req = ftpRequest(t, s.URL+"/bin/all.bin")
	req.Offset = 1000
	res, err = f.Fetch(ftpContext(t, 20*time.Second), req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.Offset != 1000 || len(b) != 256*1024-1000 || b[0] != byte(1000%256) {
		t.Errorf("resume: offset %d, %d bytes", res.Offset, len(b))
	}
	// -I on a name with ;type=d asks the same of it: a directory has
	// neither size nor time, which is "not found" (550).
	req = ftpRequest(t, s.URL+"/one;type=d")
	req.Head = true
	if _, err = f.Fetch(ftpContext(t, 20*time.Second), req); !errors.Is(err, schemes.ErrNotFound) {
		t.Errorf("head of a directory name: %v, want not found", err)
	}
	checkCommands(t, sessionCommands(closedCommands(t, f, s)), []string{
		"PWD", "CWD bin", "TYPE I", "SIZE all.bin", "MDTM all.bin",
		"SIZE all.bin", "EPSV", "REST 1000", "RETR all.bin", "EPSV",
		"PWD", "CWD /", "SIZE one", "MDTM one", "QUIT",
	})
}

// TestFTPPassiveAndActive checks EPSV refused → PASV with its address
// ignored (RFC 2577), and active mode.
func TestFTPPassiveAndActive(t *testing.T) {
	s := newFTPServer(t, func(s *ftptest.Server) { s.NoEPSV = true; s.PASVHost = "192,0,2,1" })
	f := &ftp.Fetcher{}
	defer f.Close()
	for i := 0; i < 2; i++ {
		if body, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/motd")); err != nil || body != "root motd\n" {
			t.Fatalf("body %q, %v", body, err)
		}
	}
	// EPSV goes out with TYPE, RETR once its reply is read; once
	// refused, PASV is used and the address it names ignored.
	checkCommands(t, sessionCommands(s.Commands()), []string{"TYPE I", "EPSV", "RETR motd", "PASV", "RETR motd", "PASV", "RETR motd"})

	s2 := newFTPServer(t, nil)
	active := &ftp.Fetcher{ActiveAddr: "127.0.0.1"}
	defer active.Close()
	body, err := fetchFTP(t, active, ftpRequest(t, s2.URL+"/etc/motd"))
	if err != nil || body != "etc motd\n" {
		t.Fatalf("active: body %q, %v", body, err)
	}
	cmds := sessionCommands(s2.Commands())
	if len(cmds) != 5 || !strings.HasPrefix(cmds[3], "PORT 127,0,0,1,") {
		t.Errorf("active commands %q", cmds)
	}
}

// TestFTPLogin checks login failures and the password prompt.
func TestFTPLogin(t *testing.T) {
	s := newFTPServer(t, func(s *ftptest.Server) { s.Anonymous = false })
	f := &ftp.Fetcher{}
	defer f.Close()
	_, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/motd"))
	if !errors.Is(err, schemes.ErrLoginFailed) {
		t.Errorf("anonymous refused: %v", err)
	}
	_, err = fetchFTP(t, f, ftpRequest(t, "ftp://user:wrong@"+s.Addr+"/motd"))
	if !errors.Is(err, schemes.ErrLoginFailed) || strings.Contains(err.Error(), "wrong") {
		t.Errorf("wrong password: %v", err)
	}
	req := ftpRequest(t, "ftp://user@"+s.Addr+"/rel/file")
	_, err = fetchFTP(t, f, req)
	if !errors.Is(err, schemes.ErrLoginFailed) || !errors.Is(err, schemes.ErrNoCredentials) || !strings.Contains(err.Error(), "no terminal") || strings.Contains(err.Error(), "-u") {
		t.Errorf("no terminal: %v", err)
	}
	prompts := 0
	req.Prompt = func(string) (string, error) { prompts++; return "secret", nil }
	for i := 0; i < 2; i++ {
		if body, err := fetchFTP(t, f, req); err != nil || body != "relative to the login directory\n" {
			t.Fatalf("prompted: %q, %v", body, err)
		}
	}
	if prompts != 1 {
		t.Errorf("prompted %d times, want 1", prompts)
	}
	// Anonymous login sends the e-mail-style password (RFC 1738 §3.2.1).
	s2 := newFTPServer(t, nil)
	if _, err := fetchFTP(t, f, ftpRequest(t, s2.URL+"/motd")); err != nil {
		t.Fatal(err)
	}
	checkCommands(t, s2.Commands()[:2], []string{"USER anonymous", "PASS " + ftp.DefaultAnonymousPassword})
}

// TestFTPLoginAtOnce checks when PASS goes out with USER, unasked, and
// with them the request's first commands: for the anonymous login and
// inside TLS, never with a password in clear; and that a refused login is
// reported as such whatever became of the commands after it.
func TestFTPLoginAtOnce(t *testing.T) {
	anonPass := "PASS " + ftp.DefaultAnonymousPassword
	// Anonymous: a refused USER still gets its PASS and the commands
	// after it (sent with it), and the error is USER's.
	s := newFTPServer(t, nil)
	s.ReplyOnce("USER", "530 Anonymous access refused.")
	f := &ftp.Fetcher{}
	defer f.Close()
	_, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/motd"))
	if !errors.Is(err, schemes.ErrLoginFailed) || !strings.Contains(err.Error(), "USER anonymous") {
		t.Errorf("refused USER: %v", err)
	}
	checkCommands(t, recordedCommands(s, 4), []string{"USER anonymous", anonPass, "TYPE I", "EPSV"})

	// A refused PASS is PASS's error, masked.
	s = newFTPServer(t, nil)
	s.ReplyOnce("PASS", "530 Login incorrect.")
	_, err = fetchFTP(t, f, ftpRequest(t, s.URL+"/etc/motd"))
	if !errors.Is(err, schemes.ErrLoginFailed) || !strings.Contains(err.Error(), "PASS") || strings.Contains(err.Error(), ftp.DefaultAnonymousPassword) {
		t.Errorf("refused PASS: %v", err)
	}
	checkCommands(t, recordedCommands(s, 6), []string{"USER anonymous", anonPass, "PWD", "CWD etc", "TYPE I", "EPSV"})

	// A server that logs in at USER answers the PASS sent with it with
	// 503: the login stands, and the replies stay in step.
	s = newFTPServer(t, func(s *ftptest.Server) { s.NoPassword = true })
	body, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/etc/motd"))
	if err != nil || body != "etc motd\n" {
		t.Fatalf("no password needed: %q, %v", body, err)
	}
	checkCommands(t, s.Commands()[:4], []string{"USER anonymous", anonPass, "PWD", "CWD etc"})

	// A user with a password, in clear: PASS waits for 331, so a server
	// refusing USER (vsftpd's "530 Non-anonymous sessions must use
	// encryption.") never sees the password.
	s = newFTPServer(t, nil)
	s.ReplyOnce("USER", "530 Non-anonymous sessions must use encryption.")
	_, err = fetchFTP(t, f, ftpRequest(t, "ftp://user:secret@"+s.Addr+"/motd"))
	if !errors.Is(err, schemes.ErrLoginFailed) {
		t.Errorf("refused USER: %v", err)
	}
	f.Close()
	for _, c := range s.Commands() {
		if strings.HasPrefix(c, "PASS") {
			t.Errorf("the password went out in clear after USER was refused: %q", s.Commands())
		}
	}

	// The same user inside TLS: PASS goes with USER.
	s = ftptest.NewUnstartedServer(ftpTree())
	s.Users = map[string]string{"user": "secret"}
	s.StartTLS(false)
	t.Cleanup(s.Close)
	s.ReplyOnce("USER", "530 Not you.")
	req := ftpRequest(t, "ftp://user:secret@"+s.Addr+"/motd")
	req.TLSConfig = s.ClientTLSConfig()
	tlsF := &ftp.Fetcher{RequireTLS: true}
	defer tlsF.Close()
	_, err = fetchFTP(t, tlsF, req)
	if !errors.Is(err, schemes.ErrLoginFailed) || !strings.Contains(err.Error(), "USER user") {
		t.Errorf("refused USER inside TLS: %v", err)
	}
	checkCommands(t, recordedCommands(s, 7), []string{"AUTH TLS", "USER user", "PASS secret", "PBSZ 0", "PROT P", "TYPE I", "EPSV"})
}

// TestFTPCWDWithType checks the TYPE sent with the last CWD of a walk: a
// refusal of it fails the fetch by its own name, and the walk still
// counts, so that the next URL in that directory sends no CWD.
func TestFTPCWDWithType(t *testing.T) {
	s := newFTPServer(t, nil)
	s.ReplyOnce("TYPE", "504 Binary type refused here.")
	f := &ftp.Fetcher{}
	defer f.Close()
	_, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/etc/motd"))
	if err == nil || !strings.Contains(err.Error(), "TYPE I") {
		t.Fatalf("refused TYPE: %v", err)
	}
	body, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/etc/motd"))
	if err != nil || body != "etc motd\n" {
		t.Fatalf("after the refused TYPE: %q, %v", body, err)
	}
	// The EPSV sent with the refused TYPE is answered before the next
	// TYPE goes out, with the EPSV for the transfer.
	checkCommands(t, sessionCommands(closedCommands(t, f, s)),
		[]string{"PWD", "CWD etc", "TYPE I", "EPSV", "TYPE I", "EPSV", "RETR motd", "EPSV", "QUIT"})
}

// TestFTPEPSVBefore226 checks that the EPSV for the next transfer goes out
// once the data connection has ended, without waiting for the 226: the
// server holds its 226 back until a command arrives.
func TestFTPEPSVBefore226(t *testing.T) {
	s := newFTPServer(t, func(s *ftptest.Server) { s.HoldTransferEnd = 5 * time.Second })
	f := &ftp.Fetcher{}
	defer f.Close()
	for _, p := range []string{"/etc/motd", "/motd"} {
		if _, err := fetchFTP(t, f, ftpRequest(t, s.URL+p)); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.EarlyCommands(); n != 2 {
		t.Errorf("%d of 2 transfers had the next command before their 226", n)
	}
	checkCommands(t, sessionCommands(closedCommands(t, f, s)),
		[]string{"PWD", "CWD etc", "TYPE I", "EPSV", "RETR motd", "EPSV", "RETR /motd", "EPSV", "QUIT"})
}

// TestFTPRidesAlong checks what goes out without waiting for the reply
// before it: the login with the first request's commands, PWD with the
// CWD after it, and with the last CWD of a walk (or on its own when there
// is none) TYPE, FEAT, SIZE and MDTM for -I, SIZE for a resumed fetch, and
// EPSV. The server holds its reply to each of those until the next command
// has arrived; a client that waited for it would cost the hold each time.
func TestFTPRidesAlong(t *testing.T) {
	hold := 5 * time.Second
	s := newFTPServer(t, func(s *ftptest.Server) {
		s.Hold = map[string]time.Duration{"PASS": hold, "PWD": hold, "TYPE": hold, "FEAT": hold, "SIZE": hold}
	})
	f := &ftp.Fetcher{}
	defer f.Close()
	for _, tc := range []struct {
		path, body string
		head       bool
		offset     int64
	}{
		{path: "/etc/motd", body: "etc motd\n"},          // login, PWD, CWD, TYPE, EPSV in one write
		{path: "/one/", body: "only.txt\n"},              // PWD of etc and CWD / in one, then CWD one, FEAT, EPSV
		{path: "/d2/sub/f", body: "d2\n"},                // PWD of one and CWD /; CWD d2; CWD sub and EPSV
		{path: "/text/lf.txt", head: true},               // PWD of d2/sub and CWD /; CWD text, SIZE, MDTM
		{path: "/one/only.txt", offset: 2, body: "ly\n"}, // no walk: SIZE and EPSV, then REST, RETR
	} {
		req := ftpRequest(t, s.URL+tc.path)
		req.Head, req.Offset = tc.head, tc.offset
		body, err := fetchFTP(t, f, req)
		if err != nil || body != tc.body {
			t.Fatalf("%s: %q, %v", tc.path, body, err)
		}
	}
	checkCommands(t, closedCommands(t, f, s), []string{
		"USER anonymous", "PASS " + ftp.DefaultAnonymousPassword, "PWD", "CWD etc", "TYPE I", "EPSV", "RETR motd", "EPSV",
		"PWD", "CWD /", "CWD one", "FEAT", "EPSV", "LIST", "EPSV",
		"PWD", "CWD /", "CWD d2", "CWD sub", "EPSV", "RETR f", "EPSV",
		"PWD", "CWD /", "CWD text", "SIZE lf.txt", "MDTM lf.txt",
		"SIZE /one/only.txt", "EPSV", "REST 2", "RETR /one/only.txt", "EPSV", "QUIT",
	})
	for verb, want := range map[string]int{"PASS": 1, "PWD": 4, "TYPE": 1, "FEAT": 1, "SIZE": 2} {
		if n := s.Early(verb); n != want {
			t.Errorf("%s: the next command came before the reply %d times, want %d", verb, n, want)
		}
	}
}

// TestFTPPasswordRidesAlong checks a password login in clear: USER waits
// for its reply (the password goes only to a server that asks for it),
// and PASS, once asked for, goes out with the request's first commands.
func TestFTPPasswordRidesAlong(t *testing.T) {
	s := newFTPServer(t, func(s *ftptest.Server) {
		s.Hold = map[string]time.Duration{"USER": 200 * time.Millisecond, "PASS": 5 * time.Second}
	})
	f := &ftp.Fetcher{}
	defer f.Close()
	body, err := fetchFTP(t, f, ftpRequest(t, "ftp://user:secret@"+s.Addr+"/rel/file"))
	if err != nil || body != "relative to the login directory\n" {
		t.Fatalf("%q, %v", body, err)
	}
	checkCommands(t, closedCommands(t, f, s), []string{
		"USER user", "PASS secret", "PWD", "CWD rel", "TYPE I", "EPSV", "RETR file", "EPSV", "QUIT",
	})
	if s.Early("USER") != 0 || s.Early("PASS") != 1 {
		t.Errorf("the next command came before the reply to USER %d times (want 0), to PASS %d times (want 1)", s.Early("USER"), s.Early("PASS"))
	}
}

// TestFTPSync checks the option ftp-sync: no command goes out before the
// reply to the one before it has come (RFC 959 §5.4), neither in the login
// nor in a walk nor around a transfer, and nothing is sent ahead.
func TestFTPSync(t *testing.T) {
	s := newFTPServer(t, nil)
	f := &ftp.Fetcher{Sync: true}
	defer f.Close()
	var trace []string
	for _, p := range []string{"/etc/motd", "/d2/sub/f", "/one/", "/motd"} {
		req := ftpRequest(t, s.URL+p)
		req.Trace = func(d schemes.Direction, l string) {
			if d != schemes.Info {
				trace = append(trace, string(d)+" "+l)
			}
		}
		if _, err := fetchFTP(t, f, req); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	for i := 1; i < len(trace); i++ {
		if trace[i][0] == '>' && trace[i-1][0] == '>' {
			t.Errorf("%q went out before the reply to %q", trace[i], trace[i-1])
		}
	}
	checkCommands(t, closedCommands(t, f, s), []string{
		"USER anonymous", "PASS " + ftp.DefaultAnonymousPassword, "PWD", "CWD etc", "TYPE I", "EPSV", "RETR motd",
		"PWD", "CWD /", "CWD d2", "CWD sub", "EPSV", "RETR f",
		"PWD", "CWD /", "CWD one", "FEAT", "EPSV", "LIST",
		"EPSV", "RETR /motd", "QUIT",
	})
	// A refused password is still PASS's error, sent after USER's 331.
	s2 := newFTPServer(t, func(s *ftptest.Server) { s.Hold = map[string]time.Duration{"USER": 200 * time.Millisecond} })
	_, err := fetchFTP(t, f, ftpRequest(t, "ftp://user:wrong@"+s2.Addr+"/rel/file"))
	if !errors.Is(err, schemes.ErrLoginFailed) || !strings.Contains(err.Error(), "PASS") || strings.Contains(err.Error(), "wrong") {
		t.Errorf("refused password: %v", err)
	}
	if s2.Early("USER") != 0 {
		t.Error("PASS went out before the reply to USER")
	}
}

// TestFTPInjection checks that no URL puts CR, LF, NUL or 0xFF into a
// command: the fetch fails before anything is sent.
func TestFTPInjection(t *testing.T) {
	s := newFTPServer(t, nil)
	f := &ftp.Fetcher{}
	defer f.Close()
	for _, path := range []string{
		"/motd%0D%0ADELE%20motd", "/a%0Ab/motd", "/motd%00x", "/x%FF/motd", "/%0D%0A/f",
		"/x%0d%0aRETR%20y;type=d",
	} {
		_, err := fetchFTP(t, f, ftpRequest(t, s.URL+path))
		if !errors.Is(err, schemes.ErrBadURL) {
			t.Errorf("%s: %v, want a bad URL error", path, err)
		}
	}
	for _, u := range []string{"ftp://a%0D%0AUSER%20x@" + s.Addr + "/motd", "ftp://u:p%0Ax@" + s.Addr + "/motd"} {
		_, err := fetchFTP(t, f, ftpRequest(t, u))
		if !errors.Is(err, schemes.ErrBadURL) {
			t.Errorf("%s: %v, want a bad URL error", u, err)
		}
	}
	if s.Conns() != 0 {
		t.Errorf("%d connections made for URLs that cannot be sent", s.Conns())
	}
}

// TestFTPTLS checks explicit AUTH TLS and implicit ftps://, with data
// connections protected.
func TestFTPTLS(t *testing.T) {
	for _, implicit := range []bool{false, true} {
		s := ftptest.NewUnstartedServer(ftpTree())
		s.StartTLS(implicit)
		t.Cleanup(s.Close)
		// ftps: is TLS from the first byte; ftp: asks for it.
		f := &ftp.Fetcher{RequireTLS: !implicit}
		conf := s.ClientTLSConfig()
		for i := 0; i < 2; i++ {
			req := ftpRequest(t, s.URL+"/bin/all.bin")
			req.TLSConfig = conf
			body, err := fetchFTP(t, f, req)
			if err != nil {
				t.Fatalf("implicit=%v: %v", implicit, err)
			}
			if len(body) != 256*1024 || body[255] != '\xff' {
				t.Errorf("implicit=%v: %d bytes", implicit, len(body))
			}
		}
		f.Close()
		// The second transfer runs on the port of the EPSV sent ahead
		// at the end of the first.
		want := []string{"PBSZ 0", "PROT P", "PWD", "CWD bin", "TYPE I", "EPSV", "RETR all.bin", "EPSV", "RETR all.bin", "EPSV", "QUIT"}
		if !implicit {
			want = append([]string{"AUTH TLS"}, want...)
		}
		waitCommands(t, s, len(want))
		checkCommands(t, sessionCommands(s.Commands()), want)
	}
}

// waitCommands waits, boundedly, until the server recorded n commands (the
// last one may still be in flight when the client returns).
// recordedCommands returns the commands s received once there are n of
// them, or after two seconds: commands sent in one write with the one a
// fetch failed on may still be on their way to the server's log.
func recordedCommands(s *ftptest.Server, n int) []string {
	for i := 0; i < 200 && len(s.Commands()) < n; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	return s.Commands()
}

func waitCommands(t *testing.T, s *ftptest.Server, n int) {
	for i := 0; i < 200 && len(sessionCommands(s.Commands())) < n; i++ {
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFTPBinaryExact checks a byte-exact binary transfer holding every
// byte value.
func TestFTPBinaryExact(t *testing.T) {
	s := newFTPServer(t, nil)
	f := &ftp.Fetcher{}
	defer f.Close()
	body, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/bin/all.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(body), ftpTree()["bin/all.bin"].Data) {
		t.Errorf("binary transfer differs (%d bytes)", len(body))
	}
}

// TestFTPConcurrent fetches from several goroutines through one Fetcher:
// each request has a connection of its own, and idle ones are reused.
func TestFTPConcurrent(t *testing.T) {
	s := newFTPServer(t, nil)
	f := &ftp.Fetcher{}
	defer f.Close()
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 20; i++ {
				p := []string{"/d0/f", "/d1/f", "/etc/motd", "/motd"}[(g+i)%4]
				res, err := f.Fetch(ftpContext(t, 20*time.Second), ftpRequest(t, s.URL+p))
				if err != nil {
					errs <- err
					return
				}
				body, err := readResource(res)
				if err != nil {
					errs <- err
					return
				}
				if want := string(ftpTree()[p[1:]].Data); body != want {
					errs <- errors.New(p + ": got " + body)
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	// At most eight are in use at once, and the Fetcher keeps up to eight
	// idle per server and user: none is ever closed and dialled again.
	if n := s.Conns(); n > 8 {
		t.Errorf("%d control connections for 8 concurrent clients", n)
	}
}
