package http

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// exchangeBody is the body the framing tests send, in two chunks when
// chunked.
const exchangeBody = "the first half of the body, " + "and the second half of it."

// framedAnswers answers a request for /length, /chunked or /close with
// exchangeBody framed so (RFC 9112 §6.3), closing the connection after
// /close's; /big-length and /big-chunked send a body of 1 MiB, more than
// the connection's reader and a pipeline's drain hold.
func framedAnswers(line string) (string, bool) {
	path := strings.Fields(line)[1]
	big := strings.Repeat("x", 1<<20)
	switch path {
	case "/length", "/next":
		return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(exchangeBody), exchangeBody), false
	case "/chunked":
		half := len(exchangeBody) / 2
		return "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk(exchangeBody[:half]) + chunk(exchangeBody[half:]) + "0\r\nX-Trailer: t\r\n\r\n", false
	case "/close":
		return "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + exchangeBody, true
	case "/big-length":
		return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(big), big), false
	case "/big-chunked":
		return "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk(big) + "0\r\n\r\n", false
	}
	return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false
}

// framedRequest is the request for path on s, told ahead of /next when
// pipelined, so that it goes out on a pipeline.
func framedRequest(t *testing.T, f *Fetcher, s *rawServer, path string, pipelined bool) *schemes.Request {
	if !pipelined {
		return rawRequest(t, s.url+path)
	}
	return expectRun(f, []uri.URL{uri.MustParse(s.url + path), uri.MustParse(s.url + "/next")}, nil)[0]
}

// TestExchangeEndsWithItsBody: the record of an exchange ends, with no
// error, as soon as the body's last byte is read (Content-Length, the
// chunked last chunk and trailer, the connection's end), or at Close when
// every byte of the body was read but the framing after it; the
// connection then serves the next request. Pipelined and not.
func TestExchangeEndsWithItsBody(t *testing.T) {
	for _, path := range []string{"/length", "/chunked", "/close"} {
		for _, pipelined := range []bool{false, true} {
			for _, exact := range []bool{false, true} {
				if exact && path == "/close" {
					// Its end is the connection's, which only a
					// read past the last byte finds.
					continue
				}
				name := fmt.Sprintf("%s pipelined=%v exact=%v", path, pipelined, exact)
				s := newRawServer(t, nil, framedAnswers)
				rec := &recorder{}
				f := &Fetcher{Recorder: rec}
				res, err := f.Fetch(context.Background(), framedRequest(t, f, s, path, pipelined))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var got []byte
				if exact {
					// Every byte of the body and no read past it.
					got = make([]byte, len(exchangeBody))
					_, err = io.ReadFull(res.Body, got)
				} else {
					got, err = io.ReadAll(res.Body)
				}
				if err != nil || string(got) != exchangeBody {
					t.Fatalf("%s: body %q, %v", name, got, err)
				}
				x := rec.all()[0]
				if !exact || path == "/length" {
					if !x.ended || x.err != nil {
						t.Errorf("%s: at the last byte: ended %v, %v", name, x.ended, x.err)
					}
				}
				res.Body.Close()
				if !x.ended || x.err != nil {
					t.Errorf("%s: after Close: ended %v, %v", name, x.ended, x.err)
				}
				if want, _ := framedAnswers("GET " + path + " HTTP/1.1"); x.resp.String() != want {
					t.Errorf("%s: recorded %q", name, x.resp.String())
				}
				// The connection serves the next request: the one
				// sent ahead, or a new one on the kept connection.
				if _, b, err := get(t, f, rawRequest(t, s.url+"/next")); err != nil || string(b) != exchangeBody {
					t.Errorf("%s: next: %q, %v", name, b, err)
				}
				if want := 1; path != "/close" && s.connections() != want {
					t.Errorf("%s: %d connections, want %d", name, s.connections(), want)
				}
				f.Close()
			}
		}
	}
}

