//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// trickler is a loopback server that answers each connection's request
// with its reply head, then first body bytes at once, then step bytes every
// gap, steps times (none after until, when set), then last bytes at once.
// With end set it then closes
// the connection (the body is whole); without, it says nothing more until
// the client goes. It counts the body bytes its writes handed to the
// kernel, so that a test can compare what the client kept byte for byte.
type trickler struct {
	gopher bool // the request is one line, and the body ends with the close
	first  int
	step   int
	steps  int
	gap    time.Duration
	last   int
	end    bool
	until  time.Time

	sent  atomic.Int64
	wg    sync.WaitGroup
	conns sync.WaitGroup // the connections being served
}

// sentAll is what the server sent, once every connection it served has
// ended: a client that read the last bytes can finish before the
// server's goroutine counts them. A connection the client left open
// still ends the wait after a bound.
func (s *trickler) sentAll() int64 {
	done := make(chan struct{})
	go func() { s.conns.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
	return s.sent.Load()
}

// body is the byte at offset i of every reply: a pattern that a dropped
// or repeated stretch cannot reproduce.
func body(i int) byte { return "0123456789abcdefghijklmnopqrstuvwxyz"[i%36] }

func (s *trickler) start(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close(); s.wg.Wait() })
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			s.conns.Add(1)
			go func() {
				defer s.wg.Done()
				defer s.conns.Done()
				defer c.Close()
				stop := make(chan struct{})
				defer close(stop)
				go func() {
					select {
					case <-done:
						c.Close()
					case <-stop:
					}
				}()
				s.serve(c)
			}()
		}
	}()
	return ln.Addr().String()
}

func (s *trickler) serve(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return
		}
		if s.gopher || strings.TrimRight(l, "\r\n") == "" {
			break
		}
	}
	if !s.gopher {
		length := s.first + s.steps*s.step + s.last
		if !s.end {
			length = 1 << 30 // longer than any test waits for
		}
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", length)
	}
	off := 0
	send := func(n int) bool {
		p := make([]byte, n)
		for i := range p {
			p[i] = body(off + i)
		}
		m, err := c.Write(p)
		s.sent.Add(int64(m))
		off += m
		return err == nil
	}
	if !send(s.first) {
		return
	}
	for range s.steps {
		time.Sleep(s.gap)
		if !s.until.IsZero() && time.Now().After(s.until) {
			break
		}
		if !send(s.step) {
			return
		}
	}
	if s.last > 0 && !send(s.last) {
		return
	}
	if !s.end {
		io.Copy(io.Discard, br) // silent until the client goes
	}
}

// wantBody checks that b is the first n bytes of the servers' body.
func wantBody(t *testing.T, what string, b []byte, n int64) {
	t.Helper()
	if int64(len(b)) != n {
		t.Errorf("%s: kept %d bytes, the server sent %d", what, len(b), n)
		return
	}
	for i := range b {
		if b[i] != body(i) {
			t.Errorf("%s: byte %d is %q, want %q", what, i, b[i], body(i))
			return
		}
	}
}

// commandTo runs the program with args in dir, its standard output going
// to stdout, and returns its exit status and standard error.
func commandTo(t *testing.T, dir string, stdout *os.File, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("urlget", args...)
	cmd.Dir = dir
	cmd.Stdout = stdout
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return waitExit(t, cmd), errOut.String()
}

