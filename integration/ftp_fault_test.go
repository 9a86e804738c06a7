package integration

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/ftp"
)

// TestFTPTruncated checks that a transfer cut short is an error however the
// server reports it: 426, a lying 226 after fewer bytes than announced, or
// no final reply at all.
func TestFTPTruncated(t *testing.T) {
	for _, tc := range []struct{ name, reply string }{
		{"426", "426 Failure writing network stream."},
		{"short 226", "226 Transfer complete."},
		{"no 226", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFTPServer(t, func(s *ftptest.Server) {
				s.Truncate, s.TruncateAt, s.TruncateReply = true, 100000, tc.reply
			})
			f := &ftp.Fetcher{}
			defer f.Close()
			body, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/bin/all.bin"))
			if !errors.Is(err, schemes.ErrTruncated) || !schemes.IsTemporary(err) {
				t.Fatalf("error %v, want a temporary truncated transfer", err)
			}
			if len(body) != 100000 {
				t.Errorf("read %d bytes before the error", len(body))
			}
			// The next URL (a file too short to be cut) works.
			if body, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/motd")); err != nil || body != "root motd\n" {
				t.Errorf("after truncation: %q, %v", body, err)
			}
		})
	}
}

// TestFTPNoAnswerAfterRETR checks that a server that never answers RETR
// ends in a timeout when the context's deadline passes.
func TestFTPNoAnswerAfterRETR(t *testing.T) {
	s := newFTPServer(t, func(s *ftptest.Server) { s.Stall = map[string]bool{"RETR": true} })
	f := &ftp.Fetcher{}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := f.Fetch(ctx, ftpRequest(t, s.URL+"/motd"))
	if !errors.Is(err, schemes.ErrTimeout) {
		t.Fatalf("error %v, want a timeout", err)
	}
}

