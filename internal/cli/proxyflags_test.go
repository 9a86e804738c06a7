package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/integration/proxytest"
)

// clearProxyEnv empties the proxy variables for the test, so that the
// environment the tests run in cannot send them another way.
func clearProxyEnv(t *testing.T) {
	for _, n := range []string{"http_proxy", "https_proxy", "HTTPS_PROXY", "gopher_proxy", "GOPHER_PROXY",
		"all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"} {
		t.Setenv(n, "")
	}
}

// runProxy runs the command with args and returns its status, stdout and
// stderr.
func runProxy(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, nil, &out, &errOut)
	return code, out.String(), errOut.String()
}

// proxySite starts an https site that answers "site body".
func proxySite(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "site body") }))
	t.Cleanup(s.Close)
	return s
}

// TestProxyExitCodes checks curl's exit codes for a proxy's failures: 7
// when it refuses the connection, 56 when it refuses CONNECT (with its
// status line), 97 when the SOCKS handshake fails, 5 when its name does
// not resolve.
func TestProxyExitCodes(t *testing.T) {
	clearProxyEnv(t)
	site := proxySite(t)
	closed := proxytest.ClosedAddr()
	if code, _, errOut := runProxy(t, "-k", "-x", "http://"+closed, site.URL+"/"); code != exitConnect {
		t.Errorf("closed proxy: exit %d, want %d (%s)", code, exitConnect, errOut)
	}

	refusing := proxytest.NewHTTPProxy(false)
	refusing.Refuse = http.StatusForbidden
	defer refusing.Close()
	code, _, errOut := runProxy(t, "-k", "-x", refusing.URL, site.URL+"/")
	if code != exitProxyTunnel || !strings.Contains(errOut, "proxy CONNECT failed: 403 Forbidden") {
		t.Errorf("refused CONNECT: exit %d, stderr %q; want %d and the proxy's status", code, errOut, exitProxyTunnel)
	}

	socks := proxytest.NewSOCKS()
	socks.Fail = 5
	defer socks.Close()
	for _, kind := range []string{"socks4a", "socks5h"} {
		if code, _, errOut := runProxy(t, "-k", "-x", kind+"://"+socks.Addr(), site.URL+"/"); code != exitProxy {
			t.Errorf("%s refusing: exit %d, want %d (%s)", kind, code, exitProxy, errOut)
		}
	}

	// A proxy name that does not resolve, through a Dialer that resolves
	// nothing, so that no resolver is asked.
	p, _ := fetch.ParseProxy("http://proxy.example")
	c := &fetch.Client{Proxy: fetch.ProxyURL(p, ""), Dialer: proxytest.Unresolvable{}}
	defer c.Close()
	_, err := c.Fetch(context.Background(), "gopher://127.0.0.1:1/")
	if code := exitCode(err); code != exitProxyResolve {
		t.Errorf("proxy name not resolving: exit %d, want %d (%v)", code, exitProxyResolve, err)
	}
	if code, _, errOut := runProxy(t, "-x", "ftp://proxy.example", site.URL+"/"); code != exitUsage || !strings.Contains(errOut, "--proxy") {
		t.Errorf("-x with an unknown kind: exit %d, stderr %q", code, errOut)
	}
}

