package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"golang.org/x/crypto/ocsp"

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/integration/proxytest"
	"github.com/urlget/urlget/internal/xfer/xfertest"
)

// testPKI is a CA with a server certificate for 127.0.0.1 and a client
// certificate it signed, written to files for the flags.
type testPKI struct {
	dir                       string
	caFile, certFile, keyFile string // the server's certificate and key, PEM
	clientCert, clientKey     string // the client's
	ca                        *x509.Certificate
	caKey                     *ecdsa.PrivateKey
	server                    tls.Certificate
	serverSPKI                []byte
	clientPool                *x509.CertPool
}

func newPKI(t *testing.T) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir()}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	p.ca, _ = x509.ParseCertificate(caDER)
	p.caKey = caKey
	issue := func(serial int64, cn string, usage x509.ExtKeyUsage) ([]byte, *ecdsa.PrivateKey) {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
			DNSNames: []string{"site.example"},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, k
	}
	write := func(name, typ string, der []byte) string {
		f := filepath.Join(p.dir, name)
		if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	keyDER := func(k *ecdsa.PrivateKey) []byte {
		b, _ := x509.MarshalPKCS8PrivateKey(k)
		return b
	}
	p.caFile = write("ca.pem", "CERTIFICATE", caDER)
	sDER, sKey := issue(2, "server", x509.ExtKeyUsageServerAuth)
	p.certFile = write("server.pem", "CERTIFICATE", sDER)
	p.keyFile = write("server.key", "PRIVATE KEY", keyDER(sKey))
	p.server = tls.Certificate{Certificate: [][]byte{sDER}, PrivateKey: sKey}
	leaf, _ := x509.ParseCertificate(sDER)
	p.serverSPKI = leaf.RawSubjectPublicKeyInfo
	cDER, cKey := issue(3, "client", x509.ExtKeyUsageClientAuth)
	p.clientCert = write("client.pem", "CERTIFICATE", cDER)
	p.clientKey = write("client.key", "PRIVATE KEY", keyDER(cKey))
	p.clientPool = x509.NewCertPool()
	p.clientPool.AddCert(p.ca)
	return p
}

