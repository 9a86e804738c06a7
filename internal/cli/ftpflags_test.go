package cli

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urlget/urlget/integration/ftptest"
)

// ftpFlagServer starts an ftptest server on the script tree ("user" with
// password "secret" logs in to /home/user), configured by configure.
func ftpFlagServer(t *testing.T, configure func(s *ftptest.Server)) *ftptest.Server {
	t.Helper()
	s := ftptest.NewUnstartedServer(ftptest.ScriptTree())
	s.Users = map[string]string{"user": "secret"}
	s.Home = map[string]string{"user": "/home/user"}
	if configure != nil {
		configure(s)
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// curlRun runs /usr/bin/curl (or the curl in PATH) with args and returns
// its exit status and stdout; ok is false when there is no curl.
func curlRun(t *testing.T, args ...string) (code int, stdout string, ok bool) {
	t.Helper()
	path, err := lookCurl(t)
	if err != nil {
		return 0, "", false
	}
	out, err := exec.Command(path, append([]string{"-s"}, args...)...).Output()
	if ee, isExit := err.(*exec.ExitError); isExit {
		return ee.ExitCode(), string(out), true
	} else if err != nil {
		t.Fatalf("curl %q: %v", args, err)
	}
	return 0, string(out), true
}

// commandsLike returns the commands s received whose verb is one of
// verbs, in order.
func commandsLike(s *ftptest.Server, verbs ...string) []string {
	var out []string
	for _, c := range s.Commands() {
		v, _, _ := strings.Cut(c, " ")
		if slices.Contains(verbs, strings.ToUpper(v)) {
			out = append(out, c)
		}
	}
	return out
}

// TestFTPResponseCode: -w's %{response_code} and %{http_code} give an FTP
// transfer's last reply, as curl: 226 for a file and a listing, the
// refusal's code for a file that is not there, and SIZE and MDTM's 213
// for -I (curl's own -I ends with a REST probe, 350).
func TestFTPResponseCode(t *testing.T) {
	s := ftpFlagServer(t, nil)
	for _, c := range []struct {
		args []string
		want string
		exit int
	}{
		{[]string{s.URL + "/etc/motd"}, "226 226", 0},
		{[]string{s.URL + "/one/"}, "226 226", 0},
		{[]string{"-l", s.URL + "/one/"}, "226 226", 0},
		{[]string{s.URL + "/one/;type=d"}, "226 226", 0},
		{[]string{s.URL + "/etc/missing"}, "550 550", 78},
		{[]string{"-I", s.URL + "/etc/motd"}, "213 213", 0},
	} {
		args := append([]string{"-s", "-o", "/dev/null", "-w", "%{response_code} %{http_code}"}, c.args...)
		code, out, errOut := runCmd(t, args...)
		if code != c.exit || out != c.want {
			t.Errorf("urlget %q: exit %d, -w %q; want %d, %q\n%s", args, code, out, c.exit, c.want, errOut)
		}
		if c.args[0] == "-I" {
			continue
		}
		if cc, cout, ok := curlRun(t, args...); ok && (cc != code || cout != out) {
			t.Errorf("curl %q: exit %d, -w %q; urlget: exit %d, %q", args, cc, cout, code, out)
		}
	}
}

// TestFTPListOnly: -l lists a directory with NLST and prints the names
// alone, byte for byte as curl does; other schemes ignore it, and it
// cannot drive a recursion.
func TestFTPListOnly(t *testing.T) {
	s := ftpFlagServer(t, nil)
	for _, u := range []string{s.URL + "/", s.URL + "/one/"} {
		s.ResetCommands()
		code, out, errOut := runCmd(t, "-l", u)
		if code != 0 {
			t.Fatalf("urlget -l %s: exit %d\n%s", u, code, errOut)
		}
		if got := commandsLike(s, "NLST", "LIST", "MLSD"); !slices.Equal(got, []string{"NLST"}) {
			t.Errorf("urlget -l %s listed with %q, want NLST alone", u, got)
		}
		if _, cout, ok := curlRun(t, "-l", u); ok && cout != out {
			t.Errorf("urlget -l %s printed %q; curl printed %q", u, out, cout)
		}
		if u == s.URL+"/one/" && out != "only.txt\n" {
			t.Errorf("urlget -l %s printed %q", u, out)
		}
	}
	// A file is fetched as a file.
	if code, out, _ := runCmd(t, "-l", s.URL+"/etc/motd"); code != 0 || out != "etc motd\n" {
		t.Errorf("urlget -l on a file: exit %d, %q", code, out)
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("page\n")) }))
	defer web.Close()
	if code, out, _ := runCmd(t, "-l", "-B", "--ssl", "-Q", "SITE X", "--ftp-pret", web.URL+"/"); code != 0 || out != "page\n" {
		t.Errorf("ftp flags on an http URL: exit %d, %q; want them ignored", code, out)
	}
	if code, _, errOut := runCmd(t, "-l", "--recursive", s.URL+"/"); code != exitUsage || !strings.Contains(errOut, "list-only") {
		t.Errorf("-l with a recursion: exit %d, %q; want exit 2", code, errOut)
	}
}

