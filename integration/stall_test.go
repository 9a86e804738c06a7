package integration

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/integration/internal/testnet"
	"github.com/urlget/urlget/schemes"
)

// A stalling server accepts, says what its script says and then nothing:
// every scheme must end such a transfer with ErrTimeout within its bound.
// The bounds here are one second; a run must end within stallLimit.
const stallLimit = 5 * time.Second

// stallConn is one connection of a scripted server.
type stallConn struct {
	c  net.Conn
	br *bufio.Reader
}

func (s *stallConn) send(text string) error {
	_, err := io.WriteString(s.c, text)
	return err
}

// line reads one line from the client, "" once it has gone.
func (s *stallConn) line() string {
	l, err := s.br.ReadString('\n')
	if err != nil {
		return ""
	}
	return strings.TrimRight(l, "\r\n")
}

// stall says nothing more until the client closes the connection.
func (s *stallConn) stall() { io.Copy(io.Discard, s.br) }

// stallServer serves script on every connection of a loopback listener,
// over TLS when tlsConf is set, and returns its address.
func stallServer(t *testing.T, tlsConf *tls.Config, script func(s *stallConn)) string {
	t.Helper()
	l, err := testnet.Listen(func(c net.Conn, _ int) {
		if tlsConf != nil {
			c = tls.Server(c, tlsConf)
		}
		script(&stallConn{c: c, br: bufio.NewReader(c)})
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l.Addr().String()
}

// fetchAll fetches url with c and reads its body or listing to the end.
func fetchAll(c *fetch.Client, url string) error {
	res, err := c.Fetch(context.Background(), url)
	if err != nil {
		return err
	}
	if res.Body != nil {
		defer res.Body.Close()
		_, err = io.Copy(io.Discard, res.Body)
		return err
	}
	if res.Listing != nil {
		defer res.Listing.Close()
		for {
			if _, err := res.Listing.Next(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	}
	return nil
}

// stallClient bounds every wait to one second.
func stallClient() *fetch.Client {
	return &fetch.Client{
		ConnectTimeout: time.Second,
		IdleTimeout:    time.Second,
		TLSConfig:      &tls.Config{InsecureSkipVerify: true},
	}
}

// wantTimeout runs url against c and checks it ends in ErrTimeout, with
// want in its message, within stallLimit.
func wantTimeout(t *testing.T, c *fetch.Client, url, want string) {
	t.Helper()
	defer c.Close()
	start := time.Now()
	err := fetchAll(c, url)
	took := time.Since(start)
	switch {
	case !errors.Is(err, schemes.ErrTimeout):
		t.Fatalf("%s: got %v after %v, want a timeout", url, err, took)
	case took > stallLimit:
		t.Fatalf("%s: the timeout took %v", url, took)
	case !strings.Contains(err.Error(), want):
		t.Fatalf("%s: %q does not say %q", url, err, want)
	case strings.Contains(err.Error(), "context canceled"), strings.Contains(err.Error(), "closed network connection"):
		t.Fatalf("%s: %q shows Go internals", url, err)
	}
}

const (
	noReply = "no reply from the server within 1s"
	noData  = "no data from the server for 1s"
)

// httpReply reads a request's header and sends head.
func httpReply(head string) func(s *stallConn) {
	return func(s *stallConn) {
		for s.line() != "" {
		}
		s.send(head)
		s.stall()
	}
}

func TestStallHTTP(t *testing.T) {
	cert, _ := testnet.SelfSigned("127.0.0.1")
	tlsConf := &tls.Config{Certificates: []tls.Certificate{cert}}
	cases := []struct {
		name   string
		script func(s *stallConn)
		want   string
	}{
		{"before the reply", func(s *stallConn) { s.stall() }, noReply},
		{"after the request", httpReply(""), noReply},
		{"in the header", httpReply("HTTP/1.1 200 OK\r\nContent-Len"), noReply},
		{"mid-body", httpReply("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nsome bytes"), noData},
	}
	for _, scheme := range []string{"http", "https"} {
		for _, tc := range cases {
			t.Run(scheme+"/"+tc.name, func(t *testing.T) {
				var conf *tls.Config
				if scheme == "https" {
					conf = tlsConf
				}
				addr := stallServer(t, conf, tc.script)
				wantTimeout(t, stallClient(), scheme+"://"+addr+"/file", tc.want)
			})
		}
	}
	t.Run("https/before the handshake", func(t *testing.T) {
		addr := stallServer(t, nil, func(s *stallConn) { s.stall() })
		wantTimeout(t, stallClient(), "https://"+addr+"/file", noReply)
	})
}

// ftpScript answers an FTP client as a minimal server would, with a file
// of 100000 bytes of which the data connection sends ten, and stalls at
// the first command for which stallAt returns true.
func ftpScript(t *testing.T, stallAt string) func(s *stallConn) {
	return func(s *stallConn) {
		if stallAt == "greeting" {
			s.stall()
			return
		}
		s.send("220 ready\r\n")
		for {
			l := s.line()
			verb, _, _ := strings.Cut(l, " ")
			verb = strings.ToUpper(verb)
			if verb == "" {
				return
			}
			if verb == stallAt {
				s.stall()
				return
			}
			switch verb {
			case "USER":
				s.send("331 password\r\n")
			case "PASS":
				s.send("230 in\r\n")
			case "PWD":
				s.send("257 \"/\"\r\n")
			case "CWD":
				s.send("250 ok\r\n")
			case "TYPE":
				s.send("200 ok\r\n")
			case "SIZE":
				s.send("213 100000\r\n")
			case "EPSV":
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Error(err)
					return
				}
				go func() {
					defer ln.Close()
					dc, err := ln.Accept()
					if err != nil {
						return
					}
					defer dc.Close()
					io.WriteString(dc, "ten bytes.")
					io.Copy(io.Discard, dc)
				}()
				s.send(fmt.Sprintf("229 passive (|||%d|)\r\n", ln.Addr().(*net.TCPAddr).Port))
			case "RETR":
				s.send("150 here it comes\r\n")
			case "QUIT":
				s.send("221 bye\r\n")
				return
			default:
				s.send("502 not here\r\n")
			}
		}
	}
}

func TestStallFTP(t *testing.T) {
	cases := []struct{ stallAt, want string }{
		{"greeting", noReply},
		{"USER", noReply},
		{"PASS", noReply},
		{"EPSV", noReply},
		{"RETR", noReply},
		{"", noData}, // mid-body: ten bytes, then nothing
	}
	for _, tc := range cases {
		t.Run("at "+tc.stallAt, func(t *testing.T) {
			addr := stallServer(t, nil, ftpScript(t, tc.stallAt))
			wantTimeout(t, stallClient(), "ftp://"+addr+"/file.bin", tc.want)
		})
	}
}

func TestStallGopher(t *testing.T) {
	cases := []struct {
		name   string
		script func(s *stallConn)
		want   string
	}{
		{"before the reply", func(s *stallConn) { s.stall() }, noReply},
		{"after the selector", func(s *stallConn) { s.line(); s.stall() }, noReply},
		{"mid-body", func(s *stallConn) { s.line(); s.send(strings.Repeat("some bytes\r\n", 1000)); s.stall() }, noData},
		{"mid-menu", func(s *stallConn) { s.line(); s.send("0file\t/f\th\t70\r\n"); s.stall() }, noData},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr := stallServer(t, nil, tc.script)
			typ := "9"
			if tc.name == "mid-menu" {
				typ = "1"
			}
			wantTimeout(t, stallClient(), "gopher://"+addr+"/"+typ+"/sel", tc.want)
		})
	}
}

// nntpScript answers an NNTP reader, stalling at the first command whose
// verb is stallAt; an ARTICLE not stalled at sends a head and stalls.
func nntpScript(stallAt string) func(s *stallConn) {
	return func(s *stallConn) {
		if stallAt == "greeting" {
			s.stall()
			return
		}
		s.send("200 ready\r\n")
		for {
			l := s.line()
			verb, _, _ := strings.Cut(l, " ")
			verb = strings.ToUpper(verb)
			switch {
			case verb == "":
				return
			case verb == stallAt:
				s.stall()
				return
			case verb == "CAPABILITIES":
				s.send("101 capabilities\r\nVERSION 2\r\nREADER\r\n.\r\n")
			case verb == "MODE":
				s.send("200 reader\r\n")
			case verb == "GROUP":
				s.send("211 1 1 1 misc.test\r\n")
			case verb == "ARTICLE" || verb == "BODY":
				s.send("220 1 <a@b> article\r\nSubject: x\r\n\r\nfirst line\r\n")
				s.stall()
				return
			case verb == "QUIT":
				s.send("205 bye\r\n")
				return
			default:
				s.send("500 what\r\n")
			}
		}
	}
}

func TestStallNNTP(t *testing.T) {
	cases := []struct{ stallAt, want string }{
		{"greeting", noReply},
		{"after greeting", noReply}, // no verb matches: the first command stalls below
		{"GROUP", noReply},
		{"ARTICLE", noReply},
		{"", noData}, // mid-article
	}
	for _, tc := range cases {
		t.Run("at "+tc.stallAt, func(t *testing.T) {
			script := nntpScript(tc.stallAt)
			if tc.stallAt == "after greeting" {
				script = func(s *stallConn) { s.send("200 ready\r\n"); s.stall() }
			}
			addr := stallServer(t, nil, script)
			wantTimeout(t, stallClient(), "nntp://"+addr+"/misc.test/1", tc.want)
		})
	}
}

func TestStallWAIS(t *testing.T) {
	cases := []struct {
		name   string
		script func(s *stallConn)
	}{
		{"before the reply", func(s *stallConn) { s.stall() }},
		{"after the request", func(s *stallConn) { s.br.ReadByte(); s.stall() }},
		// The start of a reply's 25-byte header (Z39.50-1988 over
		// WAIS: a ten-digit length first), then nothing.
		{"mid-reply", func(s *stallConn) { s.br.ReadByte(); s.send("0000000"); s.stall() }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr := stallServer(t, nil, tc.script)
			wantTimeout(t, stallClient(), "wais://"+addr+"/db?query", noReply)
		})
	}
}

