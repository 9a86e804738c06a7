package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/xfer/xfertest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// stubFetcher answers every request from a function, counting calls.
type stubFetcher struct {
	calls atomic.Int32
	fn    func(ctx context.Context, req *schemes.Request, call int) (*schemes.Resource, error)
	last  atomic.Pointer[schemes.Request] // set from many goroutines at once
}

func (s *stubFetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	n := s.calls.Add(1)
	s.last.Store(req)
	return s.fn(ctx, req, int(n))
}

func bodyResource(data string) *schemes.Resource {
	return &schemes.Resource{Body: io.NopCloser(strings.NewReader(data)), Size: int64(len(data))}
}

func TestFetchUsesRegistry(t *testing.T) {
	f := &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
		return bodyResource("payload"), nil
	}}
	c := &Client{Fetchers: map[string]schemes.Fetcher{"x-test": f}}
	res, err := c.Fetch(context.Background(), "X-Test://host/path")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil || string(b) != "payload" {
		t.Fatalf("body %q, %v", b, err)
	}
	res.Body.Close()
	if res.URL != "X-Test://host/path" {
		t.Errorf("URL %q", res.URL)
	}
}

func TestNotRetrievableSchemes(t *testing.T) {
	c := &Client{Fetchers: map[string]schemes.Fetcher{}}
	for _, u := range []string{"telnet://host/", "mailto:a@b.example", "urn:isbn:0451450523", "prospero://host/x", "x-none://h/"} {
		_, err := c.Fetch(context.Background(), u)
		if !errors.Is(err, schemes.ErrNotRetrievable) {
			t.Errorf("%s: %v, want not retrievable", u, err)
		}
	}
}

func TestBadURLMasksPassword(t *testing.T) {
	_, err := (&Client{}).Fetch(context.Background(), "ftp://user:hunter2@host/a b")
	if !errors.Is(err, schemes.ErrBadURL) {
		t.Fatalf("got %v, want bad URL", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("password in message: %v", err)
	}
}

// TestDoRefusesRelativeURL: a Request's URL, parsed by the caller, must be
// absolute; a relative reference is a bad URL, password masked.
func TestDoRefusesRelativeURL(t *testing.T) {
	c := &Client{Fetchers: map[string]schemes.Fetcher{}}
	rel, err := uri.ParseReference("//user:hunter2@host/x")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []uri.URL{{}, rel} {
		_, err := c.Do(context.Background(), Request{URL: u})
		if !errors.Is(err, schemes.ErrBadURL) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: %v, want a bad URL without the password", u.Redacted(), err)
		}
	}
}

// TestOptionsReachFetcher: the Client's per-URL options and a Request's
// fields reach the fetcher as they were given; protocol options are the
// fetchers' own (each protocol's tests show they take effect).
func TestOptionsReachFetcher(t *testing.T) {
	f := &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
		return bodyResource(""), nil
	}}
	terms := "two words"
	c := &Client{
		Fetchers:        map[string]schemes.Fetcher{"x-test": f},
		Search:          &terms,
		User:            url.UserPassword("alice", "secret"),
		LocationTrusted: true,
		MaxSize:         9,
	}
	res, err := c.Do(context.Background(), Request{URL: uri.MustParse("x-test://host/a"), Head: true, Offset: 5, IfRange: "v"})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	req := f.last.Load()
	if req.Search == nil || *req.Search != terms {
		t.Errorf("search %v, want %q", req.Search, terms)
	}
	if pw, ok := req.User.Password(); req.User.Username() != "alice" || pw != "secret" || !ok {
		t.Errorf("user %v, want alice:secret", req.User)
	}
	if !req.LocationTrusted || req.Foreign || req.MaxSize != 9 || !req.Head || req.Offset != 5 || req.IfRange != "v" {
		t.Errorf("request %+v", req)
	}
	c = &Client{Fetchers: map[string]schemes.Fetcher{"x-test": f}}
	res, err = c.Do(context.Background(), Request{URL: uri.MustParse("x-test://host/a")})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if req := f.last.Load(); req.Search != nil || req.User != nil {
		t.Errorf("no search terms and no user given: %v %v", req.Search, req.User)
	}
}

