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
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/bulk"
	"github.com/urlget/urlget/schemes"
)

// copyData is larger than one copy chunk and not a multiple of any buffer
// size, so that every path crosses chunk and buffer boundaries.
var copyData = bytes.Repeat([]byte("0123456789abcdef"), (copyChunk+copyBufferSize)/16+4099)

// bodySources returns the kinds of source WriteTo treats apart: a regular
// file, a TCP connection from a server on 127.0.0.1, and a reader with no
// descriptor.
func bodySources(t *testing.T, data []byte) map[string]func() io.ReadCloser {
	t.Helper()
	path := filepath.Join(t.TempDir(), "src")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ln := serveTCP(t, func(c net.Conn) { c.Write(data) })
	// A connection that outlives its body, as a kept-alive HTTP one does,
	// with bytes past the body that the copy must leave alone.
	held := serveTCP(t, func(c net.Conn) {
		c.Write(data)
		c.Write([]byte("past the body"))
		<-t.Context().Done()
	})
	return map[string]func() io.ReadCloser{
		"file": func() io.ReadCloser {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			return f
		},
		"tcp": func() io.ReadCloser {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			return c.(*net.TCPConn)
		},
		"reader": func() io.ReadCloser {
			return io.NopCloser(bytes.NewReader(data))
		},
		"checked": func() io.ReadCloser {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			return &checkedBody{c: c.(*net.TCPConn), want: int64(len(data))}
		},
		"limited": func() io.ReadCloser {
			c, err := net.Dial("tcp", held.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			// A copy that reads past the body waits for bytes that
			// never come: the deadline turns that into a failure.
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			return &lengthBody{c: c.(*net.TCPConn), remain: int64(len(data))}
		},
	}
}

// serveTCP listens on 127.0.0.1 and runs serve on every connection, then
// closes it; the listener ends with the test.
func serveTCP(t *testing.T, serve func(net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln
}

// errShortBody is what checkedBody reports when its connection ended early.
var errShortBody = errors.New("the connection ended before the announced length")

// checkedBody is a body that must see its own end, as FTP's does (the 226
// reply, the byte count): it hides its connection's descriptor but offers
// the connection to the destination's ReadFrom in its WriteTo.
type checkedBody struct {
	c    *net.TCPConn
	n    int64
	want int64
}

func (b *checkedBody) Read(p []byte) (int, error) {
	n, err := b.c.Read(p)
	b.n += int64(n)
	if err == io.EOF && b.n < b.want {
		err = errShortBody
	}
	return n, err
}

func (b *checkedBody) WriteTo(w io.Writer) (int64, error) {
	var n int64
	var err error
	if rf, ok := w.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(b.c)
	} else {
		n, err = io.Copy(w, b.c)
	}
	b.n += n
	if err == nil && b.n < b.want {
		err = errShortBody
	}
	return n, err
}

func (b *checkedBody) Close() error { return b.c.Close() }

// lengthBody is a body that ends before its connection does, as an HTTP
// body of known length on a kept-alive connection: its WriteTo offers the
// connection as an *io.LimitedReader of the body's bytes.
type lengthBody struct {
	c      *net.TCPConn
	remain int64
}

func (b *lengthBody) Read(p []byte) (int, error) {
	if b.remain <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.remain {
		p = p[:b.remain]
	}
	n, err := b.c.Read(p)
	b.remain -= int64(n)
	if err == io.EOF && b.remain > 0 {
		err = errShortBody
	}
	return n, err
}

func (b *lengthBody) WriteTo(w io.Writer) (int64, error) {
	rf, ok := w.(io.ReaderFrom)
	if !ok {
		return io.Copy(w, struct{ io.Reader }{b})
	}
	lr := &io.LimitedReader{R: b.c, N: b.remain}
	n, err := rf.ReadFrom(lr)
	b.remain = lr.N
	if err == nil && b.remain > 0 {
		err = errShortBody
	}
	return n, err
}

func (b *lengthBody) Close() error { return b.c.Close() }

// TestWriteToCheckedBodyEndsShort makes sure a body that checks its own end
// still reports a short transfer when the copy goes through the kernel.
func TestWriteToCheckedBodyEndsShort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write(copyData[:len(copyData)/2])
			c.Close()
		}
	}()
	open := func() io.ReadCloser {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		return &checkedBody{c: c.(*net.TCPConn), want: int64(len(copyData))}
	}
	var last Progress
	res := fetchBody(t, open, int64(len(copyData)), 0, &last)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go io.Copy(io.Discard, pr)
	n, err := io.Copy(pw, res.Body)
	pw.Close()
	if !errors.Is(err, errShortBody) || n != int64(len(copyData)/2) {
		t.Errorf("copied %d, %v; want %d and the body's own error", n, err, len(copyData)/2)
	}
}

// fetchBody fetches a body from open through a Client with the given limit,
// recording the last progress report in last.
func fetchBody(t *testing.T, open func() io.ReadCloser, size, max int64, last *Progress) *schemes.Resource {
	t.Helper()
	f := &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
		return &schemes.Resource{Body: open(), Size: size}, nil
	}}
	c := &Client{Fetchers: map[string]schemes.Fetcher{"t": f}, MaxSize: max}
	if last != nil {
		c.Progress = func(p Progress) { *last = p }
	}
	res, err := c.Fetch(context.Background(), "t://h/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// copyToFile copies r into a new file in a temporary directory, with
// io.Copy (so through the file's ReadFrom and the body's WriteTo).
func copyToFile(t *testing.T, r io.Reader) (path string, n int64, err error) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "dst")
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	n, err = io.Copy(dst, r)
	return path, n, err
}