// tlsSite starts an https site with the PKI's server certificate and cfg's
// other settings, answering "secure body".
func (p *testPKI) tlsSite(t *testing.T, cfg *tls.Config) *httptest.Server {
	t.Helper()
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secure body") }))
	if cfg == nil {
		cfg = &tls.Config{}
	}
	cfg.Certificates = []tls.Certificate{p.server}
	s.TLS = cfg
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// TestTLSExitCodes checks curl's exit codes for TLS failures, each from a
// real handshake with an in-process server: 35 for a handshake that fails
// (a peer that speaks no TLS, no version in common, a TLS 1.2 server
// refusing the client's certificate), 60 for a certificate not verified,
// 90 for a key not pinned, 56 for a TLS 1.3 server's refusal of the
// client's certificate (an alert after the handshake), 58 and 59 for a
// client certificate or a cipher list that cannot be used, and 28 for a
// handshake out of time.
func TestTLSExitCodes(t *testing.T) {
	clearProxyEnv(t)
	p := newPKI(t)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer plain.Close()
	plainAddr := plain.Listener.Addr().String()
	site := p.tlsSite(t, nil)
	tls12 := p.tlsSite(t, &tls.Config{MaxVersion: tls.VersionTLS12})
	need13 := p.tlsSite(t, &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: p.clientPool, MinVersion: tls.VersionTLS13})
	need12 := p.tlsSite(t, &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: p.clientPool, MaxVersion: tls.VersionTLS12})
	silent := silentListener(t)
	sum := sha256.Sum256(p.serverSPKI)
	pin := "sha256//" + base64.StdEncoding.EncodeToString(sum[:])
	other := "sha256//" + base64.StdEncoding.EncodeToString(make([]byte, 32))
	ca := []string{"--cacert", p.caFile}
	client := []string{"-E", p.clientCert, "--key", p.clientKey}
	der := func(pemFile string) string {
		b, _ := pem.Decode([]byte(readFile(t, pemFile)))
		f := pemFile + ".der"
		os.WriteFile(f, b.Bytes, 0o600)
		return f
	}
	clientDER := []string{"-E", der(p.clientCert), "--cert-type", "DER", "--key", der(p.clientKey), "--key-type", "der"}
	both := filepath.Join(p.dir, "both.pem")
	os.WriteFile(both, []byte(readFile(t, p.clientCert)+readFile(t, p.clientKey)), 0o600)
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"https to a plain HTTP port", []string{"https://" + plainAddr + "/"}, exitTLS},
		{"gophers to a plain HTTP port", []string{"gophers://" + plainAddr + "/"}, exitTLS},
		{"ftps to a plain HTTP port", []string{"ftps://" + plainAddr + "/"}, exitTLS},
		{"untrusted certificate", []string{site.URL + "/"}, exitPeerCert},
		{"trusted", append(ca, site.URL+"/"), exitOK},
		{"pinned key", append(ca, "--pinnedpubkey", pin, site.URL+"/"), exitOK},
		{"another key pinned", append(ca, "--pinnedpubkey", other+";"+other, site.URL+"/"), exitPinned},
		{"pinned key holds with -k", []string{"-k", "--pinnedpubkey", other, site.URL + "/"}, exitPinned},
		{"--tlsv1.3 to a TLS 1.2 server", append(ca, "--tlsv1.3", tls12.URL+"/"), exitTLS},
		{"--tls-max 1.2 to a TLS 1.2 server", append(ca, "--tls-max", "1.2", tls12.URL+"/"), exitOK},
		{"TLS 1.3 server refusing no client certificate", append(ca, need13.URL+"/"), exitRecv},
		{"TLS 1.2 server refusing no client certificate", append(ca, need12.URL+"/"), exitTLS},
		{"client certificate, TLS 1.3", append(append(ca, client...), need13.URL+"/"), exitOK},
		{"client certificate, TLS 1.2", append(append(ca, client...), need12.URL+"/"), exitOK},
		{"client certificate and key in DER", append(append(ca, clientDER...), need13.URL+"/"), exitOK},
		{"client certificate and key in one file", append(ca, "--cert", both, need13.URL+"/"), exitOK},
		{"client certificate without its key", append(ca, "--cert", p.clientCert, need13.URL+"/"), exitLocalCert},
		{"client certificate missing", append(ca, "-E", filepath.Join(p.dir, "none.pem"), site.URL+"/"), exitLocalCert},
		{"client key not the certificate's", append(ca, "-E", p.clientCert, "--key", p.keyFile, site.URL+"/"), exitLocalCert},
		{"no cipher named", append(ca, "--ciphers", "NO-SUCH-CIPHER", site.URL+"/"), exitCipher},
		{"a cipher of the server's", append(ca, "--ciphers", "NO-SUCH:ECDHE-ECDSA-AES128-GCM-SHA256", tls12.URL+"/"), exitOK},
		{"a cipher the server lacks", append(ca, "--ciphers", "ECDHE-RSA-AES128-GCM-SHA256", tls12.URL+"/"), exitTLS},
		{"handshake out of time", []string{"--connect-timeout", "1", "https://" + silent.Addr().String() + "/"}, exitTimeout},
	} {
		code, _, errOut := runProxy(t, append([]string{"-sS"}, c.args...)...)
		if code != c.want {
			t.Errorf("%s: exit %d, want %d (%s)", c.name, code, c.want, strings.TrimSpace(errOut))
		}
	}
}

// TestTLSExitCodesAsCurl runs curl itself on the same failures and
// checks that both exit alike.
func TestTLSExitCodesAsCurl(t *testing.T) {
	curl := curlPath(t)
	clearProxyEnv(t)
	p := newPKI(t)
	// A site that has only P-384 for the key exchange: --curves that
	// leaves it out fails the handshake.
	p384 := p.tlsSite(t, &tls.Config{CurvePreferences: []tls.CurveID{tls.CurveP384}})
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer plain.Close()
	site := p.tlsSite(t, nil)
	sum := sha256.Sum256(p.serverSPKI)
	other := "sha256//" + base64.StdEncoding.EncodeToString(make([]byte, 32))
	for _, args := range [][]string{
		{"https://" + plain.Listener.Addr().String() + "/"},
		{site.URL + "/"},
		{"--cacert", p.caFile, site.URL + "/"},
		{"--cacert", p.caFile, "--pinnedpubkey", "sha256//" + base64.StdEncoding.EncodeToString(sum[:]), site.URL + "/"},
		{"--cacert", p.caFile, "--pinnedpubkey", other, site.URL + "/"},
		{"--cacert", p.caFile, "--ciphers", "NO-SUCH-CIPHER", site.URL + "/"},
		{"--cacert", p.caFile, "-E", filepath.Join(p.dir, "none.pem"), site.URL + "/"},
		{"--cacert", p.caFile, "--curves", "X25519", p384.URL + "/"},
		{"--cacert", p.caFile, "--curves", "X25519:secp384r1", p384.URL + "/"},
		{"--cacert", p.caFile, "--curves", "P-384", p384.URL + "/"},
		{"--cacert", p.caFile, "--curves", "no-such-group", site.URL + "/"},
	} {
		cmd := exec.Command(curl, append([]string{"-sS", "-o", os.DevNull}, args...)...)
		cmd.Env = append(os.Environ(), "https_proxy=", "HTTPS_PROXY=", "all_proxy=", "ALL_PROXY=")
		want := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			want = ee.ExitCode()
		}
		if code, _, errOut := runProxy(t, append([]string{"-sS", "-o", os.DevNull}, args...)...); code != want {
			t.Errorf("%v: exit %d, curl's %d (%s)", args, code, want, strings.TrimSpace(errOut))
		}
	}
}