// TestBadURLMessage checks that a URL that does not parse is named once,
// with what is wrong and the column of the URL shown (after a masked
// password, the column moves with it).
func TestBadURLMessage(t *testing.T) {
	for in, want := range map[string]string{
		"http://a b/":           "http://a b/: bad URL: space at column 9",
		"http://u:pw@a b/":      "http://u:****@a b/: bad URL: space at column 16",
		"http://u:longer@h/%zz": `http://u:****@h/%zz: bad URL: "%zz" is not a percent-escape (% must be followed by two hex digits) at column 17`,
		"ht tp://u:pw@h/":       "ht tp://u:****@h/: bad URL: space at column 3",
		"http://[::1":           "http://[::1: bad URL: unbalanced '[' at column 8",
	} {
		_, err := (&Client{}).Fetch(context.Background(), in)
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v\nwant %s", in, err, want)
		}
		var ue *uri.Error
		if !errors.Is(err, schemes.ErrBadURL) || !errors.As(err, &ue) {
			t.Errorf("%q: %v is not a bad URL with the parse error", in, err)
		}
	}
}

func TestRetriesTransientFailures(t *testing.T) {
	f := &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, call int) (*schemes.Resource, error) {
		if call < 3 {
			e := req.Fail(schemes.ErrTimeout, "connect", 0, "", errors.New("timed out"))
			e.Temporary = true
			return nil, e
		}
		return bodyResource("ok"), nil
	}}
	c := &Client{Fetchers: map[string]schemes.Fetcher{"t": f}, Retries: 2, RetryDelay: time.Millisecond}
	res, err := c.Fetch(context.Background(), "t://h/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := f.calls.Load(); got != 3 {
		t.Errorf("%d calls, want 3", got)
	}

	// A permanent failure is not retried.
	g := &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, call int) (*schemes.Resource, error) {
		return nil, req.Fail(schemes.ErrNotFound, "RETR x", 550, "550 No such file", nil)
	}}
	c = &Client{Fetchers: map[string]schemes.Fetcher{"t": g}, Retries: 5, RetryDelay: time.Millisecond}
	_, err = c.Fetch(context.Background(), "t://h/")
	if !errors.Is(err, schemes.ErrNotFound) || g.calls.Load() != 1 {
		t.Errorf("err %v after %d calls", err, g.calls.Load())
	}
	if !strings.Contains(err.Error(), "550 No such file") || !strings.Contains(err.Error(), "t://h/") {
		t.Errorf("message %q lacks the URL or the reply", err)
	}
}

func TestMaxSize(t *testing.T) {
	data := strings.Repeat("x", 100)
	// Size known up front: refused before the body is read.
	f := &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
		return bodyResource(data), nil
	}}
	c := &Client{Fetchers: map[string]schemes.Fetcher{"t": f}, MaxSize: 50}
	if _, err := c.Fetch(context.Background(), "t://h/"); !errors.Is(err, schemes.ErrTooLarge) {
		t.Errorf("known size: %v, want too large", err)
	}
	// Size unknown: the stream is cut, through Read and through WriteTo.
	f.fn = func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
		return &schemes.Resource{Body: io.NopCloser(strings.NewReader(data)), Size: -1}, nil
	}
	res, err := c.Fetch(context.Background(), "t://h/")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(struct{ io.Reader }{res.Body})
	if !errors.Is(err, schemes.ErrTooLarge) || len(b) != 50 {
		t.Errorf("Read: %d bytes, %v", len(b), err)
	}
	res, err = c.Fetch(context.Background(), "t://h/")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, res.Body)
	if !errors.Is(err, schemes.ErrTooLarge) || n > 51 {
		t.Errorf("WriteTo: %d bytes, %v", n, err)
	}
	// Exactly at the limit is fine.
	c.MaxSize = 100
	res, err = c.Fetch(context.Background(), "t://h/")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(io.Discard, res.Body); err != nil || n != 100 {
		t.Errorf("at the limit: %d, %v", n, err)
	}
}

