package cli

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"github.com/urlget/urlget/fetch"
)

// TestSocketOptions checks on real sockets what --keepalive-time,
// --no-keepalive, --tcp-fastopen and --happy-eyeballs-timeout-ms set.
func TestSocketOptions(t *testing.T) {
	ln := silentListener(t)
	sockopt := func(c net.Conn, level, opt int) int {
		raw, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var v int
		raw.Control(func(fd uintptr) { v, err = unix.GetsockoptInt(int(fd), level, opt) })
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		args  []string
		check func(*connDialer, net.Conn) string
	}{
		{[]string{"--keepalive-time", "17"}, func(_ *connDialer, nc net.Conn) string {
			if sockopt(nc, unix.SOL_SOCKET, unix.SO_KEEPALIVE) != 1 || sockopt(nc, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE) != 17 || sockopt(nc, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL) != 17 {
				return "keepalive probes not after 17s"
			}
			return ""
		}},
		{[]string{"--no-keepalive"}, func(_ *connDialer, nc net.Conn) string {
			if sockopt(nc, unix.SOL_SOCKET, unix.SO_KEEPALIVE) != 0 {
				return "keepalive on"
			}
			return ""
		}},
		{[]string{"--tcp-fastopen"}, func(_ *connDialer, nc net.Conn) string {
			if sockopt(nc, unix.IPPROTO_TCP, unix.TCP_FASTOPEN_CONNECT) != 1 {
				return "TCP_FASTOPEN_CONNECT off"
			}
			return ""
		}},
		{[]string{"--happy-eyeballs-timeout-ms", "50"}, func(d *connDialer, _ net.Conn) string {
			if d.nd.FallbackDelay != 50*time.Millisecond {
				return "fallback delay " + d.nd.FallbackDelay.String()
			}
			return ""
		}},
	} {
		o := &options{}
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		addNetFlags(fs, &o.conn.net)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if err := o.conn.net.check(fs); err != nil {
			t.Fatal(err)
		}
		cl := &fetch.Client{}
		if err := o.conn.net.configure(o, cl); err != nil {
			t.Fatal(err)
		}
		d, ok := cl.Dialer.(*connDialer)
		if !ok {
			t.Fatalf("%v: dialer %T", c.args, cl.Dialer)
		}
		nc, err := d.DialContext(context.Background(), "tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if msg := c.check(d, nc); msg != "" {
			t.Errorf("%v: %s", c.args, msg)
		}
		nc.Close()
	}
	// Without any of the flags the client keeps its own dialer.
	o := &options{}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	addNetFlags(fs, &o.conn.net)
	o.conn.net.check(fs)
	cl := &fetch.Client{}
	o.conn.net.configure(o, cl)
	if cl.Dialer != nil {
		t.Errorf("a dialer of its own without the flags: %T", cl.Dialer)
	}
}
