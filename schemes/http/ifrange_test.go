package http

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// The validator a resume may rely on (RFC 9110 §13.1.5): a strong entity
// tag; without any tag, a Last-Modified at least a second before Date;
// nothing else.
func TestStrongValidator(t *testing.T) {
	date := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	fmtd := func(t time.Time) string { return t.Format(http.TimeFormat) }
	for _, tc := range []struct {
		etag, mod, date, want string
	}{
		{etag: `"abc"`, want: `"abc"`},
		{etag: `W/"abc"`, want: ""},
		{etag: `W/"abc"`, mod: fmtd(date.Add(-time.Hour)), date: fmtd(date), want: ""},
		{etag: `abc`, want: ""},
		{mod: fmtd(date.Add(-time.Second)), date: fmtd(date), want: fmtd(date.Add(-time.Second))},
		{mod: fmtd(date), date: fmtd(date), want: ""},
		{mod: fmtd(date.Add(time.Hour)), date: fmtd(date), want: ""},
		{mod: fmtd(date.Add(-time.Hour)), want: ""},
		{mod: "yesterday", date: fmtd(date), want: ""},
	} {
		h := http.Header{}
		for k, v := range map[string]string{"ETag": tc.etag, "Last-Modified": tc.mod, "Date": tc.date} {
			if v != "" {
				h.Set(k, v)
			}
		}
		if got := strongValidator(h); got != tc.want {
			t.Errorf("%v: %q, want %q", h, got, tc.want)
		}
	}
}

// A resume with IfRange sends If-Range beside Range: the server sends the
// rest when the validator still holds, and the whole representation (from
// offset 0, with its new validator) when it changed. Without Offset no
// If-Range goes out, and a value that could split the header is refused.
func TestIfRange(t *testing.T) {
	var mu sync.Mutex
	etag, body := `"v1"`, "0123456789"
	var sent []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent = append(sent, r.Header.Get("Range")+"|"+r.Header.Get("If-Range"))
		w.Header().Set("ETag", etag)
		b := body
		mu.Unlock()
		http.ServeContent(w, r, "f", time.Time{}, strings.NewReader(b))
	}))
	defer srv.Close()
	f := &Fetcher{}
	defer f.Close()
	get := func(off int64, ifRange string) (*schemes.Resource, string, error) {
		t.Helper()
		res, err := f.Fetch(context.Background(), &schemes.Request{
			URL: uri.MustParse(srv.URL + "/f"), Dialer: &net.Dialer{},
			Offset: off, IfRange: ifRange,
		})
		if err != nil {
			return nil, "", err
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res, string(b), nil
	}
	res, b, err := get(0, `"v1"`)
	if err != nil || b != body || res.Validator != `"v1"` {
		t.Fatalf("whole: %q %+v %v", b, res, err)
	}
	res, b, err = get(4, `"v1"`)
	if err != nil || b != "456789" || res.Offset != 4 {
		t.Errorf("resumed: %q %+v %v", b, res, err)
	}
	mu.Lock()
	etag, body = `"v2"`, "abcdefghijkl"
	mu.Unlock()
	res, b, err = get(4, `"v1"`)
	if err != nil || b != "abcdefghijkl" || res.Offset != 0 || res.Validator != `"v2"` {
		t.Errorf("changed: %q %+v %v", b, res, err)
	}
	if _, _, err := get(4, "\"v1\"\r\nX-Evil: 1"); err == nil {
		t.Error("an If-Range with a line break was sent")
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{`|`, `bytes=4-|"v1"`, `bytes=4-|"v1"`}
	if strings.Join(sent, " ") != strings.Join(want, " ") {
		t.Errorf("sent %q, want %q", sent, want)
	}
}

// A server that ignores If-Range and answers 206 for a representation
// other than the one it names (its ETag or Last-Modified differs) has its
// bytes refused as the rest of the part: the whole new representation is
// asked for and returned from offset 0. A 206 that names the same one, or
// none, is the rest.
func TestIfRangeIgnoredByServer(t *testing.T) {
	old := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).Format(http.TimeFormat)
	newer := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC).Format(http.TimeFormat)
	for _, tc := range []struct {
		name, ifRange, etag, mod string
		resumed                  bool
	}{
		{"other etag", `"v1"`, `"v2"`, "", false},
		{"same etag", `"v1"`, `"v1"`, "", true},
		{"no validator", `"v1"`, "", "", true},
		{"other date", old, "", newer, false},
		{"same date", old, "", old, true},
		{"a date, then an etag", old, `"v2"`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := "ABCDEFGHIJ"
			var ranges []string
			var mu sync.Mutex
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				ranges = append(ranges, r.Header.Get("Range"))
				mu.Unlock()
				if tc.etag != "" {
					w.Header().Set("ETag", tc.etag)
				}
				if tc.mod != "" {
					w.Header().Set("Last-Modified", tc.mod)
				}
				if r.Header.Get("Range") == "bytes=4-" {
					// If-Range ignored: the rest of whatever it has now.
					w.Header().Set("Content-Range", "bytes 4-9/10")
					w.Header().Set("Content-Length", "6")
					w.WriteHeader(http.StatusPartialContent)
					io.WriteString(w, body[4:])
					return
				}
				io.WriteString(w, body)
			}))
			defer srv.Close()
			f := &Fetcher{}
			defer f.Close()
			res, err := f.Fetch(context.Background(), &schemes.Request{
				URL: uri.MustParse(srv.URL + "/f"), Dialer: &net.Dialer{},
				Offset: 4, IfRange: tc.ifRange,
			})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if tc.resumed {
				if res.Offset != 4 || string(b) != body[4:] {
					t.Errorf("offset %d, %q; want the rest", res.Offset, b)
				}
				return
			}
			if res.Offset != 0 || string(b) != body || len(ranges) != 2 || ranges[1] != "" {
				t.Errorf("offset %d, %q, requests %q; want the whole asked for again", res.Offset, b, ranges)
			}
		})
	}
}
