package schemes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestErrorRendering checks that a message names the failure in a user's
// words: the kind, the server's reply, and a cause without Go's own
// wording for network and context errors.
func TestErrorRendering(t *testing.T) {
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
	dial := func(err error) error {
		return &net.OpError{Op: "dial", Net: "tcp", Addr: addr, Err: os.NewSyscallError("connect", err)}
	}
	read := func(err error) error {
		return &net.OpError{Op: "read", Net: "tcp", Source: addr, Addr: addr, Err: err}
	}
	interrupted := errors.New("interrupted") // the command's kind for a signal
	const u = "http://h/"
	for _, tt := range []struct {
		e    *Error
		want string
	}{
		{&Error{Kind: ErrServer, URL: u, Op: "GET", Code: 503, Reply: "503 Service Unavailable"},
			u + ": server error (GET): 503 Service Unavailable"},
		{&Error{Kind: ErrConnect, URL: u, Op: "GET", Err: dial(syscall.ECONNREFUSED)},
			u + ": could not connect (GET): connecting to 127.0.0.1:1: connection refused"},
		{&Error{Kind: ErrConnect, URL: u, Op: "connect", Err: dial(syscall.EHOSTUNREACH)},
			u + ": could not connect (connect): connecting to 127.0.0.1:1: no route to host"},
		{&Error{Kind: ErrTruncated, URL: u, Op: "read body", Err: io.ErrUnexpectedEOF},
			u + ": truncated transfer (read body): the server closed the connection"},
		{&Error{Kind: ErrTruncated, URL: u, Op: "RETR f", Err: read(io.EOF)},
			u + ": truncated transfer (RETR f): the server closed the connection"},
		{&Error{Kind: ErrTruncated, URL: u, Op: "RETR f", Err: read(os.NewSyscallError("read", syscall.ECONNRESET))},
			u + ": truncated transfer (RETR f): the server reset the connection"},
		{&Error{Kind: ErrTruncated, URL: u, Err: read(net.ErrClosed)},
			u + ": truncated transfer: the connection was closed"},
		{&Error{Kind: ErrProtocol, URL: u, Op: "greeting", Err: fmt.Errorf("reading the greeting: %w", io.EOF)},
			u + ": protocol violation (greeting): reading the greeting: the server closed the connection"},
		// A timeout or an interruption closes the connection: the
		// kind says it all.
		{&Error{Kind: ErrTimeout, URL: u, Err: read(net.ErrClosed)}, u + ": timeout"},
		{&Error{Kind: ErrTimeout, URL: u, Op: "greeting", Err: context.DeadlineExceeded}, u + ": timeout (greeting)"},
		{&Error{Kind: ErrTimeout, URL: u, Err: read(os.ErrDeadlineExceeded)}, u + ": timeout"},
		{&Error{Kind: interrupted, URL: u, Err: context.Canceled}, u + ": interrupted"},
		{&Error{Kind: interrupted, URL: u, Err: &Error{Kind: ErrTruncated, URL: u, Err: read(net.ErrClosed)}}, u + ": interrupted"},
		// A timeout under another kind is news.
		{&Error{Kind: ErrTruncated, URL: u, Op: "RETR f", Err: read(os.ErrDeadlineExceeded)},
			u + ": truncated transfer (RETR f): timed out"},
		// Other causes are kept as they are.
		{&Error{Kind: ErrNotFound, URL: u, Op: "RETR f", Code: 550, Reply: "550 No such file", Err: errors.New("more")},
			u + ": not found (RETR f): 550 No such file: more"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
}

// FuzzParseRetryAfter holds a server's Retry-After to a wait between 0
// and a day, whatever it says.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "0", "-1", "99999999999999999999999", "Wed, 21 Oct 2015 07:28:00 GMT", "Sun, 06 Nov 2994 08:49:37 GMT", " 5 ", "1e3"} {
		f.Add(s)
	}
	now := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		if d := ParseRetryAfter(v, now); d < 0 || d > 24*time.Hour {
			t.Fatalf("%q: %v", v, d)
		}
	})
}