// TestCertArg checks -E's FILE:PASSWORD split with curl's escapes.
func TestCertArg(t *testing.T) {
	for _, c := range []struct{ in, file, pass string }{
		{"c.pem", "c.pem", ""},
		{"c.pem:secret", "c.pem", "secret"},
		{`a\:b.pem:pw:with:colons`, "a:b.pem", "pw:with:colons"},
		{`a\\b.pem`, `a\b.pem`, ""},
		{`C:\certs\c.pem:pw`, `C:\certs\c.pem`, "pw"},
	} {
		f, pw, _ := certArg(c.in)
		if f != c.file || pw != c.pass {
			t.Errorf("certArg(%q) = %q, %q; want %q, %q", c.in, f, pw, c.file, c.pass)
		}
	}
}

// TestCipherList checks the reading of OpenSSL cipher lists.
func TestCipherList(t *testing.T) {
	ids, err := cipherSuites("ECDHE-RSA-AES128-GCM-SHA256:TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,UNKNOWN")
	if err != nil || len(ids) != 2 || ids[0] != tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 || ids[1] != tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 {
		t.Errorf("got %v, %v", ids, err)
	}
	ids, err = cipherSuites("HIGH:!ECDHE-RSA-AES128-GCM-SHA256")
	if err != nil || len(ids) == 0 {
		t.Fatalf("HIGH: %v, %v", ids, err)
	}
	for _, id := range ids {
		if id == tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 {
			t.Errorf("a removed suite is offered")
		}
	}
	if _, err := cipherSuites("!AES128-SHA"); err == nil {
		t.Errorf("a list that selects nothing was taken")
	}
	if _, err := tls13Suites("TLS_AES_128_GCM_SHA256"); err != nil {
		t.Error(err)
	}
	if _, err := tls13Suites("ECDHE-RSA-AES128-GCM-SHA256"); err == nil {
		t.Error("a TLS 1.2 suite taken for --tls13-ciphers")
	}
}

// TestTLSEncryptedKeyRefused checks that an encrypted key is refused with
// exit 58 and a message that says what to do.
func TestTLSEncryptedKeyRefused(t *testing.T) {
	p := newPKI(t)
	key := filepath.Join(p.dir, "enc.key")
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{0x30, 0}}), 0o600)
	code, _, errOut := runProxy(t, "-sS", "-E", p.clientCert, "--key", key, "--pass", "pw", "https://127.0.0.1:1/")
	if code != exitLocalCert || !strings.Contains(errOut, "encrypted private keys are not supported") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestTLSUsageRefusals checks the exit 2 refusals of what urlget cannot do.
func TestTLSUsageRefusals(t *testing.T) {
	for _, args := range [][]string{
		{"--cert-type", "P12", "-E", "x.p12"},
		{"--key-type", "ENG", "--key", "x"},
		{"--tls-max", "1.4"},
		{"--unix-socket", "/a", "--abstract-unix-socket", "b"},
		{"--unix-socket", "/a", "ftp://127.0.0.1:1/f"},
		{"--connect-to", "a:b:c"},
		{"--local-port", "70000"},
		{"--preproxy", "http://127.0.0.1:1"},
	} {
		code, _, errOut := runProxy(t, append(args, "https://127.0.0.1:1/")...)
		if code != exitUsage || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and one line", args, code, errOut, exitUsage)
		}
	}
}

