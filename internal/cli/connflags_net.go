package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// netFlags are curl's flags of where and how a TCP connection is made.
type netFlags struct {
	connectTo      []string // --connect-to HOST1:PORT1:HOST2:PORT2
	iface          string   // --interface NAME|ADDR|if!NAME|host!NAME
	localPort      string   // --local-port N[-M]
	unixSocket     string   // --unix-socket PATH
	abstractSocket string   // --abstract-unix-socket PATH
	keepaliveTime  float64  // --keepalive-time SECONDS
	noKeepalive    bool     // --no-keepalive
	tcpNoDelay     bool     // --tcp-nodelay: Go's default
	tcpFastOpen    bool     // --tcp-fastopen
	eyeballsMS     int      // --happy-eyeballs-timeout-ms

	changed bool // any of them was given: the client gets a dialer of its own
}

func addNetFlags(fs *pflag.FlagSet, n *netFlags) {
	fs.StringArrayVar(&n.connectTo, "connect-to", nil, "connect to `HOST1:PORT1:HOST2:PORT2`'s second pair for the first (empty parts match any; TLS still checks HOST1)")
	fs.StringVar(&n.iface, "interface", "", "make connections from `name` (an interface, an address or a host name; if!NAME, host!NAME)")
	fs.StringVar(&n.localPort, "local-port", "", "make connections from a local port in `N[-M]`")
	fs.StringVar(&n.unixSocket, "unix-socket", "", "connect to the Unix domain socket `path` instead of the URL's host")
	fs.StringVar(&n.abstractSocket, "abstract-unix-socket", "", "connect to the abstract Unix domain socket `path` instead of the URL's host")
	fs.Float64Var(&n.keepaliveTime, "keepalive-time", 60, "send TCP keepalive probes after `seconds` idle, and as often after that")
	fs.BoolVar(&n.noKeepalive, "no-keepalive", false, "send no TCP keepalive probes")
	fs.BoolVar(&n.tcpNoDelay, "tcp-nodelay", true, "disable Nagle's algorithm (always so)")
	fs.BoolVar(&n.tcpFastOpen, "tcp-fastopen", false, "send the first bytes with the SYN (TCP Fast Open, RFC 7413)")
	fs.IntVar(&n.eyeballsMS, "happy-eyeballs-timeout-ms", 200, "try IPv4 after `ms` without an IPv6 connection (RFC 8305)")
	curlNote(fs, "tcp-nodelay", "no-op: Go's connections always have TCP_NODELAY")
	curlNote(fs, "tcp-fastopen", tcpFastOpenNote)
	curlNote(fs, "interface", "an interface is used by its first address (IPv4 first), not bound with SO_BINDTODEVICE")
	curlNote(fs, "connect-to", "applies to the host and port of every connection, a proxy's and FTP data connections' too, before --resolve")
	curlNote(fs, "unix-socket", "every connection goes to the socket, a proxy's too; refused for ftp: and ftps:, whose data connections need TCP")
	curlNote(fs, "abstract-unix-socket", "every connection goes to the socket, a proxy's too; refused for ftp: and ftps:, whose data connections need TCP")
}

// dialAttemptTimeout bounds one connection attempt without
// --connect-timeout, as fetch.Client's own dialer bounds it.
const dialAttemptTimeout = 30 * time.Second

// exitInterface is curl's exit 45: the local end --interface or
// --local-port names cannot be bound.
const exitInterface = 45

// connectTo is one --connect-to entry.
type connectTo struct{ host1, port1, host2, port2 string }

// parseConnectTo reads "HOST1:PORT1:HOST2:PORT2", each part possibly
// empty (any host or port on the left; the same on the right), an IPv6
// address in brackets.
func parseConnectTo(s string) (connectTo, error) {
	var parts []string
	rest := s
	for range 3 {
		var p string
		if strings.HasPrefix(rest, "[") {
			end := strings.Index(rest, "]")
			if end < 0 {
				return connectTo{}, fmt.Errorf("%q: unclosed [", s)
			}
			p, rest = rest[1:end], rest[end+1:]
			if !strings.HasPrefix(rest, ":") {
				return connectTo{}, fmt.Errorf("%q: expected HOST1:PORT1:HOST2:PORT2", s)
			}
			rest = rest[1:]
		} else {
			var ok bool
			if p, rest, ok = strings.Cut(rest, ":"); !ok {
				return connectTo{}, fmt.Errorf("%q: expected HOST1:PORT1:HOST2:PORT2", s)
			}
		}
		parts = append(parts, p)
	}
	parts = append(parts, rest)
	e := connectTo{host1: strings.ToLower(parts[0]), port1: parts[1], host2: strings.Trim(parts[2], "[]"), port2: parts[3]}
	for _, p := range []string{e.port1, e.port2} {
		if p == "" {
			continue
		}
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return connectTo{}, fmt.Errorf("%q: port %q is not a number from 1 to 65535", s, p)
		}
	}
	if e.host1 != "" {
		if a, err := uri.HostASCII(e.host1); err == nil {
			e.host1 = a
		}
	}
	return e, nil
}