// TestFTPQuote: -Q commands go after the login, +commands after the walk
// before the transfer, -commands after it, in the order curl sends them;
// a refusal is exit 21 and nothing follows it; "*" lets one fail.
func TestFTPQuote(t *testing.T) {
	s := ftpFlagServer(t, nil)
	u := s.URL + "/etc/motd"
	args := []string{"-Q", "NOOP", "-Q", "+SYST", "-Q", "-*BOGUS", "-Q", "-NOOP", u}
	order := func() []string { return commandsLike(s, "NOOP", "SYST", "BOGUS", "CWD", "RETR", "USER", "PASS") }
	s.ResetCommands()
	code, out, errOut := runCmd(t, args...)
	if code != 0 || out != "etc motd\n" {
		t.Fatalf("urlget %q: exit %d, %q\n%s", args, code, out, errOut)
	}
	want := []string{"USER anonymous", "PASS urlget@", "NOOP", "CWD etc", "SYST", "RETR motd", "BOGUS", "NOOP"}
	if got := order(); !slices.Equal(got, want) {
		t.Errorf("urlget %q sent %q, want %q", args, got, want)
	}
	s.ResetCommands()
	if _, _, ok := curlRun(t, args...); ok {
		got := order()
		got = slices.DeleteFunc(got, func(c string) bool { return strings.HasPrefix(c, "PASS") })
		w := slices.DeleteFunc(slices.Clone(want), func(c string) bool { return strings.HasPrefix(c, "PASS") })
		if !slices.Equal(got, w) {
			t.Errorf("curl %q sent %q, urlget %q", args, got, w)
		}
	}
	// Where each kind goes, beside curl, for a file, a listing, -I and a
	// resume with nothing left to fetch: no +CMD before a listing.
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{u}, []string{"NOOP", "SYST", "SITE POST"}},
		{[]string{s.URL + "/one/"}, []string{"NOOP", "SITE POST"}},
		{[]string{"-l", s.URL + "/one/"}, []string{"NOOP", "SITE POST"}},
		{[]string{"-I", u}, []string{"NOOP", "SYST", "SITE POST"}},
		{[]string{"-C", "9", u}, []string{"NOOP", "SYST", "SITE POST"}},
	} {
		args := append([]string{"-s", "-o", "/dev/null", "-Q", "NOOP", "-Q", "+SYST", "-Q", "-*SITE POST"}, c.args...)
		s.ResetCommands()
		code, _, errOut := runCmd(t, args...)
		got := commandsLike(s, "NOOP", "SYST", "SITE")
		if code != 0 || !slices.Equal(got, c.want) {
			t.Errorf("urlget %q: exit %d, sent %q, want %q\n%s", args, code, got, c.want, errOut)
		}
		s.ResetCommands()
		if cc, _, ok := curlRun(t, args...); ok {
			if cgot := commandsLike(s, "NOOP", "SYST", "SITE"); cc != code || !slices.Equal(cgot, got) {
				t.Errorf("curl %q: exit %d, sent %q; urlget %d, %q", args, cc, cgot, code, got)
			}
		}
	}
	// A refused quote command: exit 21, the file is not fetched, and a
	// -w code shows the refusal.
	for _, q := range []string{"BOGUS", "+BOGUS", "-BOGUS"} {
		s.ResetCommands()
		code, out, _ := runCmd(t, "-Q", q, "-w", "%{response_code}", "-o", "/dev/null", u)
		if code != 21 || out != "500" {
			t.Errorf("-Q %s: exit %d, -w %q; want 21, 500", q, code, out)
		}
		if q != "-BOGUS" && slices.Contains(s.Commands(), "RETR motd") {
			t.Errorf("-Q %s: the file was fetched after the refusal: %q", q, s.Commands())
		}
		if cc, cout, ok := curlRun(t, "-Q", q, "-w", "%{response_code}", "-o", "/dev/null", u); ok && (cc != code || cout != out) {
			t.Errorf("curl -Q %s: exit %d, %q; urlget %d, %q", q, cc, cout, code, out)
		}
	}
}