// TestSlowSteadyTransferCompletes: a body that trickles at 1 KiB/s for
// about four seconds is well above -Y 100, whatever the output: a file,
// /dev/null, a redirected standard output. Nothing may hide the bytes as
// they arrive from the speed check (RFC 9112 §6.3: an HTTP body of known
// length; RFC 1436: a gopher item that ends with the close).
func TestSlowSteadyTransferCompletes(t *testing.T) {
	for _, scheme := range []string{"http", "gopher"} {
		for _, to := range []string{"file", "null", "stdout"} {
			t.Run(scheme+"/"+to, func(t *testing.T) {
				t.Parallel()
				srv := &trickler{gopher: scheme == "gopher", first: 128 << 10, step: 256, steps: 16, gap: 250 * time.Millisecond, last: 320 << 10, end: true}
				url := scheme + "://" + srv.start(t) + "/slow"
				dir := t.TempDir()
				args := []string{"-s", "-S", "-Y", "100", "-y", "2"}
				var stdout *os.File
				switch to {
				case "file":
					args = append(args, "-o", "out")
				case "null":
					args = append(args, "-o", os.DevNull)
				case "stdout":
					f, err := os.Create(filepath.Join(dir, "out"))
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					stdout = f
				}
				code, errOut := commandTo(t, dir, stdout, append(args, url)...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				if to != "null" {
					b, err := os.ReadFile(filepath.Join(dir, "out"))
					if err != nil {
						t.Fatal(err)
					}
					wantBody(t, url, b, srv.sentAll())
				}
			})
		}
	}
}

// TestSpeedLimitCountsFromTheRequest: -Y/-y count from the request, as
// curl's do: a server that accepts the connection and says nothing is
// slower than 1 byte/s after two seconds, whatever its scheme, long
// before the two minutes the connect bound allows.
func TestSpeedLimitCountsFromTheRequest(t *testing.T) {
	for _, scheme := range []string{"ftp", "gopher", "http", "nntp", "wais"} {
		t.Run(scheme, func(t *testing.T) {
			t.Parallel()
			addr := silentServer(t, "")
			url := scheme + "://" + addr + map[string]string{"nntp": "/misc.test/1", "wais": "/db?q"}[scheme]
			start := time.Now()
			code, errOut := commandTo(t, t.TempDir(), nil, "-s", "-S", "-Y", "1", "-y", "2", "-o", "out", url)
			took := time.Since(start)
			if code != exitTimeout || took > 30*time.Second || !strings.Contains(errOut, "slower than 1 bytes/s for 2s") || !strings.Contains(errOut, addr) {
				t.Errorf("exit %d after %v: %q", code, took, errOut)
			}
		})
	}
}

// TestTimeoutKeepsEveryByte: when -m ends a transfer, every byte that
// arrived before it is in the output the user keeps: the partial file of
// -C -, and a standard output redirected to a file or a pipe. The server
// sends 1 KiB, trickles for two seconds and then stalls; -m 3 ends it, and
// the output must hold exactly what the server sent, over HTTP (a body of
// known length) and gopher (a body that ends with the connection). The
// trickle stops half a second before the earliest the client's -m can
// end, however late a loaded machine starts the client, so that every
// byte sent had time to arrive.
func TestTimeoutKeepsEveryByte(t *testing.T) {
	for _, scheme := range []string{"http", "gopher"} {
		for _, to := range []string{"resume", "stdout", "pipe"} {
			t.Run(scheme+"/"+to, func(t *testing.T) {
				t.Parallel()
				srv := &trickler{gopher: scheme == "gopher", first: 1024, step: 100, steps: 20, gap: 100 * time.Millisecond, until: time.Now().Add(2500 * time.Millisecond)}
				url := scheme + "://" + srv.start(t) + "/slow"
				dir := t.TempDir()
				out := filepath.Join(dir, "out")
				var code int
				var errOut string
				var got []byte
				switch to {
				case "resume":
					code, errOut = commandTo(t, dir, nil, "-s", "-S", "-C", "-", "-m", "3", "-o", "out", url)
					got, _ = os.ReadFile(out)
				case "stdout":
					f, err := os.Create(out)
					if err != nil {
						t.Fatal(err)
					}
					code, errOut = commandTo(t, dir, f, "-s", "-S", "-m", "3", url)
					f.Close()
					got, _ = os.ReadFile(out)
				case "pipe":
					r, w, err := os.Pipe()
					if err != nil {
						t.Fatal(err)
					}
					read := make(chan []byte)
					go func() { b, _ := io.ReadAll(r); read <- b }()
					code, errOut = commandTo(t, dir, w, "-s", "-S", "-m", "3", url)
					w.Close()
					got = <-read
					r.Close()
				}
				// curl's words, with the count of what arrived.
				want := fmt.Sprintf("operation timed out after 3000 milliseconds with %d bytes received", srv.sentAll())
				if code != exitTimeout || !strings.Contains(errOut, want) {
					t.Errorf("exit %d, want %d and %q: %s", code, exitTimeout, want, errOut)
				}
				wantBody(t, url+" to "+to, got, srv.sentAll())
			})
		}
	}
}

// TestTimeoutIsAlways28: a transfer that -m or -Y/-y ends exits 28 every
// time, never 23 as if the output had failed, into a new file, a -C -
// partial or a redirected standard output: the kernel copies the body
// into them (splice) and reports the closed connection as its write's
// error. The body comes in a burst and then trickles, so that the end
// falls in the middle of a copy.
func TestTimeoutIsAlways28(t *testing.T) {
	srv := &trickler{gopher: true, first: 200 << 10, step: 10, steps: 1 << 20, gap: 100 * time.Millisecond}
	url := "gopher://" + srv.start(t) + "/slow"
	dir := t.TempDir()
	for i := range 20 {
		os.Remove(filepath.Join(dir, "out"))
		args := []string{"-s", "-S", "-m", "0.3", "-o", "out"}
		want := "operation timed out after 300 milliseconds with "
		var stdout *os.File
		switch i % 4 {
		case 1:
			args = append(args, "-C", "-")
		case 2:
			f, err := os.Create(filepath.Join(dir, "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			stdout, args = f, args[:4]
		case 3:
			args = []string{"-s", "-S", "-Y", "1000", "-y", "0.3", "-o", "out"}
			want = "transfer slower than 1000 bytes/s for 0.3s"
		}
		code, errOut := commandTo(t, dir, stdout, append(args, url)...)
		if code != exitTimeout || !strings.Contains(errOut, want) {
			t.Errorf("run %d (%v): exit %d, want %d and %q: %s", i, args, code, exitTimeout, want, errOut)
		}
	}
}

// TestInterruptKeepsEveryByte: Ctrl-C during a -C - transfer keeps every
// byte that arrived in the partial file, for the next -C - to resume
// from, and exits 130. The server sends 1 KiB and trickles, then stalls;
// the signal comes once the file holds all it sent.
func TestInterruptKeepsEveryByte(t *testing.T) {
	for _, scheme := range []string{"http", "gopher"} {
		t.Run(scheme, func(t *testing.T) {
			t.Parallel()
			srv := &trickler{gopher: scheme == "gopher", first: 1024, step: 100, steps: 10, gap: 50 * time.Millisecond}
			url := scheme + "://" + srv.start(t) + "/slow"
			dir := t.TempDir()
			cmd, errOut := startCommand(t, dir, "-s", "-S", "-C", "-", "-o", "out", url)
			target := filepath.Join(dir, "out")
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
				if fi, err := os.Stat(target); err == nil && fi.Size() == 1024+10*100 {
					break
				}
			}
			cmd.Process.Signal(syscall.SIGINT)
			if code := waitExit(t, cmd); code != 130 {
				t.Errorf("exit %d, want 130: %s", code, errOut)
			}
			if s := errOut.String(); !strings.Contains(s, "interrupted") || strings.Contains(s, "write error") {
				t.Errorf("stderr %q, want it to say interrupted", s)
			}
			got, _ := os.ReadFile(target)
			wantBody(t, url, got, srv.sentAll())
		})
	}
}
