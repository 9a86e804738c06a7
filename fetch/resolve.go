package fetch

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// ResolveEntry pins a host name and port to addresses, as curl's
// --resolve HOST:PORT:ADDR does: a connection to Host on Port goes to
// Addrs, tried in order, without asking the resolver.
type ResolveEntry struct {
	Host  string       // ASCII form (IDNA A-labels), lower case; "*" matches every host
	Port  string       // decimal port
	Addrs []netip.Addr // in the order given
}

// ParseResolve parses curl's --resolve syntax, "[+]HOST:PORT:ADDR[,ADDR]…":
// HOST is a name, in Unicode or in its xn-- form, or "*" for any host; an
// IPv6 ADDR may be written in brackets. The "+" curl uses to mark entries
// that expire is accepted and means nothing here: entries never expire.
// Its error, a *ResolveError, says what is wrong with the entry.
func ParseResolve(s string) (ResolveEntry, error) {
	bad := func(why string) (ResolveEntry, error) {
		return ResolveEntry{}, &ResolveError{Entry: s, Reason: why}
	}
	t := strings.TrimPrefix(s, "+")
	if strings.HasPrefix(t, "-") {
		return bad("removing an entry is not supported")
	}
	host, rest, ok := strings.Cut(t, ":")
	if !ok {
		return bad("no port")
	}
	port, list, ok := strings.Cut(rest, ":")
	if !ok {
		return bad("no address")
	}
	if host == "" {
		return bad("no host")
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 || port[0] == '+' {
		return bad(fmt.Sprintf("port %q is not a number from 1 to 65535", port))
	}
	e := ResolveEntry{Host: host, Port: strings.TrimLeft(port, "0")}
	if host != "*" {
		a, err := uri.HostASCII(strings.ToLower(host))
		if err != nil {
			return bad(err.Error())
		}
		e.Host = a
	}
	for _, a := range strings.Split(list, ",") {
		a = strings.TrimSpace(a)
		if len(a) > 1 && a[0] == '[' && a[len(a)-1] == ']' {
			a = a[1 : len(a)-1]
		}
		ip, err := netip.ParseAddr(a)
		if err != nil || ip.Zone() != "" {
			return bad(fmt.Sprintf("%q is not an IP address", a))
		}
		e.Addrs = append(e.Addrs, ip.Unmap())
	}
	return e, nil
}

// ResolveError is a resolve entry (curl's --resolve syntax) that
// ParseResolve cannot read.
type ResolveError struct {
	Entry  string // the entry as given
	Reason string // what is wrong with it
}

// Error names the entry and the reason on one line.
func (e *ResolveError) Error() string {
	return fmt.Sprintf("bad resolve entry %q: %s (expected HOST:PORT:ADDR[,ADDR]…)", e.Entry, e.Reason)
}

// baseDialer is the dialer every connection goes through before any proxy:
// it converts a host name to its ASCII form (IDNA, RFC 5891 §5) before the
// look-up, applies the --resolve entries, and keeps to one IP version when
// asked (curl's -4 and -6). Connections go out through d.
type baseDialer struct {
	d       schemes.Dialer
	resolve map[string][]netip.Addr // "host:port", host "*" for any host
	version int                     // 4, 6, or 0 for both
	net     string                  // Client.Network: "tcp4", "tcp6", or "" for "tcp"
	trace   schemes.Tracer          // notes which entry a connection used (-v)
}

// newBaseDialer returns the base dialer over d; the last entry for a host
// and port wins, as curl's do. Entries not made by ParseResolve are put in
// its form (lower case, A-labels, no leading zeros in the port).
func newBaseDialer(d schemes.Dialer, entries []ResolveEntry, network string) *baseDialer {
	b := &baseDialer{d: d}
	switch network {
	case "", "tcp":
	case "tcp4":
		b.version = 4
	case "tcp6":
		b.version = 6
	default:
		// Dialled as it is, and refused as net.Dial refuses a
		// network it does not know.
		b.net = network
	}
	if len(entries) > 0 {
		b.resolve = make(map[string][]netip.Addr, len(entries))
		for _, e := range entries {
			b.resolve[resolveKey(e.Host, e.Port)] = e.Addrs
		}
	}
	return b
}

// resolveKey is the key of a host and port in baseDialer.resolve.
func resolveKey(host, port string) string {
	host = strings.ToLower(host)
	if a, err := uri.HostASCII(host); err == nil {
		host = a
	}
	return net.JoinHostPort(host, strings.TrimLeft(port, "0"))
}

// DialContext connects to address ("host:port") over network ("tcp"),
// narrowed to "tcp4" or "tcp6" by the IP version, and records the
// connection in the fetch's Metrics, when it has any.
func (b *baseDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	m := schemes.MetricsFrom(ctx)
	if m == nil {
		return b.dial(ctx, network, address)
	}
	if nd, ok := b.d.(*net.Dialer); ok && nd.ControlContext == nil && nd.Control == nil {
		// A net.Dialer tells when a name is resolved through its
		// Control, called before each connect. It is set for a fetch
		// with Metrics only: with it, each socket costs an allocation.
		timed := *nd
		timed.ControlContext = markLookup
		tb := *b
		tb.d = &timed
		b = &tb
	}
	c, err := b.dial(ctx, network, address)
	if err == nil {
		m.Connected(c)
	}
	return c, err
}

// markLookup is the Control of a fetch's net.Dialer when it has
// Metrics, called once a name is resolved, before each connect: it ends
// the name look-up.
func markLookup(ctx context.Context, _, _ string, _ syscall.RawConn) error {
	schemes.MetricsFrom(ctx).Mark(schemes.PhaseNameLookup)
	return nil
}

func (b *baseDialer) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return b.d.DialContext(ctx, b.network(network), address)
	}
	if host, err = uri.HostASCII(host); err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	network = b.network(network)
	if ip, err := netip.ParseAddr(host); err == nil {
		// An address is not looked up, so no entry applies to it (an
		// FTP data connection goes to the control connection's peer,
		// whatever "*" entry names its port). One of the other IP
		// version fails as a name without records of the kind asked.
		if !b.allows(ip.Unmap()) {
			return nil, b.noAddress(network, host, fmt.Sprintf("an IPv%d address, where only IPv%d is allowed", 10-b.version, b.version))
		}
		return b.d.DialContext(ctx, network, address)
	}
	addrs, ok := b.lookup(host, port)
	if !ok {
		return b.d.DialContext(ctx, network, net.JoinHostPort(host, port))
	}
	// As curl does, each address is tried in turn and the last failure
	// is the one reported.
	var last error
	for _, a := range addrs {
		if !b.allows(a) {
			continue
		}
		b.trace.TraceLine(schemes.Info, "resolve entry: "+net.JoinHostPort(host, port)+" is "+a.String())
		c, err := b.d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	if last == nil {
		// Every pinned address is of the other IP version: the name has no
		// address to use, as a look-up with no record of that kind.
		return nil, b.noAddress(network, host, fmt.Sprintf("the resolve entry has no IPv%d address", b.version))
	}
	return nil, last
}

// noAddress is the error of a host that has no address of the IP version
// asked for: a failed look-up, curl's exit 6.
func (b *baseDialer) noAddress(network, host, why string) error {
	return &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: why, Name: host, IsNotFound: true}}
}

// lookup returns the pinned addresses of host and port, the entry for the
// host itself before the one for "*".
func (b *baseDialer) lookup(host, port string) ([]netip.Addr, bool) {
	if b.resolve == nil {
		return nil, false
	}
	if a, ok := b.resolve[resolveKey(host, port)]; ok {
		return a, true
	}
	a, ok := b.resolve[resolveKey("*", port)]
	return a, ok
}

// network narrows "tcp" to the network asked for (Client.Network).
func (b *baseDialer) network(network string) string {
	if network == "tcp" && b.net != "" {
		return b.net
	}
	if network == "tcp" && b.version != 0 {
		return "tcp" + strconv.Itoa(b.version)
	}
	return network
}

// allows reports whether a is of the IP version asked for.
func (b *baseDialer) allows(a netip.Addr) bool {
	switch b.version {
	case 4:
		return a.Is4()
	case 6:
		return a.Is6()
	}
	return true
}
