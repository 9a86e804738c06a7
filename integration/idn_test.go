package integration

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/integration/internal/testnet"
)

// TestIDNCertificate fetches https://bücher.example/ through a Client whose
// Resolve entry points the name at 127.0.0.1, from a server whose
// certificate names only the A-labels: the certificate is checked against
// the name the client sent as its TLS server name, the A-labels, and a
// redirect to another international name is followed under its A-labels.
func TestIDNCertificate(t *testing.T) {
	var mu sync.Mutex
	var sni, hosts []string
	cert, leaf := testnet.SelfSigned("idn", "xn--bcher-kva.example", "xn--fa-hia.example")
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sni, hosts = append(sni, r.TLS.ServerName), append(hosts, r.Host)
		mu.Unlock()
		if r.URL.Path == "/go" {
			// A Location with the name in Unicode, as a server may send.
			http.Redirect(w, r, "https://faß.example:"+r.URL.Query().Get("port")+"/there", http.StatusFound)
			return
		}
		io.WriteString(w, "ok")
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	var entries []fetch.ResolveEntry
	for _, s := range []string{"bücher.example:" + port + ":127.0.0.1", "xn--fa-hia.example:" + port + ":127.0.0.1"} {
		e, err := fetch.ParseResolve(s)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	c := &fetch.Client{TLSConfig: &tls.Config{RootCAs: roots}, Resolve: entries}
	defer c.Close()

	res, err := c.Fetch(testCtx(t), "https://bücher.example:"+port+"/go?port="+port)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || string(body) != "ok" {
		t.Fatalf("body %q, %v", body, err)
	}
	if want := "https://xn--fa-hia.example:" + port + "/there"; res.URL != want {
		t.Errorf("final URL %q, want %q", res.URL, want)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"xn--bcher-kva.example", "xn--fa-hia.example"}
	if len(sni) != 2 || sni[0] != want[0] || sni[1] != want[1] {
		t.Errorf("TLS server names %q, want %q", sni, want)
	}
	if len(hosts) != 2 || hosts[0] != want[0]+":"+port || hosts[1] != want[1]+":"+port {
		t.Errorf("Host headers %q, want %q with port %s", hosts, want, port)
	}
}
