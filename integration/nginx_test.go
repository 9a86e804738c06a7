package integration

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// nginxServer returns the base URL and document root of the nginx instance
// .ci/servers/nginx.sh started, and a fresh directory inside the root for
// this test's files (see realServer for when it is missing).
func nginxServer(t *testing.T) (base, dir, urlDir string) {
	t.Helper()
	env := realServer(t, "URLGET_NGINX_URL", "URLGET_NGINX_ROOT")
	base, root := env[0], env[1]
	dir, err := os.MkdirTemp(root, "test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// The workers may run as another user than the test.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return base, dir, strings.TrimSuffix(base, "/") + "/" + uri.EscapeSegment(filepath.Base(dir))
}

func TestNginxFiles(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		_, dir, urlDir := nginxServer(t)
		big := make([]byte, 8<<20+12345)
		if _, err := rand.Read(big); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{
			"big.bin":        big,
			"with space.txt": []byte("spaced out\n"),
			"naïve;v=1.txt":  []byte("utf-8 and a semicolon\n"),
			"empty":          nil,
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f := httpFetcher(t)
		for name, data := range files {
			res, body, err := httpGet(t, f, httpRequest(t, urlDir+"/"+uri.EscapeSegment(name)))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if sha256.Sum256(body) != sha256.Sum256(data) {
				t.Errorf("%s: %d bytes that differ from the %d written", name, len(body), len(data))
			}
			if res.Size != int64(len(data)) || res.Name != name || res.ModTime.IsZero() {
				t.Errorf("%s: size %d name %q time %v", name, res.Size, res.Name, res.ModTime)
			}
		}
	})
}

