package cli

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// hstsServer is an https server on 127.0.0.1 that sends sts as its
// Strict-Transport-Security field; it counts the requests that came over
// TLS and those that did not.
func hstsServer(t *testing.T, sts string, tls bool) (port string, secure *atomic.Int32) {
	t.Helper()
	n := new(atomic.Int32)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil {
			n.Add(1)
		}
		if sts != "" {
			w.Header().Set("Strict-Transport-Security", sts)
		}
		fmt.Fprintln(w, "hello")
	})
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	_, port, _ = net.SplitHostPort(srv.Listener.Addr().String())
	return port, n
}

// TestHSTSUpgrades: with --hsts, an http URL of a host the cache knows
// goes over https, and the field an https response sends is written back
// in curl's format; a field sent over plain http is not taken (RFC 6797
// §8.1).
func TestHSTSUpgrades(t *testing.T) {
	port, secure := hstsServer(t, "max-age=31536000; includeSubDomains", true)
	dir := t.TempDir()
	file := filepath.Join(dir, "hsts.txt")
	if err := os.WriteFile(file, []byte("hsts.test \"unlimited\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url := "http://hsts.test:" + port + "/x"
	code, out, errOut := runArgs(t, "-v", "-k", "--hsts", file, "--resolve", "hsts.test:"+port+":127.0.0.1", url)
	if code != 0 || out != "hello\n" || secure.Load() != 1 {
		t.Fatalf("exit %d, stdout %q, %d requests over TLS; stderr:\n%s", code, out, secure.Load(), errOut)
	}
	if !strings.Contains(errOut, "Switched from HTTP to HTTPS due to HSTS => https://hsts.test:"+port+"/x") {
		t.Errorf("-v does not say the URL was switched:\n%s", errOut)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), "\n.hsts.test \"") {
		t.Errorf("the response's includeSubDomains is not in the file:\n%s", b)
	}

	// Over plain http the field is not taken.
	plain, _ := hstsServer(t, "max-age=31536000", false)
	code, _, errOut = runArgs(t, "-s", "--hsts", file, "--resolve", "plain.test:"+plain+":127.0.0.1", "http://plain.test:"+plain+"/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(file); strings.Contains(string(b), "plain.test") {
		t.Errorf("a field sent over http was taken:\n%s", b)
	}
}

// TestHSTSFileSharedWithCurl: a cache urlget wrote makes curl switch to
// https, and one curl wrote makes urlget switch: the file is curl's.
func TestHSTSFileSharedWithCurl(t *testing.T) {
	curl := curlPath(t)
	port, secure := hstsServer(t, "max-age=600", true)
	resolve := "share.test:" + port + ":127.0.0.1"
	url := "http://share.test:" + port + "/"
	dir := t.TempDir()

	// curl learns the host over https and writes its file.
	curlFile := filepath.Join(dir, "by-curl")
	if out, err := exec.Command(curl, "-sk", "--hsts", curlFile, "--resolve", resolve, "https://share.test:"+port+"/").CombinedOutput(); err != nil {
		t.Fatalf("curl: %v: %s", err, out)
	}
	code, out, errOut := runArgs(t, "-s", "-k", "--hsts", curlFile, "--resolve", resolve, url)
	if code != 0 || out != "hello\n" || secure.Load() != 2 {
		t.Fatalf("urlget with curl's file: exit %d, stdout %q, %d over TLS: %s", code, out, secure.Load(), errOut)
	}

	// urlget learns it and writes its file; curl switches with it.
	ourFile := filepath.Join(dir, "by-urlget")
	if code, _, errOut := runArgs(t, "-s", "-k", "--hsts", ourFile, "--resolve", resolve, "https://share.test:"+port+"/"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(curl, "-sSvk", "--hsts", ourFile, "--resolve", resolve, url)
	cmd.Stderr = &stderr
	body, err := cmd.Output()
	if err != nil || string(body) != "hello\n" || !strings.Contains(stderr.String(), "Switched from HTTP to HTTPS due to HSTS") {
		t.Errorf("curl with urlget's file: %v, body %q:\n%s", err, body, stderr.String())
	}
}