// TestTimeoutCoversBody checks that Timeout bounds the body read too, and
// that the error is a timeout.
func TestTimeoutCoversBody(t *testing.T) {
	f := &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
		pr, pw := io.Pipe()
		go func() {
			pw.Write([]byte("start"))
			<-ctx.Done()
			pw.CloseWithError(ctx.Err())
		}()
		return &schemes.Resource{Body: pr, Size: -1}, nil
	}}
	c := &Client{Fetchers: map[string]schemes.Fetcher{"t": f}, Timeout: 50 * time.Millisecond}
	res, err := c.Fetch(context.Background(), "t://h/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	_, err = io.Copy(io.Discard, res.Body)
	if !errors.Is(err, schemes.ErrTimeout) {
		t.Errorf("got %v, want timeout", err)
	}
}

// fileFetcher returns a fetcher whose every body is a regular file of
// 10 MiB, opened afresh, with the bytes it holds.
func fileFetcher(t *testing.T) (*stubFetcher, []byte) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src")
	data := bytes.Repeat([]byte("0123456789"), 1<<20)
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
		fh, err := os.Open(src)
		if err != nil {
			return nil, err
		}
		return &schemes.Resource{Body: fh, Size: int64(len(data))}, nil
	}}, data
}

func TestBodyWriteToUsesKernelCopy(t *testing.T) {
	dir := t.TempDir()
	f, data := fileFetcher(t)
	// Progress is called from the copy and from the watchdog's
	// goroutine, so the last report is kept under a lock.
	var (
		mu   sync.Mutex
		last Progress
	)
	c := &Client{Fetchers: map[string]schemes.Fetcher{"t": f}, Progress: func(p Progress) { mu.Lock(); last = p; mu.Unlock() }}
	res, err := c.Fetch(context.Background(), "t://h/")
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.Create(filepath.Join(dir, "dst"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(dst, res.Body)
	res.Body.Close()
	dst.Close()
	if err != nil || n != int64(len(data)) {
		t.Fatalf("copied %d, %v", n, err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "dst"))
	if !bytes.Equal(got, data) {
		t.Error("copy differs")
	}
	mu.Lock()
	defer mu.Unlock()
	if !last.Final || last.Done != int64(len(data)) || last.Total != int64(len(data)) {
		t.Errorf("last progress %+v", last)
	}
}

// TestPlainCopy: a Client's PlainCopy keeps its bodies off the kernel's
// copy paths: a file body is read into user space and written, where
// without it the destination's ReadFrom is handed the file; the bytes are
// the same.
func TestPlainCopy(t *testing.T) {
	f, data := fileFetcher(t)
	for _, plain := range []bool{false, true} {
		c := &Client{Fetchers: map[string]schemes.Fetcher{"t": f}, PlainCopy: plain}
		res, err := c.Fetch(context.Background(), "t://h/")
		if err != nil {
			t.Fatal(err)
		}
		rec := xfertest.NewRecorder(t)
		n, err := io.Copy(rec, res.Body)
		res.Body.Close()
		if err != nil || n != int64(len(data)) || !bytes.Equal(rec.Bytes(t), data) {
			t.Fatalf("PlainCopy %v: copied %d of %d, %v", plain, n, len(data), err)
		}
		// Only Linux's copy tells a file's descriptor from another's.
		if plain && rec.Kernel || !plain && !rec.Kernel && runtime.GOOS == "linux" {
			t.Errorf("PlainCopy %v: the destination was handed the file: %v", plain, rec.Kernel)
		}
	}
}

func TestCredentialOrder(t *testing.T) {
	f := &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
		return bodyResource(""), nil
	}}
	netrc, err := ParseNetrc("machine h login nl password np\ndefault login dl password dp\n")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		client     *Client
		url        string
		user, pass string
		hasUser    bool
		hasPass    bool
	}{
		{"url wins", &Client{User: url.UserPassword("cu", "cp"), Netrc: netrc}, "t://uu:up@h/", "uu", "up", true, true},
		{"url user, -u password for the same user", &Client{User: url.UserPassword("uu", "cp")}, "t://uu@h/", "uu", "cp", true, true},
		{"url user, no password anywhere", &Client{}, "t://uu@h/", "uu", "", true, false},
		{"-u", &Client{User: url.UserPassword("cu", "cp"), Netrc: netrc}, "t://h/", "cu", "cp", true, true},
		{"-u user without password, netrc has none for it", &Client{User: url.User("cu"), Netrc: netrc}, "t://h/", "cu", "", true, false},
		{"netrc machine", &Client{Netrc: netrc}, "t://H/", "nl", "np", true, true},
		{"netrc default", &Client{Netrc: netrc}, "t://other/", "dl", "dp", true, true},
		{"none", &Client{}, "t://h/", "", "", false, false},
		{"empty user", &Client{}, "t://@h/", "", "", true, false},
	}
	for _, tc := range cases {
		c := tc.client
		c.Fetchers = map[string]schemes.Fetcher{"t": f}
		if _, err := c.Fetch(context.Background(), tc.url); err != nil {
			t.Fatal(err)
		}
		r := f.last.Load()
		pass, hasPass := r.User.Password()
		if r.User.Username() != tc.user || pass != tc.pass || (r.User != nil) != tc.hasUser || hasPass != tc.hasPass {
			t.Errorf("%s: got %v (%v/%v)", tc.name, r.User, r.User != nil, hasPass)
		}
	}
}

