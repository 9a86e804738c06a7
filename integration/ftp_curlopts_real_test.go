package integration

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/ftp"
)

// TestRealFTPCurlOptions: curl's FTP options as the Fetcher carries them,
// against every real server: NLST names alone (-l), quote commands before
// and after the walk and the transfer (-Q), a refused one (ErrQuote, and
// "*" letting it fail), TYPE A (-B), PASV only (--disable-epsv), and the
// last reply's code (226) on the resource once its body is read.
func TestRealFTPCurlOptions(t *testing.T) {
	eachRealFTP(t, func(t *testing.T, e realFTP) {
		dir := writeFTPTree(t, e.root, "curlopts")
		base := "ftp://" + e.addr + dir
		run := func(f *ftp.Fetcher, path string) (string, int, error) {
			t.Helper()
			defer f.Close()
			res, err := f.Fetch(ftpContext(t, 20*time.Second), ftpRequest(t, base+path))
			if err != nil {
				return "", 0, err
			}
			body, err := readResource(res)
			return body, res.StatusCode, err
		}

		body, code, err := run(&ftp.Fetcher{ListOnly: true}, "one/")
		if err != nil || body != "only.txt\n" || code != 226 {
			t.Errorf("ListOnly: %q, %d, %v", body, code, err)
		}
		body, code, err = run(&ftp.Fetcher{Quote: []string{"NOOP"}, PreQuote: []string{"SYST"}, PostQuote: []string{"*BOGUSCMD", "NOOP"}}, "one/only.txt")
		if err != nil || body != "only\n" || code != 200 {
			t.Errorf("quote commands: %q, code %d, %v", body, code, err)
		}
		for _, f := range []*ftp.Fetcher{{Quote: []string{"BOGUSCMD"}}, {PreQuote: []string{"BOGUSCMD"}}, {PostQuote: []string{"BOGUSCMD"}}} {
			if _, _, err := run(f, "one/only.txt"); !errors.Is(err, ftp.ErrQuote) {
				t.Errorf("a refused quote command (%q %q %q): %v, want ErrQuote", f.Quote, f.PreQuote, f.PostQuote, err)
			}
		}
		body, _, err = run(&ftp.Fetcher{ASCII: true}, "text/lf.txt")
		if err != nil || body != "one\ntwo\n" {
			t.Errorf("ASCII: %q, %v", body, err)
		}
		body, _, err = run(&ftp.Fetcher{ASCII: true}, "bin/all.bin;type=i")
		if err != nil || len(body) != 1<<20 {
			t.Errorf("ASCII with ;type=i: %d bytes, %v", len(body), err)
		}
		body, _, err = run(&ftp.Fetcher{NoEPSV: true}, "bin/all.bin")
		if err != nil || len(body) != 1<<20 {
			t.Errorf("NoEPSV: %d bytes, %v", len(body), err)
		}
	})
}

// TestVsftpdTLSOptions: --ssl's TryTLS and --ftp-ssl-control's
// ControlTLSOnly (PROT C, data in the clear) against vsftpd, which offers
// TLS without requiring it.
func TestVsftpdTLSOptions(t *testing.T) {
	e := vsftpd(t)
	dir := writeFTPTree(t, e.root, "tlsopts")
	pem, err := os.ReadFile(e.cert)
	if err != nil {
		t.Fatalf("URLGET_VSFTPD_CERT: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	for _, f := range []*ftp.Fetcher{{TryTLS: true}, {ControlTLSOnly: true}, {ControlTLSOnly: true, RequireTLS: true}} {
		var sent []string
		req := ftpRequest(t, "ftp://"+e.addr+dir+"one/only.txt")
		req.TLSConfig = &tls.Config{RootCAs: pool}
		req.Trace = func(d schemes.Direction, line string) {
			if d == schemes.Sent {
				sent = append(sent, line)
			}
		}
		body, err := fetchFTP(t, f, req)
		f.Close()
		if err != nil || body != "only\n" {
			t.Fatalf("%+v: %q, %v", f, body, err)
		}
		prot := "PROT P"
		if f.ControlTLSOnly {
			prot = "PROT C"
		}
		if !slices.Contains(sent, "AUTH TLS") || !slices.Contains(sent, prot) {
			t.Errorf("%+v sent %q, want AUTH TLS and %s", f, sent, prot)
		}
	}
}
