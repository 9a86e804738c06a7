package cli

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lettersServer answers /moved with a 301 and a page of its own, /missing
// with a 404 and its page, /hello.txt with a file, every response without
// a Date field, so that two clients' -i output can be compared byte for
// byte.
func lettersServer(t *testing.T) string {
	t.Helper()
	page := func(code int, body string, fields ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Date"] = nil
			for i := 0; i+1 < len(fields); i += 2 {
				w.Header().Set(fields[i], fields[i+1])
			}
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(code)
			io.WriteString(w, body)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/moved", page(http.StatusMovedPermanently, "moved to hello.txt\n", "Location", "hello.txt"))
	mux.Handle("/loop", page(http.StatusFound, "again\n", "Location", "/loop"))
	mux.Handle("/missing", page(http.StatusNotFound, "no such page\n"))
	mux.Handle("/hello.txt", page(http.StatusOK, "hello, world\n"))
	mux.HandleFunc("/site/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<a href="/moved">moved</a> <a href="/missing">missing</a>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// lettersCases are the command lines whose output and exit status are
// curl's: without -L a redirect is the answer, without -f an HTTP error's
// page is, each exit 0; -L follows, -f is exit 22 and no body,
// --fail-with-body 22 with the page.
var lettersCases = []struct {
	args string // the URL's path is the last word
	out  string // what stdout holds, "" for nothing
	code int
}{
	{"-s /moved", "moved to hello.txt\n", 0},
	{"-s -L /moved", "hello, world\n", 0},
	{"-s /missing", "no such page\n", 0},
	{"-s -f /missing", "", 22},
	{"-s --fail-with-body /missing", "no such page\n", 22},
	{"-s -fL /moved", "hello, world\n", 0},
	{"-s -i /moved", "HTTP/1.1 301 Moved Permanently\r\nContent-Type: text/plain\r\nLocation: hello.txt\r\nContent-Length: 19\r\n\r\nmoved to hello.txt\n", 0},
	{"-s -i /missing", "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nno such page\n", 0},
	{"-s -o /dev/null -w %{http_code} /moved", "301", 0},
	{"-s -o /dev/null -w %{http_code} /missing", "404", 0},
	{"-s -o /dev/null -w %{http_code} -L /moved", "200", 0},
	{"-s -o /dev/null -w %{http_code} -f /missing", "404", 22},
	{"-s -I /moved", "HTTP/1.1 301 Moved Permanently\r\nContent-Type: text/plain\r\nLocation: hello.txt\r\nContent-Length: 19\r\n\r\n", 0},
	{"-s -I /missing", "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\n", 0},
	{"-s -I -f /missing", "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\n", 22},
	{"-s -I --fail-with-body /missing", "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\n", 22},
	// --max-redirs counts only with -L.
	{"-s --max-redirs 0 /moved", "moved to hello.txt\n", 0},
	{"-s -L --max-redirs 0 /moved", "", 47},
	{"-s -L --max-redirs 3 /loop", "", 47},
	// --location-trusted is -L and more.
	{"-s --location-trusted /moved", "hello, world\n", 0},
}

// TestCurlDefaultsLF runs each of lettersCases against an in-process
// server: the stdout and exit status they list.
func TestCurlDefaultsLF(t *testing.T) {
	base := lettersServer(t)
	for _, c := range lettersCases {
		args := strings.Fields(c.args)
		args[len(args)-1] = base + args[len(args)-1]
		var out, errOut bytes.Buffer
		code := run(args, nil, &out, &errOut)
		if code != c.code || out.String() != c.out {
			t.Errorf("urlget %s: exit %d, stdout %q; want %d, %q (stderr %q)", c.args, code, out.String(), c.code, c.out, errOut.String())
		}
	}
}

// TestCurlDefaultsLFAsCurl runs each of lettersCases with curl itself on
// the same server: the same stdout and exit status as urlget's.
func TestCurlDefaultsLFAsCurl(t *testing.T) {
	curl, err := lookCurl(t)
	if err != nil {
		t.Skip("no curl to compare with")
	}
	base := lettersServer(t)
	for _, c := range lettersCases {
		args := strings.Fields(c.args)
		args[len(args)-1] = base + args[len(args)-1]
		cmd := exec.Command(curl, append([]string{"-q"}, args...)...)
		var out bytes.Buffer
		cmd.Stdout = &out
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var mine bytes.Buffer
		mineCode := run(args, nil, &mine, io.Discard)
		if code != mineCode || out.String() != mine.String() {
			t.Errorf("%s: curl exit %d, stdout %q; urlget exit %d, stdout %q", c.args, code, out.String(), mineCode, mine.String())
		}
	}
}

// TestRecursionKeepsWgetDefaults: a recursion follows redirects and skips
// an HTTP error's page, as wget does, with or without -L and -f: no file
// holds a redirect's or an error's page.
func TestRecursionKeepsWgetDefaults(t *testing.T) {
	base := lettersServer(t)
	for _, flags := range [][]string{nil, {"-L"}, {"-f"}, {"-fL"}} {
		dir := t.TempDir()
		var errOut bytes.Buffer
		code := run(append(flags, "-s", "-S", "--recursive", "-nH", "--output-dir", dir, base+"/site/"), nil, io.Discard, &errOut)
		if code != exitHTTP || !strings.Contains(errOut.String(), "404") {
			t.Errorf("%q: exit %d, %q; want %d for the 404", flags, code, errOut.String(), exitHTTP)
		}
		var hello int
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			b, _ := os.ReadFile(path)
			switch string(b) {
			case "hello, world\n":
				hello++
			case "moved to hello.txt\n", "no such page\n":
				t.Errorf("%q: %s holds %q", flags, path, b)
			}
			return nil
		})
		if hello == 0 {
			t.Errorf("%q: the redirect was not followed", flags)
		}
	}
}
