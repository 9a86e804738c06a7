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

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/integration/proxytest"
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
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	sum := sha256.Sum256(p.serverSPKI)
	pin := "sha256//" + base64.StdEncoding.EncodeToString(sum[:])
	other := "sha256//" + base64.StdEncoding.EncodeToString(make([]byte, 32))
	ca := []string{"--cacert", p.caFile}
	client := []string{"-E", p.clientCert, "--key", p.clientKey}
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
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	clearProxyEnv(t)
	p := newPKI(t)
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
	mux := gophertest.NewMux()
	mux.Handle("/g.txt", gophertest.Text("gopher body\n"))
	gs := gophertest.NewServer(mux)
	t.Cleanup(gs.Close)
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
