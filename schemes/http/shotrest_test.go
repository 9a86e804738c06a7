package http

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// rawHTTPServer answers every request, on a connection of its own, with
// a header announcing a body of length bytes, then parts, each written
// after a pause so that the client has read what came before and waits
// (the first goes with the header). With hold the connection then stays
// open until the test ends, as a keep-alive server leaves it; otherwise it
// closes.
func rawHTTPServer(t *testing.T, length int, parts [][]byte, hold bool) string {
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
				tr := textproto.NewReader(bufio.NewReader(c))
				if _, err := tr.ReadLine(); err != nil {
					return
				}
				if _, err := tr.ReadMIMEHeader(); err != nil {
					return
				}
				head := "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(length) + "\r\n\r\n"
				for i, p := range parts {
					if i == 0 {
						p = append([]byte(head), p...)
					} else {
						time.Sleep(50 * time.Millisecond)
					}
					c.Write(p)
				}
				if hold {
					<-done
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// fetchLast fetches rawURL as the only request of its run (the oneShot
// path), with a deadline that a body waiting for bytes that never come
// would run into.
func fetchLast(t *testing.T, rawURL string) *schemes.Resource {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	req := &schemes.Request{URL: uri.MustParse(rawURL), Dialer: &net.Dialer{}, Last: true}
	var f Fetcher
	t.Cleanup(func() { f.Close() })
	res, err := f.Fetch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// TestShotRestWriteTo copies bodies of known length from connections that
// stay open after them, and send bytes past them, into each kind of
// destination a copy can splice or read into: exactly the body must come,
// at once, whether or not a low-water mark was asked for first.
func TestShotRestWriteTo(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), (600<<10)/16)
	body = append(body, "the end"...)
	// The body's last 1000 bytes come on their own, fewer than a batch:
	// with the low-water mark still up they would wait for the deadline.
	// The last part comes once the body is out: bytes past it, which the
	// copy must leave unread.
	end := len(body) - 1000
	url := rawHTTPServer(t, len(body), [][]byte{body[:1000], body[1000:end], body[end:], []byte("NOT PART OF THE BODY")}, true)

	dests := map[string]func(t *testing.T) (io.Writer, func() []byte){
		"buffer": func(t *testing.T) (io.Writer, func() []byte) {
			var b bytes.Buffer
			return &b, b.Bytes
		},
		"file": func(t *testing.T) (io.Writer, func() []byte) {
			f, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f, func() []byte {
				data, err := os.ReadFile(f.Name())
				if err != nil {
					t.Fatal(err)
				}
				return data
			}
		},
		"pipe": func(t *testing.T) (io.Writer, func() []byte) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			got := make(chan []byte, 1)
			go func() {
				data, _ := io.ReadAll(pr)
				pr.Close()
				got <- data
			}()
			t.Cleanup(func() { pw.Close() })
			return pw, func() []byte {
				pw.Close()
				return <-got
			}
		},
	}
	for name, dest := range dests {
		for _, batch := range []int{0, 256 << 10} {
			t.Run(name+"/batch="+strconv.Itoa(batch), func(t *testing.T) {
				res := fetchLast(t, url+"/big")
				rest, ok := res.Body.(*shotRest)
				if !ok {
					t.Fatalf("body is a %T, want a *shotRest", res.Body)
				}
				if batch > 0 {
					rest.BatchReceive(batch)
				}
				w, result := dest(t)
				n, err := rest.WriteTo(w)
				if err != nil || n != int64(len(body)) {
					t.Fatalf("WriteTo: %d bytes, %v; want %d", n, err, len(body))
				}
				if got := result(); !bytes.Equal(got, body) {
					t.Fatalf("got %d bytes, want the %d of the body", len(got), len(body))
				}
			})
		}
	}
}

// TestShotRestTruncated: a server that closes before the length its header
// gave leaves a truncated transfer, through WriteTo as through Read.
func TestShotRestTruncated(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 300<<10)
	sent := len(body) - 5000
	url := rawHTTPServer(t, len(body), [][]byte{body[:1000], body[1000:sent]}, false)
	for _, via := range []string{"WriteTo", "Read"} {
		res := fetchLast(t, url+"/short")
		var err error
		var n int64
		if via == "WriteTo" {
			var b bytes.Buffer
			n, err = res.Body.(io.WriterTo).WriteTo(&b)
		} else {
			n, err = io.Copy(io.Discard, readerOnly{res.Body})
		}
		if !errors.Is(err, schemes.ErrTruncated) {
			t.Errorf("%s: %d bytes, error %v, want a truncated transfer", via, n, err)
		}
		if n != int64(sent) {
			t.Errorf("%s: %d bytes, want the %d sent", via, n, sent)
		}
	}
}