func TestNginxResumeHeadAndErrors(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		_, dir, urlDir := nginxServer(t)
		data := bytes.Repeat([]byte("abcdefghij"), 1000)
		if err := os.WriteFile(filepath.Join(dir, "ten.txt"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		mod := time.Date(2020, 2, 29, 12, 0, 0, 0, time.UTC)
		if err := os.Chtimes(filepath.Join(dir, "ten.txt"), mod, mod); err != nil {
			t.Fatal(err)
		}
		f := httpFetcher(t)

		req := httpRequest(t, urlDir+"/ten.txt")
		req.Offset = 9990
		res, body, err := httpGet(t, f, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Offset != 9990 || res.Size != 10000 || string(body) != "abcdefghij" {
			t.Errorf("resume: offset %d size %d body %q", res.Offset, res.Size, body)
		}

		req = httpRequest(t, urlDir+"/ten.txt")
		req.Offset = 10000
		res, body, err = httpGet(t, f, req)
		if err != nil || res.Offset != 10000 || len(body) != 0 {
			t.Errorf("resume of a complete file: %v, offset %v, %d bytes", err, res, len(body))
		}

		req = httpRequest(t, urlDir+"/ten.txt")
		req.Head = true
		res, _, err = httpGet(t, f, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Body != nil || res.Size != 10000 || res.ContentType != "text/plain" || !res.ModTime.Equal(mod) {
			t.Errorf("head: size %d type %q time %v", res.Size, res.ContentType, res.ModTime)
		}

		_, _, err = httpGet(t, f, httpRequest(t, urlDir+"/missing.txt"))
		httpWantKind(t, err, schemes.ErrNotFound, 404)

		// nginx answers a directory without its slash with a 301 to the slash
		// form, and lists it (autoindex) as HTML.
		if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "sub", "inner file"), []byte("x"), 0o644)
		res, body, err = httpGet(t, f, httpRequest(t, urlDir+"/sub"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(res.URL, "/sub/") || !strings.Contains(string(body), `href="inner%20file"`) {
			t.Errorf("directory: final URL %q, body %q", res.URL, body)
		}
	})
}

func TestNginxManySmallFilesOneConnection(t *testing.T) {
	_, dir, urlDir := nginxServer(t)
	const n = 200
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, "s"+strconv.Itoa(i)), []byte(strconv.Itoa(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := httpFetcher(t)
	var tr httpTrace
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range n {
		req := httpRequest(t, urlDir+"/s"+strconv.Itoa(i))
		req.Trace = tr.tracer()
		res, err := f.Fetch(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(b) != strconv.Itoa(i) {
			t.Fatalf("s%d: %q, %v", i, b, err)
		}
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	reused := 0
	for _, l := range tr.lines {
		if strings.HasPrefix(l, "* Re-using connection") {
			reused++
		}
	}
	if reused != n-1 {
		t.Errorf("%d of %d fetches reused the connection, want %d", reused, n, n-1)
	}
}

// TestNginxBodyIntoKernelDestinations fetches a file through fetch.Client
// into the destinations the copy treats apart (a pipe, a regular file,
// /dev/null, a plain writer), each as the only URL of its run and as one
// of several: the same bytes whichever way.
func TestNginxBodyIntoKernelDestinations(t *testing.T) {
	_, dir, urlDir := nginxServer(t)
	data := make([]byte, 3<<20+777)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256(data)
	dests := map[string]func(t *testing.T) (io.Writer, func() ([32]byte, int)){
		"pipe": func(t *testing.T) (io.Writer, func() ([32]byte, int)) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			got := make(chan []byte, 1)
			go func() {
				b, _ := io.ReadAll(pr)
				pr.Close()
				got <- b
			}()
			t.Cleanup(func() { pw.Close() })
			return pw, func() ([32]byte, int) {
				pw.Close()
				b := <-got
				return sha256.Sum256(b), len(b)
			}
		},
		"file": func(t *testing.T) (io.Writer, func() ([32]byte, int)) {
			f, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f, func() ([32]byte, int) {
				b, err := os.ReadFile(f.Name())
				if err != nil {
					t.Fatal(err)
				}
				return sha256.Sum256(b), len(b)
			}
		},
		"devnull": func(t *testing.T) (io.Writer, func() ([32]byte, int)) {
			f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			// Nothing to read back: the count is checked.
			return f, func() ([32]byte, int) { return want, len(data) }
		},
		"writer": func(t *testing.T) (io.Writer, func() ([32]byte, int)) {
			h := sha256.New()
			var n countWriter
			return io.MultiWriter(h, &n), func() ([32]byte, int) {
				var sum [32]byte
				h.Sum(sum[:0])
				return sum, int(n)
			}
		},
	}
	for name, dest := range dests {
		for _, last := range []bool{true, false} {
			t.Run(name+"/last="+strconv.FormatBool(last), func(t *testing.T) {
				c := &fetch.Client{}
				defer c.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				req := fetch.Request{URL: uri.MustParse(urlDir + "/big.bin")}
				if last {
					c.Expect([]fetch.Request{req}, true)
				}
				res, err := c.Do(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				w, result := dest(t)
				n, err := io.Copy(w, res.Body)
				if err != nil || n != int64(len(data)) {
					t.Fatalf("copied %d of %d bytes, %v", n, len(data), err)
				}
				if sum, m := result(); sum != want || m != len(data) {
					t.Errorf("%d bytes arrived that differ from the %d sent", m, len(data))
				}
			})
		}
	}
}

// countWriter counts what is written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// TestNginxTLS fetches from nginx over TLS (HTTP/1.1): a body of several
// TLS records, byte for byte, with nginx's certificate trusted, and a
// certificate error, naming the URL, without it.
func TestNginxTLS(t *testing.T) {
	httpBothWays(t, func(t *testing.T) {
		env := realServer(t, "URLGET_NGINX_TLS_URL", "URLGET_NGINX_CERT")
		tlsBase, certFile := env[0], env[1]
		base, dir, urlDir := nginxServer(t)
		urlDir = tlsBase + strings.TrimPrefix(urlDir, base)
		data := make([]byte, 1<<20+4321)
		if _, err := rand.Read(data); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "big.bin"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		pem, err := os.ReadFile(certFile)
		if err != nil {
			t.Fatal(err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			t.Fatalf("%s holds no certificate", certFile)
		}
		f := httpFetcher(t)
		req := httpRequest(t, urlDir+"/big.bin")
		req.TLSConfig = &tls.Config{RootCAs: pool}
		res, body, err := httpGet(t, f, req)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(body, data) || res.Size != int64(len(data)) {
			t.Errorf("%d bytes (size %d), want the %d written", len(body), res.Size, len(data))
		}
		_, _, err = httpGet(t, httpFetcher(t), httpRequest(t, urlDir+"/big.bin"))
		var se *schemes.Error
		if !errors.As(err, &se) || !errors.Is(err, schemes.ErrConnect) || !strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), urlDir) {
			t.Errorf("untrusted certificate: %v", err)
		}
	})
}