// TestTunnelOnlyProxy checks ftp: and gopher: through an HTTP proxy that
// fetches neither but tunnels: whatever refusal the gateway request
// meets (tinyproxy's 400 and 503, squid's 501, others' 403, 405, 502),
// the fetch goes on through a CONNECT tunnel and -v says so; a later URL
// of the run goes by CONNECT at once after a refusal of the request
// itself. A proxy that refuses the tunnel too fails with curl's exit 56
// and one line naming both answers.
func TestTunnelOnlyProxy(t *testing.T) {
	clearProxyEnv(t)
	ftpSrv := ftptest.NewServer(fstest.MapFS{"f.txt": {Data: []byte("ftp body\n"), Mode: 0o644}})
	t.Cleanup(ftpSrv.Close)
	gs := gopherSite(t)
	for _, code := range []int{400, 403, 405, 501, 502, 503} {
		px := proxytest.NewHTTPProxy(false)
		px.Gateway = code
		for _, u := range []struct{ url, body string }{
			{ftpSrv.URL + "/f.txt", "ftp body\n"},
			{gs.URL + "/0/g.txt", "gopher body\n"},
		} {
			status, out, errOut := runProxy(t, "-v", "-x", px.URL, u.url, u.url)
			scheme, _, _ := strings.Cut(u.url, ":")
			if status != 0 || out != u.body+u.body {
				t.Errorf("%d, %s: exit %d, out %q\n%s", code, u.url, status, out, errOut)
			}
			note := "proxy " + px.URL + " does not gateway " + scheme + ": (HTTP " + strconv.Itoa(code) + "); tunnelling with CONNECT"
			if !strings.Contains(errOut, note) {
				t.Errorf("%d, %s: -v lacks %q:\n%s", code, u.url, note, errOut)
			}
			// One gateway request for the two URLs: the run remembers
			// a proxy that refused and then tunnelled.
			gets := 0
			for _, e := range px.Log() {
				if e.Method == http.MethodGet && strings.HasPrefix(e.Target, scheme+":") {
					gets++
				}
			}
			if want := 1; gets != want {
				t.Errorf("%d, %s: %d gateway requests, want %d", code, u.url, gets, want)
			}
		}
		px.Close()
	}

	refusing := proxytest.NewHTTPProxy(false)
	refusing.Gateway = http.StatusBadRequest
	refusing.Refuse = http.StatusForbidden
	defer refusing.Close()
	status, _, errOut := runProxy(t, "-sS", "-x", refusing.URL, ftpSrv.URL+"/f.txt")
	if status != exitProxyTunnel || strings.Count(errOut, "\n") != 1 ||
		!strings.Contains(errOut, "proxy CONNECT failed: 403 Forbidden") || !strings.Contains(errOut, "it answered 400 Bad Request") {
		t.Errorf("refused both ways: exit %d, stderr %q", status, errOut)
	}
}

// TestSOCKSShorthands checks --socks4, --socks4a, --socks5 and
// --socks5-hostname: each is -x with its kind, the name resolved here
// or by the proxy as the kind says, and the last of them and -x wins.
func TestSOCKSShorthands(t *testing.T) {
	clearProxyEnv(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "site body") }))
	defer site.Close()
	_, port, _ := net.SplitHostPort(site.Listener.Addr().String())
	for _, c := range []struct {
		flag, host, method string
	}{
		{"--socks4", "127.0.0.1", "SOCKS4"},
		{"--socks4a", "site.example", "SOCKS4a"},
		{"--socks5", "127.0.0.1", "SOCKS5"},
		{"--socks5-hostname", "site.example", "SOCKS5"},
	} {
		sp := proxytest.NewSOCKS()
		sp.Hosts = proxytest.Hosts{"site.example": "127.0.0.1"}
		u := "http://" + net.JoinHostPort(c.host, port) + "/"
		code, out, errOut := runProxy(t, "-sS", c.flag, sp.Addr(), u)
		log := sp.Log()
		if code != 0 || out != "site body" || len(log) != 1 || log[0].Method != c.method || log[0].Target != net.JoinHostPort(c.host, port) {
			t.Errorf("%s: exit %d, out %q, proxy log %+v (%s)", c.flag, code, out, log, errOut)
		}
		sp.Close()
	}

	// The last of -x and --socks5 wins.
	sp := proxytest.NewSOCKS()
	defer sp.Close()
	hp := proxytest.NewHTTPProxy(false)
	defer hp.Close()
	runProxy(t, "-sS", "-x", hp.URL, "--socks5", sp.Addr(), site.URL+"/")
	runProxy(t, "-sS", "--socks5", sp.Addr(), "-x", hp.URL, site.URL+"/")
	if s, h := len(sp.Log()), len(hp.Log()); s != 1 || h != 1 {
		t.Errorf("-x then --socks5, --socks5 then -x: %d SOCKS and %d HTTP proxy requests, want 1 and 1", s, h)
	}
}

// TestPreproxy checks --preproxy: the HTTP proxy is reached through the
// SOCKS proxy, for an http: URL (the absolute form), an https: one
// (CONNECT) and a gopher: one through a proxy that tunnels it.
func TestPreproxy(t *testing.T) {
	clearProxyEnv(t)
	p := newPKI(t)
	secure := p.tlsSite(t, nil)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "plain body") }))
	defer plain.Close()
	gs := gopherSite(t)
	for _, c := range []struct{ url, body string }{
		{plain.URL + "/", "plain body"},
		{secure.URL + "/", "secure body"},
		{gs.URL + "/0/g.txt", "gopher body\n"},
	} {
		sp := proxytest.NewSOCKS()
		hp := proxytest.NewHTTPProxy(false)
		_, hpPort, _ := net.SplitHostPort(hp.Listener.Addr().String())
		code, out, errOut := runProxy(t, "-sS", "--cacert", p.caFile, "-x", "http://127.0.0.1:"+hpPort, "--preproxy", "socks5h://"+sp.Addr(), c.url)
		if code != 0 || out != c.body {
			t.Errorf("%s: exit %d, out %q (%s)", c.url, code, out, errOut)
		}
		for _, e := range sp.Log() {
			if e.Target != "127.0.0.1:"+hpPort {
				t.Errorf("%s: the SOCKS proxy was asked for %s, not the HTTP proxy", c.url, e.Target)
			}
		}
		if len(sp.Log()) == 0 || len(hp.Log()) == 0 {
			t.Errorf("%s: %d SOCKS and %d HTTP proxy requests", c.url, len(sp.Log()), len(hp.Log()))
		}
		sp.Close()
		hp.Close()
	}
}

