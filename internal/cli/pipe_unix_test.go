//go:build unix

package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClosedPipeExits23: a reader that closes standard output early (as
// `urlget URL | head -c 10` does) ends the run with curl's write error,
// exit 23, and a line on stderr that names the URL; the signal SIGPIPE
// neither kills the process (141) nor lets it end as a success. The
// program is built as it ships (the root's main): this test binary, run
// as the command, receives SIGPIPE through the test framework's signal
// handling and would not show the signal's default.
func TestClosedPipeExits23(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "urlget")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/urlget/urlget").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	body := bytes.Repeat([]byte("0123456789abcdef"), 1<<20) // 16 MiB: more than any pipe holds
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	// With the kernel's copy paths off, every byte goes through
	// os.File.Write, where the Go runtime turns a broken pipe on stdout
	// into the signal unless it is ignored; spliced, the write fails with
	// EPIPE either way.
	for _, tc := range []struct {
		args []string
		env  string
	}{
		{[]string{srv.URL + "/big"}, ""},
		{[]string{srv.URL + "/big"}, "URLGET_NO_FASTPATH=1"},
		{[]string{"-s", srv.URL + "/big"}, "URLGET_NO_FASTPATH=1"},
	} {
		args := tc.args
		cmd := exec.Command(bin, args...)
		if tc.env != "" {
			cmd.Env = append(os.Environ(), tc.env)
		}
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		first := make([]byte, 10)
		if _, err := io.ReadFull(out, first); err != nil {
			t.Fatal(err)
		}
		out.Close() // what head does once it has its bytes
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: still running 10 s after its reader went away", args)
		}
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != exitWrite {
			t.Errorf("%v: %v (%v), want exit %d: %s", args, err, cmd.ProcessState, exitWrite, errOut.String())
		}
		msg := errOut.String()
		if args[0] != "-s" && (!strings.Contains(msg, srv.URL+"/big") || !strings.Contains(msg, "closed the pipe") || strings.Count(strings.TrimSpace(msg), "\n") != 0) {
			t.Errorf("%v: stderr %q, want one line naming the URL and the closed pipe", args, msg)
		}
	}
}
