package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// FuzzParseNetrc checks the .netrc reader: host names come out in lower
// case, what it reads writes back (every token quoted) and reads again the
// same, and Lookup finds a machine whatever the case of the host asked.
func FuzzParseNetrc(f *testing.F) {
	for _, s := range []string{
		"machine h login u password p\n",
		"machine H.Example login \"a b\" password \"p\\\"q\"\ndefault login anonymous password me@\n",
		"# comment\nmachine h\n\tlogin u\n\tpassword p\nmacdef init\ncd /pub\n\nmachine g login v\n",
		"default\n", "login u\n", "machine", "machine h password \"unterminated\n",
		"machine h login u password p account a\n", "machine \"\" login x\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		n, err := ParseNetrc(text)
		if err != nil {
			return
		}
		var b strings.Builder
		quote := func(s string) string {
			return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
		}
		for _, m := range n.Machines {
			if m.Name != strings.ToLower(m.Name) {
				t.Fatalf("%q: machine %q not in lower case", text, m.Name)
			}
			if m.Name == "" {
				b.WriteString("default")
			} else {
				b.WriteString("machine " + quote(m.Name))
			}
			b.WriteString(" login " + quote(m.User.Username()))
			if pw, ok := m.User.Password(); ok {
				b.WriteString(" password " + quote(pw))
			}
			b.WriteString("\n")
		}
		again, err := ParseNetrc(b.String())
		if err != nil || len(again.Machines) != len(n.Machines) {
			t.Fatalf("%q written as %q reads back as %+v, %v", text, b.String(), again, err)
		}
		for i := range n.Machines {
			if !sameMachine(again.Machines[i], n.Machines[i]) {
				t.Fatalf("%q: machine %+v reads back as %+v", text, n.Machines[i], again.Machines[i])
			}
		}
		// Host names reach Lookup in ASCII (IDNA A-labels), whose case
		// does not matter.
		at := func(name string) (uri.URL, bool) {
			if !strings.Contains(name, "://") {
				name = "ftp://" + name
			}
			u, err := uri.Parse(name + "/")
			return u, err == nil
		}
		for _, m := range n.Machines {
			upper, uok := at(asciiUpper(m.Name))
			lower, lok := at(m.Name)
			if !uok || !lok {
				continue
			}
			got, ok := n.Lookup(upper, nil, true)
			want, wok := n.Lookup(lower, nil, true)
			if ok != wok || !sameMachine(got, want) {
				t.Fatalf("%q: Lookup(%q) = %+v, Lookup(%q) = %+v", text, upper, got, lower, want)
			}
		}
	})
}

// sameMachine compares two entries by name, login and password; an entry
// written back always has a login, "" where the first had none.
func sameMachine(a, b NetrcMachine) bool {
	ap, aok := a.User.Password()
	bp, bok := b.User.Password()
	return a.Name == b.Name && a.User.Username() == b.User.Username() && ap == bp && aok == bok
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// scriptConn is a proxy's side of a connection: it answers with its
// bytes, whatever it is sent.
type scriptConn struct {
	r    *bytes.Reader
	sent bytes.Buffer
}

func (c *scriptConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *scriptConn) Write(p []byte) (int, error) { return c.sent.Write(p) }
func (c *scriptConn) Close() error                { return nil }
func (c *scriptConn) LocalAddr() net.Addr         { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }
func (c *scriptConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1080}
}
func (c *scriptConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptConn) SetWriteDeadline(time.Time) error { return nil }
func (c *scriptConn) consumed(total int) int           { return total - c.r.Len() }
func newScriptConn(data []byte) *scriptConn            { return &scriptConn{r: bytes.NewReader(data)} }
func proxyDialerFor(proxyURL string) *proxyDialer {
	return &proxyDialer{proxy: &Proxy{URL: uri.MustParse(proxyURL)}, req: &schemes.Request{URL: uri.MustParse("http://example.com/")}}
}
func handshakeWith(d *proxyDialer, c net.Conn, address string) (net.Conn, error) {
	return d.handshake(context.Background(), c, address)
}

// checkHandshakeErr holds a failed handshake to the taxonomy, and its
// text to no password of the proxy's.
func checkHandshakeErr(t *testing.T, err error) {
	t.Helper()
	var e *schemes.Error
	if !errors.As(err, &e) {
		t.Fatalf("handshake error outside the taxonomy: %v", err)
	}
	if strings.Contains(err.Error(), "proxysecret") {
		t.Fatalf("handshake error shows the proxy's password: %v", err)
	}
}

