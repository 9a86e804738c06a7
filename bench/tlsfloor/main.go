// Command tlsfloor fetches one https URL's body doing as little as a Go
// program can: the floor for the benchmark's https rows, measured against
// curl in the same run (bench/http.sh). It makes one TLS connection with
// crypto/tls, trusting the certificate in CERTFILE, sends one HTTP/1.1
// GET asking the server to close the connection after it, checks for a
// 200 and copies the rest of the connection to standard output, writing a
// mebibyte at a time.
//
// It is no general client: it reads no Content-Length or chunked framing
// (the server's close ends the body) and follows nothing.
//
// Usage: tlsfloor HOST:PORT PATH CERTFILE
package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strings"
)

func main() {
	if len(os.Args) != 4 {
		os.Stderr.WriteString("usage: tlsfloor HOST:PORT PATH CERTFILE\n")
		os.Exit(2)
	}
	pem, err := os.ReadFile(os.Args[3])
	if err != nil {
		os.Stderr.WriteString("tlsfloor: " + err.Error() + "\n")
		os.Exit(1)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		os.Stderr.WriteString("tlsfloor: no certificate in " + os.Args[3] + "\n")
		os.Exit(1)
	}
	if err := fetch(os.Args[1], os.Args[2], pool, os.Stdout); err != nil {
		os.Stderr.WriteString("tlsfloor: " + err.Error() + "\n")
		os.Exit(1)
	}
}

// fetch gets path from the server at addr over TLS, trusting roots, and
// writes the body to w.
func fetch(addr, path string, roots *x509.CertPool, w io.Writer) error {
	if strings.ContainsAny(path, "\r\n\x00 ") {
		return errors.New("the path holds a space, CR, LF or NUL")
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: host})
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: "+addr+"\r\nConnection: close\r\n\r\n"); err != nil {
		return err
	}
	r := bufio.NewReaderSize(c, 16<<10)
	status, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if f := strings.Fields(status); len(f) < 2 || f[1] != "200" {
		return errors.New("response: " + strings.TrimSpace(status))
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if line == "\r\n" || line == "\n" {
			break
		}
	}
	buf := make([]byte, 1<<20)
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