func TestParseNetrc(t *testing.T) {
	n, err := ParseNetrc(`# comment
machine ftp.example.com
	login anonymous password "me@example.com"
machine news.example.com login reader password "with space"
macdef init
	cd /pub
	bin

default login guest password guest
`)
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) uri.URL {
		u, err := uri.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	m, ok := n.Lookup(at("nntp://NEWS.example.com/"), nil, false)
	if pw, _ := m.User.Password(); !ok || m.User.Username() != "reader" || pw != "with space" {
		t.Errorf("news: %+v %v", m, ok)
	}
	m, ok = n.Lookup(at("ftp://unknown/"), nil, true)
	if !ok || m.User.Username() != "guest" {
		t.Errorf("default: %+v %v", m, ok)
	}
	if m, ok := n.Lookup(at("ftp://unknown/"), nil, false); ok {
		t.Errorf("the default entry must serve only the start's origin: %+v", m)
	}
	if _, ok := n.Lookup(at("ftp://ftp.example.com/"), url.User("someoneelse"), true); ok {
		t.Error("a login mismatch must not match")
	}
	if _, err := ParseNetrc("machine"); err == nil {
		t.Error("a machine without a name must fail")
	}
	if _, err := ParseNetrc("bogus token"); err == nil {
		t.Error("an unknown token must fail")
	}
}

func TestNetErrorClassification(t *testing.T) {
	var d net.Dialer
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = d.DialContext(context.Background(), "tcp", addr)
	req := &schemes.Request{}
	if got := req.NetError("connect", err); !errors.Is(got, schemes.ErrConnect) || !schemes.IsTemporary(got) {
		t.Errorf("refused: %v", got)
	}
	if got := req.NetError("read", io.ErrUnexpectedEOF); !errors.Is(got, schemes.ErrTruncated) {
		t.Errorf("EOF: %v", got)
	}
	if got := req.NetError("read", context.DeadlineExceeded); !errors.Is(got, schemes.ErrTimeout) {
		t.Errorf("deadline: %v", got)
	}
}
