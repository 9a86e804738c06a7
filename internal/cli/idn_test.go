package cli

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/integration/samples"
)

// The international name the tests fetch from, and its A-labels (IDNA,
// UTS #46 non-transitional processing).
const (
	idnHost     = "bücher.example"
	idnASCII    = "xn--bcher-kva.example"
	idnRejected = "bü-.example" // a label may not end in '-'
)

// runCmd runs the command in-process and returns its exit status, standard
// output and standard error.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, os.Stdin, &out, &errOut)
	return code, out.String(), errOut.String()
}

// hostRecorder is an HTTP handler that answers "ok" and records the Host
// header and, over TLS, the server name the client sent.
type hostRecorder struct {
	mu    sync.Mutex
	hosts []string
	snis  []string
}

func (h *hostRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.hosts = append(h.hosts, r.Host)
	if r.TLS != nil {
		h.snis = append(h.snis, r.TLS.ServerName)
	}
	h.mu.Unlock()
	io.WriteString(w, "ok\n")
}

func (h *hostRecorder) seen() ([]string, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	hosts, snis := h.hosts, h.snis
	h.hosts, h.snis = nil, nil
	return hosts, snis
}

// TestIDNHTTP fetches http:// and https:// URLs whose host is an
// international name that --resolve points at 127.0.0.1, the entry written
// in either form: the server sees the A-labels in the Host header and the
// TLS server name, and %{url_effective} shows them. (The certificate check
// against the A-labels is TestIDNCertificate's, in integration.)
func TestIDNHTTP(t *testing.T) {
	rec := &hostRecorder{}
	plain := httptest.NewServer(rec)
	defer plain.Close()
	secure := httptest.NewTLSServer(rec)
	defer secure.Close()

	for _, srv := range []*httptest.Server{plain, secure} {
		_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
		scheme := strings.SplitN(srv.URL, ":", 2)[0]
		for _, name := range []string{idnASCII, idnHost} {
			url := scheme + "://" + idnHost + ":" + port + "/a"
			code, out, errOut := runCmd(t, "-k", "--resolve", name+":"+port+":127.0.0.1",
				"-w", "\n%{url_effective}\n", url)
			if code != 0 {
				t.Fatalf("%s with --resolve %s: exit %d: %s", url, name, code, errOut)
			}
			want := "ok\n\n" + scheme + "://" + idnASCII + ":" + port + "/a\n"
			if out != want {
				t.Errorf("%s: stdout %q, want %q", url, out, want)
			}
			hosts, snis := rec.seen()
			if len(hosts) != 1 || hosts[0] != idnASCII+":"+port {
				t.Errorf("%s: the server saw Host %q, want %q", url, hosts, idnASCII+":"+port)
			}
			if scheme == "https" && (len(snis) != 1 || snis[0] != idnASCII) {
				t.Errorf("%s: the server saw TLS server name %q, want %q", url, snis, idnASCII)
			}
		}
	}
}

// TestIDNRejected checks that a host name IDNA rejects is a bad URL for
// every scheme: exit 3, IDNA's reason, and no connection.
func TestIDNRejected(t *testing.T) {
	for _, scheme := range []string{"http", "https", "ftp", "gopher", "nntp", "wais"} {
		url := scheme + "://" + idnRejected + "/x"
		code, _, errOut := runCmd(t, url)
		if code != exitBadURL || !strings.Contains(errOut, `bad host name "`+idnRejected+`": idna: invalid label "bü-"`) {
			t.Errorf("%s: exit %d, %q; want exit %d and IDNA's reason", url, code, errOut, exitBadURL)
		}
	}
}

// TestIDNOtherSchemes fetches from the ftp, gopher, nntp and wais sample
// servers under an international name that --resolve points at 127.0.0.1,
// with -4: each fetch gives what the loopback URL gives, and a listing
// names its entries under the A-labels.
func TestIDNOtherSchemes(t *testing.T) {
	cases := map[string][]string{ // sample name → paths after the base URL
		"ftp":    {"/", "/motd"},
		"gopher": {"/", "/0/about.txt"},
		"news":   {"/urlget.test", "/urlget.test/3"},
		"wais":   {"?river"},
	}
	for _, st := range samples.All {
		paths, ok := cases[st.Name]
		if !ok {
			continue
		}
		s, err := st.Start(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		host, port, _ := net.SplitHostPort(s.Addr)
		for i, p := range paths {
			orig := s.Base + p
			code, want, errOut := runCmd(t, orig)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", orig, code, errOut)
			}
			url := strings.Replace(orig, host+":", idnHost+":", 1)
			// The entry is written once in each form.
			entry := []string{idnASCII, idnHost}[i%2] + ":" + port + ":127.0.0.1"
			// -4 as well: FTP's data connections go to the control
			// connection's peer, an IPv4 address, and pass it.
			code, got, errOut := runCmd(t, "-4", "--resolve", entry, url)
			if code != 0 {
				t.Fatalf("%s with --resolve %s: exit %d: %s", url, entry, code, errOut)
			}
			// A listing names its entries under the URL's host, in
			// A-labels, except a gopher menu, whose items name their
			// own host (RFC 1436 §3.8), here the server's address.
			if st.Name != "gopher" {
				want = strings.ReplaceAll(want, s.Addr, idnASCII+":"+port)
			}
			if got != want {
				t.Errorf("%s: stdout\n%s\nwant\n%s", url, got, want)
			}
			if strings.Contains(got, "%C3") || strings.Contains(got, idnHost) {
				t.Errorf("%s: the output shows the host in another form than %s:\n%s", url, idnASCII, got)
			}
		}
	}
}

