// Package testnet holds the plumbing the in-process test servers of the
// integration tests share: a loopback listener whose accept loop tracks
// every open connection, a recorder of what clients sent, and a
// self-signed certificate for TLS servers. Each server package keeps its
// protocol and its exported API; only the accepting, closing and
// recording are here, so that they behave the same in every server.
package testnet

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"sync"
	"time"
)

// Listener runs a handler for every connection accepted on a listener and
// keeps the open connections, so that Close can end them all and wait for
// their handlers: a test server then leaves nothing running behind it.
type Listener struct {
	ln     net.Listener
	handle func(c net.Conn, seq int)

	mu       sync.Mutex
	open     map[net.Conn]struct{}
	accepted int
	closed   bool
	wg       sync.WaitGroup
}

// Listen listens on 127.0.0.1:0 and serves it as Serve does.
func Listen(handle func(c net.Conn, seq int)) (*Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return Serve(ln, handle), nil
}

// Serve accepts connections on ln until Close, running handle for each in
// its own goroutine; seq counts the connections accepted, from 0, in the
// order they were accepted. The connection is closed when handle returns.
func Serve(ln net.Listener, handle func(c net.Conn, seq int)) *Listener {
	l := &Listener{ln: ln, handle: handle, open: map[net.Conn]struct{}{}}
	l.wg.Add(1)
	go l.serve()
	return l
}

// Addr returns the listening address.
func (l *Listener) Addr() net.Addr { return l.ln.Addr() }

// Accepted returns how many connections have been accepted.
func (l *Listener) Accepted() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.accepted
}

// Conns returns the connections open now, in no particular order.
func (l *Listener) Conns() []net.Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]net.Conn, 0, len(l.open))
	for c := range l.open {
		out = append(out, c)
	}
	return out
}

// DropConns closes every open connection, as a server restarting or
// timing out idle clients does; the listener keeps accepting.
func (l *Listener) DropConns() {
	l.mu.Lock()
	for c := range l.open {
		c.Close()
	}
	l.mu.Unlock()
}

// Close stops accepting, closes every open connection and waits for the
// handlers to return. Calling it again only waits.
func (l *Listener) Close() {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		l.ln.Close()
	}
	for c := range l.open {
		c.Close()
	}
	l.mu.Unlock()
	l.wg.Wait()
}

func (l *Listener) serve() {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		l.mu.Lock()
		// A connection accepted while Close runs would escape its sweep
		// of the open set and keep Close waiting on its handler.
		if l.closed {
			l.mu.Unlock()
			c.Close()
			return
		}
		seq := l.accepted
		l.accepted++
		l.open[c] = struct{}{}
		l.wg.Add(1)
		l.mu.Unlock()
		go func() {
			defer l.wg.Done()
			defer func() {
				l.mu.Lock()
				delete(l.open, c)
				l.mu.Unlock()
				c.Close()
			}()
			l.handle(c, seq)
		}()
	}
}

// Recorder keeps, in order of arrival, what the clients of a server sent,
// for tests to check exactly what a client did. Its zero value is ready
// to use and it is safe for concurrent use.
type Recorder[T any] struct {
	// Limit, when positive, bounds how many entries are kept; later ones
	// are dropped, so a load test cannot grow the record without end.
	Limit int

	mu      sync.Mutex
	entries []T
}

// Record appends v, unless Limit entries are kept already.
func (r *Recorder[T]) Record(v T) {
	r.mu.Lock()
	if r.Limit <= 0 || len(r.entries) < r.Limit {
		r.entries = append(r.entries, v)
	}
	r.mu.Unlock()
}

// All returns a copy of the entries recorded so far, in order.
func (r *Recorder[T]) All() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]T(nil), r.entries...)
}

// Reset forgets the entries recorded so far.
func (r *Recorder[T]) Reset() {
	r.mu.Lock()
	r.entries = nil
	r.mu.Unlock()
}

// SelfSigned makes a self-signed CA certificate named name, valid from an
// hour ago for a day, for 127.0.0.1, ::1, localhost and any dnsNames given
// (a name that a --resolve entry points at loopback); it returns the
// server's certificate and the parsed leaf for a client's root pool. It
// panics when the key or certificate cannot be made, as a test server
// that cannot start does.
func SelfSigned(name string, dnsNames ...string) (tls.Certificate, *x509.Certificate) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic("testnet: " + err.Error())
	}
	tmpl := &x509.Certificate{
		// A fresh serial per certificate keeps two servers of one test
		// from presenting the same issuer and serial with different keys.
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              append([]string{"localhost"}, dnsNames...),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic("testnet: " + err.Error())
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		panic("testnet: " + err.Error())
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, leaf
}
