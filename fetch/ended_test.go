package fetch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/xfer"
	"github.com/urlget/urlget/internal/xfer/xfertest"
	"github.com/urlget/urlget/schemes"
)

// trickleServer listens on 127.0.0.1 and on every connection sends first
// bytes, then step bytes every gap, steps times, and then nothing until
// the client goes. sent counts what its writes handed to the kernel, on
// all connections, for the test to compare with what the client kept.
func trickleServer(t *testing.T, first, step, steps int, gap time.Duration) (addr string, sent *atomic.Int64) {
	t.Helper()
	sent = new(atomic.Int64)
	ln := xfertest.ServeTCP(t, func(c net.Conn) {
		write := func(n int) bool {
			m, err := c.Write(bytes.Repeat([]byte("t"), n))
			sent.Add(int64(m))
			return err == nil
		}
		if !write(first) {
			return
		}
		for range steps {
			time.Sleep(gap)
			if !write(step) {
				return
			}
		}
		io.Copy(io.Discard, c)
	})
	return ln.Addr().String(), sent
}

// dialingFetcher is a fetcher that dials addr through the request's
// Dialer, as every scheme does, and returns the connection as the body in
// the shape open gives it (raw, or as a body that copies itself). Like
// every fetcher, it closes the connection when the attempt's context ends.
func dialingFetcher(addr string, open func(*net.TCPConn) io.ReadCloser) *stubFetcher {
	return &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
		c, err := dial(ctx, req, addr)
		if err != nil {
			return nil, err
		}
		return &schemes.Resource{Body: open(c.(*net.TCPConn)), Size: -1}, nil
	}}
}

// dial connects to addr through req's Dialer, and closes the connection
// when ctx ends.
func dial(ctx context.Context, req *schemes.Request, addr string) (net.Conn, error) {
	c, err := req.Dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, func() { c.Close() })
	return c, nil
}

// socketBodies are the shapes a socket body reaches Body.WriteTo in: the
// connection itself (gopher), a body that copies itself from it (FTP's
// checked end), and one of a known length on a connection that would
// outlive it (HTTP).
var socketBodies = map[string]func(*net.TCPConn) io.ReadCloser{
	"tcp":     func(c *net.TCPConn) io.ReadCloser { return c },
	"checked": func(c *net.TCPConn) io.ReadCloser { return xfertest.NewCheckedBody(c, 1<<40) },
	"limited": func(c *net.TCPConn) io.ReadCloser { return xfertest.NewLengthBody(c, 1<<40) },
}

// TestEndKeepsEveryByte: when the Client's Timeout (curl's -m) or the
// caller's cancellation (an interrupt) ends a copy into a file or a pipe,
// every byte the server sent is in the destination, and the error says
// what ended it: a timeout with curl's words and the count, or
// context.Canceled; never a write error, which the copy's kernel paths
// would otherwise report for the closed connection (os.File.ReadFrom names
// every error a write).
func TestEndKeepsEveryByte(t *testing.T) {
	for name, open := range socketBodies {
		for _, to := range []string{"file", "pipe"} {
			for _, end := range []string{"timeout", "cancel"} {
				t.Run(name+"/"+to+"/"+end, func(t *testing.T) {
					t.Parallel()
					addr, sent := trickleServer(t, 1024, 100, 10, 50*time.Millisecond)
					c := &Client{Fetchers: map[string]schemes.Fetcher{"t": dialingFetcher(addr, open)}}
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					if end == "timeout" {
						c.Timeout = 1500 * time.Millisecond
					} else {
						time.AfterFunc(1500*time.Millisecond, cancel)
					}
					res, err := c.Fetch(ctx, "t://h/")
					if err != nil {
						t.Fatal(err)
					}
					defer res.Body.Close()
					got, err := copyTo(t, to, res.Body)
					switch {
					case xfer.ClassifyWrite(err) != xfer.NotWrite, errors.Is(err, schemes.ErrWrite):
						t.Errorf("reported as a write error: %v", err)
					case end == "timeout" && !errors.Is(err, schemes.ErrTimeout):
						t.Errorf("got %v, want a timeout", err)
					case end == "timeout" && !strings.Contains(err.Error(), fmt.Sprintf("operation timed out after 1500 milliseconds with %d bytes received", sent.Load())):
						t.Errorf("%q does not say when and with how many bytes", err)
					case end == "cancel" && !errors.Is(err, context.Canceled):
						t.Errorf("got %v, want context.Canceled", err)
					}
					if int64(len(got)) != sent.Load() {
						t.Errorf("kept %d bytes, the server sent %d", len(got), sent.Load())
					}
				})
			}
		}
	}
}

