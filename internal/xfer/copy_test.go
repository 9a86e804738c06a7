package xfer

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

	"github.com/urlget/urlget/internal/xfer/xfertest"
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
	ln := xfertest.ServeTCP(t, func(c net.Conn) { c.Write(data) })
	// A connection that outlives its body, as a kept-alive HTTP one does,
	// with bytes past the body that the copy must leave alone.
	held := xfertest.ServeTCP(t, func(c net.Conn) {
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
			return xfertest.NewCheckedBody(c.(*net.TCPConn), int64(len(data)))
		},
		"limited": func() io.ReadCloser {
			c, err := net.Dial("tcp", held.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			// A copy that reads past the body waits for bytes that
			// never come: the deadline turns that into a failure.
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			return xfertest.NewLengthBody(c.(*net.TCPConn), int64(len(data)))
		},
	}
}

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
		return xfertest.NewCheckedBody(c.(*net.TCPConn), int64(len(copyData)))
	}
	var last progress
	body := fetchBody(t, open, 0, &last)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go io.Copy(io.Discard, pr)
	n, err := io.Copy(pw, body)
	pw.Close()
	if !errors.Is(err, xfertest.ErrShortBody) || n != int64(len(copyData)/2) {
		t.Errorf("copied %d, %v; want %d and the body's own error", n, err, len(copyData)/2)
	}
}

// progress is a body's last progress report.
type progress struct {
	Done  int64
	Final bool
}

// transferFault is what the tests' MapError makes of the engine's own
// errors and of the source's, so that a test can tell them from write
// errors, which never go through it.
type transferFault struct{ err error }

func (e *transferFault) Error() string { return "transfer: " + e.err.Error() }
func (e *transferFault) Unwrap() error { return e.err }

// generous are bounds no test here reaches.
var generous = Bounds{Connect: time.Minute, Idle: time.Minute}

// fetchBody wraps the source open returns as one transfer's body, as a
// client does, under generous bounds and the size limit max, recording the
// last progress report in last.
func fetchBody(t *testing.T, open func() io.ReadCloser, max int64, last *progress) io.ReadCloser {
	t.Helper()
	return startBody(t, open(), generous, Config{Max: max}, last)
}

// startBody wraps rc as a transfer's body under a watchdog with bounds b,
// with cfg's limits, as a client does; the body is closed with the test.
func startBody(t testing.TB, rc io.ReadCloser, b Bounds, cfg Config, last *progress) io.ReadCloser {
	ctx, cancel := context.WithCancelCause(context.Background())
	w := NewWatchdog(b, cancel)
	w.Fetched()
	cfg.Watch = w
	cfg.Cancel = func() { w.Stop(); cancel(nil) }
	cfg.MapError = func(err error) error { return &transferFault{err} }
	if last != nil {
		cfg.Progress = func(done int64, final bool) { *last = progress{Done: done, Final: final} }
	}
	body := New(ctx, rc, cfg)
	t.Cleanup(func() { body.Close() })
	return body
}

// TestWriteToPipe copies every kind of source into a pipe, the destination
// that splice(2) serves, and checks the bytes and the final progress.
func TestWriteToPipe(t *testing.T) {
	for name, open := range bodySources(t, copyData) {
		t.Run(name, func(t *testing.T) {
			var last progress
			body := fetchBody(t, open, 0, &last)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			GrowPipe(pw)
			got := make(chan []byte)
			go func() {
				b, _ := io.ReadAll(pr)
				got <- b
			}()
			n, err := io.Copy(pw, body)
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
				var last *progress
				if report {
					last = &progress{}
				}
				body := fetchBody(t, open, 0, last)
				path, n, err := xfertest.CopyToFile(t, body)
				if err != nil || n != int64(len(copyData)) {
					t.Fatalf("copied %d of %d, %v", n, len(copyData), err)
				}
				if b, _ := os.ReadFile(path); !bytes.Equal(b, copyData) {
					t.Error("the file differs from the body")
				}
				if report && (!last.Final || last.Done != n) {
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
			var last progress
			body := fetchBody(t, open, 0, &last)
			null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer null.Close()
			n, err := io.Copy(null, body)
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
			var last progress
			body := fetchBody(t, open, max, &last)
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
			n, err := io.Copy(pw, body)
			pw.Close()
			var large *TooLargeError
			if !errors.As(err, &large) || n > max+1 {
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
			var last progress
			body := fetchBody(t, open, 0, &last)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			pr.Close()
			defer pw.Close()
			_, err = io.Copy(pw, body)
			if !isWriteError(err) {
				t.Errorf("got %v, want a write error", err)
			}
			var tf *transferFault
			if errors.As(err, &tf) {
				t.Errorf("a write error classified as the transfer's: %v", err)
			}
		})
	}
}

// TestWriteToWriter copies into a writer that is no file at all.
func TestWriteToWriter(t *testing.T) {
	for name, open := range bodySources(t, copyData) {
		t.Run(name, func(t *testing.T) {
			var last progress
			body := fetchBody(t, open, 0, &last)
			var sb strings.Builder
			n, err := io.Copy(&sb, body)
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
			GrowPipe(pw)
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
				body := New(context.Background(), rc, Config{})
				if _, err := body.WriteTo(pw); err != nil {
					b.Fatal(err)
				}
				body.Close()
			}
			pw.Close()
		})
	}
}
