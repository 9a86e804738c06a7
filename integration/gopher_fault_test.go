package integration

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/gopher"
)

func TestGopherTruncated(t *testing.T) {
	mux := gophertest.NewMux()
	mux.Handle("/bin", gophertest.Short(1000, make([]byte, 600)))
	mux.Handle("/text", gophertest.Short(1000, []byte("only\r\nsome\r\n")))
	mux.Handle("/menu", gophertest.Short(1000, []byte("0Item\t/i\th\t70\r\n")))
	s := gopherServer(t, mux)
	var f gopher.Fetcher

	for _, path := range []string{"/9/bin%09%09+", "/0/text%09%09+"} {
		res := mustFetch(t, &f, gopherRequest(t, s.URL+path))
		_, err := io.ReadAll(res.Body)
		res.Body.Close()
		if !errors.Is(err, schemes.ErrTruncated) {
			t.Errorf("%s: read err = %v, want ErrTruncated", path, err)
		}
	}

	// The same through io.Copy into a file (WriteTo and splice).
	res := mustFetch(t, &f, gopherRequest(t, s.URL+"/9/bin%09%09+"))
	if res.Size != 1000 {
		t.Errorf("Size = %d, want the announced 1000", res.Size)
	}
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	n, err := io.Copy(out, res.Body)
	res.Body.Close()
	if !errors.Is(err, schemes.ErrTruncated) || n != 600 {
		t.Errorf("io.Copy: %d bytes, err = %v, want 600 and ErrTruncated", n, err)
	}

	res = mustFetch(t, &f, gopherRequest(t, s.URL+"/1/menu%09%09+"))
	defer res.Listing.Close()
	var lerr error
	for lerr == nil {
		_, lerr = res.Listing.Next()
	}
	if !errors.Is(lerr, schemes.ErrTruncated) {
		t.Errorf("menu: err = %v, want ErrTruncated", lerr)
	}

	// A Gopher+ length over the caller's limit fails before any transfer.
	req := gopherRequest(t, s.URL+"/9/bin%09%09+")
	req.MaxSize = 999
	if _, err := f.Fetch(testCtx(t), req); !errors.Is(err, schemes.ErrTooLarge) {
		t.Errorf("MaxSize: err = %v, want ErrTooLarge", err)
	}
}

// A plain menu (RFC 1436) that ends without its "." line, whole lines or
// a last line cut in two, is cut short: its items come, then
// ErrTruncated, never io.EOF. An error menu without "." is still the
// server's "not found".
func TestGopherMenuWithoutDot(t *testing.T) {
	mux := gophertest.NewMux()
	mux.Handle("/whole", gophertest.Raw([]byte("0One\t/one\th\t70\r\n0Two\t/two\th\t70\r\n")))
	mux.Handle("/cut", gophertest.Raw([]byte("0One\t/one\th\t70\r\n0Tw")))
	mux.Handle("/gone", gophertest.Raw([]byte("3No such selector\terror\terror.host\t1\r\n")))
	s := gopherServer(t, mux)
	var f gopher.Fetcher
	for path, want := range map[string]int{"/whole": 2, "/cut": 1} {
		res := mustFetch(t, &f, gopherRequest(t, s.URL+"/1"+path))
		n := 0
		var err error
		for {
			if _, err = res.Listing.Next(); err != nil {
				break
			}
			n++
		}
		res.Listing.Close()
		if !errors.Is(err, schemes.ErrTruncated) || n != want {
			t.Errorf("%s: %d items, then %v; want %d, then ErrTruncated", path, n, err, want)
		}
	}
	if _, err := f.Fetch(testCtx(t), gopherRequest(t, s.URL+"/1/gone")); !errors.Is(err, schemes.ErrNotFound) {
		t.Errorf("error menu without \".\": %v, want ErrNotFound", err)
	}
}

func TestGopherStall(t *testing.T) {
	var s *gophertest.Server
	mux := gophertest.NewMux()
	s = gopherServer(t, mux)
	mux.Handle("/stall", s.Stall())
	mux.Handle("/half", gophertest.HandlerFunc(func(w io.Writer, r *gophertest.Request) {
		w.Write([]byte("some bytes before the stall"))
		<-s.Closed()
	}))
	var f gopher.Fetcher

	// A server that never answers: the context's deadline ends the wait.
	for _, path := range []string{"/1/stall", "/9/stall", "/0/stall%09%09+"} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		_, err := f.Fetch(ctx, gopherRequest(t, s.URL+path))
		cancel()
		if !errors.Is(err, schemes.ErrTimeout) {
			t.Errorf("%s: err = %v, want ErrTimeout", path, err)
		}
	}

	// Cancelling while the body is read stops the read.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := f.Fetch(ctx, gopherRequest(t, s.URL+"/9/half"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	buf := make([]byte, 64)
	if _, err := res.Body.Read(buf); err != nil {
		t.Fatalf("first read: %v", err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = io.ReadAll(res.Body)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: err = %v, want context.Canceled", err)
	}
}

func TestGopherEndless(t *testing.T) {
	var s *gophertest.Server
	mux := gophertest.NewMux()
	s = gopherServer(t, mux)
	mux.Handle("/line", s.EndlessLine("1A menu line that never ends", 64<<20))
	mux.Handle("/menu", s.EndlessMenu(64<<20))
	mux.Handle("/plusline", s.EndlessLine("+", 64<<20))

	// An endless menu line is a protocol violation, not a growing buffer.
	var f gopher.Fetcher
	for _, path := range []string{"/1/line", "/1/plusline%09%09+"} {
		res, err := f.Fetch(testCtx(t), gopherRequest(t, s.URL+path))
		if err == nil {
			for err == nil {
				_, err = res.Listing.Next()
			}
			res.Listing.Close()
		}
		if !errors.Is(err, schemes.ErrProtocol) || !errors.Is(err, schemes.ErrLineTooLong) {
			t.Errorf("%s: err = %v, want ErrProtocol (line too long)", path, err)
		}
	}

	// An endless menu ends at the line limit.
	f = gopher.Fetcher{MaxMenuLines: 5000}
	res := mustFetch(t, &f, gopherRequest(t, s.URL+"/1/menu"))
	defer res.Listing.Close()
	n := 0
	var err error
	for {
		if _, err = res.Listing.Next(); err != nil {
			break
		}
		n++
	}
	if !errors.Is(err, schemes.ErrTooLarge) || n != 5000 {
		t.Errorf("endless menu: %d entries, err = %v; want 5000 and ErrTooLarge", n, err)
	}
}
