package schemes

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestMetricsNil checks that a fetch without Metrics records nothing and
// that every method is safe on the nil the context gives it.
func TestMetricsNil(t *testing.T) {
	m := MetricsFrom(context.Background())
	if m != nil {
		t.Fatal("a Metrics out of nowhere")
	}
	m.Mark(PhaseConnect)
	m.Connected(nil)
	m.Reused(nil, true)
	m.Redirected()
	m.Request("GET", "http://h/", 10)
	m.Response(&Resource{}, 10)
	m.HeadBytes(1)
	m.ProxyConnect(200, 39)
	m.Sent(59)
	m.EntryPath("/")
	if r := m.Report(); r.Connects != 0 || r.Head != nil || r.Times != [numPhases]time.Duration{} {
		t.Errorf("nil report %+v", r)
	}
	ctx := WithMetrics(context.Background(), nil)
	if MetricsFrom(ctx) != nil {
		t.Error("WithMetrics(nil) put a Metrics in")
	}
}

// TestMetricsPhases checks curl's rules for the times: a phase counts
// once a request, at least a microsecond; a redirect starts a request
// whose phases add to the first's; the addresses are those of the
// current request's first connection.
func TestMetricsPhases(t *testing.T) {
	start := time.Now().Add(-time.Second)
	m := NewMetrics(start)
	ctx := WithMetrics(context.Background(), m)
	if MetricsFrom(ctx) != m {
		t.Fatal("MetricsFrom does not give the Metrics back")
	}
	a := addrConn{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}}
	b := addrConn{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 2), Port: 2}}
	m.Mark(PhaseNameLookup)
	m.Connected(a)
	m.Connected(b) // a second connection of one request: an FTP data connection
	m.Request("GET", "http://h/a", 80)
	m.Response(&Resource{StatusCode: 302}, 50)
	r := m.Report()
	if r.Connects != 2 || r.RequestBytes != 80 || r.HeaderBytes != 50 || r.Method != "GET" || r.Head.StatusCode != 302 {
		t.Errorf("first request: %+v", r)
	}
	if r.Local != a.LocalAddr() || r.Remote != a.RemoteAddr() {
		t.Errorf("the addresses are the second connection's")
	}
	first := r.Times
	for p := PhaseNameLookup; p < numPhases; p++ {
		if p != PhaseAppConnect && first[p] < time.Second {
			t.Errorf("phase %d: %v, less than the second since the start", p, first[p])
		}
	}
	if first[PhaseAppConnect] != 0 {
		t.Errorf("a handshake that never happened took %v", first[PhaseAppConnect])
	}
	m.Mark(PhaseConnect) // marked already this request: no change
	if m.Report().Times != first {
		t.Error("a second mark of a phase counted")
	}

	m.Redirected()
	m.Reused(b, true)
	m.Request("HEAD", "http://h/b", 70)
	m.Response(&Resource{StatusCode: 200}, 40)
	r = m.Report()
	if r.Target != "http://h/b" || r.Redirects != 1 || r.Redirect < time.Second || r.RequestBytes != 150 || r.HeaderBytes != 90 || r.Method != "HEAD" || r.Head.StatusCode != 200 {
		t.Errorf("after the redirect: %+v", r)
	}
	if r.Local != b.LocalAddr() || r.Connects != 2 {
		t.Errorf("the reused connection's addresses: %v, connects %d", r.Local, r.Connects)
	}
	for p := PhaseNameLookup; p < numPhases; p++ {
		if p != PhaseAppConnect && r.Times[p] <= first[p] {
			t.Errorf("phase %d: %v, not added to %v", p, r.Times[p], first[p])
		}
	}
	if r.Times[PhaseAppConnect] < time.Microsecond {
		t.Errorf("the reused TLS connection's handshake: %v", r.Times[PhaseAppConnect])
	}
}

// addrConn is a connection known only by its addresses.
type addrConn struct{ a net.Addr }

func (c addrConn) Read([]byte) (int, error)         { return 0, net.ErrClosed }
func (c addrConn) Write([]byte) (int, error)        { return 0, net.ErrClosed }
func (c addrConn) Close() error                     { return nil }
func (c addrConn) LocalAddr() net.Addr              { return c.a }
func (c addrConn) RemoteAddr() net.Addr             { return c.a }
func (c addrConn) SetDeadline(time.Time) error      { return nil }
func (c addrConn) SetReadDeadline(time.Time) error  { return nil }
func (c addrConn) SetWriteDeadline(time.Time) error { return nil }