// TestProxy10 checks --proxy1.0: CONNECT in HTTP/1.0, through the proxy.
func TestProxy10(t *testing.T) {
	clearProxyEnv(t)
	p := newPKI(t)
	secure := p.tlsSite(t, nil)
	hp := proxytest.NewHTTPProxy(false)
	defer hp.Close()
	code, out, errOut := runProxy(t, "-v", "--cacert", p.caFile, "--proxy1.0", hp.Listener.Addr().String(), secure.URL+"/")
	if code != 0 || out != "secure body" || !strings.Contains(errOut, "> CONNECT "+secure.Listener.Addr().String()+" HTTP/1.0") {
		t.Errorf("exit %d, out %q:\n%s", code, out, errOut)
	}
	if log := hp.Log(); len(log) != 1 || log[0].Method != http.MethodConnect {
		t.Errorf("proxy log %+v", log)
	}
}

// TestProxyTLSFlags checks that an https proxy's certificate is verified
// with the --proxy-* flags, not -k and --cacert, which are the site's, as
// in curl: exit 60 for an untrusted proxy, through with --proxy-insecure
// or --proxy-cacert.
func TestProxyTLSFlags(t *testing.T) {
	clearProxyEnv(t)
	p := newPKI(t)
	site := p.tlsSite(t, nil)
	hp := proxytest.NewHTTPProxy(true)
	defer hp.Close()
	proxyCA := filepath.Join(p.dir, "proxy-ca.pem")
	os.WriteFile(proxyCA, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hp.Certificate().Raw}), 0o600)
	sum := sha256.Sum256(hp.Certificate().RawSubjectPublicKeyInfo)
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--cacert", p.caFile}, exitPeerCert},
		{[]string{"-k"}, exitPeerCert},
		{[]string{"--cacert", p.caFile, "--proxy-insecure"}, exitOK},
		{[]string{"--cacert", p.caFile, "--proxy-cacert", proxyCA}, exitOK},
		{[]string{"--cacert", p.caFile, "--proxy-cacert", proxyCA, "--proxy-pinnedpubkey", "sha256//" + base64.StdEncoding.EncodeToString(sum[:])}, exitOK},
		{[]string{"--cacert", p.caFile, "--proxy-insecure", "--proxy-pinnedpubkey", "sha256//" + base64.StdEncoding.EncodeToString(make([]byte, 32))}, exitPinned},
		{[]string{"--cacert", p.caFile, "--proxy-insecure", "--proxy-tlsv1", "--proxy-ciphers", "NONE-SUCH"}, exitCipher},
	} {
		code, out, errOut := runProxy(t, append(append([]string{"-sS", "-x", hp.URL}, c.args...), site.URL+"/")...)
		if code != c.want || c.want == 0 && out != "secure body" {
			t.Errorf("%v: exit %d, want %d; out %q (%s)", c.args, code, c.want, out, errOut)
		}
	}
}