// FuzzSOCKS4Reply reads a proxy's answer to a SOCKS4 or SOCKS4a request:
// the connection is granted only by an eight-byte reply whose code is 90,
// and no byte after those eight, the server's own, is taken.
func FuzzSOCKS4Reply(f *testing.F) {
	f.Add([]byte{0, 90, 0, 80, 127, 0, 0, 1}, true)
	f.Add([]byte{0, 90, 0, 80, 127, 0, 0, 1, '2', '2', '0'}, false)
	f.Add([]byte{0, 91, 0, 0, 0, 0, 0, 0}, false)
	f.Add([]byte{0, 90, 0, 80}, true)
	f.Add([]byte{}, false)
	f.Fuzz(func(t *testing.T, data []byte, named bool) {
		d, address := proxyDialerFor("socks4://user:proxysecret@proxy.example"), "127.0.0.1:80"
		if named {
			d, address = proxyDialerFor("socks4a://user@proxy.example"), "example.com:80"
		}
		c := newScriptConn(data)
		_, err := handshakeWith(d, c, address)
		if err != nil {
			checkHandshakeErr(t, err)
			return
		}
		if n := c.consumed(len(data)); n != 8 || data[1] != 90 {
			t.Fatalf("granted on %q, %d bytes read", data, n)
		}
		if bytes.Contains(c.sent.Bytes(), []byte("proxysecret")) {
			t.Fatalf("the password went out in the SOCKS4 request: %q", c.sent.Bytes())
		}
	})
}

// FuzzSOCKS5Reply reads a proxy's answers to a SOCKS5 conversation (RFC
// 1928, with RFC 1929 username and password): the connection is granted
// only after a method choice, the authentication's success when a user is
// given, and a reply "succeeded" as long as RFC 1928 §6's format for its
// address type; nothing after that reply is taken.
func FuzzSOCKS5Reply(f *testing.F) {
	f.Add([]byte{5, 0, 5, 0, 0, 1, 127, 0, 0, 1, 0, 80}, false)
	f.Add([]byte{5, 2, 1, 0, 5, 0, 0, 1, 127, 0, 0, 1, 0, 80, 'S', 'S', 'H'}, true)
	f.Add([]byte{5, 0, 5, 0, 0, 3, 4, 'h', 'o', 's', 't', 0, 80}, false)
	f.Add([]byte{5, 0, 5, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 80}, false)
	f.Add([]byte{5, 0, 5, 0, 0, 1, 127, 0}, false)
	f.Add([]byte{5, 0, 5, 1, 0, 1, 0, 0, 0, 0, 0, 0}, false)
	f.Add([]byte{5, 0xff}, true)
	f.Add([]byte{5, 2, 1, 1}, true)
	f.Add([]byte{5, 0, 5, 0, 0, 9, 0, 0}, false)
	f.Fuzz(func(t *testing.T, data []byte, auth bool) {
		proxyURL := "socks5h://proxy.example"
		if auth {
			proxyURL = "socks5h://user:proxysecret@proxy.example"
		}
		c := newScriptConn(data)
		_, err := handshakeWith(proxyDialerFor(proxyURL), c, "example.com:80")
		if err != nil {
			checkHandshakeErr(t, err)
			return
		}
		// The method choice, then RFC 1929's status when that method was
		// chosen, then the reply.
		if len(data) < 2 || data[0] != 5 {
			t.Fatalf("granted on %q without a method choice", data)
		}
		// Only a method offered (RFC 1928 §3): none, and RFC 1929's
		// with a user.
		off := 2
		if data[1] != 0 && !(auth && data[1] == 2) {
			t.Fatalf("granted on %q after method %d, which was not offered", data, data[1])
		}
		if data[1] == 2 {
			if len(data) < off+2 || data[off+1] != 0 {
				t.Fatalf("granted on %q after a failed authentication", data)
			}
			off += 2
		}
		if len(data) < off+4 || data[off] != 5 || data[off+1] != 0 {
			t.Fatalf("granted on %q without a reply \"succeeded\"", data)
		}
		addrLen := 0
		switch data[off+3] {
		case 1:
			addrLen = net.IPv4len
		case 4:
			addrLen = net.IPv6len
		case 3:
			if len(data) < off+5 {
				t.Fatalf("granted on %q without the name's length", data)
			}
			addrLen = 1 + int(data[off+4])
		default:
			t.Fatalf("granted on %q with address type %d", data, data[off+3])
		}
		want := off + 4 + addrLen + 2
		if n := c.consumed(len(data)); n != want || len(data) < want {
			t.Fatalf("granted on %q having read %d bytes; the reply ends at %d", data, n, want)
		}
	})
}