// TestProxyTraceMasked checks that -v shows the proxy conversation with
// the proxy's credentials masked: the absolute form (http), CONNECT by
// net/http (https), the tunnel of another scheme (gopher through -p) and
// SOCKS5.
func TestProxyTraceMasked(t *testing.T) {
	clearProxyEnv(t)
	site := proxySite(t)
	hp := proxytest.NewHTTPProxy(false)
	hp.User, hp.Pass = "puser", "s3cret"
	defer hp.Close()
	sp := proxytest.NewSOCKS()
	sp.User, sp.Pass = "puser", "s3cret"
	defer sp.Close()
	gopherSite := proxytest.ClosedAddr()
	encoded := base64.StdEncoding.EncodeToString([]byte("puser:s3cret"))
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer plain.Close()

	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-x", "http://puser:s3cret@" + hp.Listener.Addr().String(), site.URL + "/"},
			[]string{"> CONNECT " + site.Listener.Addr().String() + " HTTP/1.1", "> Proxy-Authorization: Basic ****", "< HTTP/1.1 200 Connection established"}},
		{[]string{"-x", "http://puser:s3cret@" + hp.Listener.Addr().String(), plain.URL + "/p"},
			[]string{"Using proxy http://puser:****@", "> GET " + plain.URL + "/p HTTP/1.1", "> Proxy-Authorization: Basic ****", "< HTTP/1.1 200 OK"}},
		{[]string{"-p", "-x", hp.URL, "-U", "puser:s3cret", "gopher://" + gopherSite + "/"},
			[]string{"> CONNECT " + gopherSite + " HTTP/1.1", "> Proxy-Authorization: Basic ****", "< HTTP/1.1 502 Bad Gateway"}},
		{[]string{"-x", "socks5h://puser:s3cret@" + sp.Addr(), site.URL + "/"},
			[]string{"SOCKS5 authentication (RFC 1929) as puser, password ****", "SOCKS5 CONNECT " + site.Listener.Addr().String(), "SOCKS5 request granted"}},
	} {
		_, _, errOut := runProxy(t, append([]string{"-k", "-v"}, c.args...)...)
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: -v lacks %q:\n%s", c.args, w, errOut)
			}
		}
		if strings.Contains(errOut, "s3cret") || strings.Contains(errOut, encoded) {
			t.Errorf("%v: -v shows the proxy's password:\n%s", c.args, errOut)
		}
	}
}

// TestProxyEnvironmentCommand checks that the command follows the
// environment (a scheme's variable, all_proxy) and that -x "" and
// --noproxy override it.
func TestProxyEnvironmentCommand(t *testing.T) {
	clearProxyEnv(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "site body") }))
	defer site.Close()
	_, port, _ := net.SplitHostPort(site.Listener.Addr().String())
	hosts := proxytest.Hosts{"site.example": "127.0.0.1"}
	hp := proxytest.NewHTTPProxy(false)
	hp.Hosts = hosts
	defer hp.Close()
	sp := proxytest.NewSOCKS()
	sp.Hosts = hosts
	defer sp.Close()
	named := "http://site.example:" + port + "/"

	t.Setenv("http_proxy", hp.URL)
	if code, out, errOut := runProxy(t, named); code != 0 || out != "site body" {
		t.Fatalf("through http_proxy: exit %d, %q, %s", code, out, errOut)
	}
	if log := hp.Log(); len(log) != 1 || log[0].Target != named {
		t.Errorf("http_proxy's log %v, want one GET %s", log, named)
	}
	t.Setenv("http_proxy", "")
	t.Setenv("all_proxy", "socks5h://"+sp.Addr())
	if code, out, errOut := runProxy(t, named); code != 0 || out != "site body" {
		t.Fatalf("through all_proxy: exit %d, %q, %s", code, out, errOut)
	}
	if log := sp.Log(); len(log) != 1 || log[0].Target != "site.example:"+port {
		t.Errorf("all_proxy's log %v, want a SOCKS5 request for site.example:%s", log, port)
	}
	// -x "" and --noproxy send loopback URLs direct past a proxy that is
	// not there.
	t.Setenv("all_proxy", "")
	closed := proxytest.ClosedAddr()
	for _, args := range [][]string{
		{"-x", "http://" + closed, "--noproxy", "127.0.0.1", site.URL + "/"},
		{"-x", "http://" + closed, "--noproxy", "*", site.URL + "/"},
		{"-x", "", site.URL + "/"},
	} {
		if code, out, errOut := runProxy(t, args...); code != 0 || out != "site body" {
			t.Errorf("%v: exit %d, %q, %s", args, code, out, errOut)
		}
	}
}

// TestProxySilent checks that a proxy that accepts the connection and
// then says nothing is bounded by --connect-timeout, like a silent
// server: CONNECT and the SOCKS handshakes wait no longer.
func TestProxySilent(t *testing.T) {
	clearProxyEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	for _, kind := range []string{"http", "socks5h", "socks4a"} {
		start := time.Now()
		code, _, errOut := runProxy(t, "--connect-timeout", "1", "-x", kind+"://"+ln.Addr().String(), "gopher://127.0.0.1:1/")
		if code != exitTimeout || !strings.Contains(errOut, "no reply from the proxy within 1s") {
			t.Errorf("%s proxy saying nothing: exit %d, stderr %q; want %d, naming the proxy", kind, code, errOut, exitTimeout)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s proxy saying nothing: the run took %s with --connect-timeout 1", kind, d)
		}
	}
}
