package fetch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// direct is the proxy policy of tests: every connection goes straight to
// the server, whatever the environment says.
func direct(uri.URL) (*Proxy, error) { return nil, nil }

// countingServer starts an HTTP server on 127.0.0.1 that counts the
// connections it accepts.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	conns := new(atomic.Int32)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, conns
}

// TestConditionalThroughClient fetches a file, then asks for it again only
// if changed, with each condition: the Client hands back the 304 as a
// Resource with NotModified and neither Body nor Listing, reports no
// progress for it, and keeps its connection for the next request.
func TestConditionalThroughClient(t *testing.T) {
	mod := time.Date(2023, 11, 5, 4, 3, 2, 0, time.UTC)
	var mu sync.Mutex
	var fields []string
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fields = append(fields, r.Header.Get("If-Modified-Since")+"|"+r.Header.Get("If-None-Match"))
		mu.Unlock()
		w.Header().Set("ETag", `W/"abc"`)
		http.ServeContent(w, r, "f", mod, strings.NewReader("0123456789"))
	})
	var progress atomic.Int32
	c := &Client{Proxy: direct, Retries: 2, RetryDelay: time.Millisecond, Progress: func(Progress) { progress.Add(1) }}
	defer c.Close()
	u := uri.MustParse(srv.URL + "/f")

	res, err := c.Do(context.Background(), Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.ETag != `W/"abc"` || !res.ModTime.Equal(mod) {
		t.Fatalf("first answer: ETag %q, ModTime %v", res.ETag, res.ModTime)
	}
	before := progress.Load()
	for _, r := range []Request{
		{URL: u, IfModifiedSince: res.ModTime},
		{URL: u, IfNoneMatch: res.ETag},
		{URL: u, IfModifiedSince: res.ModTime, IfNoneMatch: res.ETag},
	} {
		got, err := c.Do(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if !got.NotModified || got.Body != nil || got.Listing != nil {
			t.Fatalf("conditional fetch: NotModified %v, Body %v, Listing %v", got.NotModified, got.Body != nil, got.Listing != nil)
		}
	}
	if n := progress.Load(); n != before {
		t.Errorf("304 answers reported progress %d times", n-before)
	}
	ims := mod.Format(http.TimeFormat)
	want := []string{"|", ims + "|", `|W/"abc"`, ims + `|W/"abc"`}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(fields) != fmt.Sprint(want) {
		t.Errorf("the server received conditions %q, want %q", fields, want)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 4 requests in turn, want 1", n)
	}
}

// TestNotModifiedSizeIsNotLimited: a 304 may give the Content-Length of the
// copy the client holds (RFC 9110 §8.6); --max-filesize limits bodies, and a
// 304 brings none, so it is no error.
func TestNotModifiedSizeIsNotLimited(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		r := bufio.NewReader(conn)
		for {
			line, err := r.ReadString('\n')
			if err != nil || line == "\r\n" {
				break
			}
		}
		io.WriteString(conn, "HTTP/1.1 304 Not Modified\r\nContent-Length: 1000\r\nETag: \"e\"\r\nLast-Modified: Sun, 05 Nov 2023 04:03:02 GMT\r\n\r\n")
		io.Copy(io.Discard, conn)
	}()
	c := &Client{Proxy: direct, MaxSize: 10}
	defer c.Close()
	res, err := c.Do(context.Background(), Request{URL: uri.MustParse("http://" + ln.Addr().String() + "/f"), IfNoneMatch: `"e"`})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NotModified || res.Size != 1000 || res.ETag != `"e"` || res.ModTime.IsZero() || res.Body != nil {
		t.Fatalf("NotModified %v, Size %d, ETag %q, ModTime %v, Body %v", res.NotModified, res.Size, res.ETag, res.ModTime, res.Body != nil)
	}
}

// TestParallelReusesConnections fetches 800 small files from one host, eight
// at a time (a mirror's most to one host) through one Client. A first round
// holds eight responses open at once, so that eight connections exist; from
// then on each connection goes back to the pool when its body ends and the
// next request takes it. With net/http's default idle pool of two a host,
// six of every eight would be closed and opened anew: about 600
// connections. A few may still be opened on a loaded machine: net/http
// keeps a connection only once its writer has reported the request sent,
// and waits 50 ms for that (maxWriteWaitBeforeConnReuse); so the bound is
// one connection per worker, not none.
func TestParallelReusesConnections(t *testing.T) {
	const workers, each = 8, 100
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.URL.Path)
	})
	c := &Client{Proxy: direct}
	defer c.Close()
	get := func(path string) (*schemes.Resource, error) {
		return c.Do(context.Background(), Request{URL: uri.MustParse(srv.URL + path)})
	}
	check := func(res *schemes.Resource, path string) error {
		data, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(data) != path {
			return fmt.Errorf("%s: got %q, %v", path, data, err)
		}
		return nil
	}
	parallel := func(work func(w int) error) {
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := work(w); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}

	var open sync.WaitGroup
	open.Add(workers)
	parallel(func(w int) error {
		path := fmt.Sprintf("/warm%d", w)
		res, err := get(path)
		open.Done()
		if err != nil {
			return err
		}
		open.Wait() // every worker holds a response: eight connections
		return check(res, path)
	})
	warm := conns.Load()
	if warm < workers {
		t.Fatalf("%d connections for %d responses open at once", warm, workers)
	}
	parallel(func(w int) error {
		for i := range each {
			path := fmt.Sprintf("/d%d/f%d", w, i)
			res, err := get(path)
			if err != nil {
				return err
			}
			if err := check(res, path); err != nil {
				return err
			}
		}
		return nil
	})
	if n := conns.Load() - warm; n > workers {
		t.Errorf("%d connections opened for %d transfers %d at a time over %d idle ones", n, workers*each, workers, warm)
	}
}
