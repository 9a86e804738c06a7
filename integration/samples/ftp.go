package samples

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urlget/urlget/integration/ftptest"
)

// FTP starts an FTP server over a small tree written under dir: a
// nested directory, names that need escaping, a CRLF text file for
// ;type=a, a binary file and an empty one. Anonymous login works, and so
// does user "user" with password "secret", whose login directory is
// /home/user (so that relative and %2F-absolute paths differ).
func FTP(dir string) (*Sample, error) {
	bin := make([]byte, 1<<16)
	for i := range bin {
		bin[i] = byte(i)
	}
	files := map[string][]byte{
		"motd":                         []byte("Welcome to ftptest.\n"),
		"etc/motd":                     []byte("The motd in /etc.\n"),
		"one/only.txt":                 []byte("The only file here.\n"),
		"pub/dir with space/a;b#c.txt": []byte("A name that needs escaping.\n"),
		"pub/ünïcødé.txt":              []byte("UTF-8 name.\n"),
		"pub/crlf.txt":                 []byte("line one\r\nline two\r\n"),
		"pub/all.bin":                  bin,
		"pub/empty":                    nil,
		"home/user/mine.txt":           []byte("In user's login directory.\n"),
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
	}
	s := ftptest.NewUnstartedServer(os.DirFS(dir))
	s.Users = map[string]string{"user": "secret"}
	s.Home = map[string]string{"user": "/home/user"}
	s.MLSD = true
	s.Start()
	host := strings.TrimPrefix(s.URL, "ftp://")
	urls := []string{
		s.URL + "/",
		s.URL + "/motd",
		s.URL + "/etc/motd",
		s.URL + "/%2Fetc/motd",
		s.URL + "//etc/motd",
		s.URL + "/one/;type=d",
		s.URL + "/pub/",
		s.URL + "/pub/crlf.txt;type=a",
		s.URL + "/pub/dir%20with%20space/a%3Bb%23c.txt",
		"ftp://user:secret@" + host + "/mine.txt",
		"ftp://user:secret@" + host + "/%2Fmotd",
	}
	return &Sample{Name: "ftp", Base: s.URL, Addr: host, URLs: urls, Close: s.Close}, nil
}
