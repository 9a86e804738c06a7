package testnet

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"testing"
)

// echoLine answers the first line of a connection and then waits for the
// client to go away, so the connection stays open until someone closes it.
func echoLine(c net.Conn, _ int) {
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return
	}
	if _, err := io.WriteString(c, line); err != nil {
		return
	}
	io.Copy(io.Discard, c)
}

func dialEcho(t *testing.T, l *Listener, line string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		t.Fatal(err)
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || got != line+"\n" {
		t.Fatalf("echo = %q, %v; want %q", got, err, line+"\n")
	}
	return c
}

func TestListenerLoopback(t *testing.T) {
	l, err := Listen(echoLine)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ip := l.Addr().(*net.TCPAddr).IP
	if !ip.Equal(net.IPv4(127, 0, 0, 1)) {
		t.Fatalf("listening on %v, want 127.0.0.1", ip)
	}
}

func TestListenerSequenceAndCount(t *testing.T) {
	seqs := make(chan int, 3)
	l, err := Listen(func(c net.Conn, seq int) {
		seqs <- seq
		echoLine(c, seq)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := 0; i < 3; i++ {
		dialEcho(t, l, "hello")
		if got := <-seqs; got != i {
			t.Fatalf("connection %d got seq %d", i, got)
		}
	}
	if got := l.Accepted(); got != 3 {
		t.Fatalf("Accepted = %d, want 3", got)
	}
	if got := len(l.Conns()); got != 3 {
		t.Fatalf("Conns has %d, want 3", got)
	}
}

// TestListenerCloseEndsHandlers checks that Close closes connections whose
// client never hangs up and returns once their handlers have.
func TestListenerCloseEndsHandlers(t *testing.T) {
	l, err := Listen(echoLine)
	if err != nil {
		t.Fatal(err)
	}
	c := dialEcho(t, l, "one")
	l.Close()
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("connection still open after Close")
	}
	if _, err := net.Dial("tcp", l.Addr().String()); err == nil {
		t.Fatal("listener still accepting after Close")
	}
	l.Close() // a second Close only waits
}

func TestListenerDropConnsKeepsListening(t *testing.T) {
	l, err := Listen(echoLine)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := dialEcho(t, l, "before")
	l.DropConns()
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("connection still open after DropConns")
	}
	dialEcho(t, l, "after")
	if got := l.Accepted(); got != 2 {
		t.Fatalf("Accepted = %d, want 2", got)
	}
}

func TestRecorder(t *testing.T) {
	var r Recorder[string]
	r.Record("USER anonymous")
	r.Record("PASS x")
	got := r.All()
	if len(got) != 2 || got[0] != "USER anonymous" || got[1] != "PASS x" {
		t.Fatalf("All = %q", got)
	}
	got[0] = "changed"
	if r.All()[0] != "USER anonymous" {
		t.Fatal("All shares its slice with the recorder")
	}
	r.Reset()
	if got := r.All(); len(got) != 0 {
		t.Fatalf("after Reset, All = %q", got)
	}
}

func TestRecorderLimit(t *testing.T) {
	r := Recorder[int]{Limit: 2}
	for i := 0; i < 5; i++ {
		r.Record(i)
	}
	if got := r.All(); len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Fatalf("All = %v, want [0 1]", got)
	}
}

// TestSelfSigned checks that a client trusting the leaf completes a TLS
// handshake with a server presenting the certificate, over 127.0.0.1.
func TestSelfSigned(t *testing.T) {
	cert, leaf := SelfSigned("testnet")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}})
	l := Serve(ln, echoLine)
	defer l.Close()
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	for _, name := range []string{"", "localhost"} {
		c, err := tls.Dial("tcp", l.Addr().String(), &tls.Config{RootCAs: pool, ServerName: name})
		if err != nil {
			t.Fatalf("ServerName %q: %v", name, err)
		}
		c.Close()
	}
}