// FuzzConnectReply reads an HTTP proxy's answer to CONNECT (RFC 9110
// §9.3.6): the tunnel opens only on a 2xx status, and hands on every byte
// after the reply's header, the server's own (an FTP greeting in the same
// segment), and none of the header.
func FuzzConnectReply(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nProxy-Agent: x\r\n\r\n220 ready\r\n"))
	f.Add([]byte("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello"))
	f.Add([]byte("HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\n\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\n"))
	f.Add([]byte("SSH-2.0-OpenSSH\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newScriptConn(data)
		tun, err := handshakeWith(proxyDialerFor("http://user:proxysecret@proxy.example:3128"), c, "example.com:21")
		if err != nil {
			checkHandshakeErr(t, err)
			return
		}
		rest, err := io.ReadAll(tun)
		if err != nil {
			t.Fatal(err)
		}
		head := data[:len(data)-len(rest)]
		if !bytes.HasSuffix(data, rest) || !bytes.HasSuffix(head, []byte("\n\n")) && !bytes.HasSuffix(head, []byte("\n\r\n")) {
			t.Fatalf("%q: the tunnel gives %q", data, rest)
		}
		code, err := strconv.Atoi(string(bytes.Fields(head)[1]))
		if err != nil || code/100 != 2 {
			t.Fatalf("%q: tunnel opened on status %q", data, bytes.Fields(head)[1])
		}
	})
}

// FuzzNoProxy checks no_proxy and --noproxy matching, for -x and for the
// environment: a host and its upper-cased form (RFC 3986 §3.2.2: the host
// is case-insensitive) go the same way, "*" sends everything direct, and
// a list naming a host sends that host direct.
func FuzzNoProxy(f *testing.F) {
	for _, s := range [][2]string{
		{"example.com", "example.com"}, {".example.com", "www.EXAMPLE.com"}, {"*", "h"},
		{"10.0.0.0/8", "10.1.2.3"}, {"localhost", "LOCALHOST"}, {"127.0.0.1:8080", "127.0.0.1:8080"},
		{"[::1]", "[::1]"}, {"EXAMPLE.COM:443", "example.com:443"}, {" a , b ,", "B"},
		{"example.com", "example.com."}, {"xn--bcher-kva.example", "b%C3%BCcher.example"},
	} {
		f.Add(s[0], s[1])
	}
	p := &Proxy{URL: uri.MustParse("http://proxy.example:3128")}
	f.Fuzz(func(t *testing.T, noProxy, hostport string) {
		u, err := uri.Parse("http://" + hostport + "/")
		if err != nil {
			return
		}
		upper, err := uri.Parse("http://" + asciiUpper(hostport) + "/")
		if err != nil {
			t.Fatalf("%q parses, upper-cased it does not: %v", hostport, err)
		}
		env := map[string]string{"http_proxy": "http://proxy.example:3128", "no_proxy": noProxy}
		policies := map[string]func(uri.URL) (*Proxy, error){
			"-x":          ProxyURL(p, noProxy),
			"environment": envPolicy(func(k string) string { return env[k] }, "", false),
			"--noproxy":   envPolicy(func(k string) string { return env[k] }, noProxy, true),
		}
		for name, policy := range policies {
			a, aerr := policy(u)
			b, berr := policy(upper)
			if (a == nil) != (b == nil) || (aerr == nil) != (berr == nil) {
				t.Fatalf("%s, no_proxy %q: %q goes to %v, %q to %v", name, noProxy, u, a, upper, b)
			}
			if strings.TrimSpace(noProxy) == "*" && a != nil {
				t.Fatalf("%s, no_proxy \"*\": %q proxied", name, u)
			}
			if a != nil && isPlainName(u.Hostname()) && hasEntry(noProxy, u.Hostname()) {
				t.Fatalf("%s, no_proxy %q: %q proxied", name, noProxy, u)
			}
		}
		if host := u.Hostname(); isPlainName(host) {
			if q, _ := ProxyURL(p, host+","+noProxy)(u); q != nil {
				t.Fatalf("-x, no_proxy %q: %q proxied", host+","+noProxy, u)
			}
		}
	})
}

