// Command ftpfloor fetches one file over FTP doing as little as a Go
// program can: the floor for the benchmark's "ftp 100 processes" row,
// measured against curl in the same run (bench/ftp.sh). It logs in as
// anonymous, sends its four commands in one write, connects to the passive
// port, retrieves the file to standard output and leaves without waiting
// for the reply to QUIT.
//
// It is no general client: it sends the password, TYPE and PASV before
// the replies to USER and PASS have come, which vsftpd allows (it reads
// the control connection one line at a time, so the process that takes
// over after the login reads what the first one left), and which a client
// that must work with any server (RFC 959 §5.4 has the client wait for
// each reply) cannot assume. Nothing in the URL syntax is handled.
//
// Usage: ftpfloor HOST:PORT PATH
package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		os.Stderr.WriteString("usage: ftpfloor HOST:PORT PATH\n")
		os.Exit(2)
	}
	if err := fetch(os.Args[1], os.Args[2], os.Stdout); err != nil {
		os.Stderr.WriteString("ftpfloor: " + err.Error() + "\n")
		os.Exit(1)
	}
}

// fetch retrieves path from the server at addr into w.
func fetch(addr, path string, w io.Writer) error {
	if strings.ContainsAny(path, "\r\n\x00") {
		return errors.New("the path holds CR, LF or NUL")
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if _, err := expect(r, "220"); err != nil {
		return err
	}
	if _, err := io.WriteString(c, "USER anonymous\r\nPASS ftpfloor@\r\nTYPE I\r\nPASV\r\n"); err != nil {
		return err
	}
	for _, code := range []string{"331", "230", "200"} {
		if _, err := expect(r, code); err != nil {
			return err
		}
	}
	line, err := expect(r, "227")
	if err != nil {
		return err
	}
	data, err := passive(line)
	if err != nil {
		return err
	}
	d, err := net.Dial("tcp", data)
	if err != nil {
		return err
	}
	defer d.Close()
	if _, err := io.WriteString(c, "RETR "+path+"\r\n"); err != nil {
		return err
	}
	if _, err := expect(r, "150"); err != nil {
		return err
	}
	if _, err := io.Copy(w, d); err != nil {
		return err
	}
	// vsftpd sends 226 once the client has closed its end of the data
	// connection.
	d.Close()
	if _, err := expect(r, "226"); err != nil {
		return err
	}
	_, err = io.WriteString(c, "QUIT\r\n")
	return err
}

// expect reads one reply, the lines of a multi-line one included (RFC 959
// §4.2), and returns its last line when its code is code.
func expect(r *bufio.Reader, code string) (string, error) {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		if len(line) >= 4 && line[3] == ' ' {
			if line[:3] != code {
				return "", errors.New("expected " + code + ", got " + strings.TrimSpace(line))
			}
			return line, nil
		}
	}
}

// passive returns the address of a 227 reply's "(h1,h2,h3,h4,p1,p2)"
// (RFC 959 §4.1.2, PASV).
func passive(line string) (string, error) {
	i, j := strings.IndexByte(line, '('), strings.IndexByte(line, ')')
	if i < 0 || j < i {
		return "", errors.New("no address in " + strings.TrimSpace(line))
	}
	f := strings.Split(line[i+1:j], ",")
	if len(f) != 6 {
		return "", errors.New("no address in " + strings.TrimSpace(line))
	}
	var n [6]int
	for k, s := range f {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 || v > 255 {
			return "", errors.New("no address in " + strings.TrimSpace(line))
		}
		n[k] = v
	}
	host := strings.Join(f[:4], ".")
	return net.JoinHostPort(host, strconv.Itoa(n[4]<<8|n[5])), nil
}
