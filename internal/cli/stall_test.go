package cli

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// silentServer accepts on loopback and reads what clients send, saying
// nothing back, until the test ends.
func silentServer(t *testing.T, reply string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				go func() { <-done; c.Close() }()
				io.WriteString(c, reply)
				io.Copy(io.Discard, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// TestStallExits28 runs the command against servers that stall before
// their greeting and mid-body: each run ends in exit 28 within a few
// seconds, with a message that names the URL and the wait.
func TestStallExits28(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--connect-timeout", "1"}, "no reply from the server within 1s"},
		{[]string{"--connect-timeout", "1", "-Y", "1000", "-y", "1", "-o", out}, "no reply from the server within 1s"},
	}
	for _, scheme := range []string{"ftp", "gopher", "http", "nntp", "wais"} {
		for _, tc := range cases {
			addr := silentServer(t, "")
			url := scheme + "://" + addr + map[string]string{"nntp": "/misc.test/1", "wais": "/db?q"}[scheme]
			var errOut bytes.Buffer
			start := time.Now()
			code := run(append(append([]string{"-s", "-S"}, tc.args...), url), os.Stdin, io.Discard, &errOut)
			took := time.Since(start)
			msg := errOut.String()
			if code != 28 || took > 5*time.Second || !strings.Contains(msg, tc.want) || !strings.Contains(msg, addr) {
				t.Errorf("%v %s: exit %d after %v: %q", tc.args, url, code, took, msg)
			}
		}
	}
}

// TestSpeedLimitExits28 runs the command against a body that trickles
// below -Y for -y: exit 28, and the message says so.
func TestSpeedLimitExits28(t *testing.T) {
	addr := silentServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nten bytes.")
	var errOut bytes.Buffer
	start := time.Now()
	code := run([]string{"-s", "-S", "-Y", "1000", "-y", "1", "-o", filepath.Join(t.TempDir(), "out"), "http://" + addr + "/"}, os.Stdin, io.Discard, &errOut)
	if took := time.Since(start); code != 28 || took > 5*time.Second || !strings.Contains(errOut.String(), "transfer slower than 1000 bytes/s for 1s") {
		t.Errorf("exit %d after %v: %q", code, took, errOut.String())
	}
}