// TestExchangeClosedEarly: a body closed before its end (more of it on
// the wire than the connection's reader holds, and than a pipeline drains
// for the responses behind) ends its record with an error of
// schemes.ErrTruncated's kind: what arrived is all the record holds.
func TestExchangeClosedEarly(t *testing.T) {
	for _, path := range []string{"/big-length", "/big-chunked"} {
		for _, pipelined := range []bool{false, true} {
			name := fmt.Sprintf("%s pipelined=%v", path, pipelined)
			s := newRawServer(t, nil, framedAnswers)
			rec := &recorder{}
			f := &Fetcher{Recorder: rec}
			res, err := f.Fetch(context.Background(), framedRequest(t, f, s, path, pipelined))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if _, err := io.ReadFull(res.Body, make([]byte, 1000)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			x := rec.all()[0]
			if x.ended {
				t.Errorf("%s: ended halfway: %v", name, x.err)
			}
			res.Body.Close()
			if !x.ended || !errors.Is(x.err, schemes.ErrTruncated) {
				t.Errorf("%s: after Close: ended %v, %v", name, x.ended, x.err)
			}
			f.Close()
		}
	}
}

// TestExchangeCutEndsWithItsCause: a body the server cuts short ends its
// record at the read that failed, with the failure's kind, before Close.
func TestExchangeCutEndsWithItsCause(t *testing.T) {
	s := newRawServer(t, nil, func(string) (string, bool) {
		return "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b", true
	})
	rec := &recorder{}
	f := &Fetcher{Recorder: rec}
	defer f.Close()
	res, err := f.Fetch(context.Background(), rawRequest(t, s.url+"/"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if _, err := io.ReadAll(res.Body); !errors.Is(err, schemes.ErrTruncated) {
		t.Fatalf("read: %v", err)
	}
	if x := rec.all()[0]; !x.ended || !errors.Is(x.err, schemes.ErrTruncated) {
		t.Errorf("ended %v, %v", x.ended, x.err)
	}
}

// TestPipelineRedirectAskedOnce: a redirect answered on a pipeline is
// followed from that answer: the URL is asked for once, not again on
// the ordinary path.
func TestPipelineRedirectAskedOnce(t *testing.T) {
	s := newPipeServer(t, func(w io.Writer, r *http.Request) {
		if r.URL.Path == "/moved" {
			io.WriteString(w, "REDIRECT /target")
			return
		}
		echoPath(w, r)
	})
	f := &Fetcher{}
	defer f.Close()
	got := fetchAll(t, f, s.url, []string{"/moved", "/after"}, nil)
	if got[0] != "body of /target" || got[1] != "body of /after" {
		t.Errorf("bodies %q", got)
	}
	if _, _, served := s.counts(); served != 3 {
		t.Errorf("%d requests served, want 3: /moved, /target, /after", served)
	}
}

// TestPipelineBadAnswerAskedOnce: an answer that came on a pipeline but
// does not parse is the fetch's answer: the request is not sent again.
// Only a connection closed before any byte of the answer is (RFC 9112
// §9.3.1).
func TestPipelineBadAnswerAskedOnce(t *testing.T) {
	s := newRawServer(t, nil, func(line string) (string, bool) {
		if strings.Contains(line, "/bad") {
			return "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", true
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false
	})
	f := &Fetcher{}
	defer f.Close()
	req := expectRun(f, []uri.URL{uri.MustParse(s.url + "/bad"), uri.MustParse(s.url + "/ok")}, nil)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := f.Fetch(ctx, req); err == nil {
		t.Fatal("a malformed answer taken")
	}
	n := 0
	for _, x := range s.exchanges() {
		if strings.HasPrefix(string(x.req), "GET /bad ") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("/bad asked for %d times", n)
	}
}

// secureHosts is an HSTS that knows every host as an HSTS host.
type secureHosts struct{}

func (secureHosts) Secure(string) bool     { return true }
func (secureHosts) Observe(string, string) {}

// TestPipelineNotToHSTSHost: a plain http: URL of a known HSTS host
// takes the ordinary path, which sends it over https (RFC 6797 §8.3),
// never a pipeline in the clear.
func TestPipelineNotToHSTSHost(t *testing.T) {
	req := rawRequest(t, "http://127.0.0.1:8080/a")
	target, err := requestURL(req.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, hsts := range []HSTS{nil, secureHosts{}} {
		f := &Fetcher{HSTS: hsts}
		r, err := f.newRequest(req, target, http.MethodGet)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.pipelinable(req, r); got != (hsts == nil) {
			t.Errorf("HSTS %v: pipelinable %v", hsts, got)
		}
	}
}
