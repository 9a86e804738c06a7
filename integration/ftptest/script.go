package ftptest

import (
	"testing/fstest"
	"time"
)

// ScriptEnv is the part of a testscript environment (testscript.Env) that
// SetupScript needs.
type ScriptEnv interface {
	Setenv(key, value string)
	Defer(func())
}

// SetupScript starts the servers the command-level ftp scripts use and
// names them in env, each as a URL and as NAME_HOST (host:port): FTP (a well-behaved server; user "user" with password
// "secret" logs in to /home/user), FTP_TRUNC (every long file cut after
// 1000 bytes with 426), FTP_SHORT (cut with a lying 226), FTP_STALL (no
// answer to RETR), FTP_BADPASV (no EPSV and a malformed PASV reply) and
// FTP_GARBAGE (2 GiB without a line end in answer to USER).
func SetupScript(env ScriptEnv) error {
	start := func(name string, configure func(s *Server)) {
		s := NewUnstartedServer(ScriptTree())
		s.Users = map[string]string{"user": "secret"}
		s.Home = map[string]string{"user": "/home/user"}
		if configure != nil {
			configure(s)
		}
		s.Start()
		env.Defer(s.Close)
		env.Setenv(name, s.URL)
		env.Setenv(name+"_HOST", s.Addr)
	}
	start("FTP", nil)
	start("FTP_TRUNC", func(s *Server) {
		s.Truncate, s.TruncateAt, s.TruncateReply = true, 1000, "426 Connection closed; transfer aborted."
	})
	start("FTP_SHORT", func(s *Server) { s.Truncate, s.TruncateAt, s.TruncateReply = true, 1000, "226 Transfer complete." })
	start("FTP_STALL", func(s *Server) { s.Stall = map[string]bool{"RETR": true} })
	start("FTP_BADPASV", func(s *Server) {
		s.NoEPSV = true
		s.Reply = map[string]string{"PASV": "227 Entering Passive Mode (127,0,0,1,300,1)."}
	})
	start("FTP_GARBAGE", func(s *Server) { s.Garbage = map[string]int64{"USER": 2 << 30} })
	return nil
}

// ScriptTree is the content the script servers serve.
func ScriptTree() fstest.MapFS {
	mod := time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)
	f := func(s string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(s), Mode: 0o644, ModTime: mod}
	}
	big := make([]byte, 100000)
	for i := range big {
		big[i] = byte(i)
	}
	return fstest.MapFS{
		"motd":               f("root motd\n"),
		"etc/motd":           f("etc motd\n"),
		"one/only.txt":       f("only\n"),
		"text/crlf.txt":      f("line one\r\nline two\r\n"),
		"bin/big.bin":        {Data: big, Mode: 0o644, ModTime: mod},
		"home/user/mine.txt": f("mine\n"),
	}
}