// TestFTPCommandInjection: no option puts a line end, a NUL or a Telnet
// IAC into an FTP command: the command line is refused (exit 2) before
// any connection is made.
func TestFTPCommandInjection(t *testing.T) {
	s := ftpFlagServer(t, nil)
	u := s.URL + "/etc/motd"
	for _, bad := range []string{"NOOP\r\nDELE motd", "NOOP\nDELE motd", "NOOP\rDELE motd", "NOOP\x00DELE", "NOOP\xffDELE", "+SITE\r\nDELE x", "-SITE\nDELE x", "*NOOP\r\nDELE x"} {
		for _, args := range [][]string{
			{"-Q", bad, u},
			{"--ftp-account", strings.TrimLeft(bad, "+-*"), u},
			{"--ftp-alternative-to-user", strings.TrimLeft(bad, "+-*"), u},
		} {
			code, _, errOut := runCmd(t, args...)
			if code != exitUsage || strings.Count(errOut, "\n") != 1 {
				t.Errorf("urlget %q: exit %d, %q; want exit 2 and one line", args, code, errOut)
			}
		}
	}
	if n := s.Conns(); n != 0 {
		t.Errorf("the server was reached %d times: %q", n, s.Commands())
	}
	if code, _, _ := runCmd(t, "-Q", "+", u); code != exitUsage {
		t.Errorf("-Q + (no command): exit %d, want 2", code)
	}
}

// TestFTPUseASCII: -B fetches in TYPE A with CRLF made newlines, as curl,
// unless the URL says ;type=i.
func TestFTPUseASCII(t *testing.T) {
	s := ftpFlagServer(t, nil)
	for _, c := range []struct {
		url, typ, want string
	}{
		{s.URL + "/text/crlf.txt", "TYPE A", "line one\nline two\n"},
		{s.URL + "/text/crlf.txt;type=i", "TYPE I", "line one\r\nline two\r\n"},
	} {
		s.ResetCommands()
		code, out, errOut := runCmd(t, "-B", c.url)
		if code != 0 || out != c.want {
			t.Errorf("urlget -B %s: exit %d, %q\n%s", c.url, code, out, errOut)
		}
		if got := commandsLike(s, "TYPE"); !slices.Equal(got, []string{c.typ}) {
			t.Errorf("urlget -B %s sent %q, want %s", c.url, got, c.typ)
		}
		if _, cout, ok := curlRun(t, "-B", c.url); ok && cout != out {
			t.Errorf("curl -B %s printed %q, urlget %q", c.url, cout, out)
		}
	}
}

