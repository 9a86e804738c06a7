package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
)

// TestWriteToQuietSlowSender sends less than a batch, pauses, sends a
// little more and closes: the close must wake the copy, and every byte
// must arrive, however far below the low-water mark the stream stays.
func TestWriteToQuietSlowSender(t *testing.T) {
	ln := serveTCP(t, func(c net.Conn) {
		c.Write([]byte("first part, "))
		time.Sleep(200 * time.Millisecond)
		c.Write([]byte("second part"))
	})
	for _, kind := range []string{"tcp", "checked"} {
		open := func() io.ReadCloser {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			if kind == "checked" {
				return &checkedBody{c: c.(*net.TCPConn), want: 23}
			}
			return c.(*net.TCPConn)
		}
		res := fetchBody(t, open, -1, 0, nil)
		path := filepath.Join(t.TempDir(), "dst")
		dst, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := io.Copy(dst, res.Body)
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the copy did not end when the sender closed", kind)
		}
		dst.Close()
		if b, _ := os.ReadFile(path); string(b) != "first part, second part" {
			t.Errorf("%s: got %q", kind, b)
		}
	}
}

// TestBatchReceive checks the low-water mark is set on a stream socket and
// put back by undo, and that other sources are left alone.
func TestBatchReceive(t *testing.T) {
	ln := serveTCP(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tc := c.(*net.TCPConn)
	lowat := func() int {
		rc, err := tc.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var v int
		var gerr error
		rc.Control(func(fd uintptr) {
			v, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT)
		})
		if gerr != nil {
			t.Fatal(gerr)
		}
		return v
	}
	undo, _ := batchReceive(tc)
	if undo == nil {
		t.Fatal("no low-water mark set on a TCP connection")
	}
	if v := lowat(); v != receiveBatch {
		t.Errorf("SO_RCVLOWAT = %d, want %d", v, receiveBatch)
	}
	undo()
	if v := lowat(); v != 1 {
		t.Errorf("SO_RCVLOWAT after undo = %d, want 1", v)
	}
	f, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, r := range map[string]io.Reader{
		"a regular file": f,
		"a length limit": &io.LimitedReader{R: tc, N: 10}, // not ended by the close
		"a plain reader": bytes.NewReader(nil),
	} {
		if undo, retry := batchReceive(r); undo != nil || retry {
			t.Errorf("%s: set %v, retry %v; want neither", name, undo != nil, retry)
		}
	}
}

// fileWrapper is a writer over a file that can Stat itself, as the
// command's temporary output file is.
type fileWrapper struct{ *os.File }

