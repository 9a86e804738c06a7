package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// TestFetch runs fetch against a server on 127.0.0.1 that answers as
// vsftpd does, and checks the commands it was sent and the bytes that
// came out.
func TestFetch(t *testing.T) {
	ctl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	dl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	body := bytes.Repeat([]byte("0123456789abcdef"), 1000)
	got := make(chan []string, 1)
	go func() {
		var cmds []string
		defer func() { got <- cmds }()
		c, err := ctl.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(c)
		fmt.Fprintf(c, "220-Welcome\r\n220 (vsFTPd 3.0.3)\r\n")
		port := dl.Addr().(*net.TCPAddr).Port
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			cmd := strings.TrimRight(line, "\r\n")
			cmds = append(cmds, cmd)
			switch {
			case strings.HasPrefix(cmd, "USER"):
				fmt.Fprintf(c, "331 Please specify the password.\r\n")
			case strings.HasPrefix(cmd, "PASS"):
				fmt.Fprintf(c, "230 Login successful.\r\n")
			case cmd == "TYPE I":
				fmt.Fprintf(c, "200 Switching to Binary mode.\r\n")
			case cmd == "PASV":
				fmt.Fprintf(c, "227 Entering Passive Mode (127,0,0,1,%d,%d).\r\n", port>>8, port&0xff)
			case strings.HasPrefix(cmd, "RETR"):
				d, err := dl.Accept()
				if err != nil {
					return
				}
				fmt.Fprintf(c, "150 Opening BINARY mode data connection.\r\n")
				d.Write(body)
				d.Close()
				fmt.Fprintf(c, "226 Transfer complete.\r\n")
			case cmd == "QUIT":
				return
			}
		}
	}()
	var out bytes.Buffer
	if err := fetch(ctl.Addr().String(), "one/f1", &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), body) {
		t.Errorf("fetched %d bytes, want the server's %d", out.Len(), len(body))
	}
	want := []string{"USER anonymous", "PASS ftpfloor@", "TYPE I", "PASV", "RETR one/f1", "QUIT"}
	if cmds := <-got; strings.Join(cmds, "|") != strings.Join(want, "|") {
		t.Errorf("commands %q, want %q", cmds, want)
	}
}

func TestFetchRefusesLineBreaks(t *testing.T) {
	for _, p := range []string{"a\r\nDELE b", "a\nb", "a\x00b"} {
		if err := fetch("127.0.0.1:1", p, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "CR, LF or NUL") {
			t.Errorf("fetch(%q) = %v, want the path refused", p, err)
		}
	}
}

func TestPassive(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"227 Entering Passive Mode (127,0,0,1,117,48).\r\n", "127.0.0.1:30000"},
		{"227 =127,0,0,1,0,21\r\n", ""},
		{"227 (127,0,0,1,300,1)\r\n", ""},
		{"227 (127,0,0,1,1)\r\n", ""},
	} {
		got, err := passive(c.line)
		if c.want == "" {
			if err == nil {
				t.Errorf("passive(%q) = %q, want an error", c.line, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("passive(%q) = %q, %v; want %q", c.line, got, err, c.want)
		}
	}
}