// trickle sends an HTTP reply of total bytes, n every gap.
func trickle(total, n int, gap time.Duration) func(s *stallConn) {
	return func(s *stallConn) {
		for s.line() != "" {
		}
		s.send(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", total))
		for sent := 0; sent < total; sent += n {
			if s.send(strings.Repeat("x", min(n, total-sent))) != nil {
				return
			}
			time.Sleep(gap)
		}
	}
}

func TestSpeedLimit(t *testing.T) {
	// 10 bytes every 100 ms: 100 bytes/s, below a limit of 1000.
	addr := stallServer(t, nil, trickle(100000, 10, 100*time.Millisecond))
	c := stallClient()
	c.LowSpeedLimit, c.LowSpeedTime = 1000, time.Second
	wantTimeout(t, c, "http://"+addr+"/slow", "transfer slower than 1000 bytes/s for 1s")
}

func TestSlowButLive(t *testing.T) {
	// 100 bytes every 100 ms for 1.5 s: above a limit of 100 bytes/s, and
	// never a second without a byte, so neither bound ends it.
	addr := stallServer(t, nil, trickle(1500, 100, 100*time.Millisecond))
	for _, limit := range []int64{0, 100} {
		c := stallClient()
		c.LowSpeedLimit = limit
		if limit > 0 {
			c.LowSpeedTime = time.Second
		}
		res, err := c.Fetch(context.Background(), "http://"+addr+"/slow")
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		c.Close()
		if err != nil || n != 1500 {
			t.Fatalf("limit %d: read %d bytes, %v", limit, n, err)
		}
	}
}

func TestSpeedTimeAlone(t *testing.T) {
	// -y alone means a limit of 1 byte/s: a silent body ends after it.
	addr := stallServer(t, nil, httpReply("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nx"))
	c := stallClient()
	c.IdleTimeout = -1
	c.LowSpeedTime = time.Second
	wantTimeout(t, c, "http://"+addr+"/slow", "transfer slower than 1 bytes/s for 1s")
}

// pausingWriter is a destination that stops taking bytes once, for pause,
// as a pager does while its reader looks at a page.
type pausingWriter struct {
	pause  time.Duration
	paused bool
	n      int64
}

func (w *pausingWriter) Write(p []byte) (int, error) {
	if !w.paused && w.n > 0 {
		w.paused = true
		time.Sleep(w.pause)
	}
	w.n += int64(len(p))
	return len(p), nil
}

// TestSlowDestination: time spent writing to a destination that stops
// taking bytes is not held against the server. The idle bound is one
// second, and the destination pauses for two and a half, over a plain
// connection (which the copy may read as a socket) and over TLS (read
// into a buffer).
func TestSlowDestination(t *testing.T) {
	const size = 4 << 20
	cert, _ := testnet.SelfSigned("127.0.0.1")
	tlsConf := &tls.Config{Certificates: []tls.Certificate{cert}}
	body := strings.Repeat("x", size)
	for _, scheme := range []string{"http", "https"} {
		t.Run(scheme, func(t *testing.T) {
			var conf *tls.Config
			if scheme == "https" {
				conf = tlsConf
			}
			addr := stallServer(t, conf, func(s *stallConn) {
				s.line()
				s.send(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", size, body))
				s.stall()
			})
			c := stallClient()
			defer c.Close()
			res, err := c.Fetch(context.Background(), scheme+"://"+addr+"/file")
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			w := &pausingWriter{pause: 2500 * time.Millisecond}
			n, err := io.Copy(w, res.Body)
			if err != nil || n != size || !w.paused {
				t.Fatalf("copied %d of %d bytes (paused %v): %v", n, size, w.paused, err)
			}
		})
	}
}