// portRange is --local-port's N[-M].
func parsePortRange(s string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(s, "-")
	lo, err = strconv.Atoi(a)
	if err == nil && isRange {
		hi, err = strconv.Atoi(b)
	} else {
		hi = lo
	}
	if err != nil || lo < 1 || hi > 65535 || hi < lo {
		return 0, 0, fmt.Errorf("--local-port %q is not a port or a range N-M of ports from 1 to 65535", s)
	}
	return lo, hi, nil
}

func (n *netFlags) check(fs *pflag.FlagSet) error {
	for _, name := range []string{"connect-to", "interface", "local-port", "unix-socket", "abstract-unix-socket",
		"keepalive-time", "no-keepalive", "tcp-fastopen", "happy-eyeballs-timeout-ms"} {
		if fs.Changed(name) {
			n.changed = true
		}
	}
	for _, s := range n.connectTo {
		if _, err := parseConnectTo(s); err != nil {
			return fmt.Errorf("--connect-to %v", err)
		}
	}
	if n.localPort != "" {
		if _, _, err := parsePortRange(n.localPort); err != nil {
			return err
		}
	}
	if n.unixSocket != "" && n.abstractSocket != "" {
		return errors.New("--unix-socket and --abstract-unix-socket exclude each other")
	}
	if n.unixSocket != "" || n.abstractSocket != "" {
		// An FTP data connection is a second TCP connection to the
		// port a reply names (RFC 959 §3.2): a socket file has none.
		for _, u := range fs.Args() {
			if scheme, _, ok := strings.Cut(strings.ToLower(u), "://"); ok && (scheme == "ftp" || scheme == "ftps") {
				return fmt.Errorf("--unix-socket: %s: URLs cannot go through a Unix socket: their data connections need TCP", scheme)
			}
		}
	}
	if n.keepaliveTime < 0 || n.keepaliveTime > 1<<31 {
		return errors.New("--keepalive-time must be a number of seconds")
	}
	if n.eyeballsMS < 0 {
		return errors.New("--happy-eyeballs-timeout-ms must not be negative")
	}
	return nil
}

// configure gives the client a dialer of these flags, when any was given:
// without them the client's own dialer serves, as before.
func (n *netFlags) configure(o *options, cl *fetch.Client) error {
	if !n.changed {
		return nil
	}
	timeout := seconds(o.connectTime)
	if timeout <= 0 {
		timeout = dialAttemptTimeout
	}
	d := &connDialer{cl: cl, nd: net.Dialer{Timeout: timeout, FallbackDelay: time.Duration(n.eyeballsMS) * time.Millisecond}}
	if n.eyeballsMS == 0 {
		d.nd.FallbackDelay = time.Nanosecond // at once; 0 would mean Go's 300ms
	}
	switch {
	case n.noKeepalive:
		d.nd.KeepAlive = -1
	default:
		ka := seconds(n.keepaliveTime)
		if ka <= 0 {
			ka = time.Second
		}
		d.nd.KeepAliveConfig = net.KeepAliveConfig{Enable: true, Idle: ka, Interval: ka, Count: -1}
	}
	if n.tcpFastOpen {
		d.nd.Control = fastOpen
	}
	for _, s := range n.connectTo {
		e, _ := parseConnectTo(s)
		d.connectTo = append(d.connectTo, e)
	}
	if n.localPort != "" {
		d.portLo, d.portHi, _ = parsePortRange(n.localPort)
	}
	if n.iface != "" {
		ips, err := interfaceAddrs(n.iface)
		if err != nil {
			return &codedError{exitInterface, err}
		}
		d.local = ips
	}
	switch {
	case n.unixSocket != "":
		d.unix = n.unixSocket
	case n.abstractSocket != "":
		d.unix = "@" + n.abstractSocket // Linux's abstract namespace, as Go names it
	}
	cl.Dialer = d
	return nil
}

