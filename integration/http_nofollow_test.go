package integration

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
	httpscheme "github.com/urlget/urlget/schemes/http"
)

// TestHTTPNoFollow: a redirect is the answer, its page the body, the URL
// its Location names resolved against the request's and masked; the
// server never sees the request the redirect would have led to, and
// MaxRedirects does not count.
func TestHTTPNoFollow(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		var followed atomic.Int32
		mux := http.NewServeMux()
		mux.HandleFunc("/a/moved", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "../b/there?q=1")
			w.WriteHeader(http.StatusMovedPermanently)
			io.WriteString(w, "moved away\n")
		})
		mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "http://u:secret@127.0.0.1:1/x")
			w.WriteHeader(http.StatusFound)
		})
		mux.HandleFunc("/b/", func(w http.ResponseWriter, r *http.Request) {
			followed.Add(1)
			io.WriteString(w, "followed\n")
		})
		s := httpServer(t, mux)
		f := httpFetcherWith(t, &httpscheme.Fetcher{NoFollow: true, MaxRedirects: httpscheme.NoRedirects})
		res, body, err := httpGet(t, f, httpRequest(t, s.URL+"/a/moved"))
		if err != nil {
			t.Fatal(err)
		}
		if string(body) != "moved away\n" || res.StatusCode != 301 || res.Location != s.URL+"/b/there?q=1" {
			t.Errorf("got %d %q, Location %q", res.StatusCode, body, res.Location)
		}
		res, _, err = httpGet(t, f, httpRequest(t, s.URL+"/away"))
		if err != nil || res.StatusCode != 302 || res.Location != "http://u:xxxxx@127.0.0.1:1/x" {
			t.Errorf("got %v, %+v", err, res)
		}
		if n := followed.Load(); n != 0 {
			t.Errorf("the redirect was followed %d times", n)
		}

		// Following, the Resource is the last hop's and names no Location.
		f = httpFetcherWith(t, &httpscheme.Fetcher{})
		res, body, err = httpGet(t, f, httpRequest(t, s.URL+"/a/moved"))
		if err != nil || string(body) != "followed\n" || res.StatusCode != 200 || res.Location != "" {
			t.Errorf("following: %v %q %+v", err, body, res)
		}
	})
}

// TestHTTPNoFail: an error status is an answer as any other: the page is
// the body, read to io.EOF, and StatusError tells the status the fetcher
// would have failed with; HEAD gets the status and fields alone.
func TestHTTPNoFail(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no such page", http.StatusNotFound)
		}))
		f := httpFetcherWith(t, &httpscheme.Fetcher{NoFail: true})
		res, body, err := httpGet(t, f, httpRequest(t, s.URL+"/missing"))
		if err != nil {
			t.Fatal(err)
		}
		if string(body) != "no such page\n" || res.StatusCode != 404 || res.Size != int64(len(body)) {
			t.Errorf("got %d %q size %d", res.StatusCode, body, res.Size)
		}
		if !errors.Is(res.StatusError, schemes.ErrNotFound) || schemes.IsTemporary(res.StatusError) {
			t.Errorf("StatusError %v", res.StatusError)
		}
		req := httpRequest(t, s.URL+"/missing")
		req.Head = true
		res, _, err = httpGet(t, f, req)
		if err != nil || res.StatusCode != 404 || res.Body != nil {
			t.Errorf("HEAD: %v %+v", err, res)
		}
	})
}

// TestClientRetriesErrorPage: a 503 page returned as a Resource (NoFail,
// FailWithBody) is retried as a failure is, and the last try's page is
// the answer; a 404 page is not retried.
func TestClientRetriesErrorPage(t *testing.T) {
	var calls atomic.Int32
	s := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch {
		case r.URL.Path == "/gone":
			http.Error(w, "gone", http.StatusNotFound)
		case r.URL.Path == "/busy" || n < 3:
			http.Error(w, "busy "+strings.Repeat("x", int(n)), http.StatusServiceUnavailable)
		default:
			io.WriteString(w, "ok\n")
		}
	}))
	get := func(f *httpscheme.Fetcher, path string) (*schemes.Resource, string, error) {
		t.Helper()
		c := &fetch.Client{Fetchers: map[string]schemes.Fetcher{"http": f}, Retries: 2, RetryDelay: time.Millisecond}
		t.Cleanup(func() { c.Close() })
		res, err := c.Fetch(context.Background(), s.URL+path)
		if err != nil {
			return nil, "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res, string(b), err
	}
	for _, f := range []*httpscheme.Fetcher{{NoFail: true}, {FailWithBody: true}} {
		calls.Store(0)
		if res, body, err := get(f, "/flaky"); err != nil || body != "ok\n" || res.StatusCode != 200 || calls.Load() != 3 {
			t.Errorf("%+v: %v %q after %d calls", f, err, body, calls.Load())
		}
		calls.Store(0)
		res, body, err := get(f, "/busy")
		if res == nil || res.StatusCode != 503 || body != "busy xxx\n" || calls.Load() != 3 {
			t.Errorf("%+v busy: %v %q after %d calls", f, err, body, calls.Load())
		}
		if f.FailWithBody && !errors.Is(err, schemes.ErrServer) || f.NoFail && err != nil {
			t.Errorf("%+v busy: %v", f, err)
		}
		calls.Store(0)
		if res, _, _ := get(f, "/gone"); res == nil || res.StatusCode != 404 || calls.Load() != 1 {
			t.Errorf("%+v gone: %+v after %d calls", f, res, calls.Load())
		}
	}
}
