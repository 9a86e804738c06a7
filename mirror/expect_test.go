package mirror

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingConn counts the requests that arrive on a server's connection
// (each GET ends with an empty line, RFC 9112 §2.1) and the ones whose
// handler has begun.
type countingConn struct {
	net.Conn
	mu       sync.Mutex
	arrived  int
	served   int
	tail     []byte // the last bytes read, for an empty line split between reads
	progress chan struct{}
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		buf := append(c.tail, p[:n]...)
		c.arrived += bytes.Count(buf, []byte("\r\n\r\n")) - bytes.Count(c.tail, []byte("\r\n\r\n"))
		c.tail = append([]byte(nil), buf[max(0, len(buf)-3):]...)
		c.mu.Unlock()
		select {
		case c.progress <- struct{}{}:
		default:
		}
	}
	return n, err
}

type connKey struct{}

// TestMirrorSendsABatchAhead: the files of one directory of an http
// server go out as one batch, told to the client (fetch.Client.Expect):
// their requests reach the server before the answer to the first is
// written, on one connection (HTTP/1.1 pipelining, RFC 9112 §9.3.2).
func TestMirrorSendsABatchAhead(t *testing.T) {
	pages := map[string]string{}
	var links strings.Builder
	for i := range 10 {
		fmt.Fprintf(&links, `<a href="f%d.txt">f</a>`, i)
		pages[fmt.Sprintf("/f%d.txt", i)] = fmt.Sprint(i)
	}
	pages["/"] = links.String()
	var mu sync.Mutex
	mostBehind := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := r.Context().Value(connKey{}).(*countingConn)
		c.mu.Lock()
		c.served++
		c.mu.Unlock()
		if r.URL.Path == "/f0.txt" {
			// The first file waits, a few seconds at most, for the
			// request behind it: sent ahead, it comes at once.
			deadline := time.After(5 * time.Second)
		wait:
			for {
				c.mu.Lock()
				behind := c.arrived > c.served
				c.mu.Unlock()
				if behind {
					break
				}
				select {
				case <-c.progress:
				case <-deadline:
					break wait
				}
			}
		}
		c.mu.Lock()
		mu.Lock()
		mostBehind = max(mostBehind, c.arrived-c.served)
		mu.Unlock()
		c.mu.Unlock()
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html")
		}
		fmt.Fprint(w, body)
	}))
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	srv.Listener = &countingListener{Listener: srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)

	out := t.TempDir()
	_, rec, err := run(t, Options{Dir: out, Level: -1, Parallel: 1, Layout: Layout{NoHostDirs: true}}, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if n := rec.count(Fetched); n != 11 {
		t.Fatalf("fetched %d, want 11: %+v", n, rec.reports)
	}
	got := readTree(t, out)
	for i := range 10 {
		if name := fmt.Sprintf("f%d.txt", i); got[name] != fmt.Sprint(i) {
			t.Errorf("%s: %q", name, got[name])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if mostBehind < 1 {
		t.Error("no request of the batch arrived before the answer to the one before it")
	}
}

// countingListener hands out countingConns.
type countingListener struct {
	net.Listener
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, progress: make(chan struct{}, 1)}, nil
}
