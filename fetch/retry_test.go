package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// TestRetryClasses holds the retry decision to curl 7.88's classes: which
// failures are retried with --retry alone, which only with
// --retry-connrefused or --retry-all-errors, and which never.
func TestRetryClasses(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &net.OpError{Err: syscall.ECONNREFUSED}}
	cases := []struct {
		name             string
		scheme           string
		err              error
		res              *schemes.Resource
		connRefused, all bool
		want             RetryReason
	}{
		{name: "timeout", scheme: "http", err: &schemes.Error{Kind: schemes.ErrTimeout}, want: RetryTimeout},
		{name: "resolve", scheme: "ftp", err: &schemes.Error{Kind: schemes.ErrResolve}, want: RetryTimeout},
		{name: "refused", scheme: "http", err: &schemes.Error{Kind: schemes.ErrConnect, Err: refused, Temporary: true}, want: ""},
		{name: "refused, flag", scheme: "http", err: &schemes.Error{Kind: schemes.ErrConnect, Err: refused}, connRefused: true, want: RetryConnRefused},
		{name: "unreachable, flag", scheme: "http", err: &schemes.Error{Kind: schemes.ErrConnect, Err: syscall.EHOSTUNREACH}, connRefused: true, want: ""},
		{name: "503", scheme: "https", err: &schemes.Error{Kind: schemes.ErrServer, Code: 503}, want: RetryHTTP},
		{name: "429", scheme: "http", err: &schemes.Error{Kind: schemes.ErrProtocol, Code: 429}, want: RetryHTTP},
		{name: "501", scheme: "http", err: &schemes.Error{Kind: schemes.ErrServer, Code: 501, Temporary: true}, want: ""},
		{name: "404", scheme: "http", err: &schemes.Error{Kind: schemes.ErrNotFound, Code: 404}, want: ""},
		{name: "404, all", scheme: "http", err: &schemes.Error{Kind: schemes.ErrNotFound, Code: 404}, all: true, want: RetryAllErrors},
		{name: "503 as a resource", scheme: "http", res: &schemes.Resource{StatusCode: 503}, want: RetryHTTP},
		{name: "200", scheme: "http", res: &schemes.Resource{StatusCode: 200}, all: true, want: ""},
		{name: "ftp 421", scheme: "ftp", err: &schemes.Error{Kind: schemes.ErrLoginFailed, Code: 421}, want: RetryFTP},
		{name: "ftp 550", scheme: "ftps", err: &schemes.Error{Kind: schemes.ErrNotFound, Code: 550}, want: ""},
		{name: "gopher busy", scheme: "gopher", err: &schemes.Error{Kind: schemes.ErrNotRetrievable, Code: 2, Temporary: true}, want: RetryServer},
		{name: "truncated", scheme: "http", err: &schemes.Error{Kind: schemes.ErrTruncated, Temporary: true}, want: ""},
		{name: "truncated, all", scheme: "http", err: &schemes.Error{Kind: schemes.ErrTruncated}, all: true, want: RetryAllErrors},
	}
	for _, tc := range cases {
		c := &Client{RetryConnRefused: tc.connRefused, RetryAllErrors: tc.all}
		if got := c.retryReason(tc.scheme, tc.res, tc.err); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestRetryHTTPOverSockets retries a real server's 503s, honouring its
// Retry-After of 1 second over the --retry-delay given, and tells each
// retry to OnRetry with the retries left, as curl's warning counts them.
func TestRetryHTTPOverSockets(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case 2:
			http.Error(w, "bad gateway", http.StatusBadGateway)
		default:
			io.WriteString(w, "done")
		}
	}))
	defer srv.Close()
	var mu sync.Mutex
	var told []Retry
	c := &Client{Proxy: direct, Retries: 3, RetryDelay: time.Millisecond, OnRetry: func(r Retry) {
		mu.Lock()
		told = append(told, r)
		mu.Unlock()
	}}
	defer c.Close()
	res, err := c.Do(context.Background(), Request{URL: uri.MustParse(srv.URL + "/x")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "done" || calls.Load() != 3 {
		t.Fatalf("body %q after %d calls", b, calls.Load())
	}
	if len(told) != 2 {
		t.Fatalf("told %d retries: %+v", len(told), told)
	}
	if told[0].Reason != RetryHTTP || told[0].Wait != time.Second || told[0].Left != 3 {
		t.Errorf("first retry %+v, want HTTP error, 1s (Retry-After), 3 left", told[0])
	}
	if told[1].Wait != time.Millisecond || told[1].Left != 2 {
		t.Errorf("second retry %+v, want the delay given, 2 left", told[1])
	}
}

// TestRetryConnRefusedOverSockets dials a port nothing listens on: one
// attempt without RetryConnRefused, every retry with it.
func TestRetryConnRefusedOverSockets(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := uri.MustParse(fmt.Sprintf("http://%s/", l.Addr()))
	l.Close()
	for _, flag := range []bool{false, true} {
		var n atomic.Int32
		c := &Client{Proxy: direct, Retries: 2, RetryDelay: time.Millisecond, RetryConnRefused: flag,
			OnRetry: func(r Retry) {
				n.Add(1)
				if r.Reason != RetryConnRefused {
					t.Errorf("reason %q", r.Reason)
				}
			}}
		_, err := c.Do(context.Background(), Request{URL: u})
		c.Close()
		if !errors.Is(err, schemes.ErrConnect) {
			t.Fatalf("flag %v: %v", flag, err)
		}
		want := int32(0)
		if flag {
			want = 2
		}
		if n.Load() != want {
			t.Errorf("flag %v: %d retries, want %d", flag, n.Load(), want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":                              0,
		"7":                             7 * time.Second,
		" 0 ":                           0,
		"-3":                            0,
		"99999999999999999999":          24 * time.Hour,
		"Tue, 02 Jan 2024 03:04:35 GMT": 30 * time.Second,
		"Tue, 02 Jan 2024 03:00:00 GMT": 0,
		"soon":                          0,
	} {
		if got := schemes.ParseRetryAfter(in, now); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}