// copyTo copies r with io.Copy into a new regular file or a pipe, as the
// command does, and returns what reached it.
func copyTo(t *testing.T, to string, r io.Reader) ([]byte, error) {
	t.Helper()
	if to == "file" {
		path, _, err := xfertest.CopyToFile(t, r)
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		return b, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	read := make(chan []byte)
	go func() { b, _ := io.ReadAll(pr); read <- b }()
	_, err = io.Copy(pw, r)
	pw.Close()
	return <-read, err
}

// TestSpeedLimitSeesEveryByte: a body that comes at about 1 KiB/s after a
// first burst larger than a copy's first reads, into a file and into
// /dev/null, meets a limit of 100 bytes/s: each byte counts as it arrives.
func TestSpeedLimitSeesEveryByte(t *testing.T) {
	for name, open := range socketBodies {
		for _, to := range []string{"file", os.DevNull} {
			t.Run(name+"/"+filepath.Base(to), func(t *testing.T) {
				t.Parallel()
				addr, sent := trickleServer(t, 256<<10, 128, 16, 125*time.Millisecond)
				c := &Client{
					Fetchers:      map[string]schemes.Fetcher{"t": dialingFetcher(addr, open)},
					LowSpeedLimit: 100, LowSpeedTime: time.Second,
					Timeout: 3 * time.Second, // the end of a body that never ends
				}
				res, err := c.Fetch(context.Background(), "t://h/")
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				var n int64
				if to == "file" {
					_, n, err = xfertest.CopyToFile(t, res.Body)
				} else {
					f, ferr := os.OpenFile(to, os.O_WRONLY, 0)
					if ferr != nil {
						t.Fatal(ferr)
					}
					defer f.Close()
					n, err = io.Copy(f, res.Body)
				}
				// The trickle lasts two seconds; only -m's three end it.
				if !errors.Is(err, schemes.ErrTimeout) || !strings.Contains(err.Error(), "operation timed out") {
					t.Errorf("got %v, want the Timeout's end, not the speed limit's", err)
				}
				if n != sent.Load() {
					t.Errorf("copied %d bytes, the server sent %d", n, sent.Load())
				}
			})
		}
	}
}

// TestSpeedLimitBeforeTheBody: -Y/-y count from the start of the attempt.
// A server that accepts and says nothing is below the limit while the
// fetcher waits for its greeting, long before the connect timeout; one
// that sends its greeting slowly but above the limit is not, however long
// the greeting takes: the dialed socket's count says the bytes came.
func TestSpeedLimitBeforeTheBody(t *testing.T) {
	// greeting reads n lines of 50 bytes from the server, then returns
	// the rest of the connection as the body.
	greeting := func(addr string, n int) *stubFetcher {
		return &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
			c, err := dial(ctx, req, addr)
			if err != nil {
				return nil, err
			}
			br := bufio.NewReader(c)
			for range n {
				if _, err := br.ReadString('\n'); err != nil {
					c.Close()
					return nil, err
				}
			}
			return &schemes.Resource{Body: io.NopCloser(br), Size: -1}, nil
		}}
	}

	silent := xfertest.ServeTCP(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	c := &Client{Fetchers: map[string]schemes.Fetcher{"t": greeting(silent.Addr().String(), 1)}, LowSpeedLimit: 1, LowSpeedTime: time.Second}
	start := time.Now()
	_, err := c.Fetch(context.Background(), "t://h/")
	if took := time.Since(start); !errors.Is(err, schemes.ErrTimeout) || took > 10*time.Second || !strings.Contains(err.Error(), "transfer slower than 1 bytes/s for 1s") {
		t.Errorf("a silent server: %v after %v", err, took)
	}

	// 50 bytes every 125 ms, 400 bytes/s for two seconds, then a body.
	slow := xfertest.ServeTCP(t, func(c net.Conn) {
		for range 16 {
			if _, err := io.WriteString(c, strings.Repeat("g", 49)+"\n"); err != nil {
				return
			}
			time.Sleep(125 * time.Millisecond)
		}
		io.WriteString(c, "the body")
	})
	c = &Client{Fetchers: map[string]schemes.Fetcher{"t": greeting(slow.Addr().String(), 16)}, LowSpeedLimit: 100, LowSpeedTime: time.Second}
	res, err := c.Fetch(context.Background(), "t://h/")
	if err != nil {
		t.Fatalf("a slow greeting above the limit: %v", err)
	}
	defer res.Body.Close()
	if b, err := io.ReadAll(res.Body); err != nil || string(b) != "the body" {
		t.Errorf("read %q, %v", b, err)
	}
}
