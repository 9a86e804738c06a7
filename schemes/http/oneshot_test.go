package http

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
)

// recordDialer records the address it is asked for and connects nowhere.
type recordDialer struct{ addrs []string }

var errNoDial = errors.New("test dialer does not connect")

func (d *recordDialer) DialContext(_ context.Context, _, addr string) (net.Conn, error) {
	d.addrs = append(d.addrs, addr)
	return nil, errNoDial
}

func TestOneShotAddress(t *testing.T) {
	for raw, want := range map[string]string{
		"http://example.test/x":      "example.test:80",
		"http://example.test:8080/x": "example.test:8080",
		"http://[::1]/":              "[::1]:80",
		"http://[fe80::1%25eth0]:81": "[fe80::1%eth0]:81",
	} {
		d := &recordDialer{}
		o := &oneShot{dialer: d}
		r, err := http.NewRequest(http.MethodGet, raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.RoundTrip(r); !errors.Is(err, errNoDial) {
			t.Errorf("%s: error %v", raw, err)
		}
		if len(d.addrs) != 1 || d.addrs[0] != want {
			t.Errorf("%s: dialled %q, want %q", raw, d.addrs, want)
		}
	}
}

func TestOneShotRefusesBadHeader(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"User-Agent", "a\r\nX-Smuggled: 1"},
		{"User-Agent", "a\nb"},
		{"User-Agent", "a\x00b"},
		{"Bad Name", "v"},
		{"Bad:Name", "v"},
		{"", "v"},
		{"Ünicode", "v"},
	} {
		d := &recordDialer{}
		o := &oneShot{dialer: d}
		r, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/", nil)
		r.Header[tc.name] = []string{tc.value}
		_, err := o.RoundTrip(r)
		if err == nil || !strings.Contains(err.Error(), "invalid header field") {
			t.Errorf("%q: %q: error %v", tc.name, tc.value, err)
		}
		if len(d.addrs) != 0 {
			t.Errorf("%q: %q: dialled before refusing", tc.name, tc.value)
		}
	}
	if err := checkHeader(http.Header{"X-Ok_1.2~": {"any\tvalue with spaces"}}); err != nil {
		t.Errorf("a valid field refused: %v", err)
	}
}

func TestOneShotBodyClosesOnce(t *testing.T) {
	client, server := net.Pipe()
	defer server.Close()
	c := &shotConn{Conn: client}
	b := &shotBody{rc: http.NoBody, o: &oneShot{}, c: c, stop: func() bool { return true }}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := client.Write([]byte("x")); err == nil {
		t.Error("the connection of a body closed unread is still open")
	}
}
