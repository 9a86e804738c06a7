package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestGuessScheme: text that names no scheme urlget knows is taken as
// curl takes it; a known scheme, or "://", is never second-guessed.
func TestGuessScheme(t *testing.T) {
	for in, want := range map[string]string{
		"example.com":              "http://example.com",
		"example.com/a?b#c":        "http://example.com/a?b#c",
		"localhost:8080/x":         "http://localhost:8080/x",
		"127.0.0.1:8080/x":         "http://127.0.0.1:8080/x",
		"[::1]:8080/":              "http://[::1]:8080/",
		"ftp.example.com/pub/f":    "ftp://ftp.example.com/pub/f",
		"FTP.Example.com":          "ftp://FTP.Example.com",
		"ftpx.example.com/":        "http://ftpx.example.com/",
		"  example.com  ":          "http://example.com",
		"news:comp.lang.go":        "",
		"NEWS:comp.lang.go":        "",
		"file:/etc/hosts":          "",
		"gopher://h/":              "",
		"telnet://h/":              "",
		"mailto-ish://x":           "",
		"http://example.com/":      "",
		"<URL:http://example.com>": "",
		"":                         "",
	} {
		got, ok := guessScheme(in)
		if ok != (want != "") || got != want {
			t.Errorf("guessScheme(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// TestGuessedSchemeFetches: `urlget 127.0.0.1:PORT/path` fetches over
// http as curl does, and -v says what the text was taken for, its
// password masked.
func TestGuessedSchemeFetches(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "guessed "+r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	hostPort := strings.TrimPrefix(srv.URL, "http://")
	var out, errOut bytes.Buffer
	if code := run([]string{"-v", "u:9secret@" + hostPort + "/x"}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if out.String() != "guessed /x" {
		t.Errorf("stdout %q", out.String())
	}
	msg := errOut.String()
	if !strings.Contains(msg, "names no scheme: taken for http://u:****@"+hostPort+"/x") || strings.Contains(msg, "secret") {
		t.Errorf("-v does not name the guess, or shows the password: %q", msg)
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{hostPort + "/y"}, nil, &out, &errOut); code != exitOK || out.String() != "guessed /y" || errOut.Len() != 0 {
		t.Errorf("without -v: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