// TestDescribe checks how a destination is told apart (one Stat for the
// choice of copy and for batching) and which ones are quiet.
func TestDescribe(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	var buf bytes.Buffer
	for name, c := range map[string]struct {
		w     io.Writer
		want  destination
		quiet bool
	}{
		"regular file": {f, destination{file: f, regular: true}, true},
		"wrapped file": {fileWrapper{f}, destination{regular: true}, true},
		"pipe":         {pw, destination{file: pw, pipe: true}, false},
		"in memory":    {&buf, destination{}, false},
	} {
		d := describe(c.w)
		if d != c.want {
			t.Errorf("%s: described as %+v, want %+v", name, d, c.want)
		}
		if d.quiet() != c.quiet {
			t.Errorf("%s: quiet = %v, want %v", name, d.quiet(), c.quiet)
		}
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	// /dev/null is quiet whether it is the null device or, as in some
	// containers, a regular file.
	if d := describe(null); !d.quiet() {
		t.Errorf("%s: not quiet", os.DevNull)
	} else if fi, _ := null.Stat(); fi.Mode()&os.ModeCharDevice != 0 && !d.null {
		t.Errorf("%s, a character device, not described as the null device: %+v", os.DevNull, d)
	}
	// Where /dev/null is a regular file, a null device of the test's own
	// (mknod needs root; the CI runs as root) checks the device case.
	devNull := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(devNull, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		n, err := os.OpenFile(devNull, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer n.Close()
		if d := describe(n); !d.null || !d.quiet() {
			t.Errorf("a null device made with mknod described as %+v", d)
		}
	} else if fi, _ := null.Stat(); fi.Mode()&os.ModeCharDevice == 0 {
		t.Logf("no null device to check: %s is not one and mknod failed (%v)", os.DevNull, err)
	}
	if zero, err := os.OpenFile("/dev/zero", os.O_WRONLY, 0); err == nil {
		defer zero.Close()
		if fi, _ := zero.Stat(); fi.Mode()&os.ModeCharDevice != 0 && describe(zero).quiet() {
			t.Error("/dev/zero, a device other than null, reported quiet")
		}
	}
}

// TestBatchAfter checks when a copy into a quiet destination sets the
// low-water mark: not for a body smaller than batchAfter, once for a larger
// one, through Body.WriteTo and through a fetcher's own WriteTo
// (chunkWriter.ReadFrom); and that it is put back only when the copy stops
// before the peer's close, since a closed socket is read no more.
func TestBatchAfter(t *testing.T) {
	calls := recordLowWater(t)

	small := bytes.Repeat([]byte("s"), 4096)
	large := bytes.Repeat([]byte("L"), 4*batchAfter)
	for _, c := range []struct {
		name    string
		body    []byte
		checked bool  // the body copies itself, as FTP's does
		max     int64 // a size limit the body passes
		want    []int
	}{
		{"small", small, false, 0, nil},
		{"small checked", small, true, 0, nil},
		{"large", large, false, 0, []int{receiveBatch}},
		{"large checked", large, true, 0, []int{receiveBatch}},
		{"large past the limit", large, false, 2 * batchAfter, []int{receiveBatch, 1}},
		{"large checked past the limit", large, true, 2 * batchAfter, []int{receiveBatch, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			*calls = nil
			ln := serveTCP(t, func(conn net.Conn) { conn.Write(c.body) })
			open := func() io.ReadCloser {
				conn, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				if c.checked {
					return &checkedBody{c: conn.(*net.TCPConn), want: int64(len(c.body))}
				}
				return conn.(*net.TCPConn)
			}
			res := fetchBody(t, open, -1, c.max, nil)
			path, n, err := copyToFile(t, res.Body)
			if c.max > 0 {
				// One byte past the limit is read, to know it was passed.
				if !errors.Is(err, schemes.ErrTooLarge) || n > c.max+1 {
					t.Fatalf("copied %d with a limit of %d: %v", n, c.max, err)
				}
			} else if b, _ := os.ReadFile(path); err != nil || !bytes.Equal(b, c.body) {
				t.Fatalf("copied %d of %d, %v", n, len(c.body), err)
			}
			if fmt.Sprint(*calls) != fmt.Sprint(c.want) {
				t.Errorf("SO_RCVLOWAT set to %v, want %v", *calls, c.want)
			}
		})
	}
}

// TestNoBatchThroughProxy: a body that comes through a proxy is read as it
// comes, never in batches: a relay sends as it receives, and a reader held
// back for a batch stalls it.
func TestNoBatchThroughProxy(t *testing.T) {
	calls := recordLowWater(t)

	large := bytes.Repeat([]byte("L"), 4*batchAfter)
	ln := serveTCP(t, func(conn net.Conn) { conn.Write(large) })
	f := &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
		// The stub stands for a fetcher that dialed through req.Dialer.
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return nil, err
		}
		return &schemes.Resource{Body: conn.(*net.TCPConn), Size: -1}, nil
	}}
	p, err := ParseProxy("socks5://127.0.0.1:9")
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{Fetchers: map[string]schemes.Fetcher{"t": f}, Proxy: ProxyURL(p, "")}
	res, err := c.Fetch(context.Background(), "t://h/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	path, n, err := copyToFile(t, res.Body)
	if b, _ := os.ReadFile(path); err != nil || !bytes.Equal(b, large) {
		t.Fatalf("copied %d of %d, %v", n, len(large), err)
	}
	if *calls != nil {
		t.Errorf("SO_RCVLOWAT set to %v through a proxy, want it left alone", *calls)
	}
}

// recordLowWater records every low-water mark set on a socket until the
// test ends.
func recordLowWater(t *testing.T) *[]int {
	var calls []int
	set := setLowWater
	setLowWater = func(rc syscall.RawConn, n int) bool {
		calls = append(calls, n)
		return set(rc, n)
	}
	t.Cleanup(func() { setLowWater = set })
	return &calls
}
