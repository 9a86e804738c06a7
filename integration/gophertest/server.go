// Package gophertest runs gopher and Gopher+ servers on the loopback
// interface for tests, in the shape of net/http/httptest. Each server
// records the exact bytes every client sent, so a test can hold them against
// RFC 1436 and RFC 1738 §3.4.
package gophertest

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/integration/internal/testnet"
)

// Request is one request as the server received it.
type Request struct {
	// Raw is every byte the client sent on the connection before the
	// server answered: the request line, its CRLF and any data block.
	Raw []byte

	Selector  string
	Search    string // the field after the selector, when it is not a Gopher+ string
	HasSearch bool
	Plus      string // the Gopher+ string ("+", "+text/plain En_US", "!", "$", …)
	HasPlus   bool
	// DataFlag is true when the Gopher+ string was followed by TAB "1", and
	// Data then holds the lines of the data block (without the final ".").
	DataFlag bool
	Data     []string

	// Host and Port are the server's own address, for menus that point
	// back at it.
	Host string
	Port string
}

// Handler answers one request by writing the reply to w, which is the
// connection itself: io.Copy from an *os.File to it uses sendfile(2).
// The server closes the connection when ServeGopher returns.
type Handler interface {
	ServeGopher(w io.Writer, r *Request)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(w io.Writer, r *Request)

// ServeGopher calls f(w, r).
func (f HandlerFunc) ServeGopher(w io.Writer, r *Request) { f(w, r) }

// MaxRequest bounds what the server reads of one request: the request line
// and any data block together.
const MaxRequest = 64 << 10

// Server is a gopher server listening on a loopback address.
type Server struct {
	// URL is the base URL, "gopher://127.0.0.1:port" (gophers: for a TLS
	// server), without a trailing slash.
	URL string
	// Addr is the listener's host:port.
	Addr string
	// Listener is the server's listener.
	Listener net.Listener
	// TLS is the server's TLS configuration, nil for plain gopher.
	TLS *tls.Config

	handler Handler
	host    string
	port    string
	cert    *x509.Certificate

	l        *testnet.Listener
	requests testnet.Recorder[Request]
	closed   chan struct{}
	once     sync.Once
}

// NewServer starts a gopher server on 127.0.0.1 that answers with h. The
// caller closes it, usually with t.Cleanup(s.Close).
func NewServer(h Handler) *Server {
	return start(h, nil)
}

// NewTLSServer starts a gophers: server (gopher over TLS) with a
// certificate made for 127.0.0.1, ::1 and localhost; ClientTLSConfig trusts it.
func NewTLSServer(h Handler) *Server {
	cert, leaf := testnet.SelfSigned("gophertest")
	s := start(h, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	s.cert = leaf
	return s
}

func start(h Handler, tlsConf *tls.Config) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("gophertest: listen on 127.0.0.1: " + err.Error())
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	scheme := "gopher"
	if tlsConf != nil {
		scheme = "gophers"
	}
	s := &Server{
		URL:      scheme + "://" + ln.Addr().String(),
		Addr:     ln.Addr().String(),
		Listener: ln,
		TLS:      tlsConf,
		handler:  h,
		host:     host,
		port:     port,
		closed:   make(chan struct{}),
	}
	s.l = testnet.Serve(ln, func(c net.Conn, _ int) { s.handle(c) })
	return s
}

// ClientTLSConfig returns a TLS configuration that trusts the server's
// certificate, nil for a plain server.
func (s *Server) ClientTLSConfig() *tls.Config {
	if s.cert == nil {
		return nil
	}
	pool := x509.NewCertPool()
	pool.AddCert(s.cert)
	return &tls.Config{RootCAs: pool}
}

// Requests returns the requests received so far, in the order they came.
func (s *Server) Requests() []Request {
	return s.requests.All()
}

// Closed is closed when Close is called; handlers that stall wait on it.
func (s *Server) Closed() <-chan struct{} { return s.closed }

// Close stops the listener, closes every open connection and waits for the
// handlers to return.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closed)
		s.l.Close()
	})
}

// handle answers one connection; the listener closes it afterwards.
func (s *Server) handle(c net.Conn) {
	var conn net.Conn = c
	if s.TLS != nil {
		tc := tls.Server(c, s.TLS)
		_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
		if err := tc.Handshake(); err != nil {
			return
		}
		_ = tc.SetDeadline(time.Time{})
		conn = tc
	}
	req, err := readRequest(conn)
	if err != nil {
		return
	}
	req.Host, req.Port = s.host, s.port
	s.requests.Record(*req)
	s.handler.ServeGopher(conn, req)
	if tc, ok := conn.(*tls.Conn); ok {
		_ = tc.CloseWrite()
	}
}

// recorder keeps every byte read through it.
type recorder struct {
	r   io.Reader
	buf []byte
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.buf = append(r.buf, p[:n]...)
	return n, err
}

// readRequest reads a request: a line, and the data block when the Gopher+
// string carries the data flag (Gopher+ §2.3, RFC 1738 §3.4.9).
func readRequest(c net.Conn) (*Request, error) {
	rec := &recorder{r: io.LimitReader(c, MaxRequest)}
	br := bufio.NewReader(rec)
	line, err := readLine(br)
	if err != nil {
		return nil, err
	}
	req := &Request{}
	fields := strings.Split(line, "\t")
	req.Selector = fields[0]
	rest := fields[1:]
	if n := len(rest); n >= 2 && rest[n-1] == "1" && isPlus(rest[n-2]) {
		req.DataFlag = true
		rest = rest[:n-1]
	}
	switch len(rest) {
	case 0:
	case 1:
		if isPlus(rest[0]) {
			req.Plus, req.HasPlus = rest[0], true
		} else {
			req.Search, req.HasSearch = rest[0], true
		}
	default:
		req.Search, req.HasSearch = rest[0], true
		req.Plus, req.HasPlus = strings.Join(rest[1:], "\t"), true
	}
	if req.DataFlag {
		for {
			l, err := readLine(br)
			if err != nil {
				return nil, err
			}
			if l == "." {
				break
			}
			req.Data = append(req.Data, l)
		}
	}
	// Whatever else the client sent in the same write belongs to the record.
	if n := br.Buffered(); n > 0 {
		_, _ = br.Discard(n)
	}
	req.Raw = rec.buf
	return req, nil
}

// isPlus tells a Gopher+ string from search terms (Gopher+ §2.3).
func isPlus(f string) bool {
	return f != "" && strings.IndexByte("+!$?", f[0]) >= 0
}

// readLine reads one CRLF-terminated line; a bare LF is accepted too.
func readLine(br *bufio.Reader) (string, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\n")
	return strings.TrimSuffix(line, "\r"), nil
}