// isPlainName tells a host name of letters, digits, '-' and inner dots.
func isPlainName(h string) bool {
	if h == "" || h[0] == '.' || h[len(h)-1] == '.' || strings.Contains(h, "..") {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// hasEntry tells whether list names host itself, without a port.
func hasEntry(list, host string) bool {
	for _, e := range strings.Split(list, ",") {
		if strings.EqualFold(strings.TrimSpace(e), host) {
			return true
		}
	}
	return false
}

// FuzzParseResolve checks --resolve's reader: an entry it accepts names a
// port from 1 to 65535 in plain decimal, a host in lower-case ASCII (or
// "*"), and one or more addresses with no zone, IPv4 unmapped; written
// back in the same syntax it reads the same.
func FuzzParseResolve(f *testing.F) {
	for _, s := range []string{
		"example.com:443:127.0.0.1", "+example.com:80:[::1],127.0.0.2", "*:80:127.0.0.1",
		"Bücher.Example:8080:::ffff:127.0.0.1", "-example.com:80", "h:0:127.0.0.1", "h:065535:1.2.3.4",
		"h:+80:1.2.3.4", "h:80:fe80::1%eth0", "h:80:", "h:80:1.2.3.4,,", ":80:1.2.3.4", "[::1]:80:::1",
		"h:80: 127.0.0.1 , [::1] ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseResolve(s)
		if err != nil {
			var re *ResolveError
			if !errors.As(err, &re) || re.Entry != s {
				t.Fatalf("%q: error %v", s, err)
			}
			return
		}
		if n, err := strconv.Atoi(e.Port); err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != e.Port {
			t.Fatalf("%q: port %q", s, e.Port)
		}
		if e.Host != "*" && (e.Host == "" || e.Host != strings.ToLower(e.Host) || strings.Contains(e.Host, ":")) {
			t.Fatalf("%q: host %q", s, e.Host)
		}
		for _, c := range []byte(e.Host) {
			if c >= 0x80 {
				t.Fatalf("%q: host %q is not ASCII", s, e.Host)
			}
		}
		if len(e.Addrs) == 0 {
			t.Fatalf("%q: no address", s)
		}
		var addrs []string
		for _, a := range e.Addrs {
			if a.Zone() != "" || a.Is4In6() || !a.IsValid() {
				t.Fatalf("%q: address %v", s, a)
			}
			if a.Is6() {
				addrs = append(addrs, "["+a.String()+"]")
			} else {
				addrs = append(addrs, a.String())
			}
		}
		text := e.Host + ":" + e.Port + ":" + strings.Join(addrs, ",")
		again, err := ParseResolve(text)
		if err != nil || again.Host != e.Host || again.Port != e.Port || len(again.Addrs) != len(e.Addrs) {
			t.Fatalf("%q written as %q reads back as %+v, %v", s, text, again, err)
		}
		for i := range e.Addrs {
			if again.Addrs[i] != e.Addrs[i] {
				t.Fatalf("%q written as %q reads back as %+v", s, text, again)
			}
		}
	})
}

// TestSOCKS5MethodNotOffered: a proxy that chooses username and password
// authentication (RFC 1929) when the client offered none gets no request.
func TestSOCKS5MethodNotOffered(t *testing.T) {
	c := newScriptConn([]byte{5, 2, 1, 0, 5, 0, 0, 1, 127, 0, 0, 1, 0, 80})
	_, err := handshakeWith(proxyDialerFor("socks5h://proxy.example"), c, "example.com:80")
	var e *schemes.Error
	if !errors.As(err, &e) || e.Kind != schemes.ErrProxyHandshake || !strings.Contains(err.Error(), "method 2, which was not offered") {
		t.Fatalf("handshake: %v", err)
	}
	if sent := c.sent.Bytes(); !bytes.Equal(sent, []byte{5, 1, 0}) {
		t.Fatalf("sent %q; want the greeting alone", sent)
	}
}
