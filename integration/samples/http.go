package samples

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
)

// sampleFiles is the content the file: and http: samples share.
var sampleFiles = map[string]string{
	"hello.txt":           "hello, world\n",
	"docs/readme.txt":     "urlget fetches what RFC 1738 URLs name.\n",
	"docs/a name; #1.txt": "a name that needs escaping\n",
	"docs/naïve café.txt": "UTF-8 names work too\n",
}

func writeSamples(dir string) error {
	for name, body := range sampleFiles {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// File writes the sample files under dir and names them with file: URLs.
func File(dir string) (*Sample, error) {
	if err := writeSamples(dir); err != nil {
		return nil, err
	}
	return &Sample{Name: "file", Base: "file://" + dir, URLs: []string{"file://" + dir + "/hello.txt", "file://" + dir + "/docs/"}, Close: func() {}}, nil
}

// HTTP serves the sample files over HTTP.
func HTTP(dir string) (*Sample, error) {
	if err := writeSamples(dir); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir))}
	go srv.Serve(l)
	base := "http://" + l.Addr().String()
	return &Sample{Name: "http", Base: base, Addr: l.Addr().String(), URLs: []string{base + "/hello.txt", base + "/docs/"}, Close: func() { srv.Close() }}, nil
}