// TestConnectTo checks --connect-to: the connection goes to the second
// pair, empty parts matching any host or port; the URL's host stays the
// one named in Host and verified by TLS; curl itself does the same.
func TestConnectTo(t *testing.T) {
	clearProxyEnv(t)
	p := newPKI(t)
	secure := p.tlsSite(t, nil)
	_, securePort, _ := net.SplitHostPort(secure.Listener.Addr().String())
	var host string
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host = r.Host
		io.WriteString(w, "plain body")
	}))
	defer plain.Close()
	_, plainPort, _ := net.SplitHostPort(plain.Listener.Addr().String())
	gs := gopherSite(t)
	_, gopherPort, _ := net.SplitHostPort(gs.Addr)
	for _, c := range []struct {
		args []string
		body string
	}{
		{[]string{"-v", "--connect-to", "site.example:80:127.0.0.1:" + plainPort, "http://site.example/"}, "plain body"},
		{[]string{"--connect-to", "other.example:80:127.0.0.1:1", "--connect-to", "::127.0.0.1:" + plainPort, "http://site.example/"}, "plain body"},
		{[]string{"--connect-to", "site.example::[127.0.0.1]:" + securePort, "--cacert", p.caFile, "https://site.example/"}, "secure body"},
		{[]string{"--connect-to", "site.example:70:127.0.0.1:" + gopherPort, "gopher://site.example/0/g.txt"}, "gopher body\n"},
	} {
		code, out, errOut := runProxy(t, append([]string{"-sS"}, c.args...)...)
		if code != 0 || out != c.body {
			t.Errorf("%v: exit %d, out %q (%s)", c.args, code, out, errOut)
		}
		if c.args[0] == "-v" && !strings.Contains(errOut, "* Connecting to hostname: 127.0.0.1\n* Connecting to port: "+plainPort+"\n") {
			t.Errorf("-v does not say where --connect-to led:\n%s", errOut)
		}
	}
	if host != "site.example" {
		t.Errorf("Host %q, want site.example", host)
	}
	// TLS verifies the URL's host: a certificate without it fails.
	code, _, _ := runProxy(t, "-sS", "--connect-to", "other.example:443:127.0.0.1:"+securePort, "--cacert", p.caFile, "https://other.example/")
	if code != exitPeerCert {
		t.Errorf("a certificate for another host: exit %d, want %d", code, exitPeerCert)
	}
	if curl, err := lookCurl(t); err == nil {
		out, err := exec.Command(curl, "-sS", "--noproxy", "*", "--connect-to", "site.example:80:127.0.0.1:"+plainPort, "http://site.example/").Output()
		if err != nil || string(out) != "plain body" {
			t.Errorf("curl: %q, %v", out, err)
		}
	}
}

// TestLocalEnd checks --interface and --local-port: the server sees the
// connection come from the address and port range asked for; an
// interface that does not exist is curl's exit 45.
func TestLocalEnd(t *testing.T) {
	clearProxyEnv(t)
	var remote string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		remote = r.RemoteAddr
		io.WriteString(w, "body")
	}))
	defer srv.Close()
	lo := loopbackName(t)
	for _, c := range []struct {
		args     []string
		wantHost string
		minPort  int
	}{
		{[]string{"--interface", "127.0.0.2"}, "127.0.0.2", 0},
		{[]string{"--interface", "host!127.0.0.3"}, "127.0.0.3", 0},
		{[]string{"--interface", lo}, "127.0.0.1", 0},
		{[]string{"--interface", "if!" + lo, "--local-port", "41000-41999"}, "127.0.0.1", 41000},
		{[]string{"--local-port", "42000-42999"}, "127.0.0.1", 42000},
	} {
		code, out, errOut := runProxy(t, append(append([]string{"-sS"}, c.args...), srv.URL+"/")...)
		host, port, _ := net.SplitHostPort(remote)
		n, _ := strconv.Atoi(port)
		if code != 0 || out != "body" || host != c.wantHost || c.minPort > 0 && (n < c.minPort || n > c.minPort+999) {
			t.Errorf("%v: exit %d, out %q, from %s (%s)", c.args, code, out, remote, errOut)
		}
	}
	if code, _, errOut := runProxy(t, "-sS", "--interface", "if!nosuchif0", srv.URL+"/"); code != exitInterface {
		t.Errorf("no such interface: exit %d (%s)", code, errOut)
	}
	// A port in use on the same address is passed over for the next.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	bp := busy.Addr().(*net.TCPAddr).Port
	code, _, errOut := runProxy(t, "-sS", "--interface", "127.0.0.1", "--local-port", fmt.Sprintf("%d-%d", bp, bp+1), srv.URL+"/")
	if _, port, _ := net.SplitHostPort(remote); code != 0 || port != strconv.Itoa(bp+1) {
		t.Errorf("a range whose first port is busy: exit %d, from %s (%s)", code, remote, errOut)
	}
	code, _, _ = runProxy(t, "-sS", "--interface", "127.0.0.1", "--local-port", strconv.Itoa(bp), srv.URL+"/")
	if code != exitInterface {
		t.Errorf("the one port busy: exit %d, want %d", code, exitInterface)
	}
}

// loopbackName is the name of the loopback interface.
func loopbackName(t *testing.T) string {
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback != 0 {
			return i.Name
		}
	}
	t.Fatal("no loopback interface")
	return ""
}

