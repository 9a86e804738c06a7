package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestManyURLs runs the program with 36,000 URLs on its command line, about
// as many of that length as the kernel's limit on the size of a process's
// arguments allows (ARG_MAX, 2 MiB with an 8 MiB stack): every one is
// fetched, in order, and the run ends well.
func TestManyURLs(t *testing.T) {
	const n = 36000
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Write([]byte(strings.TrimPrefix(r.URL.Path, "/")))
	}))
	defer srv.Close()
	// Two URLs of one length, alternating, so that the output shows the
	// order: "ab" repeated.
	args := make([]string, 0, n+1)
	args = append(args, "-s")
	for i := range n {
		args = append(args, srv.URL+"/"+string(rune('a'+i%2)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, "urlget", args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	if want := strings.Repeat("ab", n/2); out.String() != want {
		t.Errorf("%d bytes out, want %d in the URLs' order", out.Len(), len(want))
	}
	if got := served.Load(); got != n {
		t.Errorf("the server answered %d requests, want %d", got, n)
	}
}