// interfaceAddrs is what --interface names: "if!NAME" an interface,
// "host!NAME" an address or host name, and a bare NAME an interface if
// there is one of that name, else an address or a host name, as curl
// reads it. An interface gives its addresses, link-local ones last.
func interfaceAddrs(s string) ([]net.IP, error) {
	kind, name, ok := strings.Cut(s, "!")
	if !ok || kind != "if" && kind != "host" {
		kind, name = "", s
	}
	if kind != "host" {
		if ifi, err := net.InterfaceByName(name); err == nil {
			addrs, err := ifi.Addrs()
			if err != nil {
				return nil, fmt.Errorf("--interface %s: %v", s, err)
			}
			var ips, late []net.IP
			for _, a := range addrs {
				if ipn, ok := a.(*net.IPNet); ok {
					if ipn.IP.IsLinkLocalUnicast() {
						late = append(late, ipn.IP)
					} else {
						ips = append(ips, ipn.IP)
					}
				}
			}
			if ips = append(ips, late...); len(ips) == 0 {
				return nil, fmt.Errorf("--interface %s: the interface has no address", s)
			}
			return ips, nil
		} else if kind == "if" {
			return nil, fmt.Errorf("--interface %s: no such interface", s)
		}
	}
	if ip := net.ParseIP(strings.Trim(name, "[]")); ip != nil {
		return []net.IP{ip}, nil
	}
	addrs, err := net.LookupIP(name)
	if err != nil || len(addrs) == 0 {
		return nil, fmt.Errorf("--interface %s: not an interface, an address or a host name that resolves", s)
	}
	return addrs, nil
}

// connDialer makes the connections of a client with curl's connection
// flags: to a Unix socket, to --connect-to's host and port, from
// --interface's address and --local-port's ports.
type connDialer struct {
	nd             net.Dialer
	connectTo      []connectTo
	local          []net.IP
	portLo, portHi int
	unix           string
	cl             *fetch.Client // for its Trace, set after the dialer
}

// bindError is a failure to bind the local end --interface and
// --local-port name: curl's exit 45.
type bindError struct{ err error }

func (e *bindError) Error() string { return "could not bind the local address: " + e.err.Error() }
func (e *bindError) Unwrap() error { return e.err }

func (d *connDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if d.unix != "" {
		// curl's --unix-socket: the URL's host names the server (Host,
		// TLS's server name), the socket is where it listens.
		return d.nd.DialContext(ctx, "unix", d.unix)
	}
	address = d.rewrite(address)
	if d.local == nil && d.portLo == 0 {
		return d.nd.DialContext(ctx, network, address)
	}
	host, _, _ := net.SplitHostPort(address)
	target := net.ParseIP(host)
	var ip net.IP
	for _, a := range d.local {
		// The local address of the target's family; for a name, the
		// first, which narrows the look-up to its family.
		if target == nil || (a.To4() != nil) == (target.To4() != nil) {
			ip = a
			break
		}
	}
	if ip == nil && d.local != nil {
		return nil, &bindError{fmt.Errorf("no local address of the family of %s", host)}
	}
	lo, hi := d.portLo, d.portHi // 0 and 0: any port
	var last error
	for port := lo; port <= hi; port++ {
		nd := d.nd
		nd.LocalAddr = &net.TCPAddr{IP: ip, Port: port}
		c, err := nd.DialContext(ctx, network, address)
		if err == nil {
			return c, nil
		}
		last = err
		if !errors.Is(err, syscall.EADDRINUSE) && !errors.Is(err, syscall.EADDRNOTAVAIL) {
			if errors.Is(err, syscall.EINVAL) {
				return nil, &bindError{err}
			}
			return nil, err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, &bindError{last}
}

// rewrite applies the first --connect-to entry that matches address.
func (d *connDialer) rewrite(address string) string {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return address
	}
	for _, e := range d.connectTo {
		if (e.host1 == "" || strings.EqualFold(e.host1, host)) && (e.port1 == "" || e.port1 == port) {
			h, p := e.host2, e.port2
			if h == "" {
				h = host
			}
			if p == "" {
				p = port
			}
			if d.cl != nil && d.cl.Trace != nil {
				// curl's lines for the same.
				d.cl.Trace(schemes.Info, "Connecting to hostname: "+h)
				d.cl.Trace(schemes.Info, "Connecting to port: "+p)
			}
			return net.JoinHostPort(h, p)
		}
	}
	return address
}