// TestUnixSocket checks --unix-socket and --abstract-unix-socket: HTTP
// over the socket, the URL's host in Host.
func TestUnixSocket(t *testing.T) {
	clearProxyEnv(t)
	for _, c := range []struct{ flag, path, listen string }{
		{"--unix-socket", filepath.Join(t.TempDir(), "s"), ""},
		{"--abstract-unix-socket", "urlget-test-" + strconv.Itoa(os.Getpid()), "@"},
	} {
		ln, err := net.Listen("unix", c.listen+c.path)
		if err != nil {
			t.Fatal(err)
		}
		var host string
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			host = r.Host
			io.WriteString(w, "over the socket")
		})}
		go srv.Serve(ln)
		code, out, errOut := runProxy(t, "-sS", c.flag, c.path, "http://site.example/x")
		if code != 0 || out != "over the socket" || host != "site.example" {
			t.Errorf("%s: exit %d, out %q, Host %q (%s)", c.flag, code, out, host, errOut)
		}
		srv.Close()
	}
}

// gopherSite starts a gopher server with one text file, /0/g.txt.
func gopherSite(t *testing.T) *gophertest.Server {
	mux := gophertest.NewMux()
	mux.Handle("/g.txt", gophertest.Text("gopher body\n"))
	gs := gophertest.NewServer(mux)
	t.Cleanup(gs.Close)
	return gs
}

// silentListener accepts connections on loopback and says nothing on
// them: the client's end closes them.
func silentListener(t *testing.T) net.Listener {
	return xfertest.ServeTCP(t, func(c net.Conn) { io.Copy(io.Discard, c) })
}

// staple returns an OCSP response for the PKI's server certificate,
// signed by its CA, with status.
func (p *testPKI) staple(t *testing.T, status int) []byte {
	leaf, _ := x509.ParseCertificate(p.server.Certificate[0])
	b, err := ocsp.CreateResponse(p.ca, p.ca, ocsp.Response{
		Status: status, SerialNumber: leaf.SerialNumber,
		ThisUpdate: time.Now().Add(-time.Minute), NextUpdate: time.Now().Add(time.Hour),
		RevokedAt: time.Now().Add(-time.Minute),
	}, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCertStatus checks --cert-status: through with a good stapled OCSP
// response, curl's exit 91 with a revoked one or none; curl agrees.
func TestCertStatus(t *testing.T) {
	clearProxyEnv(t)
	p := newPKI(t)
	site := func(staple []byte) string {
		s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secure body") }))
		cert := p.server
		// The chain with its issuer, as servers send it: OpenSSL's
		// check of the response, curl's, looks for the issuer there.
		cert.Certificate = append(cert.Certificate[:1:1], p.ca.Raw)
		cert.OCSPStaple = staple
		s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
		s.StartTLS()
		t.Cleanup(s.Close)
		return s.URL + "/"
	}
	curl, _ := lookCurl(t)
	for _, c := range []struct {
		name string
		url  string
		want int
	}{
		{"good", site(p.staple(t, ocsp.Good)), exitOK},
		{"revoked", site(p.staple(t, ocsp.Revoked)), exitCertStatus},
		{"none stapled", site(nil), exitCertStatus},
		{"not OCSP", site([]byte("not a response")), exitCertStatus},
	} {
		args := []string{"-sS", "--cacert", p.caFile, "--cert-status", c.url}
		if code, _, errOut := runProxy(t, args...); code != c.want {
			t.Errorf("%s: exit %d, want %d (%s)", c.name, code, c.want, errOut)
		}
		if curl != "" {
			cmd := exec.Command(curl, append([]string{"-o", os.DevNull, "--noproxy", "*"}, args...)...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != c.want {
				t.Errorf("%s: curl exits %d, urlget %d (%s)", c.name, code, c.want, stderr.String())
			}
		}
	}
}

// TestRevocationAndRoots checks --crlfile (a revoked certificate is one
// not verified, curl's 60; a list of another issuer's fails as OpenSSL's
// check fails), --capath (a directory of CA files), --no-sessionid (every
// connection a full handshake) and a client certificate on ftps: with
// its password in -E (a key not encrypted needs none).
func TestRevocationAndRoots(t *testing.T) {
	clearProxyEnv(t)
	p := newPKI(t)
	site := p.tlsSite(t, nil)
	crl := func(name string, serials ...int64) string {
		var entries []x509.RevocationListEntry
		for _, s := range serials {
			entries = append(entries, x509.RevocationListEntry{SerialNumber: big.NewInt(s), RevocationTime: time.Now().Add(-time.Minute)})
		}
		der, err := x509.CreateRevocationList(rand.Reader, &x509.RevocationList{
			Number: big.NewInt(1), ThisUpdate: time.Now().Add(-time.Minute), NextUpdate: time.Now().Add(time.Hour),
			RevokedCertificateEntries: entries,
		}, p.ca, p.caKey)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(p.dir, name)
		os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: der}), 0o600)
		return f
	}
	other := newPKI(t)
	otherCRL := func() string {
		der, _ := x509.CreateRevocationList(rand.Reader, &x509.RevocationList{Number: big.NewInt(1), ThisUpdate: time.Now(), NextUpdate: time.Now().Add(time.Hour)}, other.ca, other.caKey)
		f := filepath.Join(p.dir, "other.crl")
		os.WriteFile(f, der, 0o600)
		return f
	}()
	caDir := t.TempDir()
	os.WriteFile(filepath.Join(caDir, "ca.pem"), []byte(readFile(t, p.caFile)), 0o600)
	os.WriteFile(filepath.Join(caDir, "junk.txt"), []byte("not a certificate"), 0o600)
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"CRL without the certificate", []string{"--cacert", p.caFile, "--crlfile", crl("ok.crl", 99)}, exitOK},
		{"CRL revoking the certificate", []string{"--cacert", p.caFile, "--crlfile", crl("revoked.crl", 99, 2)}, exitPeerCert},
		{"CRL of another issuer", []string{"--cacert", p.caFile, "--crlfile", otherCRL}, exitPeerCert},
		{"--capath", []string{"--capath", caDir}, exitOK},
	} {
		code, out, errOut := runProxy(t, append(append([]string{"-sS"}, c.args...), site.URL+"/")...)
		if code != c.want || c.want == 0 && out != "secure body" {
			t.Errorf("%s: exit %d, want %d (%s)", c.name, code, c.want, errOut)
		}
	}
	// A site that closes each connection: the second request needs a
	// second handshake, which resumes the first's session unless
	// --no-sessionid.
	closing := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
	}))
	closing.TLS = &tls.Config{Certificates: []tls.Certificate{p.server}}
	closing.StartTLS()
	defer closing.Close()
	_, _, errOut := runProxy(t, "-sS", "-v", "--cacert", p.caFile, closing.URL+"/a", closing.URL+"/b")
	_, _, errNoID := runProxy(t, "-sS", "-v", "--no-sessionid", "--cacert", p.caFile, closing.URL+"/a", closing.URL+"/b")
	if !strings.Contains(errOut, "session resumed") || strings.Contains(errNoID, "session resumed") {
		t.Errorf("without --no-sessionid:\n%s\nwith it:\n%s", errOut, errNoID)
	}

	srv := ftptest.NewUnstartedServer(fstest.MapFS{"f.txt": {Data: []byte("ftps body\n"), Mode: 0o644}})
	srv.StartTLS(true)
	defer srv.Close()
	srv.TLS.ClientAuth = tls.RequireAndVerifyClientCert
	srv.TLS.ClientCAs = p.clientPool
	code, out, errOut := runProxy(t, "-sS", "-k", "-E", p.clientCert+":unused", "--key", p.clientKey, srv.URL+"/f.txt")
	if code != 0 || out != "ftps body\n" {
		t.Errorf("ftps with a client certificate: exit %d, out %q (%s)", code, out, errOut)
	}
	if code, _, _ := runProxy(t, "-sS", "-k", srv.URL+"/f.txt"); code == 0 {
		t.Errorf("ftps without the client certificate the server requires: exit 0")
	}
}