// TestFTPPassiveFlags: --disable-epsv, --ftp-pasv after and before -P,
// --ftp-pret, and a PASV reply naming another host (ignored, with or
// without --ftp-skip-pasv-ip).
func TestFTPPassiveFlags(t *testing.T) {
	s := ftpFlagServer(t, func(s *ftptest.Server) {
		// A hostile PASV reply: the data connection must still go to
		// the control connection's peer.
		s.PASVHost = "10,9,8,7"
	})
	u := s.URL + "/etc/motd"
	for _, c := range []struct {
		args []string
		want []string // the data-port commands sent
	}{
		{[]string{"--disable-epsv"}, []string{"PASV"}},
		{[]string{"--disable-epsv", "--ftp-skip-pasv-ip"}, []string{"PASV"}},
		{[]string{"-P", "127.0.0.1", "--ftp-pasv"}, []string{"EPSV"}},
		{[]string{"--ftp-pasv", "-P", "127.0.0.1", "--disable-eprt"}, []string{"PORT"}},
		{[]string{"--ftp-pret"}, []string{"PRET RETR motd", "EPSV"}},
		{[]string{"--ftp-pret", "--disable-epsv"}, []string{"PRET RETR motd", "PASV"}},
	} {
		s.ResetCommands()
		args := append(c.args, u)
		code, out, errOut := runCmd(t, args...)
		if code != 0 || out != "etc motd\n" {
			t.Errorf("urlget %q: exit %d, %q\n%s", args, code, out, errOut)
		}
		got := commandsLike(s, "EPSV", "PASV", "PORT", "EPRT", "PRET")
		for i, g := range got {
			if strings.HasPrefix(g, "PORT ") {
				got[i] = "PORT"
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("urlget %q sent %q, want %q", args, got, c.want)
		}
	}
	s.ReplyOnce("PRET", "500 Unknown command.")
	if code, _, _ := runCmd(t, "--ftp-pret", u); code != 84 {
		t.Errorf("PRET refused: exit %d, want curl's 84", code)
	}
}

// TestFTPAccountAndAlternative: --ftp-account answers a 332 with ACCT;
// without it the login fails (67), a refused one is exit 11, as in curl. --ftp-alternative-to-user is sent,
// once, when USER and PASS are refused.
func TestFTPAccountAndAlternative(t *testing.T) {
	s := ftpFlagServer(t, func(s *ftptest.Server) { s.Accounts = map[string]string{"user": "dept42"} })
	u := "ftp://user:secret@" + s.Addr + "/mine.txt"
	code, out, errOut := runCmd(t, "--ftp-account", "dept42", u)
	if code != 0 || out != "mine\n" || !slices.Contains(s.Commands(), "ACCT dept42") {
		t.Errorf("--ftp-account: exit %d, %q, %q\n%s", code, out, s.Commands(), errOut)
	}
	if cc, cout, ok := curlRun(t, "--ftp-account", "dept42", u); ok && (cc != 0 || cout != out) {
		t.Errorf("curl --ftp-account: exit %d, %q", cc, cout)
	}
	// Without an account the login fails (67), and an alternative to
	// USER does not help; a refused account is curl's 11.
	for _, c := range []struct {
		args []string
		exit int
		code string
	}{
		{nil, 67, "332"},
		{[]string{"--ftp-alternative-to-user", "NOOP"}, 67, "332"},
		{[]string{"--ftp-account", "wrong"}, 11, "530"},
	} {
		args := append(append([]string{"-o", "/dev/null", "-w", "%{response_code}"}, c.args...), u)
		s.ResetCommands()
		code, out, _ := runCmd(t, args...)
		if code != c.exit || out != c.code || slices.Contains(s.Commands(), "NOOP") {
			t.Errorf("urlget %q: exit %d, -w %q, sent %q; want %d, %s", args, code, out, s.Commands(), c.exit, c.code)
		}
		if cc, cout, ok := curlRun(t, args...); ok && (cc != code || cout != out) {
			t.Errorf("curl %q: exit %d, -w %q; urlget %d, %q", args, cc, cout, code, out)
		}
	}

	s2 := ftpFlagServer(t, nil)
	s2.ReplyOnce("USER", "530 Not you.")
	u2 := "ftp://user:secret@" + s2.Addr + "/mine.txt"
	code, out, errOut = runCmd(t, "--ftp-alternative-to-user", "USER user", u2)
	if code != 0 || out != "mine\n" {
		t.Errorf("--ftp-alternative-to-user: exit %d, %q\n%s", code, out, errOut)
	}
	want := []string{"USER user", "USER user", "PASS secret"}
	if got := commandsLike(s2, "USER", "PASS"); !slices.Equal(got, want) {
		t.Errorf("--ftp-alternative-to-user sent %q, want %q", got, want)
	}
	s2.ResetCommands()
	s2.ReplyOnce("USER", "530 Not you.")
	if cc, cout, ok := curlRun(t, "--ftp-alternative-to-user", "USER user", u2); ok {
		if got := commandsLike(s2, "USER", "PASS"); cc != 0 || cout != out || !slices.Equal(got, want) {
			t.Errorf("curl --ftp-alternative-to-user: exit %d, %q, sent %q", cc, cout, got)
		}
	}
	// Tried once: a server that refuses it too ends the login.
	s2.Reply = nil
	s2.ReplyOnce("PASS", "530 No.")
	s2.ResetCommands()
	if code, _, _ := runCmd(t, "--ftp-alternative-to-user", "SITE LOGIN", u2); code != 67 {
		t.Errorf("alternative refused: exit %d, want 67 (%q)", code, s2.Commands())
	}
}

// ftpTLSServers starts two servers on the script tree: one that offers
// AUTH TLS (RFC 4217) and one without TLS.
func ftpTLSServers(t *testing.T) (withTLS, plain *ftptest.Server) {
	t.Helper()
	withTLS = ftptest.NewUnstartedServer(ftptest.ScriptTree())
	withTLS.StartTLS(false)
	t.Cleanup(withTLS.Close)
	return withTLS, ftpFlagServer(t, nil)
}

// TestFTPTLSFlags: --ssl uses TLS where the server has it and goes on in
// the clear where it has not; --ssl-reqd and --ftp-ssl-control fail with
// curl's 64 there; --ftp-ssl-control leaves data connections in the
// clear (PROT C).
func TestFTPTLSFlags(t *testing.T) {
	tlsSrv, plain := ftpTLSServers(t)
	for _, c := range []struct {
		srv  *ftptest.Server
		flag string
		exit int
		prot []string
	}{
		{tlsSrv, "--ssl", 0, []string{"AUTH TLS", "PBSZ 0", "PROT P"}},
		{tlsSrv, "--ssl-reqd", 0, []string{"AUTH TLS", "PBSZ 0", "PROT P"}},
		{tlsSrv, "--ftp-ssl-control", 0, []string{"AUTH TLS", "PBSZ 0", "PROT C"}},
		{plain, "--ssl", 0, []string{"AUTH TLS"}},
		{plain, "--ssl-reqd", 64, []string{"AUTH TLS"}},
		{plain, "--ftp-ssl-control", 64, []string{"AUTH TLS"}},
	} {
		c.srv.ResetCommands()
		args := []string{"-k", c.flag, c.srv.URL + "/etc/motd"}
		code, out, errOut := runCmd(t, args...)
		if code != c.exit || c.exit == 0 && out != "etc motd\n" {
			t.Errorf("urlget %q: exit %d, %q; want %d\n%s", args, code, out, c.exit, errOut)
		}
		if got := commandsLike(c.srv, "AUTH", "PBSZ", "PROT"); !slices.Equal(got, c.prot) {
			t.Errorf("urlget %q sent %q, want %q", args, got, c.prot)
		}
		if cc, _, ok := curlRun(t, args...); ok && cc != code {
			t.Errorf("curl %q: exit %d, urlget %d", args, cc, code)
		}
	}
}

// TestFTPClearControl: --ftp-ssl-ccc ends TLS on the control connection
// after the login (CCC), passively or actively, and the session goes on
// in the clear, for a second URL too, with data connections still
// protected; without TLS no CCC is sent.
func TestFTPClearControl(t *testing.T) {
	tlsSrv, plain := ftpTLSServers(t)
	for _, c := range []struct {
		srv  *ftptest.Server
		args []string
		want []string
	}{
		{tlsSrv, []string{"--ssl-reqd", "--ftp-ssl-ccc"}, []string{"AUTH TLS", "PBSZ 0", "PROT P", "CCC"}},
		{tlsSrv, []string{"--ssl-reqd", "--ftp-ssl-ccc-mode", "passive"}, []string{"AUTH TLS", "PBSZ 0", "PROT P", "CCC"}},
		{tlsSrv, []string{"--ssl", "--ftp-ssl-ccc-mode", "active"}, []string{"AUTH TLS", "PBSZ 0", "PROT P", "CCC"}},
		{tlsSrv, []string{"--ftp-ssl-control", "--ftp-ssl-ccc"}, []string{"AUTH TLS", "PBSZ 0", "PROT C", "CCC"}},
		{plain, []string{"--ssl", "--ftp-ssl-ccc"}, []string{"AUTH TLS"}},
		{plain, []string{"--ftp-ssl-ccc"}, nil},
	} {
		args := append([]string{"-k"}, c.args...)
		args = append(args, c.srv.URL+"/etc/motd", c.srv.URL+"/one/only.txt")
		c.srv.ResetCommands()
		code, out, errOut := runCmd(t, args...)
		if code != 0 || out != "etc motd\nonly\n" {
			t.Errorf("urlget %q: exit %d, %q\n%s", args, code, out, errOut)
		}
		got := commandsLike(c.srv, "AUTH", "PBSZ", "PROT", "CCC")
		if !slices.Equal(got, c.want) {
			t.Errorf("urlget %q sent %q, want %q", args, got, c.want)
		}
		c.srv.ResetCommands()
		if cc, cout, ok := curlRun(t, args...); ok {
			// curl asks for AUTH SSL before AUTH TLS; urlget asks for
			// RFC 4217's AUTH TLS alone.
			cgot := slices.DeleteFunc(commandsLike(c.srv, "AUTH", "PBSZ", "PROT", "CCC"), func(c string) bool { return c == "AUTH SSL" })
			if cc != 0 || cout != out || !slices.Equal(cgot, got) {
				t.Errorf("curl %q: exit %d, %q, sent %q", args, cc, cout, cgot)
			}
		}
	}
	if code, _, _ := runCmd(t, "--ftp-ssl-ccc-mode", "sideways", tlsSrv.URL+"/etc/motd"); code != exitUsage {
		t.Errorf("--ftp-ssl-ccc-mode sideways: exit %d, want 2", code)
	}
}

// TestFTPEntryPath: -w's %{ftp_entry_path} is the login directory PWD
// named, as curl prints it, whether or not the URL walks anywhere, and
// for each URL a connection serves (curl: for its first only); a format
// without it asks no PWD of the last URL.
func TestFTPEntryPath(t *testing.T) {
	s := ftpFlagServer(t, nil)
	for _, c := range []struct {
		urls []string
		want string
	}{
		{[]string{s.URL + "/etc/motd"}, "/;"},
		{[]string{s.URL + "/motd"}, "/;"},
		{[]string{s.URL + "/"}, "/;"},
		{[]string{"ftp://user:secret@" + s.Addr + "/mine.txt"}, "/home/user;"},
		{[]string{s.URL + "/motd", s.URL + "/etc/motd"}, "/;/;"},
	} {
		args := append([]string{"-s", "-o", "/dev/null", "-w", "%{ftp_entry_path};"}, c.urls...)
		if len(c.urls) > 1 {
			args = append(args[:3], append([]string{"-o", "/dev/null"}, args[3:]...)...)
		}
		code, out, errOut := runCmd(t, args...)
		if code != 0 || out != c.want {
			t.Errorf("urlget %q: exit %d, %q; want %q\n%s", args, code, out, c.want, errOut)
		}
		// curl prints it for a connection's first URL only; urlget
		// for every URL the connection serves.
		if cc, cout, ok := curlRun(t, args...); ok && len(c.urls) == 1 && (cc != code || cout != out) {
			t.Errorf("curl %q: exit %d, %q; urlget %d, %q", args, cc, cout, code, out)
		}
	}
	s.ResetCommands()
	if code, _, _ := runCmd(t, "-s", "-o", "/dev/null", "-w", "%{response_code}", s.URL+"/etc/motd"); code != 0 || slices.Contains(s.Commands(), "PWD") {
		t.Errorf("without %%{ftp_entry_path}: exit %d, sent %q; want no PWD", code, s.Commands())
	}
}

// TestFTPActiveAddress: -P takes what curl's takes besides an address:
// an interface's name, and a port or a range of ports to listen on,
// skipping ports in use; an address that cannot be listened on is exit
// 30, as in curl.
func TestFTPActiveAddress(t *testing.T) {
	s := ftpFlagServer(t, nil)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	first := busy.Addr().(*net.TCPAddr).Port
	if first > 65000 {
		t.Skipf("port %d leaves no room for a range above it", first)
	}
	for _, c := range []struct {
		addr    string
		lo, hi  int // the port PORT names is in [lo, hi]; 0: any
		curlToo bool
	}{
		{"lo", 0, 0, true},
		{"-", 0, 0, true},
		// curl 7.88.1 fails any port range ("bind() failed, we ran out
		// of ports", exit 30): urlget does what its manual says.
		{"127.0.0.1:" + strconv.Itoa(first) + "-" + strconv.Itoa(first+20), first + 1, first + 20, false},
		{"lo:" + strconv.Itoa(first) + "-" + strconv.Itoa(first+20), first + 1, first + 20, false},
	} {
		for _, prog := range []string{"urlget", "curl"} {
			s.ResetCommands()
			args := []string{"-s", "--disable-eprt", "-P", c.addr, s.URL + "/etc/motd"}
			var code int
			var out string
			if prog == "urlget" {
				code, out, _ = runCmd(t, args...)
			} else if cc, cout, ok := curlRun(t, args...); ok && c.curlToo {
				code, out = cc, cout
			} else {
				continue
			}
			ports := commandsLike(s, "PORT")
			if code != 0 || out != "etc motd\n" || len(ports) != 1 || !strings.HasPrefix(ports[0], "PORT 127,0,0,1,") {
				t.Errorf("%s -P %s: exit %d, %q, sent %q", prog, c.addr, code, out, s.Commands())
				continue
			}
			f := strings.Split(ports[0], ",")
			hi, _ := strconv.Atoi(f[4])
			lo, _ := strconv.Atoi(f[5])
			if p := hi<<8 | lo; c.lo != 0 && (p < c.lo || p > c.hi) {
				t.Errorf("%s -P %s listened on port %d, want %d to %d", prog, c.addr, p, c.lo, c.hi)
			}
		}
	}
	// What cannot be listened on is curl's exit 30.
	for _, bad := range []string{"127.0.0.1:9-1", "127.0.0.1:x", "no-such-interface0", "127.0.0.1:70000", "127.0.0.1:" + strconv.Itoa(first)} {
		if code, _, _ := runCmd(t, "-s", "-P", bad, s.URL+"/etc/motd"); code != 30 {
			t.Errorf("-P %s: exit %d, want 30", bad, code)
		}
	}
}
