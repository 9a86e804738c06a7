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

	"github.com/urlget/urlget/cookies"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// TestJar: a Fetcher with a Jar stores the cookies of every response, a
// redirect's too, sends them to the next hop and the next fetch, in one
// Cookie field with those of Header after them; the URLs told ahead are
// not pipelined, so each request carries the cookies before it.
func TestJar(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path+" "+strings.Join(r.Header.Values("Cookie"), " | "))
		mu.Unlock()
		switch r.URL.Path {
		case "/login":
			w.Header().Add("Set-Cookie", "session=s1; Path=/")
			http.Redirect(w, r, "/home", http.StatusFound)
		case "/home":
			w.Header().Add("Set-Cookie", "seen=1; Path=/")
			io.WriteString(w, "home")
		default:
			io.WriteString(w, "other")
		}
	}))
	defer srv.Close()
	f := &Fetcher{Jar: &cookies.Jar{}, Header: []Field{{Name: "Cookie", Value: "given=g"}}}
	defer f.Close()
	reqs := []*schemes.Request{
		{URL: uri.MustParse(srv.URL + "/login"), Dialer: &net.Dialer{}},
		{URL: uri.MustParse(srv.URL + "/next"), Dialer: &net.Dialer{}},
	}
	f.Expect(reqs, true)
	for _, req := range reqs {
		res, err := f.Fetch(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	want := []string{"/login given=g", "/home session=s1; given=g", "/next session=s1; seen=1; given=g"}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("the server saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}