// TestConnectHeaders checks that -i and -D show the proxy's answer to
// CONNECT before the site's response, unless --suppress-connect-headers,
// and that curl shows the same status lines.
func TestConnectHeaders(t *testing.T) {
	clearProxyEnv(t)
	p := newPKI(t)
	site := p.tlsSite(t, nil)
	hp := proxytest.NewHTTPProxy(false)
	defer hp.Close()
	statusLines := func(out string) []string {
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "HTTP/") {
				lines = append(lines, strings.TrimSpace(l))
			}
		}
		return lines
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-i"}, []string{"HTTP/1.1 200 Connection established", "HTTP/1.1 200 OK"}},
		{[]string{"-D", "-", "-o", os.DevNull}, []string{"HTTP/1.1 200 Connection established", "HTTP/1.1 200 OK"}},
		{[]string{"-i", "--suppress-connect-headers"}, []string{"HTTP/1.1 200 OK"}},
	} {
		// HTTP/1.1 on both sides: urlget offers no h2 with --no-alpn,
		// curl with --http1.1.
		args := append(append([]string{"-sS", "--cacert", p.caFile, "-x", hp.URL}, c.args...), site.URL+"/")
		code, out, errOut := runProxy(t, append([]string{"--no-alpn"}, args...)...)
		if got := statusLines(out); code != 0 || strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%v: exit %d, status lines %q, want %q (%s)", c.args, code, got, c.want, errOut)
		}
		if curl, err := lookCurl(t); err == nil {
			cmd := exec.Command(curl, append([]string{"--http1.1"}, args...)...)
			cmd.Env = append(os.Environ(), "https_proxy=", "HTTPS_PROXY=", "all_proxy=", "ALL_PROXY=")
			out, err := cmd.Output()
			if got := statusLines(string(out)); err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("curl %v: %v, status lines %q, want %q", c.args, err, got, c.want)
			}
		}
	}
}