// TestWriteToPipe copies every kind of source into a pipe, the destination
// that splice(2) serves, and checks the bytes and the final progress.
func TestWriteToPipe(t *testing.T) {
	for name, open := range bodySources(t, copyData) {
		t.Run(name, func(t *testing.T) {
			var last Progress
			res := fetchBody(t, open, int64(len(copyData)), 0, &last)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			bulk.GrowPipe(pw)
			got := make(chan []byte)
			go func() {
				b, _ := io.ReadAll(pr)
				got <- b
			}()
			n, err := io.Copy(pw, res.Body)
			pw.Close()
			if err != nil || n != int64(len(copyData)) {
				t.Fatalf("copied %d of %d, %v", n, len(copyData), err)
			}
			if b := <-got; !bytes.Equal(b, copyData) {
				t.Errorf("the pipe carried %d bytes that differ from the %d sent", len(b), len(copyData))
			}
			if !last.Final || last.Done != n {
				t.Errorf("last progress %+v", last)
			}
		})
	}
}

// TestWriteToRegularFile copies every kind of source into a regular file.
func TestWriteToRegularFile(t *testing.T) {
	for name, open := range bodySources(t, copyData) {
		// With and without progress to report: the bytes must not
		// differ.
		for _, report := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/progress=%v", name, report), func(t *testing.T) {
				var last *Progress
				if report {
					last = &Progress{}
				}
				res := fetchBody(t, open, -1, 0, last)
				path, n, err := copyToFile(t, res.Body)
				if err != nil || n != int64(len(copyData)) {
					t.Fatalf("copied %d of %d, %v", n, len(copyData), err)
				}
				if b, _ := os.ReadFile(path); !bytes.Equal(b, copyData) {
					t.Error("the file differs from the body")
				}
				if report && (!last.Final || last.Done != n || last.Total != -1) {
					t.Errorf("last progress %+v", last)
				}
			})
		}
	}
}

// TestWriteToDevNull reads the whole body when it is thrown away: the count
// is the body's length whatever /dev/null is on this system.
func TestWriteToDevNull(t *testing.T) {
	for name, open := range bodySources(t, copyData) {
		t.Run(name, func(t *testing.T) {
			var last Progress
			res := fetchBody(t, open, int64(len(copyData)), 0, &last)
			null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer null.Close()
			n, err := io.Copy(null, res.Body)
			if err != nil || n != int64(len(copyData)) {
				t.Fatalf("copied %d of %d, %v", n, len(copyData), err)
			}
			if !last.Final || last.Done != n {
				t.Errorf("last progress %+v", last)
			}
		})
	}
}

// TestWriteToPipeLimit cuts a body of unknown size at MaxSize on the splice
// and buffer paths alike.
func TestWriteToPipeLimit(t *testing.T) {
	const max = copyBufferSize + 12345
	for name, open := range bodySources(t, copyData) {
		t.Run(name, func(t *testing.T) {
			var last Progress
			res := fetchBody(t, open, -1, max, &last)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			done := make(chan int)
			go func() {
				n, _ := io.Copy(io.Discard, pr)
				done <- int(n)
			}()
			n, err := io.Copy(pw, res.Body)
			pw.Close()
			if !errors.Is(err, schemes.ErrTooLarge) || n > max+1 {
				t.Errorf("copied %d with a limit of %d: %v", n, max, err)
			}
			if got := <-done; int64(got) != n {
				t.Errorf("the pipe carried %d bytes, WriteTo counted %d", got, n)
			}
		})
	}
}

// TestWriteToClosedPipe reports a destination that went away as a write
// error, which the command maps to exit 23, and not as the transfer's fault.
func TestWriteToClosedPipe(t *testing.T) {
	for name, open := range bodySources(t, copyData) {
		t.Run(name, func(t *testing.T) {
			var last Progress
			res := fetchBody(t, open, int64(len(copyData)), 0, &last)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			pr.Close()
			defer pw.Close()
			_, err = io.Copy(pw, res.Body)
			if !IsWriteError(err) {
				t.Errorf("got %v, want a write error", err)
			}
			var se *schemes.Error
			if errors.As(err, &se) {
				t.Errorf("a write error classified as the transfer's: %v", err)
			}
		})
	}
}

// TestWriteToWriter copies into a writer that is no file at all.
func TestWriteToWriter(t *testing.T) {
	for name, open := range bodySources(t, copyData) {
		t.Run(name, func(t *testing.T) {
			var last Progress
			res := fetchBody(t, open, -1, 0, &last)
			var sb strings.Builder
			n, err := io.Copy(&sb, res.Body)
			if err != nil || n != int64(len(copyData)) || sb.String() != string(copyData) {
				t.Fatalf("copied %d of %d, %v", n, len(copyData), err)
			}
		})
	}
}

// BenchmarkBodyWriteTo copies a 64 MiB body from each kind of source into a
// pipe drained by another goroutine, as `urlget URL | cmd` does; profile it
// with -cpuprofile to see whether the bytes pass through user space.
func BenchmarkBodyWriteTo(b *testing.B) {
	data := bytes.Repeat([]byte{0x5a}, 64<<20)
	path := filepath.Join(b.TempDir(), "src")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"file", "reader"} {
		b.Run(name, func(b *testing.B) {
			pr, pw, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			defer pr.Close()
			bulk.GrowPipe(pw)
			go io.Copy(io.Discard, pr)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var rc io.ReadCloser = io.NopCloser(bytes.NewReader(data))
				if name == "file" {
					f, err := os.Open(path)
					if err != nil {
						b.Fatal(err)
					}
					rc = f
				}
				body := &Body{rc: rc, ctx: context.Background(), cancel: func() {}, total: -1}
				if _, err := body.WriteTo(pw); err != nil {
					b.Fatal(err)
				}
				body.Close()
			}
			pw.Close()
		})
	}
}
