package cli

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/samples"
)

// TestMain makes the test binary the command for the scripts and for the
// tests that run it as a process: run as "urlget" (testscript puts it in
// PATH under that name), it is the program itself, as the root's main
// runs it.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"urlget": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScript runs the command-level tests in testdata/script: flags, exit
// codes and the split between stdout and stderr. Each script gets its own
// in-process servers on 127.0.0.1, named by environment variables.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/script",
		Setup: scriptSetup,
	})
}

func scriptSetup(env *testscript.Env) error {
	srv := httptest.NewServer(scriptHTTPHandler())
	env.Defer(srv.Close)
	env.Setenv("HTTP", srv.URL)
	// FTP servers for the ftp scripts, faulty ones among them.
	if err := ftptest.SetupScript(env); err != nil {
		return err
	}
	// The sample servers of every other protocol, each with its own files.
	for _, st := range samples.All {
		if st.Name == "file" || st.Name == "http" || st.Name == "ftp" {
			continue
		}
		dir := filepath.Join(env.WorkDir, ".samples", st.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		sample, err := st.Start(dir)
		if err != nil {
			return fmt.Errorf("%s sample server: %w", st.Name, err)
		}
		env.Defer(sample.Close)
		name := strings.ToUpper(st.Name)
		env.Setenv(name, sample.Base)
		env.Setenv(name+"_ADDR", sample.Addr)
	}
	// A port nothing listens on, for connection-refused tests.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	env.Setenv("CLOSEDPORT", strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	l.Close()
	// A listener whose accept queue is full: the kernel drops further SYNs,
	// so a connection attempt hangs until --connect-timeout ends it.
	port, closeFn, err := fullBacklogListener()
	if err != nil {
		return err
	}
	env.Defer(closeFn)
	env.Setenv("BLACKHOLEPORT", strconv.Itoa(port))
	// Resolve names with Go's own resolver, which refuses malformed names
	// without sending a query anywhere.
	env.Setenv("GODEBUG", "netdns=go")
	env.Setenv("HOME", env.WorkDir)
	env.Setenv("NETRC", "")
	env.Setenv("NNTPSERVER", "")
	return nil
}

// fullBacklogListener listens on 127.0.0.1 with a backlog of one and fills
// the queue, never accepting, so that new connection attempts go unanswered.
func fullBacklogListener() (int, func(), error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return 0, nil, err
	}
	closeAll := []func(){func() { syscall.Close(fd) }}
	cleanup := func() {
		for _, c := range closeAll {
			c()
		}
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		cleanup()
		return 0, nil, err
	}
	if err := syscall.Listen(fd, 0); err != nil {
		cleanup()
		return 0, nil, err
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		cleanup()
		return 0, nil, err
	}
	port := sa.(*syscall.SockaddrInet4).Port
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	// Fill the queue; the attempts past its length time out, which is the
	// sign that it is full.
	for i := 0; i < 8; i++ {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			break
		}
		closeAll = append(closeAll, func() { c.Close() })
	}
	return port, cleanup, nil
}

// scriptHTTPHandler serves the fixed content the command-level scripts
// fetch: plain bodies, errors, redirects, truncated and slow bodies.
func scriptHTTPHandler() http.Handler {
	mux := http.NewServeMux()
	var mu sync.Mutex
	flaky := 0
	mux.HandleFunc("/hello.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		http.ServeContent(w, r, "hello.txt", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), strings.NewReader("hello, world\n"))
	})
	mux.HandleFunc("/digits", func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "digits", time.Time{}, strings.NewReader("0123456789"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "big", time.Time{}, bytes.NewReader(bytes.Repeat([]byte("0123456789abcdef"), 1<<16)))
	})
	mux.HandleFunc("/dir/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("index\n"))
	})
	mux.HandleFunc("/status/", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/status/"))
		http.Error(w, http.StatusText(code), code)
	})
	mux.HandleFunc("/flaky", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		flaky++
		n := flaky
		mu.Unlock()
		if n <= 2 {
			http.Error(w, "try again", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, "ok after %d tries\n", n)
	})
	mux.HandleFunc("/ua", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "agent=%s\n", r.UserAgent())
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/hello.txt", http.StatusFound)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/auth", func(w http.ResponseWriter, r *http.Request) {
		user, pw, ok := r.BasicAuth()
		if !ok || user != "alice" || pw != "s3cret" {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, "welcome %s\n", user)
	})
	mux.HandleFunc("/truncated", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("only the beginning"))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		if hj, ok := w.(http.Hijacker); ok {
			c, _, err := hj.Hijack()
			if err == nil {
				c.Close()
			}
		}
	})
	httpFlagRoutes(mux)
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("a slow start"))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	return mux
}

// dirNames lists a directory's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
