package http

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// TestConditionalGet fetches a file whole, then again with each condition
// the first answer allows (its Last-Modified, its ETag), directly and
// through a redirect: the server answers 304 and the Resource has no body
// and NotModified set; a condition that does not hold brings the body.
// The fields are checked as the server received them, at the final URL.
func TestConditionalGet(t *testing.T) {
	mod := time.Date(2024, 3, 9, 8, 7, 6, 0, time.UTC)
	const etag = `"v1"`
	var mu sync.Mutex
	got := map[string]http.Header{} // path -> the last request's fields
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.URL.Path] = r.Header.Clone()
		mu.Unlock()
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/file", http.StatusFound)
			return
		}
		w.Header().Set("ETag", etag)
		// ServeContent evaluates the conditions as RFC 9110 §13.2.2 orders.
		http.ServeContent(w, r, "file", mod, strings.NewReader("contents"))
	}))
	defer srv.Close()
	f := &Fetcher{}
	defer f.Close()
	fetch := func(path string, ims time.Time, inm string) *schemes.Resource {
		t.Helper()
		res, err := f.Fetch(context.Background(), &schemes.Request{
			URL: uri.MustParse(srv.URL + path), Dialer: &net.Dialer{},
			IfModifiedSince: ims, IfNoneMatch: inm,
		})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return res
	}
	sent := func(path, name string) string {
		mu.Lock()
		defer mu.Unlock()
		return got[path].Get(name)
	}

	first := fetch("/file", time.Time{}, "")
	data, err := io.ReadAll(first.Body)
	first.Body.Close()
	if err != nil || string(data) != "contents" || first.NotModified {
		t.Fatalf("first fetch: %q, %v, NotModified %v", data, err, first.NotModified)
	}
	if first.ETag != etag || !first.ModTime.Equal(mod) || first.Size != 8 {
		t.Fatalf("first fetch: ETag %q, ModTime %v, Size %d; want %q, %v, 8", first.ETag, first.ModTime, first.Size, etag, mod)
	}
	if h := sent("/file", "If-Modified-Since") + sent("/file", "If-None-Match"); h != "" {
		t.Errorf("an unconditional request sent %q", h)
	}

	for _, tc := range []struct {
		name, path string
		ims        time.Time
		inm        string
		unchanged  bool
	}{
		{"modified-since", "/file", first.ModTime, "", true},
		{"none-match", "/file", time.Time{}, first.ETag, true},
		{"both", "/file", first.ModTime, first.ETag, true},
		{"redirected", "/moved", first.ModTime, first.ETag, true},
		{"older", "/file", mod.Add(-time.Hour), "", false},
		{"other-tag", "/file", time.Time{}, `"v0"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := fetch(tc.path, tc.ims, tc.inm)
			if res.Body != nil {
				defer res.Body.Close()
			}
			if res.NotModified != tc.unchanged || (res.Body == nil) != tc.unchanged || res.Listing != nil {
				t.Fatalf("NotModified %v, body %v; want NotModified %v", res.NotModified, res.Body != nil, tc.unchanged)
			}
			if tc.unchanged && (res.ETag != etag || !strings.HasSuffix(res.URL, "/file") || httpStatus(res) != "304") {
				t.Errorf("304: ETag %q, URL %s, status %s", res.ETag, res.URL, httpStatus(res))
			}
			want := ""
			if !tc.ims.IsZero() {
				want = tc.ims.UTC().Format(http.TimeFormat)
			}
			if h := sent("/file", "If-Modified-Since"); h != want {
				t.Errorf("If-Modified-Since sent to /file: %q, want %q", h, want)
			}
			if h := sent("/file", "If-None-Match"); h != tc.inm {
				t.Errorf("If-None-Match sent to /file: %q, want %q", h, tc.inm)
			}
			if tc.path == "/moved" && sent("/moved", "If-None-Match") != tc.inm {
				t.Errorf("the redirecting request lacked If-None-Match")
			}
			if !tc.unchanged {
				data, err := io.ReadAll(res.Body)
				if err != nil || string(data) != "contents" {
					t.Errorf("body %q, %v", data, err)
				}
			}
		})
	}
}

// TestConditionalRefusesLineBreak: an entity-tag holding a line break would
// add a field of the caller's choosing; it fails before anything is sent.
func TestConditionalRefusesLineBreak(t *testing.T) {
	f := &Fetcher{}
	_, err := f.Fetch(context.Background(), &schemes.Request{
		URL: uri.MustParse("http://127.0.0.1:1/x"), Dialer: &net.Dialer{},
		IfNoneMatch: "\"a\"\r\nX-Evil: 1",
	})
	if err == nil || !errors.Is(err, schemes.ErrBadURL) || !strings.Contains(err.Error(), "If-None-Match header contains a CR byte") {
		t.Fatalf("an If-None-Match with CR LF: %v", err)
	}
}

func httpStatus(res *schemes.Resource) string {
	if res.StatusCode == 0 {
		return ""
	}
	return strconv.Itoa(res.StatusCode)
}