// TestFTPCancelDuringBody checks that cancelling the context stops a body
// being read.
func TestFTPCancelDuringBody(t *testing.T) {
	s := newFTPServer(t, func(s *ftptest.Server) {
		s.Truncate, s.TruncateAt, s.TruncateReply = true, 1000, "226 Transfer complete."
		s.Stall = map[string]bool{}
	})
	f := &ftp.Fetcher{}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	res, err := f.Fetch(ctx, ftpRequest(t, s.URL+"/bin/all.bin"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if _, err := io.ReadFull(res.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err = io.ReadAll(res.Body)
	res.Body.Close()
	if err == nil {
		t.Fatal("no error after cancel")
	}
}

// TestFTPMalformedPASV checks that a PASV reply that cannot be read is a
// protocol violation.
func TestFTPMalformedPASV(t *testing.T) {
	for _, rep := range []string{
		"227 Entering Passive Mode (127,0,0,1,300,1).",
		"227 Entering Passive Mode (127,0,0,1,4).",
		"227 Entering Passive Mode",
		"227 Entering Passive Mode (127,0,0,1,-1,8).",
	} {
		s := newFTPServer(t, func(s *ftptest.Server) {
			s.NoEPSV = true
			s.Reply = map[string]string{"PASV": rep}
		})
		f := &ftp.Fetcher{}
		_, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/motd"))
		f.Close()
		if !errors.Is(err, schemes.ErrProtocol) {
			t.Errorf("%q: %v, want a protocol violation", rep, err)
		}
	}
	s := newFTPServer(t, func(s *ftptest.Server) {
		s.Reply = map[string]string{"EPSV": "229 Entering Extended Passive Mode (|||99999|)"}
	})
	f := &ftp.Fetcher{}
	defer f.Close()
	if _, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/motd")); !errors.Is(err, schemes.ErrProtocol) {
		t.Errorf("bad EPSV port: %v, want a protocol violation", err)
	}
}

// TestFTPGarbageLine sends 2 GiB without a line end on the control
// connection: the client stops after the line limit, in bounded memory.
func TestFTPGarbageLine(t *testing.T) {
	s := newFTPServer(t, func(s *ftptest.Server) { s.Garbage = map[string]int64{"USER": 2 << 30} })
	f := &ftp.Fetcher{}
	defer f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/motd"))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, schemes.ErrProtocol) || !errors.Is(err, schemes.ErrLineTooLong) {
		t.Fatalf("error %v, want a line too long", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("allocated %d bytes reading one line", grew)
	}
}

// TestFTPReplyCodes checks the taxonomy of replies: 421 is temporary, a
// login refused is a login failure, and a stale idle connection is
// replaced without the caller seeing it.
func TestFTPReplyCodes(t *testing.T) {
	s := newFTPServer(t, func(s *ftptest.Server) {
		s.Reply = map[string]string{"RETR": "421 Service not available, closing control connection."}
	})
	f := &ftp.Fetcher{}
	defer f.Close()
	_, err := fetchFTP(t, f, ftpRequest(t, s.URL+"/motd"))
	if !schemes.IsTemporary(err) {
		t.Errorf("421: %v, want a temporary error", err)
	}
	s2 := newFTPServer(t, func(s *ftptest.Server) { s.Reply = map[string]string{"RETR": "425 Can't open data connection."} })
	if _, err := fetchFTP(t, f, ftpRequest(t, s2.URL+"/motd")); !schemes.IsTemporary(err) || !errors.Is(err, schemes.ErrConnect) {
		t.Errorf("425: %v, want a temporary connect error", err)
	}

	s3 := newFTPServer(t, nil)
	if _, err := fetchFTP(t, f, ftpRequest(t, s3.URL+"/etc/motd")); err != nil {
		t.Fatal(err)
	}
	s3.DropConns()
	body, err := fetchFTP(t, f, ftpRequest(t, s3.URL+"/etc/motd"))
	if err != nil || body != "etc motd\n" {
		t.Fatalf("after the server dropped the idle connection: %q, %v", body, err)
	}
	if s3.Conns() != 2 {
		t.Errorf("%d connections, want 2", s3.Conns())
	}
	// A server that timed the idle connection out says 421 first.
	s3.ExpireConns()
	body, err = fetchFTP(t, f, ftpRequest(t, s3.URL+"/motd"))
	if err != nil || body != "root motd\n" {
		t.Fatalf("after the server timed the idle connection out: %q, %v", body, err)
	}
	if s3.Conns() != 3 {
		t.Errorf("%d connections, want 3", s3.Conns())
	}
	var se *schemes.Error
	_, err = fetchFTP(t, f, ftpRequest(t, "ftp://user:hunter2@"+s3.Addr+"/motd"))
	if !errors.As(err, &se) || strings.Contains(err.Error(), "hunter2") || se.Code != 530 {
		t.Errorf("login error %v leaks the password or lacks the code", err)
	}
}

// TestFTPRefusedDataConnection checks that a server that closes its
// passive port as it refuses the transfer command (proftpd's 550 for a
// missing file) is reported by that reply, not by the refused data
// connection: the server here answers EPSV only once it has refused the
// command sent with it, so that the connection always comes too late.
// The control connection stays in step and serves the next URL, on the
// port of an EPSV sent ahead or a new one.
func TestFTPRefusedDataConnection(t *testing.T) {
	s := newFTPServer(t, func(s *ftptest.Server) { s.ClosePortOnRefusal = true })
	f := &ftp.Fetcher{}
	defer f.Close()
	// A directory is listed with the whole path (LIST nope) by a fetcher
	// of its own, on a connection of its own.
	nocwd := &ftp.Fetcher{Method: ftp.NoCWD}
	defer nocwd.Close()
	for _, tt := range []struct{ url, cmd string }{
		{"/nope.txt", "RETR nope.txt"},
		{"/pub/nope.txt", "RETR nope.txt"},
		{"/motd", ""},
		{"/nope.txt", "RETR /nope.txt"}, // on the port of the EPSV sent ahead
		{"/nope;type=d", "NLST nope"},
		{"/motd", ""},
		{"/nope/", "LIST nope"},
	} {
		fetcher := f
		if strings.HasSuffix(tt.url, "/") {
			fetcher = nocwd
		}
		body, err := fetchFTP(t, fetcher, ftpRequest(t, s.URL+tt.url))
		if tt.cmd == "" {
			if err != nil || body != "root motd\n" {
				t.Fatalf("%s: %q, %v", tt.url, body, err)
			}
			continue
		}
		var se *schemes.Error
		if !errors.As(err, &se) || !errors.Is(err, schemes.ErrNotFound) || se.Code != 550 || se.Op != tt.cmd {
			t.Errorf("%s: %v, want the 550 to %s", tt.url, err, tt.cmd)
		}
	}
	if n := s.Conns(); n != 2 {
		t.Errorf("%d control connections, want 2: one for each fetcher", n)
	}
}
