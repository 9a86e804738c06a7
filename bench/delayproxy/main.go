// Command delayproxy forwards TCP connections from a port on 127.0.0.1 to
// another address, holding every chunk of bytes back for a fixed delay in
// each direction: connections with the round trip of a distant server,
// for the benchmark's rows that count round trips (bench/ftp.sh,
// bench/gopher.sh). Chunks keep their order and are not slowed down
// otherwise: each leaves the delay after it arrived, however many are on
// their way. A connection's handshake is local and instant here, where
// across a network it takes a round trip: no byte is passed on before one
// round trip after the connection was accepted, so that a client that
// connects ahead of its request saves what it would save there. It prints
// its address on the first line of standard output and runs until
// interrupted.
//
// With -ports LO-HI it also forwards each port P of the range, on the host
// it listens on, to the same port P of the -to host: the passive data
// ports of an FTP server whose PASV replies name the proxy's host
// (vsftpd's pasv_address), so that data connections cross the same
// distance as the control connection (bench/mirror.sh).
//
// Usage: delayproxy -to HOST:PORT [-delay 5ms] [-listen HOST:PORT] [-ports LO-HI]
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	to := flag.String("to", "", "address to forward to")
	delay := flag.Duration("delay", 5*time.Millisecond, "delay each way")
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	ports := flag.String("ports", "", "a range LO-HI of ports also forwarded, each to the same port of the -to host")
	flag.Parse()
	if *to == "" {
		fmt.Fprintln(os.Stderr, "usage: delayproxy -to HOST:PORT [-delay 5ms] [-listen HOST:PORT] [-ports LO-HI]")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "delayproxy:", err)
		os.Exit(1)
	}
	if *ports != "" {
		if _, err := forwardPorts(*ports, ln.Addr().String(), *to, *delay); err != nil {
			fmt.Fprintln(os.Stderr, "delayproxy:", err)
			os.Exit(1)
		}
	}
	fmt.Println(ln.Addr())
	go serve(ln, *to, *delay)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	ln.Close()
}

// forwardPorts listens on each port of the range spec ("LO-HI") at the
// host of listen and forwards it to the same port of the host of to. It
// returns the listeners, which serve until closed.
func forwardPorts(spec, listen, to string, delay time.Duration) ([]net.Listener, error) {
	lo, hi, ok := strings.Cut(spec, "-")
	first, err1 := strconv.Atoi(lo)
	last, err2 := strconv.Atoi(hi)
	if !ok || err1 != nil || err2 != nil || first < 1 || last > 65535 || first > last {
		return nil, fmt.Errorf("-ports %q: want LO-HI, two port numbers", spec)
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, err
	}
	toHost, _, err := net.SplitHostPort(to)
	if err != nil {
		return nil, err
	}
	var lns []net.Listener
	for p := first; p <= last; p++ {
		port := strconv.Itoa(p)
		ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return nil, err
		}
		lns = append(lns, ln)
		go serve(ln, net.JoinHostPort(toHost, port), delay)
	}
	return lns, nil
}

// serve forwards every connection ln accepts to addr until ln is closed.
func serve(ln net.Listener, addr string, delay time.Duration) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		open := time.Now().Add(2 * delay)
		go func() {
			defer c.Close()
			s, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer s.Close()
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); forward(s, c, open, delay) }()
			go func() { defer wg.Done(); forward(c, s, open, delay) }()
			wg.Wait()
		}()
	}
}

// chunk is bytes read at a time, to be written at at.
type chunk struct {
	b  []byte
	at time.Time
}

// forward copies src to dst, each chunk delay after it was read or after
// open (when the handshake would have ended), whichever is later, and then
// half-closes dst (or closes it) so that the end of the stream is passed
// on, delayed like the bytes.
func forward(dst, src net.Conn, open time.Time, delay time.Duration) {
	q := make(chan chunk, 1024)
	due := func() time.Time {
		t := time.Now()
		if t.Before(open) {
			t = open
		}
		return t.Add(delay)
	}
	go func() {
		defer close(q)
		for {
			b := make([]byte, 32<<10)
			n, err := src.Read(b)
			if n > 0 {
				q <- chunk{b[:n], due()}
			}
			if err != nil {
				q <- chunk{nil, due()}
				return
			}
		}
	}()
	for c := range q {
		time.Sleep(time.Until(c.at))
		if c.b == nil {
			break
		}
		if _, err := dst.Write(c.b); err != nil {
			// The other side is gone: drain the reader so it ends.
			go func() {
				for range q {
				}
			}()
			return
		}
	}
	if tc, ok := dst.(*net.TCPConn); ok {
		tc.CloseWrite()
	} else {
		dst.Close()
	}
}