// listen6 listens on ::1 only, or says why it cannot.
func listen6(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skipf("this machine has no IPv6 loopback (%v)", err)
	}
	return ln
}

// TestIPVersion checks -4 and -6 against an HTTP server that listens on ::1
// only: with a --resolve entry of both loopback addresses, -6 reaches it and
// -4 does not; -4 refuses an IPv6 literal and -6 an IPv4 one; a gopher
// server on ::1 is reached the same way.
func TestIPVersion(t *testing.T) {
	rec := &hostRecorder{}
	srv := httptest.NewUnstartedServer(rec)
	srv.Listener.Close()
	srv.Listener = listen6(t)
	srv.Start()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	both := "--resolve=" + idnHost + ":" + port + ":127.0.0.1,[::1]"
	url := "http://" + idnHost + ":" + port + "/"

	if code, out, errOut := runCmd(t, "-6", both, url); code != 0 || out != "ok\n" {
		t.Errorf("-6 %s: exit %d, %q, %s; want the server's ok", url, code, out, errOut)
	}
	if hosts, _ := rec.seen(); len(hosts) != 1 || hosts[0] != idnASCII+":"+port {
		t.Errorf("-6: the server saw Host %q", hosts)
	}
	// Without -6, the addresses are tried in order: 127.0.0.1 refuses,
	// ::1 answers; -v tells which address each try used.
	code, out, errOut := runCmd(t, "-v", both, url)
	if code != 0 || out != "ok\n" {
		t.Errorf("%s: exit %d, %q, %s; want the second address to answer", url, code, out, errOut)
	}
	for _, a := range []string{"127.0.0.1", "::1"} {
		if want := "* resolve entry: " + idnASCII + ":" + port + " is " + a + "\n"; !strings.Contains(errOut, want) {
			t.Errorf("-v: no %q in\n%s", want, errOut)
		}
	}
	if code, _, errOut := runCmd(t, "-4", both, url); code != exitConnect || !strings.Contains(errOut, "127.0.0.1:"+port) {
		t.Errorf("-4 %s: exit %d, %s; want exit %d from 127.0.0.1", url, code, errOut, exitConnect)
	}
	if code, _, errOut := runCmd(t, "-4", "--resolve", idnHost+":"+port+":::1", url); code != exitResolve {
		t.Errorf("-4 with only ::1 pinned: exit %d, %s; want exit %d", code, errOut, exitResolve)
	}
	// An address of the other version has no address to connect to.
	for _, tc := range [][2]string{{"-4", "http://[::1]:" + port + "/"}, {"-6", "http://127.0.0.1:" + port + "/"}} {
		code, _, errOut := runCmd(t, tc[0], tc[1])
		if code != exitResolve || !strings.Contains(errOut, "address, where only IPv") {
			t.Errorf("%s %s: exit %d, %s; want exit %d", tc[0], tc[1], code, errOut, exitResolve)
		}
	}
	// Another scheme through the same dialer: a gopher server on ::1
	// that answers any selector with one line of text.
	gln := listen6(t)
	defer gln.Close()
	go func() {
		for {
			c, err := gln.Accept()
			if err != nil {
				return
			}
			c.Read(make([]byte, 512))
			io.WriteString(c, "gopher over IPv6\r\n")
			c.Close()
		}
	}()
	_, gport, _ := net.SplitHostPort(gln.Addr().String())
	gurl := "gopher://" + idnHost + ":" + gport + "/0/x"
	if code, out, errOut := runCmd(t, "-6", "--resolve", idnHost+":"+gport+":127.0.0.1,::1", gurl); code != 0 || out != "gopher over IPv6\n" {
		t.Errorf("-6 %s: exit %d, %q, %s", gurl, code, out, errOut)
	}
	// The wildcard entry: any host on that port.
	if code, out, errOut := runCmd(t, "--resolve", "*:"+port+":[::1]", "http://nowhere.example:"+port+"/"); code != 0 || out != "ok\n" {
		t.Errorf("--resolve *: exit %d, %q, %s", code, out, errOut)
	}
}

// TestIDNServerName checks the TLS server name of the TLS variants of the
// other schemes (ftps, gophers, nntps, snews): a server that records the
// name the client hello carries, then hangs up, sees the A-labels.
func TestIDNServerName(t *testing.T) {
	certSrc := httptest.NewTLSServer(http.NotFoundHandler())
	certSrc.Close()
	names := make(chan string, 8)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: certSrc.TLS.Certificates,
		GetConfigForClient: func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			names <- hello.ServerName
			return nil, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for _, u := range []string{"ftps://%s/f", "gophers://%s/0/f", "nntps://%s/comp.lang.go", "snews://%s/comp.lang.go"} {
		url := fmt.Sprintf(u, idnHost+":"+port)
		// The fetch itself fails, or for gopher gives an empty
		// document: only the server name matters here.
		_, _, errOut := runCmd(t, "-k", "--resolve", idnHost+":"+port+":127.0.0.1", url)
		select {
		case name := <-names:
			if name != idnASCII {
				t.Errorf("%s: TLS server name %q, want %q", url, name, idnASCII)
			}
		default:
			t.Errorf("%s: no TLS handshake reached the server: %s", url, errOut)
		}
	}
}
