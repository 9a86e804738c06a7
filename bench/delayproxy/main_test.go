package main

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// TestForward passes bytes both ways through the proxy to an echo server:
// they arrive whole and in order, the first round trip takes at least the
// handshake's round trip and the delay each way, a later one at least the
// delay each way, and a half-close reaches the server and its answer
// comes back.
func TestForward(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		c, err := echo.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const delay = 20 * time.Millisecond
	go serve(ln, echo.Addr().String(), delay)

	// The clock starts before the dial: the proxy counts its handshake's
	// delay from its accept, which may come before Dial returns here.
	start := time.Now()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("ping\r\n")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 6)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "ping\r\n" {
		t.Fatalf("echo %q, %v", got, err)
	}
	if rt := time.Since(start); rt < 4*delay {
		t.Errorf("first round trip %v, less than the handshake's and the delay both ways (%v)", rt, 4*delay)
	}
	start = time.Now()
	if _, err := c.Write([]byte("pong\r\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "pong\r\n" {
		t.Fatalf("echo %q, %v", got, err)
	}
	if rt := time.Since(start); rt < 2*delay {
		t.Errorf("round trip %v, less than the delay both ways (%v)", rt, 2*delay)
	}
	// Many chunks written back to back keep their order.
	var want bytes.Buffer
	for i := 0; i < 200; i++ {
		want.WriteString("line of the stream, numbered ")
		want.WriteByte(byte('0' + i%10))
		want.WriteString("\n")
	}
	go func() {
		for _, l := range bytes.SplitAfter(want.Bytes(), []byte("\n")) {
			c.Write(l)
		}
		c.(*net.TCPConn).CloseWrite()
	}()
	rest, err := io.ReadAll(c)
	if err != nil || !bytes.Equal(rest, want.Bytes()) {
		t.Fatalf("stream of %d bytes came back as %d (%v)", want.Len(), len(rest), err)
	}
}

// TestForwardPorts forwards a port of another loopback address to the
// same port of 127.0.0.1, as the FTP rows of bench/mirror.sh do with the
// server's passive ports, and refuses a range that is not one.
func TestForwardPorts(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		c, err := echo.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	_, port, _ := net.SplitHostPort(echo.Addr().String())
	lns, err := forwardPorts(port+"-"+port, "127.0.0.2:0", echo.Addr().String(), time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer lns[0].Close()
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.2", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("data"))
	got := make([]byte, 4)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "data" {
		t.Errorf("echo %q, %v", got, err)
	}
	for _, bad := range []string{"", "5", "9-8", "0-3", "1-70000", "a-b"} {
		if _, err := forwardPorts(bad, "127.0.0.2:0", "127.0.0.1:1", 0); err == nil {
			t.Errorf("-ports %q taken", bad)
		}
	}
}
