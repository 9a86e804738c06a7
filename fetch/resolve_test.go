package fetch

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

func TestParseResolve(t *testing.T) {
	tests := []struct {
		in    string
		host  string
		port  string
		addrs string
	}{
		{"example.com:443:127.0.0.1", "example.com", "443", "127.0.0.1"},
		{"Example.COM:80:127.0.0.1,127.0.0.2", "example.com", "80", "127.0.0.1 127.0.0.2"},
		{"bücher.example:8080:[::1]", "xn--bcher-kva.example", "8080", "::1"},
		{"xn--bcher-kva.example:8080:::1", "xn--bcher-kva.example", "8080", "::1"},
		{"+a.example:080:127.0.0.1, [::1]", "a.example", "80", "127.0.0.1 ::1"},
		{"*:443:127.0.0.1", "*", "443", "127.0.0.1"},
		{"v4.example:1:::ffff:127.0.0.1", "v4.example", "1", "127.0.0.1"},
	}
	for _, tt := range tests {
		e, err := ParseResolve(tt.in)
		var addrs []string
		for _, a := range e.Addrs {
			addrs = append(addrs, a.String())
		}
		if err != nil || e.Host != tt.host || e.Port != tt.port || strings.Join(addrs, " ") != tt.addrs {
			t.Errorf("ParseResolve(%q) = %+v, %v; want %s:%s:%s", tt.in, e, err, tt.host, tt.port, tt.addrs)
		}
	}
	bad := []struct{ in, why string }{
		{"example.com", "no port"},
		{"example.com:80", "no address"},
		{":80:127.0.0.1", "no host"},
		{"a:0:127.0.0.1", "not a number"},
		{"a:65536:127.0.0.1", "not a number"},
		{"a:http:127.0.0.1", "not a number"},
		{"a:80:localhost", `"localhost" is not an IP address`},
		{"a:80:127.0.0.1,", `"" is not an IP address`},
		{"a:80:[fe80::1%eth0]", "is not an IP address"},
		{"bü-.example:80:127.0.0.1", `bad host name "bü-.example": idna: invalid label`},
		{"-a.example:80", "removing an entry is not supported"},
	}
	for _, tt := range bad {
		_, err := ParseResolve(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.why) || !strings.HasPrefix(err.Error(), "bad resolve entry ") {
			t.Errorf("ParseResolve(%q) = %v, want an error with %q", tt.in, err, tt.why)
		}
	}
}

// TestBaseDialer dials a loopback listener through --resolve entries: the
// host's own entry before "*", the last entry for a host winning, the
// addresses tried in order, and an IP version that leaves none.
func TestBaseDialer(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
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
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	// 127.0.0.2 on the listener's port refuses: nothing listens there.
	entry := func(s string) ResolveEntry {
		e, err := ParseResolve(s)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	b := newBaseDialer(&net.Dialer{}, []ResolveEntry{
		entry("*:" + port + ":127.0.0.2"),
		entry("a.example:" + port + ":127.0.0.2"),
		entry("A.example:" + port + ":127.0.0.2,127.0.0.1"),
		// Made by hand, not by ParseResolve.
		{Host: "BÜCHER.example", Port: "0" + port, Addrs: []netip.Addr{netip.MustParseAddr("127.0.0.1")}},
	}, "")
	ctx := context.Background()
	for _, host := range []string{"a.example", "xn--bcher-kva.example", "bücher.example"} {
		c, err := b.DialContext(ctx, "tcp", net.JoinHostPort(host, port))
		if err != nil {
			t.Errorf("dial %s: %v", host, err)
			continue
		}
		if got := c.RemoteAddr().String(); got != ln.Addr().String() {
			t.Errorf("dial %s reached %s, want %s", host, got, ln.Addr())
		}
		c.Close()
	}
	if _, err := b.DialContext(ctx, "tcp", net.JoinHostPort("other.example", port)); err == nil || !strings.Contains(err.Error(), "127.0.0.2:"+port) {
		t.Errorf("dial other.example = %v, want the \"*\" entry's refused 127.0.0.2", err)
	}
	b6 := newBaseDialer(&net.Dialer{}, []ResolveEntry{entry("a.example:" + port + ":127.0.0.1")}, "tcp6")
	var dnsErr *net.DNSError
	if _, err := b6.DialContext(ctx, "tcp", net.JoinHostPort("a.example", port)); !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Errorf("-6 dial of an IPv4-only entry = %v, want a not-found look-up", err)
	}
	if got := b6.network("tcp"); got != "tcp6" {
		t.Errorf("network = %q, want tcp6", got)
	}
	if !b6.allows(netip.MustParseAddr("::1")) || b6.allows(netip.MustParseAddr("127.0.0.1")) {
		t.Error("-6 allows the wrong addresses")
	}
}
